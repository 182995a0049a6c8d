"""The write journal: appends land in ``journal``, move into ``events`` in bulk, and every read
sees both tables while the log is open (:mod:`events.journal`)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from events import core, journal
from events.codec import encode
from events.log import Appended, ChainProblem, chain_hash
from events.messages import OutgoingEventFrame
from events.store import SqliteLog, SqliteReader
from events.store_verify import segment_starts, verify_file
from tests.events.store_contract import opened, request, rolled

ROOT = Path(__file__).resolve().parents[2]
OLD_FILE = ROOT / "tests" / "fixtures" / "logs" / "old-commands-schema.sqlite"


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """A journal moved once it holds five rows."""
    monkeypatch.setattr(journal, "JOURNAL_LIMIT", 5)


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _positions(path: Path) -> list[tuple[Any, ...]]:
    """Every row of both tables with its position, in position order, and which table."""
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT position, campaign, seq, hash, 'e' FROM events UNION ALL"
            " SELECT position, campaign, seq, hash, 'j' FROM journal ORDER BY position"
        ).fetchall()


def _split(log: SqliteLog) -> dict[str, list[str]]:
    """Campaign ``a`` in both tables, ``b`` and ``c`` in the journal only (with ``small``):
    each campaign's appended hashes, in order."""
    first = log.append_batch([request("a", 0, opened("a"), rolled(1), rolled(2), rolled(3),
                                      rolled(4), command="a1")])
    assert log.has_housework
    log.housekeeping()  # the command index has no work: a move of all five rows
    assert not log.has_housework
    second = log.append_batch([request("b", 0, opened("b"), rolled(5), command="b1"),
                               request("a", 5, rolled(6), rolled(7), command="a2"),
                               request("c", 0, opened("c"), command="c1")])
    hashes: dict[str, list[str]] = {}
    for campaign, result in zip("abac", [*first, *second], strict=True):
        assert isinstance(result, Appended)
        hashes.setdefault(campaign, []).extend(result.hashes)
    assert _count(log.path, "events") == 5 and _count(log.path, "journal") == 5
    return hashes


def _reads(reader: SqliteReader) -> dict[str, object]:
    """Everything the reads of the events give, for the three campaigns."""
    return {
        "rows": {c: list(reader.rows(c)) for c in "abc"},
        "some rows": list(reader.rows("a", after=2, upto=6)),
        "frames": {c: reader.event_frames(c, 0, 10) for c in "abc"},
        "some frames": reader.event_frames("a", 2, 5),
        "pages": {c: reader.frame_pages(c, 0, 10, 2) for c in "abc"},
        "hashes": reader.hashes_at({"a": 3, "b": 2, "c": 1, "none": 1}),
        "all": [row for page in reader.all_rows(typed=True) for row in page],
        "campaigns": reader.campaigns(),
        "heads": {c: reader.head(c) for c in "abcz"},
        "directory": reader.directory(),
        "verify": reader.verify(),
    }


def test_every_read_sees_the_journal_rows_in_order_with_their_hashes(small, log) -> None:
    """While the log is open, each read of the events (the server's and a read-only
    reader's) gives the rows of both tables, in order, with their hashes: the same answers
    as once every row is in ``events``."""
    hashes = _split(log)
    for reader in (log, SqliteReader(log.path)):
        found = _reads(reader)
        rows = found["rows"]
        assert isinstance(rows, dict)
        for campaign, expected in hashes.items():
            assert [r.seq for r in rows[campaign]] == list(range(1, len(expected) + 1))
            assert [r.hash for r in rows[campaign]] == expected
            previous = "0" * 64
            for row in rows[campaign]:
                assert chain_hash(previous, campaign, row) == row.hash
                previous = row.hash
        assert [r.seq for r in found["some rows"]] == [3, 4, 5, 6]  # type: ignore[attr-defined]
        assert found["frames"] == {c: [encode(OutgoingEventFrame(
            seq=r.seq, at=r.at, actor=r.actor, command=r.command_id,
            event=msgspec.Raw(r.payload), hash=r.hash)) for r in rows[c]] for c in "abc"}
        assert found["some frames"] == found["frames"]["a"][2:5]  # type: ignore[index]
        pages = found["pages"]
        assert isinstance(pages, dict)
        assert [p.events for p in pages["a"]] == [2, 2, 2, 1]
        assert found["hashes"] == {"a": hashes["a"][2], "b": hashes["b"][1],
                                   "c": hashes["c"][0]}
        assert [(row[5], row[0]) for row in found["all"]] == [  # type: ignore[attr-defined]
            ("a", 1), ("a", 2), ("a", 3), ("a", 4), ("a", 5), ("b", 1), ("b", 2), ("a", 6),
            ("a", 7), ("c", 1)]
        assert found["campaigns"] == ["a", "b", "c"]
        assert found["heads"] == {"a": 7, "b": 2, "c": 1, "z": 0}
        assert found["directory"] == [("a", "a1", "gm", 5), ("b", "b1", "gm", 2),
                                      ("c", "c1", "gm", 1)]
        assert found["verify"] == (10, [])
    before = _reads(SqliteReader(log.path))
    assert log.settle() == 5 and _count(log.path, "journal") == 0
    assert _reads(SqliteReader(log.path)) == before == _reads(log)


