"""The embedded event log: one SQLite file, WAL, group commit, the plain schema.

:class:`SqliteLog` is the file opened for writing by its one server (an exclusive lock on the
file refuses a second). Its :meth:`~SqliteLog.append_batch` is the group committer's one
transaction per batch (:mod:`poolhall.server.writer`): a thousand commands cost one fsync
(``synchronous=FULL``: durable before it returns, and the server acknowledges nothing before).
The schema and its constraints are in :mod:`poolhall.events.sqlite_backend.schema`; reads are
:class:`~poolhall.events.sqlite_backend.reader.SqliteReader`'s, which this extends.

What is kept of the older store's speed, each simple and measured to matter: rows inserted a
few hundred per statement (:mod:`poolhall.events.sqlite_backend.bulk_insert`), each campaign's head
and head hash kept in memory by the one writer, the command ids of a batch looked up only when
the key of ``commands`` refuses one (the hub looked them up already), and the WAL kept short
beside the writer (:meth:`SqliteLog.checkpoint`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path

import msgspec

from poolhall.events.chain import GENESIS
from poolhall.events.errors import ConcurrencyError, StoreError
from poolhall.events.issuing_events import ISSUING, issued_hash
from poolhall.events.log_contract import (
    Appended,
    AppendRequest,
    AppendResult,
    CommandRecord,
    Deployment,
    ServerLog,
)
from poolhall.events.sqlite_backend.bulk_insert import insert_rows, insert_values
from poolhall.events.sqlite_backend.file import open_error, warn_if_shared, writer_lock
from poolhall.events.sqlite_backend.issued_tokens import INSERT as INSERT_ISSUED
from poolhall.events.sqlite_backend.reader import SqliteReader
from poolhall.events.sqlite_backend.schema import COLUMNS, Migrated, create_or_migrate
from poolhall.events.sqlite_backend.seeds import SqliteSeedVault
from poolhall.events.sqlite_backend.snapshots import SqliteSnapshots

__all__ = ["JOURNAL_SIZE_LIMIT", "SqliteLog"]

JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024
"""Bytes the WAL file is cut back to once checkpointed. Without it the file kept its largest
size (~200 MB under load) for good; past it, the writer empties the WAL between two commits
(:meth:`SqliteLog.checkpoint`)."""

CATCH_UP_PASSES = 2
"""Passive checkpoints run again, once the WAL is past its limit, before the writer is asked
to empty it: each copies what was committed during the one before."""

RESTART_BACKOFF = 1.0
"""Seconds before the WAL is emptied again after a reader kept it busy."""

WRITER_CACHE_KIB = 16 * 1024
"""The writer connection's page cache: a batch of a thousand campaigns' commands dirties a
page of each unique index per campaign; SQLite's default 2 MB made it spill pages to the WAL
in mid-transaction and read them back."""

logger = logging.getLogger("poolhall.events.sqlite_backend")

_INSERT_EVENT = f"INSERT INTO events ({COLUMNS})"
_INSERT_COMMAND = "INSERT INTO commands (campaign, command_id, actor, first_seq, last_seq)"
_INSERT_SEALED = "INSERT INTO sealed_tokens (campaign, command_id, sealed)"
_HEAD = "SELECT seq, hash FROM events WHERE campaign = ? ORDER BY seq DESC LIMIT 1"
_KNOWN = ("SELECT c.campaign, c.command_id, c.actor, c.first_seq, c.last_seq"
          " FROM json_each(?1) AS j CROSS JOIN commands AS c"
          " ON c.campaign = json_extract(j.value, '$[0]')"
          " AND c.command_id = json_extract(j.value, '$[1]')")


@dataclass
class _Rows:
    """What one batch inserts, table by table."""

    events: list[object] = field(default_factory=list)
    commands: list[tuple[str, str, str, int, int]] = field(default_factory=list)
    sealed: list[tuple[str, str, str]] = field(default_factory=list)
    tokens: list[tuple[str, str]] = field(default_factory=list)


class SqliteLog(SqliteReader, ServerLog):
    """The event log in one SQLite file, opened for writing by its one server.

    ``":memory:"`` is not supported: readers need a file. Opening takes an exclusive lock on
    the file (released by :meth:`close`), so a second server on the same database is refused
    at once instead of both appending and each holding a state the other does not see. An
    older layout's file is migrated to the plain schema as it opens
    (:mod:`poolhall.events.sqlite_backend.schema`).
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, mode="rwc")
        self._heads: dict[str, tuple[int, str]] = {}
        self._restart_wanted = threading.Event()  # set by checkpoint(), done by the writer
        self._restart_after = 0.0  # monotonic time before which the WAL is not emptied again
        self._restart_asked_at = 0.0  # when checkpoint() last asked the writer
        self.wal_held = False
        """Whether the last checkpoint left frames of the WAL uncopied: a reader holds an
        older snapshot (or the writer committed meanwhile), so the WAL cannot start over."""
        self.migrated: Migrated | None = None
        """What opening the file migrated from an older layout, if it did (``poolhall
        migrate`` says it)."""
        self.schema_made: str | None = None
        """What else opening the file added to it, in words (``poolhall migrate`` says it):
        the unique index of creations on a file of an earlier release of the plain schema."""
        self._lock = writer_lock(self.path)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            os.close(self._lock)
            raise StoreError(f"cannot open {self.path}: {error}") from None
        try:
            self._configure()
        except sqlite3.DatabaseError as error:
            self.close()
            raise open_error(self.path, error) from None
        warn_if_shared(self.path, self._lock)

    def _configure(self) -> None:
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        # The writer never checkpoints (a checkpoint inside a commit stalled acks for 100+ ms);
        # :meth:`checkpoint` does it from another connection, beside the writer.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.db.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
        self.db.execute(f"PRAGMA cache_size=-{WRITER_CACHE_KIB}")
        self.migrated, self.schema_made = create_or_migrate(self.db)

    # ---- writing (the writer thread only) ----------------------------------------------

    def _head_of(self, campaign: str) -> tuple[int, str]:
        head = self._heads.get(campaign)
        if head is None:
            row = self.db.execute(_HEAD, [campaign]).fetchone()
            head = (int(row[0]), str(row[1])) if row else (0, GENESIS)
            self._heads[campaign] = head
        return head

    def _known(self, requests: Sequence[AppendRequest]) -> dict[tuple[str, str], CommandRecord]:
        """The recorded answers of the batch's command ids the log already holds."""
        pairs = [(r.campaign, r.command_id) for r in requests if r.events]
        if not pairs:
            return {}
        return {(str(c), str(i)): CommandRecord(str(a), int(f), int(last))
                for c, i, a, f, last in self.db.execute(
                    _KNOWN, [msgspec.json.encode(pairs).decode()])}

    def _created_elsewhere(self, campaign: str, command_id: str) -> str | None:
        """The other campaign ``command_id`` created, if it created one: the unique index of
        creations (:mod:`poolhall.events.one_creation`) refuses a second, so the look-up pass
        refuses that request alone, not the whole batch."""
        row = self.db.execute("SELECT campaign FROM commands WHERE command_id = ?"
                              " AND first_seq = 1 AND campaign <> ? LIMIT 1",
                              [command_id, campaign]).fetchone()
        return None if row is None else str(row[0])

    def append_batch(self, requests: Sequence[AppendRequest]) -> list[AppendResult]:
        """Append every request (see :meth:`poolhall.events.log_contract.EventLog.append_batch`) in
        one durable transaction.

        The writer's hot path: each chain hash is one formatted string and one ``sha256`` call,
        and the rows go a few hundred per statement. The database's own constraints stand
        behind each check made here: a row they refuse fails the transaction, and every
        request with it.

        The batch's command ids are not looked up before its rows are written: the hub looked
        each up before deciding (:mod:`poolhall.server.command_index`), so an id the log
        already holds reaches the writer only when two tries of one command race, and on a
        log of millions of commands the look-up cost as much as the insert it preceded (each a
        walk down the same index). The key of ``commands`` refuses such an id; the batch is
        then rolled back and made again with its ids looked up in one statement
        (:meth:`_known`), so the retried command gets its recorded answer.
        """
        return self._append(requests, look_up=False)

    def _append(self, requests: Sequence[AppendRequest], *, look_up: bool
                ) -> list[AppendResult]:
        """One try of :meth:`append_batch`; ``look_up``: its command ids looked up first."""
        connection = self.db
        results: list[AppendResult] | None = None
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                results, heads, rows = self._plan(requests, look_up)
                if rows.events:
                    insert_values(connection, _INSERT_EVENT, 9, rows.events)
                    insert_rows(connection, _INSERT_COMMAND, rows.commands)
                    insert_rows(connection, _INSERT_SEALED, rows.sealed)
                    insert_rows(connection, INSERT_ISSUED, rows.tokens)
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                self._heads.clear()  # reloaded from the file on next use
                raise
        except sqlite3.Error as error:
            if isinstance(error, sqlite3.IntegrityError) and not look_up:
                return self._append(requests, look_up=True)  # an id the log holds: see above
            failure = StoreError(f"append failed: {error}")
            if results is None:
                return [failure] * len(requests)
            return [failure if isinstance(r, Appended) and r else r for r in results]
        self._heads.update(heads)
        return results

    def _plan(self, requests: Sequence[AppendRequest], look_up: bool
              ) -> tuple[list[AppendResult], dict[str, tuple[int, str]], _Rows]:
        """Each request's result, the heads they leave and the rows to insert (reads only;
        ``look_up``: the recorded answers of the ids the log holds read first)."""
        results: list[AppendResult] = []
        heads: dict[str, tuple[int, str]] = {}
        rows = _Rows()
        event_values = rows.events  # nine a row, flat: no list of rows to flatten
        known = self._known(requests) if look_up else {}
        refused: list[int] = []  # the requests refused as conflicts, by index
        for request in requests:
            campaign, actor, command_id, at = (request.campaign, request.actor,
                                               request.command_id, request.at)
            pair = (campaign, command_id)
            record = known.get(pair) if request.events else None
            if record is not None:
                results.append(record)
                continue
            if look_up and request.expected_head == 0 and request.events \
                    and (other := self._created_elsewhere(campaign, command_id)) is not None:
                results.append(ConcurrencyError(f"command {command_id!r} created campaign"
                                                f" {other!r} already"))
                continue
            seq, previous = heads.get(campaign) or self._head_of(campaign)
            if seq != request.expected_head:
                results.append(ConcurrencyError(
                    f"campaign {campaign!r} is at {seq}, not {request.expected_head}"))
                refused.append(len(results) - 1)
                continue
            first = seq + 1
            hashes: list[str] = []
            for prepared in request.events:
                seq += 1
                previous = sha256(
                    f"{previous}\x1f{campaign}\x1f{seq}\x1f{prepared.type}\x1f"
                    f"{prepared.version}\x1f{at}\x1f{actor}\x1f{command_id}\x1f".encode()
                    + prepared.payload).hexdigest()
                event_values += (campaign, seq, prepared.type, prepared.version,
                                 prepared.payload.decode(), at, actor, command_id, previous)
                hashes.append(previous)
                if prepared.type in ISSUING:  # an invite or a replay link: rare
                    rows.tokens.append((issued_hash(prepared.payload), campaign))
            if hashes:
                known[pair] = CommandRecord(actor, first, seq)
                rows.commands.append((campaign, command_id, actor, first, seq))
                if request.sealed_token is not None:
                    rows.sealed.append((campaign, command_id, request.sealed_token))
                heads[campaign] = (seq, previous)
            appended = Appended([seq] if seq == first else range(first, seq + 1))
            appended.hashes = hashes
            results.append(appended)
        if refused and not look_up:
            self._answer_retries(requests, refused, results)
        return results, heads, rows

    def _answer_retries(self, requests: Sequence[AppendRequest], refused: list[int],
                        results: list[AppendResult]) -> None:
        """Give each request refused as a conflict its recorded answer if its id is in the
        log: a retry names any head, often a stale one (rare: the hub answers retries)."""
        recorded = self._known([requests[k] for k in refused])
        for k in refused:
            record = recorded.get((requests[k].campaign, requests[k].command_id))
            if record is not None:
                results[k] = record

    # ---- the tables beside the log (:class:`ServerLog`) ---------------------------------

    def creation(self, command_id: str) -> tuple[str, CommandRecord] | None:
        """The campaign the command id created, and what it appended, if it created one."""
        found = self._all("SELECT campaign, actor, first_seq, last_seq FROM commands"
                          " WHERE command_id = ? AND first_seq = 1 LIMIT 1", [command_id])
        return None if not found else (str(found[0][0]), CommandRecord(
            str(found[0][1]), int(found[0][2]), int(found[0][3])))

    def snapshots(self) -> SqliteSnapshots:
        """The stored snapshots in the file (on connections of their own)."""
        return SqliteSnapshots(self.path)

    def seed_vault(self) -> SqliteSeedVault:
        """The fair rolls' seeds in the file (on a connection of its own), in the table the
        schema made with its triggers."""
        return SqliteSeedVault(self.path)

    def deployment(self) -> Deployment | None:
        """None: the file's one server is the whole deployment."""
        return None

    # ---- beside the writer -------------------------------------------------------------

    @property
    def has_housework(self) -> bool:
        """Whether :meth:`housekeeping` has work pending: the WAL to empty."""
        return self._restart_wanted.is_set()

    def housekeeping(self) -> None:
        """Empty the WAL when :meth:`checkpoint` asked for it, on the writer's thread between
        two commits. Raises :class:`sqlite3.Error` if the disk refuses."""
        if self._restart_wanted.is_set():
            self._empty_wal()

    def probe(self, at: str) -> None:
        """Prove the log takes writes again: commit a row that needs a new page of the file.

        The writer calls this (on its thread) while appends are failing, so the log recovers
        without a command having to fail first. A row of a page's size cannot fit a page
        already there, so the file must grow, as an append's would. Raises
        :class:`sqlite3.Error` while the disk still refuses.
        """
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT INTO write_probes (at, room) VALUES (?, zeroblob("
                            "(SELECT page_size FROM pragma_page_size)))", [at])
            self.db.execute("COMMIT")
        finally:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")

    def checkpoint(self) -> None:
        """Copy the WAL back into the database file without blocking the writer (PASSIVE),
        and get it emptied once it has grown past :data:`JOURNAL_SIZE_LIMIT`.

        Under a writer that never pauses, a passive checkpoint never lets the WAL start over
        (1 GB in a 15 s run at 50,000 events/s). So when the file is past the limit and this
        checkpoint copied every frame it saw, a TRUNCATE is tried here (no busy wait, never
        holding the writer up); if the writer is committing, two more passive checkpoints
        copy what came in meanwhile, and the writer's thread starts the WAL over between two
        commits (:meth:`housekeeping`), copying only the few frames left. While the writer is
        asked, this copies nothing, for :data:`RESTART_BACKOFF` seconds at most.
        """
        if self._restart_wanted.is_set():
            if time.monotonic() < self._restart_asked_at + RESTART_BACKOFF:
                return
            self._restart_wanted.clear()  # not taken (no writer keeping house): copy as before
        # A connection of its own each time (not the pool's): one that opens the file anew
        # notices it is gone or unreadable, and says so to the health model.
        connection = sqlite3.connect(self._uri, uri=True, isolation_level=None)
        try:
            connection.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
            _, frames, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.wal_held = copied < frames
            wal = self.path.with_name(self.path.name + "-wal")
            if (copied == frames and time.monotonic() >= self._restart_after
                    and wal.exists() and wal.stat().st_size > JOURNAL_SIZE_LIMIT):
                connection.execute("PRAGMA busy_timeout=0")  # never hold up the writer
                try:
                    (busy, _, _) = connection.execute(
                        "PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                    if busy:  # the writer is committing (or a reader reads): ask the writer
                        for _ in range(CATCH_UP_PASSES):  # each copies what came meanwhile
                            connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                        self._restart_asked_at = time.monotonic()
                        self._restart_wanted.set()
                finally:
                    connection.execute("PRAGMA busy_timeout=5000")
        finally:
            connection.close()

    def wal_size(self) -> int:
        """Bytes of the WAL file now (0 when there is none)."""
        try:
            return self.path.with_name(self.path.name + "-wal").stat().st_size
        except FileNotFoundError:
            return 0

    def _empty_wal(self) -> None:
        """Copy the rest of the WAL back and start it over (RESTART), on the writer's thread
        between two commits, waiting for nothing; if a reader still reads the WAL, the next
        try waits :data:`RESTART_BACKOFF` seconds."""
        connection = self.db
        (timeout,) = connection.execute("PRAGMA busy_timeout").fetchone()
        connection.execute("PRAGMA busy_timeout=0")
        try:
            (busy, _, _) = connection.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
        finally:
            connection.execute(f"PRAGMA busy_timeout={int(timeout)}")
            self._restart_wanted.clear()  # only now: the checkpointer waits until then
        if busy:
            self._restart_after = time.monotonic() + RESTART_BACKOFF

    def close(self) -> None:
        """Close the connections and release the file to another server."""
        super().close()
        try:
            self.db.close()
        finally:
            if self._lock >= 0:
                os.close(self._lock)
                self._lock = -1
