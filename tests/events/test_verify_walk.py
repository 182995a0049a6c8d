"""`verify` walks the log in append order, in segments: interleaved campaigns, every break.

Each case runs twice: walked in this process as one segment, and cut into three segments (two
of them walked by child processes), which must find exactly the same problems.
"""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from events import store_verify
from events.chain import link_hash
from events.store import SqliteLog, SqliteReader
from events.store_verify import Problem, Segment, segment_starts, verify_file, walk_segment
from tests.events.store_contract import opened, request, rolled

CAMPAIGNS = ("a", "b", "c")
ROUNDS = 12


def _interleaved(path: Path) -> Path:
    """Three campaigns appended in turn, one or two events a command, over several batches."""
    log = SqliteLog(path)
    heads = dict.fromkeys(CAMPAIGNS, 0)
    for k in range(ROUNDS):
        batch = []
        for campaign in CAMPAIGNS:
            events = [opened(campaign)] if k == 0 else [rolled(k)] * (1 + k % 2)
            batch.append(request(campaign, heads[campaign], *events, command=f"{campaign}{k}"))
            heads[campaign] += len(events)
        assert all(isinstance(r, list) for r in log.append_batch(batch))
    log.close()
    return path


def _tamper(path: Path, *statements: str) -> None:
    """Edit the file as someone with the sqlite3 shell would: the guards dropped first."""
    with sqlite3.connect(path) as connection:
        for table in ("events", "commands"):
            for guard in ("no_update", "no_delete"):
                connection.execute(f"DROP TRIGGER IF EXISTS {table}_{guard}")
        for statement in statements:
            connection.execute(statement)


def _both_ways(path: Path) -> tuple[int, list[Problem]]:
    """Verify in one segment and in three; they must agree, and the three must be three."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    whole = verify_file(uri, segment_events=10**9)
    cut = verify_file(uri, segment_events=1, workers=3)
    assert cut == whole
    return whole


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return _interleaved(tmp_path / "log.db")


def test_an_interleaved_log_verifies_clean(path: Path) -> None:
    """Campaigns appended in turn chain cleanly, walked whole or in segments."""
    assert _both_ways(path) == (54, [])  # per campaign: 1 + 6 commands of 2 + 5 of 1
    assert SqliteReader(path).verify() == (54, [])
    with sqlite3.connect(path) as connection:  # the cut case really is cut in three
        assert len(segment_starts(connection, 3)) == 3


@pytest.mark.parametrize("seq", [1, 2, 9, 17])
def test_an_edited_event_is_found_wherever_the_segments_fall(path: Path, seq: int) -> None:
    """An edited payload breaks its own link and no other, in any segment."""
    _tamper(path, f"UPDATE events SET payload = payload || ' ' WHERE campaign = 'b'"
                  f" AND seq = {seq}")
    checked, problems = _both_ways(path)
    assert checked == 54
    assert [(p.campaign, p.seq, p.problem) for p in problems] == [
        ("b", seq, "hash does not match: edited, or out of order")]


@pytest.mark.parametrize("seq", [2, 9, 16])
def test_a_dropped_event_is_found_wherever_the_segments_fall(path: Path, seq: int) -> None:
    """An event deleted (its command row too) leaves a gap the next event reports."""
    _tamper(path, f"DELETE FROM events WHERE campaign = 'c' AND seq = {seq}")
    _, problems = _both_ways(path)
    assert ("c", seq + 1, f"expected event {seq}: dropped or moved") in problems
    assert {p.campaign for p in problems} == {"c"}


def test_events_moved_in_append_order_are_found(path: Path) -> None:
    """Two events of one campaign swapped in position (each row intact) are out of order.

    Read campaign by campaign in sequence order they would still chain; the server folds
    the log in append order, so verify walks that order and reports the move.
    """
    _tamper(path,
            "CREATE TEMP TABLE was AS SELECT seq, position FROM events"
            " WHERE campaign = 'a' AND seq IN (5, 6)",
            "UPDATE events SET position = -seq WHERE campaign = 'a' AND seq IN (5, 6)",
            "UPDATE events SET position = (SELECT position FROM was"
            " WHERE was.seq = 11 + events.position) WHERE position IN (-5, -6)")
    _, problems = _both_ways(path)
    assert ("a", 6, "expected event 5: dropped or moved") in problems
    assert all(p.campaign == "a" for p in problems)


def test_a_deleted_command_row_is_reported_for_each_of_its_events(path: Path) -> None:
    """The commands table out of step with the events: the exact check names each event."""
    _tamper(path, "DELETE FROM commands WHERE campaign = 'b' AND command_id = 'b5'")
    _, problems = _both_ways(path)
    assert [(p.campaign, p.seq, p.problem) for p in problems] == [
        ("b", 8, "command 'b5' did not append this event"),
        ("b", 9, "command 'b5' did not append this event")]


def test_the_last_events_removed_with_their_chain_intact_are_reported(path: Path) -> None:
    """The chain cannot see its own tail removed; the commands table still records it."""
    _tamper(path, "DELETE FROM events WHERE campaign = 'a' AND seq > 15")
    _, problems = _both_ways(path)
    assert [(p.campaign, p.seq) for p in problems] == [("a", 16)]
    assert "16 to 18 are missing" in problems[0].problem


def test_segments_are_walked_here_when_no_child_can_start(path: Path, monkeypatch) -> None:
    """With no interpreter to start (an embedded Python), every segment is walked here."""
    _tamper(path, "UPDATE events SET actor = 'mallory' WHERE campaign = 'c' AND seq = 14")
    expected = _both_ways(path)
    monkeypatch.setattr("sys.executable", "")
    uri = f"{path.resolve().as_uri()}?mode=ro"
    assert verify_file(uri, segment_events=1, workers=3) == expected
    assert [(p.campaign, p.seq) for p in expected[1]] == [("c", 14)]


AWKWARD = ['a "quoted" id', "back\\slash", "tab\tnew\nline\x01\x1f\x7f", "é ☃ 𝄞 \u2028",
           "</script>", "x" * 5000]


def _segments(path: Path, parts: int) -> list[Segment]:
    """Each segment of ``parts`` walked here, as a child would walk it."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    with sqlite3.connect(path) as connection:
        starts = segment_starts(connection, parts)
    ends = [*starts[1:], (2**63 - 1, 2**63 - 1)]
    return [walk_segment(uri, low, high, c_low, c_high)
            for (low, c_low), (high, c_high) in zip(starts, ends, strict=True)]


