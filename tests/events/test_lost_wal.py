"""What ``verify`` can see of a lost write-ahead log: a file torn between two checkpoints."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from poolhall.events.sqlite_backend import SqliteLog, SqliteReader
from tests.events.store_contract import opened, request, rolled


def _page(path: Path, table: str) -> tuple[int, int]:
    """The root page number of ``table`` and the file's page size."""
    with sqlite3.connect(path) as connection:
        (root,) = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                                     [table]).fetchone()
        (size,) = connection.execute("PRAGMA page_size").fetchone()
    return int(root), int(size)


def test_a_file_torn_by_a_checkpoint_cut_short_is_reported(tmp_path: Path) -> None:
    """The events table from after a checkpoint beside its index from before: verify says so.

    A checkpoint copies the WAL's pages into the file one by one; if the WAL is deleted after
    a crash part-way through, the file holds some pages from each moment. Read through the
    older index, the chains alone looked whole; walked through the table (as verify does
    now) they show the two events whose command the older ``commands`` table never recorded.
    """
    path = tmp_path / "log.db"
    log = SqliteLog(path)
    log.append_batch([request("a", 0, opened("a"), rolled(1), rolled(2), command="c0")])
    log.close()  # closing checkpoints everything into the file
    before = path.read_bytes()
    log = SqliteLog(path)
    log.append_batch([request("a", 3, rolled(3), rolled(4), command="c1")])
    log.close()
    after = path.read_bytes()
    root, size = _page(path, "events")
    start = (root - 1) * size
    path.write_bytes(before[:start] + after[start:start + size] + before[start + size:])

    checked, problems = SqliteReader(path).verify()
    assert (checked, problems[0].campaign, problems[0].seq) == (5, "", 0)
    assert problems[0].problem.startswith("the file is damaged: row 4 missing from index")
    assert [(p.campaign, p.seq, p.problem) for p in problems if p.campaign] == [
        ("a", 4, "command 'c1' did not append this event"),
        ("a", 5, "command 'c1' did not append this event")]


def test_a_torn_index_ahead_of_its_table_is_reported_not_raised(tmp_path: Path) -> None:
    """The index from after the checkpoint, the table from before: a problem, no traceback.

    The walk reads the table, not the index, so it checks the two events the table holds.
    """
    path = tmp_path / "log.db"
    log = SqliteLog(path)
    log.append_batch([request("a", 0, opened("a"), rolled(1), command="c0")])
    log.close()
    before = path.read_bytes()
    log = SqliteLog(path)
    log.append_batch([request("a", 2, rolled(2), rolled(3), command="c1")])
    log.close()
    after = path.read_bytes()
    root, size = _page(path, "sqlite_autoindex_events_1")
    start = (root - 1) * size
    path.write_bytes(before[:start] + after[start:start + size] + before[start + size:])

    checked, problems = SqliteReader(path).verify()
    assert checked == 2
    assert [p.problem.split(":")[0] for p in problems] == ["the file is damaged"]
