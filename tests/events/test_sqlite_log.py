"""The SQLite log: the shared store contract, append-only triggers, WAL, and tamper detection."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from events.errors import ConcurrencyError, StoreError
from events.store import SqliteLog, SqliteReader
from tests.events.store_contract import (  # noqa: F401  (the contract runs here)
    opened,
    request,
    rolled,
    test_append_numbers_events_from_one_per_campaign,
    test_commands_remember_what_each_command_appended,
    test_each_event_has_its_chain_hash_in_the_append_and_the_rows,
    test_event_frames_are_the_outgoing_event_frames_of_the_rows,
    test_frame_pages_are_the_event_frames_framed_page_by_page,
    test_rows_round_trip_every_field,
    test_stale_head_is_refused_and_appends_nothing,
    test_verify_passes_an_untouched_log,
)


def _filled(log: SqliteLog) -> Path:
    log.append_batch([request("a", 0, opened("a"), rolled(1), rolled(2), rolled(3))])
    log.append_batch([request("b", 0, opened("b"), rolled(9), command="b")])
    return log.path


def _tamper(path: Path, *statements: str) -> None:
    """Edit the file as an attacker with the sqlite3 shell would: triggers dropped first."""
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TRIGGER events_no_update")
        connection.execute("DROP TRIGGER events_no_delete")
        for statement in statements:
            connection.execute(statement)


def test_events_are_append_only(log) -> None:
    """UPDATE and DELETE of an event are refused by the database itself."""
    path = _filled(log)
    with sqlite3.connect(path) as connection:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute("UPDATE events SET payload = '{}' WHERE seq = 2")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute("DELETE FROM events WHERE seq = 2")


def test_log_uses_wal_and_full_sync(log) -> None:
    """WAL lets readers run beside the writer; FULL sync makes each commit durable."""
    assert log.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_verify_catches_an_edited_event(log) -> None:
    """Changing one payload breaks the chain at that event."""
    path = _filled(log)
    _tamper(path, "UPDATE events SET payload = replace(payload, '\"total\":2', '\"total\":6')"
                  " WHERE campaign = 'a' AND seq = 3")
    checked, problems = SqliteReader(path).verify()
    assert checked == 6
    assert [(p.campaign, p.seq) for p in problems] == [("a", 3)]


def test_verify_catches_a_deleted_event(log) -> None:
    """Dropping an event leaves a gap the chain reports."""
    path = _filled(log)
    _tamper(path, "DELETE FROM events WHERE campaign = 'a' AND seq = 2")
    _, problems = SqliteReader(path).verify()
    assert ("a", 3) in [(p.campaign, p.seq) for p in problems]
    assert any("dropped" in p.problem for p in problems)


def test_verify_catches_swapped_events(log) -> None:
    """Swapping two events' payloads (reordering history) breaks the chain."""
    path = _filled(log)
    _tamper(path,
            "CREATE TEMP TABLE p AS SELECT seq, payload FROM events WHERE campaign = 'a'",
            "UPDATE events SET payload = (SELECT payload FROM p WHERE p.seq = 5 - events.seq)"
            " WHERE campaign = 'a' AND seq IN (2, 3)")
    _, problems = SqliteReader(path).verify()
    assert {p.seq for p in problems if p.campaign == "a"} >= {2, 3}
    assert not [p for p in problems if p.campaign == "b"]


def test_reopening_continues_the_chain(log) -> None:
    """A reopened log appends after its head and still verifies."""
    path = _filled(log)
    log.close()
    reopened = SqliteLog(path)
    assert reopened.append_batch([request("a", 4, rolled(4), command="again")]) == [[5]]
    assert reopened.verify() == (7, [])
    reopened.close()