def test_the_commands_keep_step_in_every_segment(path: Path) -> None:
    """On a log the store wrote, each segment's runs of events are its ``commands`` rows,
    so the exact check from SQL is never needed, wherever the cuts fall in a campaign."""
    segments = _segments(path, 3)
    assert len(segments) == 3 and all(segment.in_step for segment in segments)
    assert sum(segment.checked for segment in segments) == 54


def test_awkward_text_keeps_the_commands_in_step(tmp_path: Path) -> None:
    """Quotes, backslashes, control characters, non-ASCII and long command ids (campaign
    names allow none of these): the walk's runs and SQLite's rows are written alike as
    JSON, so the fast command check holds for them."""
    log = SqliteLog(tmp_path / "log.db")
    heads = {name: 0 for name in ("a", "b-2")}
    for n, command in enumerate(AWKWARD):
        for campaign in heads:
            events = [opened(campaign)] if heads[campaign] == 0 else [rolled(n)] * (1 + n % 2)
            (appended,) = log.append_batch([request(campaign, heads[campaign], *events,
                                                    command=command, actor=command)])
            assert isinstance(appended, list)
            heads[campaign] += len(events)
    log.close()
    assert _both_ways(tmp_path / "log.db") == (sum(heads.values()), [])
    assert [segment.in_step for segment in _segments(tmp_path / "log.db", 1)] == [True]


def test_a_commands_row_sqlite_cannot_write_as_json_gets_the_exact_check(path: Path) -> None:
    """A command id stored as a BLOB (JSON holds none): the fast check gives way to the
    exact one, which names each event of that command."""
    _tamper(path, "UPDATE commands SET command_id = CAST(command_id AS BLOB)"
                  " WHERE campaign = 'a' AND command_id = 'a3'")
    assert not any(segment.in_step for segment in _segments(path, 1))
    _, problems = _both_ways(path)
    assert [(p.campaign, p.seq, p.problem) for p in problems] == [
        ("a", 5, "command 'a3' did not append this event"),
        ("a", 6, "command 'a3' did not append this event")]



