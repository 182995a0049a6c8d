"""Reading a SQLite log: :class:`SqliteReader`, what ``poolhall verify``, offline tools and
the server's reads use (the server's :class:`~poolhall.events.sqlite_backend.SqliteLog` is one).

Reads run beside the writer (WAL) on connections of their own, kept in a small pool: a read
takes one, runs one statement (one snapshot of the file) and gives it back, so the server's
worker threads and its event loop (a command id's look-up, a join's token) never open one
per read (opening one cost more than the read).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from poolhall.events.chain import GENESIS
from poolhall.events.errors import NotALog, StoreError
from poolhall.events.log_contract import (
    PAGE_ROWS,
    AppendRequest,
    AppendResult,
    ChainProblem,
    CommandRecord,
    Created,
    EventLog,
    StoredRow,
)
from poolhall.events.sqlite_backend.file import read_only_uri
from poolhall.events.sqlite_backend.issued_tokens import campaign_of
from poolhall.events.sqlite_backend.schema import COLUMNS
from poolhall.events.sqlite_backend.verify import verify_file

__all__ = ["SqliteReader"]

_EVENT_COLUMNS = frozenset({"campaign", "seq", "type", "version", "payload", "recorded_at",
                            "actor", "command_id", "hash"})
"""The columns of ``events`` in every layout a poolhall log has had: another program's file
with tables of the same names is not a log (it was read, or migrated, until a column was
missing)."""

_READ = ("SELECT seq, type, version, payload, recorded_at, actor, command_id, hash"
         " FROM events WHERE campaign = ?1 AND seq > ?2 AND seq <= ?3 ORDER BY seq LIMIT ?4")
_SCAN = ("SELECT seq, type, version, payload, recorded_at, actor, command_id, campaign, hash"
         " FROM events ORDER BY position")
_HEAD = "SELECT max(seq) FROM events WHERE campaign = ?"
_HASHES = ("SELECT e.campaign, e.hash FROM json_each(?1) AS j CROSS JOIN events AS e"
           " ON e.campaign = j.key AND e.seq = j.value")
_RECORDS = ("SELECT c.command_id, c.actor, c.first_seq, c.last_seq FROM json_each(?2) AS j"
            " CROSS JOIN commands AS c ON c.campaign = ?1 AND c.command_id = j.value")
_RECORDS_BY_CAMPAIGN = (
    "SELECT c.campaign, c.command_id, c.actor, c.first_seq, c.last_seq"
    " FROM json_each(?1) AS k CROSS JOIN json_each(k.value) AS j"
    " CROSS JOIN commands AS c ON c.campaign = k.key AND c.command_id = j.value")
_DIRECTORY = ("SELECT campaign, command_id, actor, last_seq FROM commands INDEXED BY"
              " commands_created WHERE first_seq = 1 ORDER BY rowid")
_OLDER_DIRECTORY = ("SELECT campaign, command_id, actor, last_seq FROM commands"
                    " WHERE first_seq = 1 ORDER BY rowid")
"""The directory of a file of an older layout (read as it is), which has no
``commands_created``: one pass over its commands."""
_JOURNAL_VIEW = (f"CREATE TEMP VIEW events AS SELECT position, {COLUMNS} FROM main.events"
                 f" UNION ALL SELECT position, {COLUMNS} FROM main.journal")
"""The journal layout's log, ``events`` then ``journal`` (the tail of its append order), as one
``events``: a name in ``temp`` is found before ``main``'s, so every read's statement reads
both tables, each through its own ``(campaign, seq)`` index, and the file is not written."""
_SEALED = "SELECT sealed FROM sealed_tokens WHERE campaign = ? AND command_id = ?"
_KEPT_READERS = 8
"""Idle read connections kept open at most (the server's worker threads share them)."""
READ_MMAP_BYTES = 1 << 30
"""``PRAGMA mmap_size`` of a read connection: SQLite reads the file's pages through a memory
map instead of a ``read`` call each into its own page cache (which it empties whenever the
writer commits). A campaign read through the ``(campaign, seq)`` index visits a page per few
events when campaigns interleave: the map took reading 100,000 events of 100 such campaigns
from 2.5 to 1.8 µs of CPU an event. It is address space, not memory the server allocates:
the pages read are the kernel's file cache, which a ``read`` call fills as well, but mapped
they count in the process's RSS (``RssFile``: a catch-up of 100,000 events adds ~35 MB,
given back under memory pressure). Writes never go through it (the writer's connection has
none)."""


class SqliteReader(EventLog):
    """Read-only access to a log file: the contract's reads, and ``verify``.

    A reader never writes, so it can inspect a log that is being served, or one kept as
    evidence, and leaves it as it found it: no -wal or -shm file created beside a file that
    had none (:func:`~poolhall.events.sqlite_backend.file.read_only_uri`). A file of an older
    layout is read as it is, never migrated (``poolhall verify`` of a backup taken before an
    upgrade): its campaigns through its commands, the journal layout's two tables as one.
    """

    def __init__(self, path: str | Path, *, mode: str = "ro") -> None:
        self.path = Path(path)
        self._uri = f"{self.path.resolve().as_uri()}?mode={mode}"
        self.read_uri = f"{self.path.resolve().as_uri()}?mode=ro"
        """The ``file:`` URI a connection that only reads opens the file by (``verify``'s)."""
        self._idle: list[sqlite3.Connection] = []
        self._idle_lock = threading.Lock()
        self._closed = False
        self._unlock: weakref.finalize[[int], SqliteReader] | None = None
        self._directory = _DIRECTORY
        self._journal = False
        """Whether each read connection reads ``events`` and ``journal`` as one
        (:data:`_JOURNAL_VIEW`): a file of the journal layout, read as it is."""
        if mode == "ro":
            self._check_is_a_log()

    def _check_is_a_log(self) -> None:
        if not self.path.is_file():
            raise NotALog(f"no database at {self.path}")
        self.read_uri, held = read_only_uri(self.path)
        self._uri = self.read_uri
        if held is not None:  # released by close(), or when the reader is collected
            self._unlock = weakref.finalize(self, os.close, held)
        try:
            with self._connection() as connection:
                names = {(kind, name) for kind, name in connection.execute(
                    "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index')")}
                tables = {name for kind, name in names if kind == "table"}
                if not {"events", "commands"} <= tables:
                    raise NotALog(f"{self.path} is not a poolhall log (no events and commands"
                                  " tables)")
                columns = {name for _, name, *_ in connection.execute(
                    "PRAGMA table_info(events)")}
                if missing := sorted(_EVENT_COLUMNS - columns):
                    raise NotALog(f"{self.path} is not a poolhall log (its events table has no"
                                  f" {', '.join(missing)})")
                if ("index", "commands_created") not in names:  # an older layout, as it is
                    self._directory = _OLDER_DIRECTORY
                if "journal" in tables:  # this connection was opened before it was known
                    self._journal = True
                    connection.execute(_JOURNAL_VIEW)
        except sqlite3.DatabaseError as error:
            raise NotALog(f"{self.path} is not a SQLite database ({error})") from None

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A read connection of the pool, for one statement (or one read transaction)."""
        with self._idle_lock:
            connection = self._idle.pop() if self._idle else None
        if connection is None:
            connection = sqlite3.connect(self._uri, uri=True, isolation_level=None,
                                         check_same_thread=False)
            connection.execute(f"PRAGMA mmap_size={READ_MMAP_BYTES}")
            if self._journal:
                connection.execute(_JOURNAL_VIEW)
        try:
            yield connection
        except BaseException:
            connection.close()
            raise
        with self._idle_lock:
            if not self._closed and len(self._idle) < _KEPT_READERS:
                self._idle.append(connection)
                return
        connection.close()

    def _all(self, sql: str, parameters: Sequence[object]) -> list[Any]:
        """Every row of one statement (SQLite types each value itself, hence ``Any``)."""
        try:
            with self._connection() as connection:
                return connection.execute(sql, parameters).fetchall()
        except sqlite3.Error as error:
            raise StoreError(f"cannot read {self.path}: {error}") from None

    def append_batch(self, requests: Sequence[AppendRequest]) -> list[AppendResult]:
        """A reader never appends: each request gets a :class:`StoreError`."""
        return [StoreError(f"{self.path} is open read-only")] * len(requests)

    def read(self, campaign: str, after: int = 0, upto: int | None = None,
             limit: int = PAGE_ROWS) -> list[StoredRow]:
        """One page of the campaign's rows, through the ``(campaign, seq)`` index (the
        campaign is the one asked for, not read again from each row)."""
        end = upto if upto is not None else 2**62
        return [StoredRow(seq, type_, version, payload, at, actor, command, campaign, digest)
                for seq, type_, version, payload, at, actor, command, digest
                in self._all(_READ, [campaign, after, end, limit])]

    def scan(self) -> Iterator[list[StoredRow]]:
        """Every row in append order, a page at a time, in one read transaction (one snapshot
        of the file): one sequential pass over the table, where reading campaign after campaign
        through the index visits each page of interleaved campaigns once per campaign on it."""
        try:
            with self._connection() as connection:
                connection.execute("BEGIN")
                try:
                    cursor = connection.execute(_SCAN)
                    while page := cursor.fetchmany(PAGE_ROWS):
                        yield [StoredRow(*row) for row in page]
                finally:
                    connection.execute("COMMIT")
        except sqlite3.Error as error:
            raise StoreError(f"cannot read {self.path}: {error}") from None

    def head(self, campaign: str) -> int:
        """The campaign's last sequence number (0 when it has no event)."""
        ((found,),) = self._all(_HEAD, [campaign])
        return int(found or 0)

    def hashes_at(self, wanted: dict[str, int]) -> dict[str, str]:
        """The chain hash at each campaign's ``wanted`` seq, in one statement: SQLite looks
        each pair up in the unique index (a statement per campaign cost ten times as much,
        seconds at start for ten thousand campaigns)."""
        found = {campaign: GENESIS for campaign, seq in wanted.items() if seq == 0}
        found.update((str(campaign), str(digest)) for campaign, digest in self._all(
            _HASHES, [msgspec.json.encode(wanted).decode()]))
        return found

    def command_records(self, campaign: str, ids: Sequence[str]) -> dict[str, CommandRecord]:
        """The recorded answers of ``ids``, in one indexed statement: ~30 µs on a kept
        connection, so a hub may call it on the event loop."""
        if not ids:
            return {}
        return {str(command): CommandRecord(str(actor), int(first), int(last))
                for command, actor, first, last in self._all(
                    _RECORDS, [campaign, msgspec.json.encode(list(ids)).decode()])}

    def command_records_by_campaign(self, wanted: Mapping[str, Sequence[str]]
                                    ) -> dict[str, dict[str, CommandRecord]]:
        """The recorded answers of each campaign's ``wanted`` ids, in one indexed statement
        for every campaign (``wanted`` as a JSON object of id lists)."""
        found: dict[str, dict[str, CommandRecord]] = {}
        if not any(wanted.values()):
            return found
        for campaign, command, actor, first, last in self._all(
                _RECORDS_BY_CAMPAIGN, [msgspec.json.encode(wanted).decode()]):
            found.setdefault(str(campaign), {})[str(command)] = CommandRecord(
                str(actor), int(first), int(last))
        return found

    def directory(self) -> list[Created]:
        """Each campaign with its creating command, through the small index of those (a file
        of an older layout, which has none, through its commands)."""
        return [Created(str(c), str(i), str(a), int(last))
                for c, i, a, last in self._all(self._directory, [])]

    def verify(self) -> tuple[int, list[ChainProblem]]:
        """Check the file and walk every chain (:mod:`poolhall.events.sqlite_backend.verify`)."""
        return verify_file(self.read_uri)

    def token_campaign(self, token_hash: str) -> str | None:
        """The campaign a token with this hash was issued for (an invite or a replay link),
        if any: one indexed statement, run by a join before anything is loaded."""
        try:
            with self._connection() as connection:
                return campaign_of(connection, token_hash)
        except sqlite3.Error as error:
            raise StoreError(f"cannot read {self.path}: {error}") from None

    def sealed_token(self, campaign: str, command_id: str) -> str | None:
        """The sealed token a command stored with its events, if it stored one."""
        found = self._all(_SEALED, [campaign, command_id])
        return str(found[0][0]) if found else None

    def close(self) -> None:
        """Close the idle read connections (a read under way closes its own when done)."""
        with self._idle_lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
        if self._unlock is not None:
            self._unlock()