def test_recorded_pages_upcast_when_an_upcaster_is_registered(log, monkeypatch) -> None:
    """The rebuild's page scan gives the same events on its fast path and its upcasting path."""
    from events import codec, core
    from events.log import recorded_pages

    _filled(log)
    fast = [(c, r.seq, r.event) for page in recorded_pages(log) for c, r in page]
    assert [seq for c, seq, _ in fast if c == "a"] == [1, 2, 3, 4]
    monkeypatch.setattr(core.DiceRolled, "schema_version", 2)
    monkeypatch.setitem(codec.UPCASTERS, ("dice_rolled", 1),
                        lambda old: {**old, "reason": "upcast"})
    slow = [(c, r.seq, r.event) for page in recorded_pages(log) for c, r in page]
    assert [(c, s) for c, s, _ in slow] == [(c, s) for c, s, _ in fast]
    assert {e.reason for _, _, e in slow if isinstance(e, core.DiceRolled)} == {"upcast"}


def test_verify_catches_the_last_events_deleted(log) -> None:
    """Removing a campaign's last events, which no later hash covers, is still reported."""
    path = _filled(log)
    _tamper(path, "DELETE FROM events WHERE campaign = 'a' AND seq >= 3")
    _, problems = SqliteReader(path).verify()
    assert [(p.campaign, p.seq) for p in problems] == [("a", 3)]
    assert "3 to 4 are missing" in problems[0].problem


def test_verify_catches_an_event_its_command_did_not_append(log) -> None:
    """An event whose command id the commands table does not cover is reported."""
    path = _filled(log)
    _tamper(path, "DROP TRIGGER commands_no_delete",
            "DELETE FROM commands WHERE campaign = 'b'")
    _, problems = SqliteReader(path).verify()
    assert [(p.campaign, p.seq) for p in problems] == [("b", 1), ("b", 2)]
    assert all("did not append" in p.problem for p in problems)


def test_append_hashes_chain_any_text(log) -> None:
    """The writer's inline hash is the chain's own, for non-ASCII ids and multi-event commands."""
    from events.log import chain_hash

    appended = log.append_batch([
        request("café-☕", 0, opened("cafe"), rolled(1), actor="gm-é", command="ç-1"),
        request("b", 0, opened("b"), command="b1"),
        request("café-☕", 2, rolled(2), actor="ünïcode", command="ç-2")])
    rows = list(log.rows("café-☕"))
    assert [r.hash for r in rows] == appended[0].hashes + appended[2].hashes
    previous = "0" * 64
    for row in rows:
        assert chain_hash(previous, "café-☕", row) == row.hash
        previous = row.hash
    assert log.verify() == (4, [])


def test_a_failed_transaction_appends_nothing_and_the_log_goes_on(log) -> None:
    """A batch SQLite refuses (here a trigger aborts one row) is rolled back whole; the next
    one commits, and the commands it recorded are found."""
    log.db.execute("CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.campaign = 'b'"
                   " BEGIN SELECT RAISE(ABORT, 'boom'); END")
    results = log.append_batch([request("a", 0, opened("a"), command="same"),
                                request("b", 0, opened("b"), command="x")])
    assert all(isinstance(r, StoreError) for r in results)
    assert log.head("a") == log.head("b") == 0
    log.db.execute("DROP TRIGGER boom")
    assert log.append_batch([request("a", 0, opened("a"), command="again"),
                             request("b", 0, opened("b"), command="x")]) == [[1], [1]]
    assert log.command_records("a", ["again", "same"]).keys() == {"again"}
    assert log.verify() == (2, [])


def test_a_command_id_twice_is_refused_and_the_rest_commits(log) -> None:
    """The store itself keeps ``(campaign, command_id)`` unique: a repeat in the same batch,
    or of a command already in the log, appends nothing; the other requests commit."""
    results = log.append_batch([request("a", 0, opened("a"), command="same"),
                                request("b", 0, opened("b"), command="same"),
                                request("a", 1, rolled(1), command="same")])
    assert results[:2] == [[1], [1]]
    assert isinstance(results[2], ConcurrencyError) and "'same'" in str(results[2])
    (again,) = log.append_batch([request("a", 1, rolled(1), command="same")])
    assert isinstance(again, ConcurrencyError)
    assert log.head("a") == 1 and log.verify() == (2, [])