def test_the_commands_are_compared_a_few_rows_at_a_time(path: Path, monkeypatch) -> None:
    """Compared in chunks (two rows here, 4,096 in use), so memory stays bounded: a clean
    log keeps step chunk after chunk; a row missing or left over in any chunk does not."""
    monkeypatch.setattr("events.store_verify._RUNS", 2)
    assert [segment.in_step for segment in _segments(path, 1)] == [True]
    _tamper(path, "INSERT INTO commands (campaign, command_id, actor, first_seq, last_seq)"
                  " VALUES ('c', 'late', 'gm', 19, 19)")
    assert [segment.in_step for segment in _segments(path, 1)] == [False]
    _tamper(path, "DELETE FROM commands WHERE command_id IN ('late', 'a7')")
    assert [segment.in_step for segment in _segments(path, 1)] == [False]


def test_the_walk_pauses_the_collector_and_restores_it(path: Path, monkeypatch) -> None:
    """The cyclic collector is off while a segment is hashed (its sweeps of a walk's short-
    lived rows found nothing and cost a tenth of the walk), and as it was afterwards."""
    seen: list[bool] = []
    real = store_verify.sha256

    def watched(data: bytes) -> Any:
        seen.append(gc.isenabled())
        return real(data)

    monkeypatch.setattr(store_verify, "sha256", watched)
    uri = f"{path.resolve().as_uri()}?mode=ro"
    assert gc.isenabled()
    assert verify_file(uri, segment_events=10**9) == (54, [])
    assert seen and not any(seen)
    assert gc.isenabled()
    gc.disable()
    try:  # a caller that had paused it finds it paused still
        assert verify_file(uri, segment_events=10**9) == (54, [])
        assert not gc.isenabled()
    finally:
        gc.enable()


def _rehash(path: Path, campaign: str, seq: int, payload: str | bytes) -> None:
    """Store ``payload`` for one event, and every hash from it on as the writer would have
    written them (:func:`link_hash`, the chain's definition)."""
    _tamper(path, "SELECT 1")  # the guards dropped
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE events SET payload = ? WHERE campaign = ? AND seq = ?",
                           (payload, campaign, seq))
        (previous,) = connection.execute(
            "SELECT hash FROM events WHERE campaign = ? AND seq = ?", (campaign, seq - 1)
        ).fetchone()
        for row in connection.execute(
                "SELECT seq, type, version, recorded_at, actor, command_id, payload FROM events"
                " WHERE campaign = ? AND seq >= ? ORDER BY seq", (campaign, seq)).fetchall():
            previous = link_hash(previous, campaign, *row)
            connection.execute("UPDATE events SET hash = ? WHERE campaign = ? AND seq = ?",
                               (previous, campaign, row[0]))


@pytest.mark.parametrize("payload", [
    "", '{"reason":"a \\"quoted\\" \\\\ word"}', "é ☃ 𝄞 \u2028 \x00 \x1e \x1f", "x" * 70_000,
    b"", b"\x00\xff not UTF-8 \x1f", "é ☃ {}".encode()])
def test_the_walk_hashes_every_payload_as_the_writer_defines_it(path: Path, payload) -> None:
    """The walk builds each link's message inline (the payload as SQLite's bytes); for any
    payload, text or BLOB, empty, quoted, non-ASCII, NUL, long, it is the chain's own
    :func:`link_hash`, in every segment; one byte changed is still an edit."""
    _rehash(path, "b", 9, payload)
    assert _both_ways(path) == (54, [])
    edited = payload + (b"!" if isinstance(payload, bytes) else "!")
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE events SET payload = ? WHERE campaign = 'b' AND seq = 9",
                           (edited,))
    assert [(p.campaign, p.seq) for p in _both_ways(path)[1]] == [("b", 9)]


def test_commands_rowids_with_gaps_keep_step(path: Path, monkeypatch) -> None:
    """``commands`` is read a range of rowids at a time: a gap in its rowids wider than a
    range (rows renumbered, their order kept) is stepped over, not taken for the end."""
    monkeypatch.setattr("events.store_verify._RUNS", 2)
    _tamper(path, "UPDATE commands SET rowid = rowid + 1000 WHERE rowid > 10")
    assert [segment.in_step for segment in _segments(path, 1)] == [True]
    cut = _segments(path, 3)  # the cuts fall by rowid: two of them on the same command
    assert len(cut) > 1 and all(segment.in_step for segment in cut)
    assert _both_ways(path) == (54, [])
