"""The command-id index: a tail in memory, generations merged off the commit path, old files
migrated once; every id the log accepted is found, whichever part holds it."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

import msgspec
import pytest

from events import command_keys
from events.command_keys import CommandKeys
from events.errors import ConcurrencyError
from events.store import SqliteLog, SqliteReader
from tests.events.store_contract import opened, request, rolled

OLD_FILE = Path(__file__).parents[1] / "fixtures" / "logs" / "old-commands-schema.sqlite"


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tail of 8 ids and steps of 4 rows, so a few dozen commands make generations."""
    monkeypatch.setattr(command_keys, "TAIL_LIMIT", 8)
    monkeypatch.setattr(command_keys, "STEP_ROWS", 4)


def _append(log: SqliteLog, campaign: str, ids: list[str]) -> None:
    head = log.head(campaign)
    for command in ids:
        event = opened(campaign) if head == 0 else rolled(head)
        assert log.append_batch([request(campaign, head, event, command=command)]) == [[head + 1]]
        head += 1


def _housekeep(log: SqliteLog) -> int:
    steps = 0
    while log.has_housework:
        log.housekeeping()
        steps += 1
    return steps


def _gens(path: Path) -> list[tuple[int, int, int]]:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT first, last, size FROM command_generations"
                                  " ORDER BY first"
                                  ).fetchall()


def _key_tables(path: Path) -> dict[int, int]:
    """The rows of each generation's table in the file, listed or not, by generation."""
    with sqlite3.connect(path) as connection:
        names = [name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE name GLOB 'command_keys_*'")]
        return {int(name.removeprefix("command_keys_")):
                connection.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
                for name in names}


def _older_index(connection: sqlite3.Connection) -> None:
    """The index tables of the releases before 2026-11-26, empty: a list ``command_gens``
    and one table of every generation's rows."""
    connection.execute("CREATE TABLE command_gens (gen INTEGER PRIMARY KEY, first INTEGER NOT"
                       " NULL, last INTEGER NOT NULL, size INTEGER NOT NULL)")
    connection.execute("CREATE TABLE command_keys (gen INTEGER NOT NULL, key INTEGER NOT NULL,"
                       " command INTEGER NOT NULL, PRIMARY KEY (gen, key, command))"
                       " WITHOUT ROWID")


def _older_index_left(path: Path) -> bool:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT 1 FROM sqlite_master WHERE name IN"
                                  " ('command_keys', 'command_gens')").fetchone() is not None


def _listed(path: Path) -> list[int]:
    with sqlite3.connect(path) as connection:
        return [gen for (gen,) in connection.execute(
            "SELECT gen FROM command_generations ORDER BY gen")]


def test_a_commit_writes_no_index_page_and_the_tail_is_found(log) -> None:
    """Under the tail's limit nothing is indexed: the ids are found in the writer's memory,
    and by a reader's bounded scan of the rows no generation covers."""
    _append(log, "a", [f"id-{n}" for n in range(5)])
    assert not log.has_housework and _gens(log.path) == []
    want = ["id-0", "id-4", "never"]
    assert log.command_records("a", want).keys() == {"id-0", "id-4"}
    assert SqliteReader(log.path).command_records("a", want) == log.command_records("a", want)
    assert log.command_records("b", want) == {}


def test_generations_merge_pairwise_and_every_id_stays_found(small, log) -> None:
    """Full tails become generations, merged while the newest is as large as the one before:
    a handful remain for a hundred ids, in command order, and each id is found exactly."""
    ids = [f"id-{n}" for n in range(100)]
    for start in range(0, 100, 10):
        _append(log, "a", ids[start:start + 10])
        _housekeep(log)
    gens = _gens(log.path)
    assert log.db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL again for appends
    assert not _older_index_left(log.path)  # an older release finds no list to trust
    assert len(gens) <= 4 and sum(size for _, _, size in gens) + len(log._keys) == 100
    assert [first for first, _, _ in gens[1:]] == [last + 1 for _, last, _ in gens[:-1]]
    found = log.command_records("a", [*ids, "id-100"])
    assert found.keys() == set(ids) and found["id-42"].seqs == [43]
    assert SqliteReader(log.path).command_records("a", ids) == found
    tables = _key_tables(log.path)  # a table a live generation: the merged-away ones dropped
    assert sorted(tables) == _listed(log.path)
    assert sum(tables.values()) == sum(size for _, _, size in gens)