def test_a_move_keeps_every_row_its_position_and_order(small, log) -> None:
    """A move takes every row of the journal into ``events``: the same rows at the same
    positions, in the same order, and the log verifies before and after."""
    _split(log)
    assert log.verify() == (10, [])
    before = [row[:4] for row in _positions(log.path)]
    assert [row[0] for row in before] == list(range(1, 11))
    assert log.has_housework
    log.housekeeping()
    after = _positions(log.path)
    assert [row[:4] for row in after] == before
    assert [row[4] for row in after] == ["e"] * 10  # all of them moved
    assert log.verify() == (10, [])


def test_positions_go_on_after_a_failed_commit(log) -> None:
    """A refused batch takes no position: the next one's rows follow the last committed."""
    log.append_batch([request("a", 0, opened("a"), command="a1")])
    log.db.execute("CREATE TRIGGER boom BEFORE INSERT ON journal WHEN NEW.campaign = 'b'"
                   " BEGIN SELECT RAISE(ABORT, 'boom'); END")
    log.append_batch([request("b", 0, opened("b"), rolled(1), command="b1")])
    log.db.execute("DROP TRIGGER boom")
    log.append_batch([request("b", 0, opened("b"), command="b1")])
    assert [row[:3] for row in _positions(log.path)] == [(1, "a", 1), (2, "b", 1)]
    assert log.verify() == (2, [])


def test_verify_of_a_live_log_detects_an_edited_journal_row(small, log) -> None:
    """An edited row still in the journal breaks its campaign's chain there, while the log is
    open and once it is settled into ``events``."""
    _split(log)
    with sqlite3.connect(log.path) as connection:
        connection.execute("DROP TRIGGER journal_no_update")
        connection.execute("UPDATE journal SET payload = replace(payload, '\"total\":6',"
                           " '\"total\":9') WHERE campaign = 'a' AND seq = 6")
    _, problems = SqliteReader(log.path).verify()
    assert [(p.campaign, p.seq) for p in problems] == [("a", 6)]
    log.close()
    assert _count(log.path, "journal") == 0
    _, problems = SqliteReader(log.path).verify()
    assert [(p.campaign, p.seq) for p in problems] == [("a", 6)]


def test_journal_rows_cannot_be_updated_or_deleted_unless_moved(small, log) -> None:
    """The database refuses an UPDATE of a journal row, and a DELETE of one whose position
    is not in ``events``: rows leave the journal only by being moved."""
    _split(log)
    with sqlite3.connect(log.path) as connection:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute("UPDATE journal SET payload = '{}' WHERE campaign = 'c'")
        with pytest.raises(sqlite3.IntegrityError, match="only once moved"):
            connection.execute("DELETE FROM journal WHERE campaign = 'c'")
        with pytest.raises(sqlite3.IntegrityError, match="only once moved"):
            connection.execute("DELETE FROM journal")
    assert _count(log.path, "journal") == 5
    assert log.verify() == (10, [])


_CRASH = """
import os, sys
from events import core
from events.store import SqliteLog
from tests.events.store_contract import opened, request, rolled
log = SqliteLog(sys.argv[1])
log.append_batch([request("a", 0, opened("a"), rolled(1), command="a1")])
log.append_batch([request("a", 2, core.MemberInvited(member="p", name="P", role="player",
                                                     token_hash="b" * 64), command="a2"),
                  request("b", 0, opened("b"), command="b1")])
os._exit(0)  # killed: no close, no settle
"""


