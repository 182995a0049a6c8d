"""The layout by block: each event written once into ``events``, read through its campaign's
runs (:mod:`events.event_blocks`), and files of older releases laid out so at open."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from events import core, event_blocks, journal
from events.codec import encode
from events.log import GENESIS, Appended, ChainProblem, StoredRow, chain_hash
from events.messages import OutgoingEventFrame
from events.store import SqliteLog, SqliteReader
from events.store_reader import _campaigns, _directory, _frames, _hashes, _head, _rows
from events.store_verify import segment_starts, verify_file
from tests.events.store_contract import opened, request, rolled

ROOT = Path(__file__).resolve().parents[2]
JOURNAL_FILE = ROOT / "tests" / "fixtures" / "logs" / "journal-layout.sqlite"
"""A log of the release before this layout, with rows left in its journal
(``tests/fixtures/logs/make_journal_layout.py`` says how it was made)."""
OLD_FILE = ROOT / "tests" / "fixtures" / "logs" / "old-commands-schema.sqlite"
"""A log of an older release still: no journal, and the first ``commands`` table."""
BLOCK = 1 << event_blocks.BLOCK_BITS
_COLUMNS = journal.COLUMNS


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as connection:
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _runs(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT campaign, first_seq, block FROM event_runs ORDER BY block, campaign"
        ).fetchall()


def _by_position(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Each campaign's ``(seq, hash, position)`` read from the table in position order, by
    no index: what every read by campaign must agree with."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    with sqlite3.connect(path) as connection:
        for campaign, seq, digest, position in connection.execute(
                "SELECT campaign, seq, hash, position FROM events NOT INDEXED"
                " ORDER BY position"):
            found.setdefault(campaign, []).append((seq, digest, position))
    return found


def _append_rounds(log: SqliteLog, rounds: Iterator[list[str]], size: int) -> dict[str, int]:
    """Append ``size`` events a request for each campaign of each round; the heads."""
    heads: dict[str, int] = {}
    for campaigns in rounds:
        batch = []
        for campaign in campaigns:
            head = heads.get(campaign, 0)
            events = [opened(campaign)] if head == 0 else []
            events += [rolled(n % 6 + 1) for n in range(size - len(events))]
            batch.append(request(campaign, head, *events, command=f"{campaign}{head}"))
        for campaign, result in zip(campaigns, log.append_batch(batch), strict=True):
            assert isinstance(result, Appended), result
            heads[campaign] = list(result)[-1]
    return heads


def _three_blocks(log: SqliteLog) -> dict[str, int]:
    """A log over three blocks: ``a`` in every block, ``b`` in the first and the third
    (none of its events in the second), ``c`` from the second on, ``d`` one event."""
    def rounds() -> Iterator[list[str]]:
        while log._next_position <= BLOCK - 300:
            yield ["a", "b"]
        while log._next_position <= 2 * BLOCK:
            yield ["a", "c"]
        yield ["d"]
        while log._next_position <= 2 * BLOCK + 1000:
            yield ["c", "b", "a"]
    return _append_rounds(log, rounds(), 100)


@pytest.fixture(scope="module")
def blocks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, int]]]:
    """A closed log over three blocks (about 34,000 events), and its campaigns' heads."""
    path = tmp_path_factory.mktemp("blocks") / "log.db"
    log = SqliteLog(path)
    heads = _three_blocks(log)
    log.close()
    yield path, heads