def test_an_id_in_a_generation_is_still_refused_a_second_time(small, log) -> None:
    """Uniqueness holds against merged ids too, not only the tail."""
    _append(log, "a", [f"id-{n}" for n in range(20)])
    _housekeep(log)
    assert log._keys.tail_get("a", "id-3") is None
    (again,) = log.append_batch([request("a", 20, rolled(1), command="id-3")])
    assert isinstance(again, ConcurrencyError)
    assert log.append_batch([request("b", 0, opened("b"), command="id-3")]) == [[1]]


def test_an_id_its_sender_looked_up_is_checked_in_memory_only(small, log) -> None:
    """A request marked ``id_looked_up`` (a hub looks its batch's ids up before deciding)
    costs the writer no statement on the index: a duplicate still in the tail is refused all
    the same, and an unmarked request's id is still looked up in the generations."""
    _append(log, "a", [f"id-{n}" for n in range(20)])
    _housekeep(log)
    assert log._keys.generations and log._keys.tail_get("a", "id-3") is None
    statements: list[str] = []
    log.db.conn.set_trace_callback(statements.append)
    looked_up = msgspec.structs.replace(request("a", 20, rolled(1), command="new"),
                                        id_looked_up=True)
    assert log.append_batch([looked_up]) == [[21]]
    assert not [s for s in statements if "command_keys" in s]
    tail_duplicate = msgspec.structs.replace(request("a", 21, rolled(1), command="new"),
                                             id_looked_up=True)
    (again,) = log.append_batch([tail_duplicate])
    assert isinstance(again, ConcurrencyError) and "already appended" in str(again)
    statements.clear()
    (merged,) = log.append_batch([request("a", 21, rolled(1), command="id-3")])
    assert isinstance(merged, ConcurrencyError)
    assert [s for s in statements if "command_keys" in s]
    log.db.conn.set_trace_callback(None)


def test_ids_in_the_index_and_in_the_tail_are_found_after_a_reopen(small, tmp_path) -> None:
    """Across a restart: an id only in a generation, and one only in the tail (read back into
    memory at open), both answer with what they appended."""
    log = SqliteLog(tmp_path / "log.db")
    _append(log, "a", [f"id-{n}" for n in range(12)])
    _housekeep(log)
    _append(log, "a", ["late"])
    log.close()
    log = SqliteLog(tmp_path / "log.db")
    try:
        assert log._keys.tail_get("a", "id-0") is None
        assert log._keys.tail_get("a", "late") is not None
        found = log.command_records("a", ["id-0", "late"])
        assert (found["id-0"].seqs, found["late"].seqs) == ([1], [13])
    finally:
        log.close()


def test_a_merge_cut_short_is_ignored_and_cleared_at_open(small, tmp_path) -> None:
    """A writer stopped mid-merge leaves rows of an unlisted generation: never read, removed
    at the next open, and the ids they held are found from the tail again."""
    log = SqliteLog(tmp_path / "log.db")
    _append(log, "a", [f"id-{n}" for n in range(8)])
    log.housekeeping()  # the first of two steps: four index rows, no generation listed
    log.close()
    assert _key_tables(tmp_path / "log.db") == {1: 4} and _listed(tmp_path / "log.db") == []
    log = SqliteLog(tmp_path / "log.db")
    try:
        assert _key_tables(tmp_path / "log.db") == {}  # the unlisted table dropped
        assert len(log._keys) == 8 and _gens(tmp_path / "log.db") == []
        assert len(log.command_records("a", [f"id-{n}" for n in range(8)])) == 8
        assert _housekeep(log) > 0 and _gens(tmp_path / "log.db") == [(1, 8, 8)]
        assert len(log.command_records("a", ["id-7"])) == 1
    finally:
        log.close()


def test_ids_sharing_a_digest_stay_apart(small, log, monkeypatch) -> None:
    """The digest only finds candidates: with every id on one key, each finds its own row."""
    monkeypatch.setattr(command_keys, "command_key", lambda campaign, command_id: 7)
    _append(log, "a", [f"id-{n}" for n in range(10)])
    _housekeep(log)
    assert _gens(log.path) and log._keys.tail_get("a", "id-1") is None
    found = log.command_records("a", ["id-1", "id-6", "nope"])
    assert (found["id-1"].seqs, found["id-6"].seqs) == ([2], [7]) and "nope" not in found


def test_a_log_written_by_the_old_schema_opens_migrated_and_goes_on(tmp_path) -> None:
    """A file whose ``commands`` table was keyed by ``(campaign, command_id)``: read as it is
    by a reader, rewritten once when a writer opens it, then appended to and verified."""
    path = tmp_path / "old.db"
    shutil.copy(OLD_FILE, path)
    want = ["first", "second", "third", "nope"]
    old = SqliteReader(path).command_records("a", want)
    assert SqliteReader(path).directory() == [("a", "first", "gm", 3), ("b", "b-open", "gm", 1)]
    assert {k: v.seqs for k, v in old.items()} == {"first": [1, 2, 3], "second": [4],
                                                  "third": [5, 6]}
    log = SqliteLog(path)
    try:
        assert log.command_records("a", want) == old
        assert log.directory() == [("a", "first", "gm", 3), ("b", "b-open", "gm", 1)]
        (again,) = log.append_batch([request("a", 6, rolled(1), command="second")])
        assert isinstance(again, ConcurrencyError)
        assert log.append_batch([request("a", 6, rolled(1), command="fourth")]) == [[7]]
        assert log.verify() == (8, [])
    finally:
        log.close()
    with sqlite3.connect(path) as connection:
        ids = connection.execute("SELECT id, command_id FROM commands ORDER BY id").fetchall()
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute("DELETE FROM commands")
    assert ids == [(1, "first"), (2, "second"), (3, "b-open"), (4, "third"), (5, "fourth")]
    log = SqliteLog(path)  # a second open finds nothing to migrate
    try:
        assert log.command_records("a", want).keys() == {"first", "second", "third"}
    finally:
        log.close()


def test_a_tail_too_long_to_hold_is_indexed_at_open(small, tmp_path) -> None:
    """A migrated log (or many merges cut short) leaves more rows than the tail holds: they
    become one generation at open, and memory holds none of them."""
    path = tmp_path / "old.db"
    shutil.copy(OLD_FILE, path)
    with sqlite3.connect(path) as connection:  # more old rows than the small tail's 8
        connection.executemany("INSERT INTO commands VALUES ('c', ?, 'gm', 1, 1)",
                               [(f"x{n}",) for n in range(20)])
    log = SqliteLog(path)
    try:
        assert len(log._keys) == 0 and _gens(path) == [(1, 24, 24)]
        assert log.command_records("c", ["x0", "x19"]).keys() == {"x0", "x19"}
    finally:
        log.close()


def test_a_failed_merge_step_loses_nothing_and_starts_over(small, log) -> None:
    """A merge step the disk refuses (here a trigger, as the generation is listed) raises;
    the tail is kept whole, ids are still found, appends go on, and the next steps do the
    merge from the start (the table left unlisted is dropped at the next open)."""
    _append(log, "a", [f"id-{n}" for n in range(8)])
    log.db.execute("CREATE TRIGGER refuse BEFORE INSERT ON command_generations"
                   " BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
    with pytest.raises(sqlite3.IntegrityError, match="disk says no"):
        _housekeep(log)
    assert log.db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL again for appends
    assert len(log._keys) == 8 and log.has_housework and not log.db.conn.in_transaction
    _append(log, "a", ["id-8"])
    assert len(log.command_records("a", [f"id-{n}" for n in range(9)])) == 9
    log.db.execute("DROP TRIGGER refuse")
    _housekeep(log)
    assert _gens(log.path) == [(1, 9, 9)] and len(log._keys) == 0
    assert len(log.command_records("a", [f"id-{n}" for n in range(9)])) == 9


def test_the_index_dropped_is_rebuilt_from_the_commands_at_open(small, tmp_path) -> None:
    """The index is derived data: with both its tables dropped, the next open rebuilds it."""
    log = SqliteLog(tmp_path / "log.db")
    _append(log, "a", [f"id-{n}" for n in range(20)])
    _housekeep(log)
    log.close()
    with sqlite3.connect(tmp_path / "log.db") as connection:
        for gen in _key_tables(tmp_path / "log.db"):
            connection.execute(f"DROP TABLE command_keys_{gen}")
        connection.execute("DROP TABLE command_generations")
    log = SqliteLog(tmp_path / "log.db")
    try:
        assert _gens(tmp_path / "log.db") == [(1, 20, 20)]
        assert len(log.command_records("a", [f"id-{n}" for n in range(20)])) == 20
    finally:
        log.close()


def test_a_generation_whose_table_is_gone_makes_the_index_be_rebuilt_at_open(small, tmp_path
                                                                            ) -> None:
    """A listed generation with its table dropped by hand would hide its ids from every
    lookup (and let a retry append twice): the next open rebuilds the whole index."""
    log = SqliteLog(tmp_path / "log.db")
    ids = [f"id-{n}" for n in range(40)]
    for start, end in ((0, 10), (10, 20), (20, 40)):  # three generations, none merged
        _append(log, "a", ids[start:end])
        _housekeep(log)
    log.close()
    gens = _key_tables(tmp_path / "log.db")
    assert len(gens) == 3
    with sqlite3.connect(tmp_path / "log.db") as connection:
        connection.execute(f"DROP TABLE command_keys_{min(gens)}")
    log = SqliteLog(tmp_path / "log.db")
    try:
        assert _gens(tmp_path / "log.db") == [(1, 40, 40)]
        assert sorted(_key_tables(tmp_path / "log.db")) == _listed(tmp_path / "log.db")
        assert log.command_records("a", ids).keys() == set(ids)
        (again,) = log.append_batch([request("a", 40, rolled(1), command="id-0")])
        assert isinstance(again, ConcurrencyError)
    finally:
        log.close()


def test_the_directory_finds_each_creating_command_in_the_index_or_the_tail(small, tmp_path
                                                                              ) -> None:
    """At start a server reads what created each campaign: found whether the command has been
    merged into a generation or is still in the tail, by the writer and by a reader."""
    log = SqliteLog(tmp_path / "log.db")
    try:
        log.append_batch([request("a", 0, opened("a"), rolled(1), command="make-a")])
        _append(log, "a", [f"id-{n}" for n in range(10)])
        _housekeep(log)
        log.append_batch([request("b", 0, opened("b"), rolled(1), rolled(2), command="make-b")])
        assert log._keys.tail_get("a", "make-a") is None
        assert log._keys.tail_get("b", "make-b") is not None
        want = [("a", "make-a", "gm", 2), ("b", "make-b", "gm", 3)]
        assert log.directory() == want
        assert SqliteReader(log.path).directory() == want
    finally:
        log.close()


def test_lookups_on_other_threads_find_every_id_while_generations_merge(small, tmp_path
                                                                          ) -> None:
    """A merge lists its generation, then drops the merged-away tables in a later
    transaction: a lookup running meanwhile (the hub's, beside the writer; an offline
    reader's) reads the list and the tables it names in one snapshot, so it neither misses
    an id nor meets a table gone."""
    log = SqliteLog(tmp_path / "log.db")
    reader = SqliteReader(log.path)
    committed: list[str] = []
    problems: list[object] = []
    stop = threading.Event()

    def look() -> None:
        while not stop.is_set():
            known = list(committed)
            try:
                for records in (log.command_records("a", known),
                                reader.command_records("a", known)):
                    if records.keys() != set(known):
                        problems.append(set(known) - records.keys())
            except Exception as error:  # a table dropped under a lookup: what this guards
                problems.append(error)
                return

    looker = threading.Thread(target=look)
    looker.start()
    try:
        for n in range(300):
            _append(log, "a", [f"id-{n}"])
            committed.append(f"id-{n}")
            while log.has_housework:  # every step, as the writer takes them between commits
                log.housekeeping()
    finally:
        stop.set()
        looker.join()
        log.close()
    assert problems == []
    assert len(_gens(log.path)) >= 2


def test_a_file_of_the_one_table_layout_is_read_as_it_is_and_split_at_open(small, tmp_path
                                                                            ) -> None:
    """The index before 2026-11-26 kept every generation in one table keyed by ``(gen, key,
    command)``: a reader finds ids in it as it is; a writer's open rewrites each listed
    generation into a table of its own (rows of unlisted ones left behind) and goes on."""
    path = tmp_path / "log.db"
    log = SqliteLog(path)
    ids = [f"id-{n}" for n in range(40)]
    _append(log, "a", ids)
    _housekeep(log)
    log.close()
    gens = _key_tables(path)
    with sqlite3.connect(path) as connection:  # the file as the release before wrote it
        _older_index(connection)
        connection.execute("INSERT INTO command_gens SELECT * FROM command_generations")
        connection.execute("DROP TABLE command_generations")
        for gen in gens:
            connection.execute(f"INSERT INTO command_keys SELECT {gen}, key, command"
                               f" FROM command_keys_{gen}")
            connection.execute(f"DROP TABLE command_keys_{gen}")
        connection.execute("INSERT INTO command_keys VALUES (99, 1, 1)")  # an unlisted one
    assert _key_tables(path) == {}
    want = [*ids, "nope"]
    found = SqliteReader(path).command_records("a", want)
    assert found.keys() == set(ids) and found["id-7"].seqs == [8]
    log = SqliteLog(path)
    try:
        assert _key_tables(path) == gens and sorted(gens) == _listed(path)
        assert not _older_index_left(path)
        assert log.command_records("a", want) == found
        assert SqliteReader(path).command_records("a", want) == found
        (again,) = log.append_batch([request("a", 40, rolled(1), command="id-3")])
        assert isinstance(again, ConcurrencyError)
    finally:
        log.close()


def test_a_lookup_that_meets_a_table_dropped_reads_the_generations_again(small, log,
                                                                          monkeypatch) -> None:
    """The hub's lookup reads the live generations from the writer's memory, then probes
    them: should a merge list a new generation and drop the old tables in between, SQLite
    says "no such table" and the lookup reads the list again, finding every id there; an
    error of another kind, or with the list unchanged, is raised."""
    _append(log, "a", [f"id-{n}" for n in range(8)])
    _housekeep(log)
    stale = log._keys.live
    for start in (8, 16, 24):
        _append(log, "a", [f"id-{n}" for n in range(start, start + 8)])
        _housekeep(log)  # the fourth generation of 8: all four merged, their tables dropped
    fresh = log._keys.live
    assert not set(stale) & set(fresh) and not set(stale) & set(_key_tables(log.path))
    seen = iter([stale, fresh, fresh])
    monkeypatch.setattr(CommandKeys, "live", property(lambda self: next(seen)))
    found = log.command_records("a", ["id-0", "id-31", "nope"])
    assert found.keys() == {"id-0", "id-31"} and found["id-0"].seqs == [1]
    monkeypatch.setattr(CommandKeys, "live", property(lambda self: stale))
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        log.command_records("a", ["id-0"])


def test_a_file_an_older_release_wrote_since_keeps_this_releases_generations(small, tmp_path
                                                                             ) -> None:
    """An older release that opens the file finds no ``command_gens`` of its own, makes one
    and indexes every command itself (its one table), then appends. Opened again here, its
    tables are dropped; this release's generations stand, and the commands appended since
    are found after them, in the tail."""
    path = tmp_path / "log.db"
    log = SqliteLog(path)
    ids = [f"id-{n}" for n in range(20)]
    for start in (0, 10):
        _append(log, "a", ids[start:start + 10])
        _housekeep(log)
    log.close()
    gens = _key_tables(path)
    with sqlite3.connect(path) as connection:  # what the older release leaves behind
        _older_index(connection)
        connection.execute("INSERT INTO command_gens VALUES (1, 1, 21, 21)")
        connection.execute("INSERT INTO commands (id, campaign, command_id, actor, first_seq,"
                           " last_seq) VALUES (21, 'a', 'late', 'gm', 21, 21)")
    log = SqliteLog(path)
    try:
        assert _key_tables(path) == gens and _listed(path) == sorted(gens)
        assert not _older_index_left(path)
        want = [*ids, "late"]
        assert log.command_records("a", want).keys() == set(want)
        assert SqliteReader(path).command_records("a", want).keys() == set(want)
        (again,) = log.append_batch([request("a", 20, rolled(1), command="late")])
        assert isinstance(again, ConcurrencyError)
    finally:
        log.close()


def _refuse(log: SqliteLog, action: int, table: str | None = None) -> None:
    """Make the writer's connection refuse ``action`` (on ``table``, or any): the disk
    refusing a step, as far as the index can tell."""
    def authorize(code: int, first: str | None, *_: object) -> int:
        refused = code == action and (table is None or first == table)
        return sqlite3.SQLITE_DENY if refused else sqlite3.SQLITE_OK
    log.db.conn.set_authorizer(authorize)


def test_a_drop_that_fails_is_done_by_a_later_step(small, log) -> None:
    """Merged-away tables that could not be dropped (the disk refusing) stay on the writer's
    list and are dropped by the next steps, not left until the next open."""
    for start in range(0, 32, 8):
        _append(log, "a", [f"id-{n}" for n in range(start, start + 8)])
        _refuse(log, sqlite3.SQLITE_DROP_TABLE)
        try:
            _housekeep(log)
        except sqlite3.DatabaseError:
            pass
    assert len(_listed(log.path)) == 1 and len(_key_tables(log.path)) == 5
    assert log.has_housework
    log.db.conn.set_authorizer(None)
    _housekeep(log)
    assert sorted(_key_tables(log.path)) == _listed(log.path)
    assert len(log.command_records("a", [f"id-{n}" for n in range(32)])) == 32


def test_a_merge_that_fails_is_done_again_and_its_table_dropped(small, log) -> None:
    """A merge whose new table cannot be filled is done again by later steps, and the table
    it left half built is dropped: no generation is stranded beside the merged ones."""
    for start in range(0, 32, 8):
        _append(log, "a", [f"id-{n}" for n in range(start, start + 8)])
        if start == 24:
            _refuse(log, sqlite3.SQLITE_INSERT, "command_keys_5")  # the merge's new table
            with pytest.raises(sqlite3.DatabaseError):
                _housekeep(log)
            log.db.conn.set_authorizer(None)
        _housekeep(log)
    assert _gens(log.path) == [(1, 32, 32)]
    assert sorted(_key_tables(log.path)) == _listed(log.path)
    assert len(log.command_records("a", [f"id-{n}" for n in range(32)])) == 32