def _crashed(path: Path) -> None:
    """A writer process that appends and dies without closing the log."""
    subprocess.run([sys.executable, "-c", _CRASH, str(path)], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_log_not_closed_is_settled_at_the_next_open(tmp_path) -> None:
    """A writer that dies leaves its committed rows in the journal: a reader reads them, and
    the next writer moves them all into ``events`` at open, then appends after them."""
    path = tmp_path / "log.db"
    _crashed(path)
    assert _count(path, "journal") == 4 and _count(path, "events") == 0
    assert SqliteReader(path).head("a") == 3 and SqliteReader(path).verify() == (4, [])
    log = SqliteLog(path)
    try:
        assert _count(path, "journal") == 0 and _count(path, "events") == 4
        assert log.append_batch([request("a", 3, rolled(2), command="a3")]) == [[4]]
        assert [row[:3] for row in _positions(path)] == [
            (1, "a", 1), (2, "a", 2), (3, "a", 3), (4, "b", 1), (5, "a", 4)]
        assert log.verify() == (5, [])
    finally:
        log.close()


def test_the_issued_tokens_are_filled_from_the_journal_too(tmp_path) -> None:
    """A crashed log whose ``issued_tokens`` table was dropped gets it rebuilt at open from
    the events, the journal's included."""
    path = tmp_path / "log.db"
    _crashed(path)
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE issued_tokens")
    log = SqliteLog(path)
    try:
        assert log.token_campaign("b" * 64) == "a"
    finally:
        log.close()


def test_close_settles_the_journal(small, log) -> None:
    """A closed log has an empty journal: every row in ``events``, as older releases read."""
    _split(log)
    log.close()
    assert _count(log.path, "journal") == 0 and _count(log.path, "events") == 10
    assert [row[0] for row in _positions(log.path)] == list(range(1, 11))
    assert SqliteReader(log.path).verify() == (10, [])


def test_housekeeping_takes_turns_with_the_command_index(small, log, monkeypatch) -> None:
    """With both a move and the command index's merge pending, housekeeping does one of each
    in turn, so neither waits for the other to finish."""
    from events import command_keys

    monkeypatch.setattr(command_keys, "TAIL_LIMIT", 3)
    monkeypatch.setattr(command_keys, "STEP_ROWS", 1)
    _split(log)  # its housekeeping: a move (one id held then, under the limit)
    assert log.has_housework and log._keys.has_work
    log.housekeeping()
    log.housekeeping()
    assert _count(log.path, "journal") == 0  # one move in the two steps
    assert _count(log.path, "command_keys_1") == 1  # and one step of the merge
    while log.has_housework:
        log.housekeeping()
    assert _count(log.path, "events") == 10 and log.verify() == (10, [])


def test_an_old_file_opens_and_reads(tmp_path) -> None:
    """A file of an older release has no journal: a read-only reader reads it as it is, sees
    the table once a server adds it, and then reads the rows the server appends."""
    path = tmp_path / "old.db"
    shutil.copy(OLD_FILE, path)
    reader = SqliteReader(path)
    with sqlite3.connect(path) as connection:
        assert not journal.has_journal(connection)
    assert reader.head("a") == 6 and reader.campaigns() == ["a", "b"]
    assert [r.seq for r in reader.rows("a")] == [1, 2, 3, 4, 5, 6]
    assert len(reader.event_frames("a", 0, 6)) == 6
    assert sum(p.events for p in reader.frame_pages("a", 0, 6, 4)) == 6
    assert set(reader.hashes_at({"a": 6, "b": 1})) == {"a", "b"}
    assert sum(len(page) for page in reader.all_rows()) == 7
    assert reader.directory() == [("a", "first", "gm", 3), ("b", "b-open", "gm", 1)]
    assert reader.verify() == (7, [])
    log = SqliteLog(path)
    try:
        assert log.append_batch([request("a", 6, rolled(1), command="later")]) == [[7]]
        assert _count(path, "journal") == 1
        assert reader.head("a") == 7 and [r.seq for r in reader.rows("a", after=5)] == [6, 7]
        assert reader.verify() == (8, [])
    finally:
        log.close()
    assert _count(path, "journal") == 0 and SqliteReader(path).verify() == (8, [])


def test_a_member_invited_in_the_journal_is_found_by_its_token(log) -> None:
    """The token an invite issued is found while its event is still in the journal."""
    log.append_batch([request("a", 0, opened("a"), core.MemberInvited(
        member="p", name="P", role="player", token_hash="c" * 64), command="a1")])
    assert _count(log.path, "journal") == 2
    assert log.token_campaign("c" * 64) == "a"


def test_verify_reports_a_journal_that_is_not_the_tail(small, log) -> None:
    """A row in both tables (copied back into the journal by hand) is reported: the journal
    must hold only positions after every one in ``events``."""
    _split(log)
    with sqlite3.connect(log.path) as connection:
        connection.execute("INSERT INTO journal SELECT * FROM events WHERE position = 1")
    _, problems = SqliteReader(log.path).verify()
    assert ChainProblem("", 0, "the journal is not the log's tail: it holds position 1, events"
                          " go up to 5") in problems
    with sqlite3.connect(log.path) as connection:  # moved again: now in events only, as before
        connection.execute("DELETE FROM journal WHERE position = 1")
    assert log.verify() == (10, [])


def test_a_segmented_verify_walks_the_journal_as_the_tail(small, log) -> None:
    """Cut into segments walked by child processes, a live log's walk still reads the
    journal's rows after those of ``events`` and finds an edited one."""
    _split(log)
    uri = f"{log.path.resolve().as_uri()}?mode=ro"
    with sqlite3.connect(log.path) as connection:  # cuts at b1 and a2, in the journal
        assert segment_starts(connection, 3) == [(0, 0), (6, 2), (8, 3)]
    assert verify_file(uri, segment_events=3, workers=3) == (10, [])
    with sqlite3.connect(log.path) as connection:
        connection.execute("DROP TRIGGER journal_no_update")
        connection.execute("UPDATE journal SET actor = 'mallory' WHERE campaign = 'b'"
                           " AND seq = 2")
    checked, problems = verify_file(uri, segment_events=3, workers=3)
    assert checked == 10 and [(p.campaign, p.seq) for p in problems] == [("b", 2)]


def test_a_move_leaves_an_empty_journal_with_its_key_and_triggers(small, log) -> None:
    """A move empties the journal by dropping it and creating it again, in the same
    transaction: the new one takes appends, keeps ``(campaign, seq)`` unique and refuses
    edits and deletes as the first did."""
    _split(log)
    log.housekeeping()
    assert _count(log.path, "journal") == 0 and _count(log.path, "events") == 10
    assert log.append_batch([request("c", 1, rolled(8), command="c2")]) == [[2]]
    with sqlite3.connect(log.path) as connection:
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            connection.execute(f"INSERT INTO journal ({journal.COLUMNS}) SELECT position + 1,"
                               " campaign, seq, type, version, payload, recorded_at, actor,"
                               " command_id, hash FROM journal")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute("UPDATE journal SET payload = '{}'")
        with pytest.raises(sqlite3.IntegrityError, match="only once moved"):
            connection.execute("DELETE FROM journal")
    assert log.verify() == (11, [])


def test_a_reader_open_across_a_move_reads_on(small, log) -> None:
    """Readers that stay open while a move drops and recreates the journal (a schema change)
    read on: a snapshot taken before the move still holds the journal's rows, and a reader's
    kept connections give the same rows after it as before."""
    hashes = _split(log)
    reader = SqliteReader(log.path)
    before = {c: list(reader.rows(c)) for c in "abc"}
    frames = reader.frame_pages("a", 0, 7, 2)
    with sqlite3.connect(log.path) as held:
        held.execute("BEGIN")
        assert held.execute("SELECT count(*) FROM journal").fetchone() == (5,)
        log.housekeeping()  # the move commits while that snapshot is open
        assert held.execute("SELECT count(*) FROM journal").fetchone() == (5,)
        assert held.execute("SELECT count(*) FROM events").fetchone() == (5,)
        held.execute("COMMIT")
        assert held.execute("SELECT count(*) FROM events").fetchone() == (10,)
    assert {c: list(reader.rows(c)) for c in "abc"} == before
    assert [r.hash for r in before["a"]] == hashes["a"]
    assert reader.frame_pages("a", 0, 7, 2) == frames
    assert reader.verify() == (10, [])
