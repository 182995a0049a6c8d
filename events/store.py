"""The embedded event log: one SQLite file through sqlite-utils, WAL mode, append-only.

Table ``events``: one row per event (global ``position``, ``campaign``, per-campaign ``seq``
unique with the campaign, ``type``, schema ``version``, JSON ``payload``, ``recorded_at``,
``actor``, ``command_id``, ``hash``). Table ``commands``: one row per accepted command id
(unique per campaign). Triggers refuse UPDATE and DELETE on both. ``synchronous=FULL`` makes a
commit durable before :meth:`SqliteLog.append_batch` returns; the server acknowledges nothing
before that. This module is the one place in ``events`` that does I/O: it is the log itself.

All writes happen on the thread that calls :meth:`append_batch` (the server's single writer);
reads open their own connection per call, as WAL lets readers run beside the writer.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

from events.errors import ConcurrencyError, StoreError
from events.log import (
    GENESIS,
    AppendRequest,
    ChainProblem,
    CommandRecord,
    RowTuple,
    StoredRow,
    chain_hash,
)

__all__ = ["PAGE_ROWS", "SqliteLog", "SqliteReader", "writer_lock"]

_APPEND_ONLY = """
CREATE TRIGGER IF NOT EXISTS {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END;
CREATE TRIGGER IF NOT EXISTS {table}_no_delete BEFORE DELETE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END;
"""

PAGE_ROWS = 256
"""Rows fetched per call. Small on purpose: a page of 4,000 rows (with the objects decoded from
it) no longer fits the CPU cache, and a full rebuild ran 1.5 times slower than with 256."""

_ROW_COLUMNS = "seq, type, version, payload, recorded_at, actor, command_id"
_INSERT_EVENT = (
    "INSERT INTO events (campaign, seq, type, version, payload, recorded_at, actor, command_id,"
    " hash) VALUES (:campaign, :seq, :type, :version, :payload, :recorded_at, :actor,"
    " :command_id, :hash)"
)
_INSERT_COMMAND = (
    "INSERT INTO commands (campaign, command_id, actor, first_seq, last_seq)"
    " VALUES (:campaign, :command_id, :actor, :first_seq, :last_seq)"
)


class SqliteReader:
    """Read-only access to a log file: what ``poolhall verify`` and offline tools open.

    Each read opens its own connection (WAL lets readers run beside the server's writer); a
    reader never writes, so it can inspect a log that is being served, or one kept as evidence.
    """

    def __init__(self, path: str | Path, *, mode: str = "ro") -> None:
        self.path = Path(path)
        self._uri = f"{self.path.resolve().as_uri()}?mode={mode}"
        if mode == "ro":
            self._check_is_a_log()

    def _check_is_a_log(self) -> None:
        if not self.path.is_file():
            raise StoreError(f"no database at {self.path}")
        try:
            tables = {name for (name,) in self._scan(
                "SELECT name FROM sqlite_master WHERE type = 'table'", [])}
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a SQLite database ({error})") from None
        if not {"events", "commands"} <= tables:
            raise StoreError(f"{self.path} is not a poolhall log (no events and commands tables)")

    def _reader(self) -> sqlite3.Connection:
        return sqlite3.connect(self._uri, uri=True, check_same_thread=False)

    def _scan(self, sql: str, parameters: list[object]) -> Iterator[tuple[Any, ...]]:
        """Rows as SQLite gives them (its values are typed per value, hence ``Any``)."""
        connection = self._reader()
        try:
            cursor = connection.execute(sql, parameters)
            while batch := cursor.fetchmany(PAGE_ROWS):
                yield from batch
        finally:
            connection.close()

    def rows(self, campaign: str, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        """The campaign's rows with ``after < seq <= upto`` in order, read in pages."""
        limit = upto if upto is not None else 2**62
        for row in self._scan(
            f"SELECT {_ROW_COLUMNS} FROM events WHERE campaign = ? AND seq > ? AND seq <= ?"
            " ORDER BY seq", [campaign, after, limit],
        ):
            yield StoredRow(*row)

    def all_rows(self, typed: bool = False) -> Iterator[list[RowTuple]]:
        """Every row in the order it was appended (each campaign's in sequence order), in pages.

        One sequential scan of the table: reading campaign by campaign through the index cost
        a random page read per row, five times slower on a log of interleaved campaigns.
        """
        connection = self._reader()
        try:
            types = ", type, version" if typed else ""
            cursor = connection.execute(
                "SELECT seq, payload, recorded_at, actor, command_id, campaign"
                f"{types} FROM events ORDER BY position")
            while page := cursor.fetchmany(PAGE_ROWS):
                yield page
        finally:
            connection.close()

    def campaigns(self) -> list[str]:
        """Every campaign with at least one event, in the order they were created."""
        return [str(c) for (c,) in self._scan(
            "SELECT campaign FROM events WHERE seq = 1 ORDER BY position", [])]

    def head(self, campaign: str) -> int:
        """The campaign's last sequence number (0 when it has no event)."""
        (found,) = next(self._scan("SELECT max(seq) FROM events WHERE campaign = ?", [campaign]))
        return int(found or 0)

    def commands(self, campaign: str) -> dict[str, CommandRecord]:
        """Every command id the campaign accepted, with who sent it and what it appended."""
        return {str(command): CommandRecord(str(actor), int(first), int(last))
                for command, actor, first, last in self._scan(
                    "SELECT command_id, actor, first_seq, last_seq FROM commands"
                    " WHERE campaign = ?", [campaign])}

    def verify(self) -> tuple[int, list[ChainProblem]]:
        """Walk every campaign's hash chain; report each event that breaks it.

        The chain alone cannot see its own last events removed, so the walk is checked
        against the ``commands`` table too: every event must lie within the sequence numbers
        its command recorded, and every recorded sequence number must have its event.
        """
        checked = 0
        problems: list[ChainProblem] = []
        recorded = self._command_ranges()
        heads: dict[str, int] = {}
        current = ""  # no campaign yet (a campaign id is never empty)
        previous, expected_seq = GENESIS, 1
        for campaign, *columns, stored in self._scan(
                f"SELECT campaign, {_ROW_COLUMNS}, hash FROM events ORDER BY campaign, seq", []):
            if campaign != current:
                current, previous, expected_seq = str(campaign), GENESIS, 1
            row = StoredRow(*columns)
            checked += 1
            if row.seq != expected_seq:
                problems.append(ChainProblem(
                    current, row.seq, f"expected event {expected_seq}: dropped or moved"))
            if chain_hash(previous, current, row) != stored:
                problems.append(ChainProblem(
                    current, row.seq, "hash does not match: edited, or out of order"))
            first, last = recorded.get((current, row.command_id), (0, -1))
            if not first <= row.seq <= last:
                problems.append(ChainProblem(
                    current, row.seq, f"command {row.command_id!r} did not append this event"))
            previous, expected_seq = str(stored), row.seq + 1
            heads[current] = row.seq
        recorded_heads: dict[str, int] = {}
        for (campaign, _), (_, last) in recorded.items():
            recorded_heads[campaign] = max(last, recorded_heads.get(campaign, 0))
        for campaign, last in recorded_heads.items():
            head = heads.get(campaign, 0)
            if last > head:
                problems.append(ChainProblem(
                    campaign, head + 1, f"events {head + 1} to {last} are missing: the commands"
                    f" table records them, the log ends at {head}"))
        return checked, problems

    def _command_ranges(self) -> dict[tuple[str, str], tuple[int, int]]:
        """Each recorded command's first and last sequence number, keyed by campaign and id."""
        return {(str(campaign), str(command)): (int(first), int(last))
                for campaign, command, first, last in self._scan(
                    "SELECT campaign, command_id, first_seq, last_seq FROM commands", [])}


class SqliteLog(SqliteReader):
    """The event log in one SQLite file, opened for writing by its one server.

    ``":memory:"`` is not supported: readers need a file. Opening takes an exclusive lock on
    the file (released by :meth:`close`), so a second server on the same database is refused
    at once instead of both appending and each holding a state the other does not see.
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, mode="rwc")
        self._lock = writer_lock(self.path)
        try:
            self.db = sqlite_utils.Database(sqlite3.connect(self.path, check_same_thread=False))
        except sqlite3.Error as error:
            os.close(self._lock)
            raise StoreError(f"cannot open {self.path}: {error}") from None
        try:
            self._configure()
        except sqlite3.DatabaseError as error:
            self.close()
            raise StoreError(f"{self.path} is not a SQLite database ({error})") from None
        self._heads: dict[str, tuple[int, str]] = {}

    def _configure(self) -> None:
        self.db.enable_wal()
        self.db.execute("PRAGMA synchronous=FULL")
        # The writer never checkpoints (a checkpoint inside a commit stalled acks for 100+ ms);
        # :meth:`checkpoint` does it from another connection, beside the writer.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self._create_schema()

    def _create_schema(self) -> None:
        with self.db.atomic():
            if "events" not in self.db.table_names():
                self.db.table("events").create(
                    {
                        "position": int,
                        "campaign": str,
                        "seq": int,
                        "type": str,
                        "version": int,
                        "payload": str,
                        "recorded_at": str,
                        "actor": str,
                        "command_id": str,
                        "hash": str,
                    },
                    pk="position",
                    not_null={"campaign", "seq", "type", "version", "payload", "recorded_at",
                              "actor", "command_id", "hash"},
                )
                self.db.table("events").create_index(["campaign", "seq"], unique=True)
            if "commands" not in self.db.table_names():
                self.db.table("commands").create(
                    {"campaign": str, "command_id": str, "actor": str, "first_seq": int,
                     "last_seq": int},
                    pk=("campaign", "command_id"),
                    not_null={"actor", "first_seq", "last_seq"},
                )
        for table in ("events", "commands"):
            self.db.conn.executescript(_APPEND_ONLY.format(table=table))

    # ---- writing (the writer thread only) ----------------------------------------------

    def _head_of(self, campaign: str) -> tuple[int, str]:
        head = self._heads.get(campaign)
        if head is None:
            row = self.db.execute(
                "SELECT seq, hash FROM events WHERE campaign = ? ORDER BY seq DESC LIMIT 1",
                [campaign],
            ).fetchone()
            head = (row[0], row[1]) if row else (0, GENESIS)
            self._heads[campaign] = head
        return head

    def append_batch(self, requests: list[AppendRequest]) -> list[list[int] | Exception]:
        """Append every request whose expected head holds, all in one durable transaction.

        A request whose head moved gets a :class:`ConcurrencyError` in its place and appends
        nothing; the others still commit. If the transaction itself fails, every request gets
        a :class:`StoreError` and the in-memory heads are forgotten (reloaded on next use).
        """
        results: list[list[int] | Exception] = []
        heads: dict[str, tuple[int, str]] = {}
        event_rows: list[dict[str, object]] = []
        command_rows: list[dict[str, object]] = []
        for request in requests:
            seq, previous = heads.get(request.campaign) or self._head_of(request.campaign)
            if seq != request.expected_head:
                results.append(ConcurrencyError(
                    f"campaign {request.campaign!r} is at {seq}, not {request.expected_head}"))
                continue
            seqs: list[int] = []
            for prepared in request.events:
                seq += 1
                row = StoredRow(seq, prepared.type, prepared.version, prepared.payload,
                                request.at, request.actor, request.command_id)
                previous = chain_hash(previous, request.campaign, row)
                event_rows.append({
                    "campaign": request.campaign, "seq": seq, "type": prepared.type,
                    "version": prepared.version, "payload": prepared.payload.decode(),
                    "recorded_at": request.at, "actor": request.actor,
                    "command_id": request.command_id, "hash": previous,
                })
                seqs.append(seq)
            if seqs:
                command_rows.append({
                    "campaign": request.campaign, "command_id": request.command_id,
                    "actor": request.actor, "first_seq": seqs[0], "last_seq": seqs[-1],
                })
            heads[request.campaign] = (seq, previous)
            results.append(seqs)
        if not event_rows:
            return results
        try:  # plain executemany: insert_all's per-call work was a third of the writer's time
            with self.db.atomic():
                self.db.conn.executemany(_INSERT_EVENT, event_rows)
                self.db.conn.executemany(_INSERT_COMMAND, command_rows)
        except sqlite3.Error as error:
            self._heads.clear()
            failure = StoreError(f"append failed: {error}")
            return [failure if isinstance(r, list) else r for r in results]
        self._heads.update(heads)
        return results

    def checkpoint(self) -> None:
        """Copy the WAL back into the database file without blocking the writer (PASSIVE)."""
        connection = self._reader()
        try:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            connection.close()

    def close(self) -> None:
        """Close the writer connection and release the file to another server."""
        try:
            self.db.close()
        finally:
            if self._lock >= 0:
                os.close(self._lock)
                self._lock = -1


def writer_lock(path: Path) -> int:
    """Lock ``path`` for this process's writer: an open descriptor holding an exclusive flock.

    ``flock`` locks are apart from the POSIX locks SQLite takes on the same file, so this lock
    never blocks SQLite's own readers and writers; it only stops a second poolhall server.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise StoreError(f"cannot open {path}: {error.strerror or error}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(f"{path} is already open for writing by another poolhall server;"
                         " one server per database") from None
    return fd