def test_each_event_is_written_once_and_each_campaign_has_a_run_a_block(blocks) -> None:
    """No journal and no ``(campaign, seq)`` index: ``events`` alone, under the block index;
    one run a campaign a block it has events in, from its first event there."""
    path, heads = blocks
    with sqlite3.connect(path) as connection:
        tables = {n for (n,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        indexes = {n for (n,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'")}
    assert "journal" not in tables and indexes == {"events_block"}
    by_position = _by_position(path)
    expected = sorted({(c, min(s for s, _, p in rows if p >> event_blocks.BLOCK_BITS == b), b)
                       for c, rows in by_position.items()
                       for b in {p >> event_blocks.BLOCK_BITS for _, _, p in rows}},
                      key=lambda run: (run[2], run[0]))
    assert _runs(path) == expected
    assert {c for c, _, b in expected if b == 1} == {"a", "c"}  # b skips the second block
    assert {c for c, _, b in expected if b == 2} == {"a", "b", "c", "d"}
    assert {c: rows[-1][0] for c, rows in by_position.items()} == heads


def test_every_read_by_campaign_agrees_with_the_table_in_position_order(blocks) -> None:
    """Rows, frames, pages, hashes, heads, campaigns and the directory, read through the runs
    by the server's log and by a read-only reader, are what the table holds, across blocks
    and across a campaign's gap of a whole block."""
    path, heads = blocks
    by_position = _by_position(path)
    log = SqliteLog(path)
    try:
        for reader in (log, SqliteReader(path)):
            for campaign, stored in by_position.items():
                rows = list(reader.rows(campaign))
                assert [(r.seq, r.hash) for r in rows] == [(s, h) for s, h, _ in stored]
                previous = "0" * 64
                for row in rows:
                    assert chain_hash(previous, campaign, row) == row.hash
                    previous = row.hash
            b_rows = list(reader.rows("b"))
            gap = next(n for n, (_, _, p) in enumerate(by_position["b"]) if p >= BLOCK)
            around = list(reader.rows("b", after=gap - 3, upto=gap + 3))  # the gap's edges
            assert around == b_rows[gap - 3:gap + 3]
            assert [r.seq for r in reader.rows("a", after=16_000, upto=16_500)] == list(
                range(16_001, 16_501))
            frames = reader.event_frames("b", gap - 2, gap + 2)
            assert frames == [encode(OutgoingEventFrame(
                seq=r.seq, at=r.at, actor=r.actor, command=r.command_id,
                event=msgspec.Raw(r.payload), hash=r.hash)) for r in b_rows[gap - 2:gap + 2]]
            pages = reader.frame_pages("b", gap - 2, gap + 2, 3)
            assert b"".join(p.frames for p in pages).count(b'"type":"event"') == 4
            wanted = {"a": 1, "b": gap + 1, "c": heads["c"], "d": 1, "none": 1}
            assert reader.hashes_at(wanted) == {
                c: by_position[c][s - 1][1] for c, s in wanted.items() if c != "none"}
            assert {c: reader.head(c) for c in [*heads, "z"]} == {**heads, "z": 0}
            assert reader.campaigns() == ["a", "b", "c", "d"]
            assert [d[:3] for d in reader.directory()] == [
                ("a", "a0", "gm"), ("b", "b0", "gm"), ("c", "c0", "gm"), ("d", "d0", "gm")]
    finally:
        log.close()


@pytest.mark.parametrize(("read", "arguments"), [
    (_rows, ["a", 0, 5]), (_frames, ["a", 0, 5]), (_hashes, ['{"a": 3, "b": 5}']),
    (_head, ["a"]), (_campaigns, []), (_directory, [])])
def test_reads_seek_the_block_index_and_never_scan_the_events(blocks, read, arguments
                                                              ) -> None:
    """Each read's plan seeks ``events`` through the block index: an index on the expression
    ``position >> 14`` was scanned whole from a join (100-330 ms a read on 2M events)."""
    path, _ = blocks
    with sqlite3.connect(path) as connection:
        plan = [row[3] for row in connection.execute(
            "EXPLAIN QUERY PLAN " + read("blocks"), arguments)]
    assert any("USING INDEX events_block" in step or "USING COVERING INDEX events_block"
               in step for step in plan), plan
    assert not any(step.startswith("SCAN e") or step == "SCAN events" for step in plan), plan


def test_a_log_reopened_in_mid_block_appends_on_without_a_second_run(tmp_path) -> None:
    """The writer learns which campaigns already have a run in the current block when it
    opens: appending on after a reopen adds no run twice (its key would refuse the commit)."""
    path = tmp_path / "log.db"
    log = SqliteLog(path)
    log.append_batch([request("a", 0, opened("a"), command="a1"),
                      request("b", 0, opened("b"), command="b1")])
    log.close()
    log = SqliteLog(path)
    try:
        assert log.append_batch([request("a", 1, rolled(1), command="a2"),
                                 request("c", 0, opened("c"), command="c1")]) == [[2], [1]]
        assert _runs(path) == [("a", 1, 0), ("b", 1, 0), ("c", 1, 0)]
        assert log.verify() == (4, [])
    finally:
        log.close()


def test_a_failed_commit_leaves_no_run_and_the_next_one_writes_it(log) -> None:
    """A batch SQLite refuses takes its runs with it, and the writer forgets them: the next
    batch of the same campaign writes its run, so its events are read."""
    log.append_batch([request("a", 0, opened("a"), command="a1")])
    log.db.execute("CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.campaign = 'b'"
                   " BEGIN SELECT RAISE(ABORT, 'boom'); END")
    assert all(isinstance(r, Exception) for r in log.append_batch(
        [request("b", 0, opened("b"), command="b1")]))
    assert _runs(log.path) == [("a", 1, 0)]
    log.db.execute("DROP TRIGGER boom")
    assert log.append_batch([request("b", 0, opened("b"), rolled(3), command="b1")]) == [
        [1, 2]]
    assert [r.seq for r in log.rows("b")] == [1, 2]
    assert _runs(log.path) == [("a", 1, 0), ("b", 1, 0)]


def test_positions_go_on_after_a_failed_commit(log) -> None:
    """A refused batch takes no position: the next one's rows follow the last committed."""
    log.append_batch([request("a", 0, opened("a"), command="a1")])
    log.db.execute("CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.campaign = 'b'"
                   " BEGIN SELECT RAISE(ABORT, 'boom'); END")
    log.append_batch([request("b", 0, opened("b"), command="b1")])
    log.db.execute("DROP TRIGGER boom")
    log.append_batch([request("c", 0, opened("c"), command="c1")])
    with sqlite3.connect(log.path) as connection:
        assert connection.execute("SELECT position, campaign FROM events ORDER BY position"
                                  ).fetchall() == [(1, "a"), (2, "c")]


def test_a_member_invited_is_found_by_its_token_at_once(log) -> None:
    """The token an invite issued is found as soon as its event is committed."""
    log.append_batch([request("a", 0, opened("a"), core.MemberInvited(
        member="p", name="P", role="player", token_hash="c" * 64), command="a1")])
    assert log.token_campaign("c" * 64) == "a"


def _old_reads(reader: SqliteReader) -> dict[str, object]:
    """What the reads give on the journal fixture's three campaigns."""
    return {
        "rows": {c: list(reader.rows(c)) for c in "abc"},
        "frames": {c: reader.event_frames(c, 0, 10) for c in "abc"},
        "pages": {c: reader.frame_pages(c, 0, 10, 3) for c in "abc"},
        "hashes": reader.hashes_at({"a": 3, "b": 8, "c": 1, "none": 1}),
        "all": [row for page in reader.all_rows(typed=True) for row in page],
        "campaigns": reader.campaigns(),
        "heads": {c: reader.head(c) for c in "abcz"},
        "directory": reader.directory(),
        "verify": reader.verify(),
    }


def test_a_log_with_a_journal_is_settled_and_laid_out_by_block_at_open(tmp_path) -> None:
    """The release before left rows in its journal: a reader reads both tables as they are;
    a server of this release moves the journal's rows into ``events``, drops the journal and
    the ``(campaign, seq)`` index, adds the block index and the runs, and every read gives
    what it gave before; appends go on the chain."""
    path = tmp_path / "old.db"
    shutil.copy(JOURNAL_FILE, path)
    assert _count(path, "journal") == 3 and _count(path, "events") == 19
    reader = SqliteReader(path)
    before = _old_reads(reader)
    assert before["heads"] == {"a": 7, "b": 8, "c": 7, "z": 0}
    assert before["verify"] == (22, [])
    log = SqliteLog(path)
    try:
        with sqlite3.connect(path) as connection:
            assert connection.execute("SELECT name FROM sqlite_master WHERE tbl_name ="
                                      " 'journal'").fetchall() == []
            assert [n for (n,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'"
            )] == ["events_block"]
        assert _count(path, "events") == 22
        assert _runs(path) == [("a", 1, 0), ("b", 1, 0), ("c", 1, 0)]
        assert _old_reads(reader) == before == _old_reads(SqliteReader(path)) == _old_reads(log)
        assert log.token_campaign("f" * 64) == "b"
        assert log.append_batch([request("b", 8, rolled(4), command="b-after")]) == [[9]]
        assert reader.head("b") == 9 and log.verify() == (23, [])
    finally:
        log.close()


def test_an_older_file_without_a_journal_is_laid_out_too(tmp_path) -> None:
    """A file of an older release still (no journal) reads as it is, read-only, and is laid
    out by block when a server opens it; a reader kept open meanwhile reads on."""
    path = tmp_path / "old.db"
    shutil.copy(OLD_FILE, path)
    reader = SqliteReader(path)
    assert reader.head("a") == 6 and reader.campaigns() == ["a", "b"]
    assert [r.seq for r in reader.rows("a")] == [1, 2, 3, 4, 5, 6]
    assert reader.directory() == [("a", "first", "gm", 3), ("b", "b-open", "gm", 1)]
    assert reader.verify() == (7, [])
    log = SqliteLog(path)
    try:
        assert _runs(path) == [("a", 1, 0), ("b", 1, 0)]
        assert log.append_batch([request("a", 6, rolled(1), command="later")]) == [[7]]
        assert reader.head("a") == 7 and [r.seq for r in reader.rows("a", after=5)] == [6, 7]
        assert reader.directory() == [("a", "first", "gm", 3), ("b", "b-open", "gm", 1)]
        assert reader.verify() == (8, [])
    finally:
        log.close()
    assert SqliteReader(path).verify() == (8, [])


def test_the_issued_tokens_are_filled_from_the_settled_journal(tmp_path) -> None:
    """A log of the release before whose ``issued_tokens`` table was dropped gets it rebuilt
    at open from the events, the journal's settled into them first."""
    path = tmp_path / "old.db"
    shutil.copy(JOURNAL_FILE, path)
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE issued_tokens")
    log = SqliteLog(path)
    try:
        assert log.token_campaign("f" * 64) == "b"
    finally:
        log.close()


def _tamper(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)


def test_verify_reports_events_the_runs_do_not_lead_to(blocks, tmp_path) -> None:
    """The chain walk reads in position order and cannot see a run gone or pointing
    elsewhere; reads by campaign would miss those events, so ``verify`` reports each."""
    path = tmp_path / "log.db"
    shutil.copy(blocks[0], path)
    first_b2 = next(s for c, s, b in _runs(path) if c == "b" and b == 2)
    first_c1 = next(s for c, s, b in _runs(path) if c == "c" and b == 1)
    _tamper(path, "DELETE FROM event_runs WHERE campaign = 'c' AND block = 1",
            f"UPDATE event_runs SET block = 1 WHERE campaign = 'b' AND first_seq = {first_b2}")
    checked, problems = SqliteReader(path).verify()
    assert checked == sum(len(rows) for rows in _by_position(path).values())
    assert problems == [
        ChainProblem("b", first_b2, f"event_runs does not lead to all of events {first_b2}"
                                    " onwards in block 2: reads of the campaign skip some"),
        ChainProblem("b", first_b2, f"event_runs says events {first_b2} onwards are in block"
                                    " 1, which holds none of them: the campaign's head reads"
                                    " wrong"),
        ChainProblem("c", first_c1, f"event_runs does not lead to all of events {first_c1}"
                                    " onwards in block 1: reads of the campaign skip some")]


def test_verify_reports_a_run_past_the_campaigns_events(log) -> None:
    """A run naming a block with none of its campaign's events there hides the campaign's
    head (read in the block of its last run): ``verify`` reports it."""
    log.append_batch([request("a", 0, opened("a"), rolled(1), rolled(2), command="a1")])
    _tamper(log.path, "INSERT INTO event_runs VALUES ('a', 4, 3)")
    assert log.verify() == (3, [ChainProblem(
        "a", 4, "event_runs says events 4 onwards are in block 3, which holds none of them:"
                " the campaign's head reads wrong")])


def test_a_segmented_verify_cuts_through_the_runs_and_finds_an_edit(blocks, tmp_path) -> None:
    """Cut into segments walked by child processes, the walk starts each at a command's first
    event found through the runs, and still finds an edited event in the last block."""
    path = tmp_path / "log.db"
    shutil.copy(blocks[0], path)
    uri = f"{path.resolve().as_uri()}?mode=ro"
    with sqlite3.connect(path) as connection:
        starts = segment_starts(connection, 3)
    assert len(starts) == 3 and starts[1][0] > 1 and starts[2][0] > starts[1][0]
    total = sum(len(rows) for rows in _by_position(path).values())
    assert verify_file(uri, segment_events=1000, workers=3) == (total, [])
    _tamper(path, "DROP TRIGGER events_no_update",
            "UPDATE events SET payload = '{}' WHERE campaign = 'c' AND seq = 200")
    checked, problems = verify_file(uri, segment_events=1000, workers=3)
    assert checked == total
    assert [(p.campaign, p.seq) for p in problems] == [("c", 200)]


def test_events_an_older_release_appended_get_their_runs_at_the_next_open(tmp_path) -> None:
    """An older release serving the file meanwhile appends through its journal and writes no
    run: the next open of this release settles that journal and sums up the last blocks'
    runs again, so reads find every event (the runs already there are kept)."""
    path = tmp_path / "log.db"
    log = SqliteLog(path)
    log.append_batch([request("a", 0, opened("a"), rolled(1), command="a1")])
    log.close()
    with sqlite3.connect(path) as connection:  # what the release before would do
        connection.execute(
            "CREATE TABLE journal (position INTEGER PRIMARY KEY, campaign TEXT NOT NULL,"
            " seq INTEGER NOT NULL, type TEXT NOT NULL, version INTEGER NOT NULL, payload TEXT"
            " NOT NULL, recorded_at TEXT NOT NULL, actor TEXT NOT NULL, command_id TEXT NOT"
            " NULL, hash TEXT NOT NULL, UNIQUE (campaign, seq))")
        (previous,) = connection.execute("SELECT hash FROM events WHERE seq = 2").fetchone()
        rows = []
        for position, (campaign, seq, event) in enumerate(
                [("a", 3, rolled(2)), ("b", 1, opened("b"))], start=3):
            stored = request(campaign, seq - 1, event, command=f"{campaign}{seq}")
            prepared = stored.events[0]
            link = chain_hash(previous if campaign == "a" else GENESIS, campaign, StoredRow(
                seq, prepared.type, prepared.version, prepared.payload.decode(), stored.at,
                stored.actor, stored.command_id))
            rows.append((position, campaign, seq, prepared.type, prepared.version,
                         prepared.payload.decode(), stored.at, stored.actor,
                         stored.command_id, link))
            connection.execute("INSERT INTO commands (campaign, command_id, actor, first_seq,"
                               " last_seq) VALUES (?, ?, ?, ?, ?)",
                               [campaign, stored.command_id, stored.actor, seq, seq])
        connection.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    assert [r.seq for r in SqliteReader(path).rows("a")] == [1, 2]  # runs still the old ones
    log = SqliteLog(path)
    try:
        assert _runs(path) == [("a", 1, 0), ("b", 1, 0)]
        assert [r.seq for r in log.rows("a")] == [1, 2, 3] and log.head("b") == 1
        assert log.verify() == (4, [])
        assert log.append_batch([request("b", 1, rolled(5), command="b2")]) == [[2]]
    finally:
        log.close()


def test_verify_reports_a_sequence_number_written_again_in_a_later_block(log) -> None:
    """The block index is unique within a block only: a campaign's event copied into a later
    block is not refused by the database, and ``verify`` reports it."""
    log.append_batch([request("a", 0, opened("a"), rolled(1), command="a1")])
    with sqlite3.connect(log.path) as connection:
        connection.execute(
            f"INSERT INTO events ({_COLUMNS}) SELECT {BLOCK + 5}, {_COLUMNS.split(', ', 1)[1]}"
            " FROM events WHERE campaign = 'a' AND seq = 1")
    checked, problems = log.verify()
    assert checked == 3
    assert ChainProblem("a", 1, "expected event 3: dropped or moved") in problems


def test_readers_read_on_while_a_server_lays_out_their_file(tmp_path) -> None:
    """Readers kept open on a file of the release before go on reading while a server lays it
    out: each read asks the layout in its own snapshot, so none plans for a journal that is
    dropped before it runs ("no such table: journal" came up in most trials before)."""
    errors: list[str] = []
    for trial in range(30):
        path = tmp_path / f"old-{trial}.db"
        shutil.copy(JOURNAL_FILE, path)
        reader = SqliteReader(path)
        stop = threading.Event()

        def read(kind: int, reader: SqliteReader = reader, stop: threading.Event = stop
                 ) -> None:
            while not stop.is_set():
                try:
                    if kind == 0:
                        assert [r.seq for r in reader.rows("b")] == list(range(1, 9))
                    elif kind == 1:
                        assert sum(p.events for p in reader.frame_pages("b", 0, 10, 3)) == 8
                    elif kind == 2:
                        assert sum(len(page) for page in reader.all_rows()) == 22
                    else:
                        assert reader.head("b") == 8
                except Exception as error:  # noqa: BLE001 - every failure is the finding
                    errors.append(repr(error))

        threads = [threading.Thread(target=read, args=(kind,)) for kind in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(0.01)
        SqliteLog(path).close()
        time.sleep(0.01)
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []
