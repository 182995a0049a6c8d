"""The SQLite log: the shared contracts (:class:`TestSqliteLog` and the side tables'), then
what only SQLite has."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from poolhall.events import core
from poolhall.events.errors import StoreError
from poolhall.events.log_contract import CommandRecord, EventLog, ServerLog
from poolhall.events.sqlite_backend import SqliteLog, SqliteReader
from poolhall.events.sqlite_backend.snapshots import SqliteSnapshots
from tests.events.side_tables_contract import (
    IssuedTokensContract,
    SealedTokensContract,
    SeedVaultContract,
    ServerLogContract,
    SnapshotRowsContract,
)
from tests.events.store_contract import Backend, LogContract, opened, request, rolled


def _path(log: EventLog) -> Path:
    assert isinstance(log, SqliteLog)
    return log.path


def _drop_triggers(connection: sqlite3.Connection) -> None:
    """Every trigger of the file, as someone who can write it may drop them."""
    for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        connection.execute(f"DROP TRIGGER {name}")


class Sqlite(Backend):
    """The contracts' hooks, on a real SQLite file."""

    integrity_errors = (sqlite3.IntegrityError,)

    @pytest.fixture
    def log(self, tmp_path: Path) -> Iterator[ServerLog]:
        store = SqliteLog(tmp_path / "log.db")
        yield store
        store.close()

    def reopen(self, log: EventLog) -> EventLog:
        log.close()
        return SqliteLog(_path(log))

    def execute(self, log: EventLog, sql: str) -> None:
        with sqlite3.connect(_path(log)) as connection:
            connection.execute(sql)

    def tamper(self, log: EventLog, *statements: str) -> None:
        with sqlite3.connect(_path(log)) as connection:
            _drop_triggers(connection)
            for statement in statements:
                connection.execute(statement)

    def database(self, log: EventLog) -> str:
        return str(_path(log))

    def overwrites(self, table: str, key: tuple[str, ...], columns: tuple[str, ...],
                   change: tuple[str, str]) -> list[str]:
        names, selected = ", ".join(columns), self._selected(columns, change)
        # at a key no row has, but at a stored row's number: REPLACE deleted that row
        moved = self._selected(columns, (key[0], f"'moved ' || {key[0]}"))
        by_row = [] if table in WITHOUT_ROWID else [
            f"INSERT OR REPLACE INTO {table} (rowid, {names}) SELECT rowid, {moved} FROM {table}"]
        return [*super().overwrites(table, key, columns, change),
                f"INSERT OR REPLACE INTO {table} ({names}) SELECT {selected} FROM {table}",
                f"REPLACE INTO {table} ({names}) SELECT {selected} FROM {table}", *by_row]


WITHOUT_ROWID = frozenset({"fair_seeds"})
"""The append-only tables with no row number (``WITHOUT ROWID``)."""


class TestSqliteLog(Sqlite, LogContract):
    """The log's contract, on a real SQLite file."""


class TestSqliteIssuedTokens(Sqlite, IssuedTokensContract):
    """Issued tokens in the SQLite file."""


class TestSqliteSealedTokens(Sqlite, SealedTokensContract):
    """Sealed tokens in the SQLite file."""


class TestSqliteSnapshotRows(Sqlite, SnapshotRowsContract):
    """Stored snapshots in the SQLite file."""


class TestSqliteSeedVault(Sqlite, SeedVaultContract):
    """The seed vault in the SQLite file."""


class TestSqliteServerLog(Sqlite, ServerLogContract):
    """The SQLite log as a server opens it."""


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SqliteLog]:
    store = SqliteLog(tmp_path / "log.db")
    yield store
    store.close()


def _filled(log: SqliteLog) -> Path:
    log.append_batch([request("a", 0, opened("a"), rolled(1), rolled(2), rolled(3))])
    log.append_batch([request("b", 0, opened("b"), rolled(9), command="b")])
    return log.path


def test_log_uses_wal_and_full_sync(log: SqliteLog) -> None:
    """WAL lets readers run beside the writer; FULL sync makes each commit durable."""
    assert log.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_a_second_server_on_the_file_is_refused(log: SqliteLog) -> None:
    """One writer per file: a second open for writing is refused at once."""
    with pytest.raises(StoreError, match="already open for writing"):
        SqliteLog(log.path)


def test_a_reader_leaves_a_copy_as_it_found_it_and_holds_a_server_off(tmp_path: Path) -> None:
    """A file with no -wal or -shm (a closed log, a backup copy) gets none from a reader,
    and no server opens it for writing while the reader reads it unlocked.

    SQLite's read-only open of a WAL-mode file created both beside it (an empty -wal and a
    -shm next to evidence that had neither); the reader reads it as unchanging instead,
    which is true only because no server can write it meanwhile.
    """
    log = SqliteLog(tmp_path / "copy.db")
    path = _filled(log)
    log.close()
    beside = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    assert not any(map(Path.exists, beside))
    reader = SqliteReader(path)
    assert reader.verify() == (6, [])
    assert reader.head("a") == 4
    with pytest.raises(StoreError, match="being read by poolhall verify"):
        SqliteLog(path)
    reader.close()
    assert not any(map(Path.exists, beside))
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    SqliteLog(path).close()  # once the reader is done, a server opens it


def test_recorded_pages_upcast_when_an_upcaster_is_registered(log: SqliteLog,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """The rebuild's page scan gives the same events on its fast path and its upcasting path."""
    from poolhall.events import codec, core
    from poolhall.events.log import recorded_pages

    _filled(log)
    fast = [(c, r.seq, r.event) for page in recorded_pages(log) for c, r in page]
    assert [seq for c, seq, _ in fast if c == "a"] == [1, 2, 3, 4]
    monkeypatch.setattr(core.DiceRolled, "schema_version", 2)
    monkeypatch.setitem(codec.UPCASTERS, ("dice_rolled", 1),
                        lambda old: {**old, "reason": "upcast"})
    slow = [(c, r.seq, r.event) for page in recorded_pages(log) for c, r in page]
    assert [(c, s) for c, s, _ in slow] == [(c, s) for c, s, _ in fast]
    assert {e.reason for _, _, e in slow if isinstance(e, core.DiceRolled)} == {"upcast"}


def test_append_hashes_chain_any_text(log: SqliteLog) -> None:
    """The writer's inline hash is the chain's own, for non-ASCII ids and multi-event commands."""
    from poolhall.events.log import chain_hash

    appended = log.append_batch([
        request("café-☕", 0, opened("cafe"), rolled(1), actor="gm-é", command="ç-1"),
        request("b", 0, opened("b"), command="b1"),
        request("café-☕", 2, rolled(2), actor="ünïcode", command="ç-2")])
    rows = list(log.rows("café-☕"))
    assert [r.hash for r in rows] == appended[0].hashes + appended[2].hashes  # type: ignore[union-attr]
    previous = "0" * 64
    for row in rows:
        assert chain_hash(previous, "café-☕", row) == row.hash
        previous = row.hash
    assert log.verify() == (4, [])


def test_a_failed_transaction_appends_nothing_and_the_log_goes_on(log: SqliteLog) -> None:
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


def _statements(log: SqliteLog) -> list[str]:
    """The statements the writer's connection runs from now on (SQLite's own trace)."""
    seen: list[str] = []
    log.db.set_trace_callback(seen.append)
    return seen


def test_a_batch_of_new_command_ids_is_written_without_looking_them_up(log: SqliteLog
                                                                       ) -> None:
    """The hub looked each id up before deciding: the writer inserts the batch's commands
    straight away (the key of ``commands`` refuses an id it holds), reading nothing of
    ``commands`` first. On a log of millions of commands that look-up was a walk down the
    index as long as the insert's."""
    _filled(log)
    seen = _statements(log)
    assert log.append_batch([request("a", 4, rolled(4), command="a-new"),
                             request("b", 2, rolled(5), command="b-new")]) == [[5], [3]]
    log.db.set_trace_callback(None)
    assert not [s for s in seen if "FROM json_each" in s and "commands" in s]
    assert log.command_records("a", ["a-new"]).keys() == {"a-new"}


def test_a_command_the_log_holds_racing_into_a_batch_gets_its_answer(log: SqliteLog
                                                                     ) -> None:
    """Two tries of one command that both passed the hub's look-up: the second, at the
    campaign's head, is refused by the key of ``commands``, and the batch is made again
    with its ids looked up: the retry gets the recorded answer, the others of the batch
    are appended, nothing twice."""
    _filled(log)  # "b" recorded events 1-2 of campaign b
    assert log.append_batch([request("a", 4, rolled(4), command="a-new"),
                             request("b", 2, rolled(9), command="b"),
                             request("b", 2, rolled(6), command="b-new")]
                            ) == [[5], CommandRecord("gm", 1, 2), [3]]
    assert log.head("a") == 5
    assert log.head("b") == 3
    assert log.verify() == (8, [])


def test_the_issuing_tags_are_those_of_every_event_that_carries_a_token_hash() -> None:
    """``ISSUING`` is written out (so that opening the file imports no event type): it is
    exactly the tags of the events with a ``token_hash`` field."""
    from poolhall.events.codec import ALL_EVENTS, event_tag
    from poolhall.events.issuing_events import ISSUING

    carrying = {event_tag(cls) for cls in ALL_EVENTS if "token_hash" in cls.__struct_fields__}
    assert carrying == ISSUING


def test_a_deleted_snapshots_table_reads_as_none_and_the_next_save_makes_it(
        log: SqliteLog) -> None:
    """Stored snapshots are derived: an operator may drop the table under a server."""
    rows = SqliteSnapshots(log.path)
    rows.save("c", "new", [(1, "h1", b"one", "s1")])
    with sqlite3.connect(log.path) as connection:
        connection.execute("DROP TABLE snapshots")
    assert rows.latest("c", "new", 3) is None
    rows.discard("c", 1)
    rows.save("c", "new", [(1, "h1", b"one", "s1")])
    assert rows.latest("c", "new", 3) == (1, "h1", b"one", "s1")


def test_a_failed_batch_writes_no_token(log: SqliteLog) -> None:
    """A batch SQLite refuses whole (a trigger aborts one row) writes none of its tokens."""
    log.db.execute("CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.campaign = 'd'"
                   " BEGIN SELECT RAISE(ABORT, 'boom'); END")
    invite = core.MemberInvited(member="m1", name="Mira", role="player", token_hash="b" * 64)
    results = log.append_batch([request("c", 0, opened("c"), invite, command="c1"),
                                request("d", 0, opened("d"), command="d1")])
    assert all(isinstance(r, StoreError) for r in results)
    assert log.token_campaign("b" * 64) is None


def test_verify_reports_rows_of_the_wrong_type_in_words(log: SqliteLog) -> None:
    """SQLite keeps a value of any type in any column: ``'ten'`` passes ``CHECK (seq >= 1)``
    (text sorts after numbers) and a blob passes ``NOT NULL``. Rows inserted so, with every
    trigger in place, are reported as problems of their campaign; verify raised a TypeError
    (``seq + 1``, then the sort of a blob campaign among text) and said nothing else."""
    log.append_batch([request("a", 0, opened("a"), rolled(1), command="a1")])
    columns = "campaign, seq, type, version, payload, recorded_at, actor, command_id, hash"
    with sqlite3.connect(_path(log)) as connection:
        for campaign, seq in (("a", "ten"), (b"b", 1)):
            connection.execute(f"INSERT INTO events ({columns}) VALUES (?, ?, 'note', 1,"
                               " '{}', 't', 'gm', 'c-x', ?)", (campaign, seq, "0" * 64))
    checked, problems = log.verify()
    assert checked == 4
    assert {(problem.campaign, problem.seq) for problem in problems} >= {("a", 0), ("b", 1)}
    assert all(isinstance(problem.campaign, str) for problem in problems)
