"""The embedded event log: one SQLite file through sqlite-utils, WAL mode, append-only.

Table ``events``: one row per event (global ``position``, ``campaign``, per-campaign ``seq``
unique with the campaign, ``type``, schema ``version``, JSON ``payload``, ``recorded_at``,
``actor``, ``command_id``, ``hash``). Table ``commands``: one row per accepted command id
(unique per campaign), appended in order with no key on the id: the lookup by id is
``command_keys``, built off the commit path (:mod:`events.command_keys`). Table
``sealed_tokens``: the token an invite issued, sealed under a key the server never keeps (see
:mod:`server.sealed_tokens`), so a retry can be answered with it. Table ``issued_tokens``:
the campaign each token hash was issued for, so a join's token is checked before its campaign
loads (:mod:`events.issued_tokens`, derived from the events).
Triggers refuse UPDATE and DELETE on all three. ``events`` is indexed by block, then campaign
and sequence number, and table ``event_runs`` says which blocks hold each campaign's events
(:mod:`events.event_blocks`: why, and what holds); a file of an older release is laid out so
at open. Table ``write_probes``: a row each time the log
recovered from failing writes (:meth:`SqliteLog.probe`). The file is created readable by its
owner only (0600; SQLite gives its ``-wal`` and ``-shm`` files the same mode).
``synchronous=FULL`` makes a commit durable before :meth:`SqliteLog.append_batch` returns; the
server acknowledges nothing before that. This module is the one place in ``events`` that does
I/O: it is the log itself.

All writes happen on the thread that calls :meth:`append_batch` (the server's single writer);
reads open their own connection per call, as WAL lets readers run beside the writer: they are
:class:`~events.store_reader.SqliteReader`'s, which :class:`SqliteLog` extends.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from hashlib import sha256
from pathlib import Path

import sqlite_utils

from events import command_keys, command_migrations, event_blocks, issued_tokens
from events.bulk_insert import insert_rows, insert_values
from events.command_keys import COMMANDS_TABLE, CommandKeys
from events.errors import ConcurrencyError, StoreError
from events.issued_tokens import ISSUING, issued_hash
from events.log import (
    GENESIS,
    Appended,
    AppendRequest,
)
from events.store_file import open_error, writer_lock
from events.store_reader import PAGE_ROWS, SqliteReader

__all__ = ["JOURNAL_SIZE_LIMIT", "PAGE_ROWS", "SqliteLog", "SqliteReader", "open_error",
           "writer_lock"]

JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024
"""Bytes the WAL file is cut back to once checkpointed. Without it the file kept its largest
size (~200 MB under load) for good; past it, the writer empties the WAL between two commits
(:meth:`SqliteLog.checkpoint`)."""

CATCH_UP_PASSES = 2
"""Passive checkpoints run again, once the WAL is past its limit, before the writer is asked
to empty it: each copies what was committed during the one before, so the writer is left
with a few milliseconds' frames to copy rather than a whole checkpoint's."""

RESTART_BACKOFF = 1.0
"""Seconds before the WAL is emptied again after a reader kept it busy
(:meth:`SqliteLog.checkpoint`)."""

WRITER_CACHE_KIB = 16 * 1024
"""The writer connection's page cache. A batch of a thousand campaigns' commands dirties a page
of the command index per campaign, and the current block's index pages, 4-8 MB of pages;
SQLite's default 2 MB made it spill pages to the WAL in mid-transaction and read them back (a
third of the writer's time in ``pwrite``/``pread`` at 1,000 submitters). Pages are allocated
as used, so a quiet server's cache stays small."""

logger = logging.getLogger(__name__)

_APPEND_ONLY = """
CREATE TRIGGER IF NOT EXISTS {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END;
CREATE TRIGGER IF NOT EXISTS {table}_no_delete BEFORE DELETE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END;
"""

_INSERT_EVENT = ("INSERT INTO events (position, campaign, seq, type, version, payload,"
                 " recorded_at, actor, command_id, hash)")
_INSERT_COMMAND = ("INSERT INTO commands (id, campaign, command_id, actor, first_seq,"
                   " last_seq)")
_INSERT_SEALED = "INSERT INTO sealed_tokens (campaign, command_id, sealed)"
_CREATE_SEALED = (
    "CREATE TABLE IF NOT EXISTS sealed_tokens (campaign TEXT NOT NULL, command_id TEXT NOT NULL,"
    " sealed TEXT NOT NULL, PRIMARY KEY (campaign, command_id))"
)


_CREATE_PROBES = (
    "CREATE TABLE IF NOT EXISTS write_probes (at TEXT NOT NULL, room BLOB NOT NULL)")
"""One row per time the log recovered from failing writes: see :meth:`SqliteLog.probe`."""


class SqliteLog(SqliteReader):
    """The event log in one SQLite file, opened for writing by its one server.

    ``":memory:"`` is not supported: readers need a file. Opening takes an exclusive lock on
    the file (released by :meth:`close`), so a second server on the same database is refused
    at once instead of both appending and each holding a state the other does not see.
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, mode="rwc")
        self._keys: CommandKeys = CommandKeys()
        self._heads: dict[str, tuple[int, str]] = {}
        self._next_position = 1  # the next event's: set at open, advanced on COMMIT
        self._runs = event_blocks.BlockRuns()  # the campaigns with a run in the current block
        self._restart_wanted = threading.Event()  # set by checkpoint(), done by the writer
        self._restart_after = 0.0  # monotonic time before which the WAL is not emptied again
        self._restart_asked_at = 0.0  # when checkpoint() last asked the writer
        self.wal_held = False
        """Whether the last checkpoint left frames of the WAL uncopied: a reader holds an
        older snapshot (or the writer committed meanwhile), so the WAL cannot start over."""
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
            raise open_error(self.path, error) from None

    def _configure(self) -> None:
        self.db.enable_wal()
        self.db.execute("PRAGMA synchronous=FULL")
        # The writer never checkpoints (a checkpoint inside a commit stalled acks for 100+ ms);
        # :meth:`checkpoint` does it from another connection, beside the writer.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.db.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
        self.db.execute(f"PRAGMA cache_size=-{WRITER_CACHE_KIB}")
        # Deleted content is never zeroed here: what this log deletes is derived (the command
        # index's merged generations), and zeroing it wrote freed pages to the WAL (Debian's
        # SQLite zeroes by default).
        self.db.execute("PRAGMA secure_delete=OFF")
        self._create_schema()
        self.db.execute(_CREATE_PROBES)
        (last,) = self.db.execute("SELECT max(position) FROM events").fetchone()
        self._next_position = int(last or 0) + 1

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
            event_blocks.adopt(self.db.conn)  # an older release's file: settled, laid out
            if "commands" not in self.db.table_names():
                self.db.execute(COMMANDS_TABLE.format(name="commands"))
            elif command_migrations.migrate_commands(self.db.conn):
                logger.info("%s: commands table rewritten in append order", self.path)
            command_keys.create_tables(self.db.conn)
            self.db.execute(_CREATE_SEALED)
            filled = issued_tokens.create_table(self.db.conn)
        if filled:
            logger.info("%s: %d issued tokens indexed from the log", self.path, filled)
        for table in ("events", "commands", "sealed_tokens"):
            self.db.conn.executescript(_APPEND_ONLY.format(table=table))
        self._blocks = True  # the reader's side: every read goes through the runs
        command_migrations.leave_the_one_table_layout(self.db.conn)
        self._keys.load(self.db.conn)

    # ---- writing (the writer thread only) ----------------------------------------------

    def _head_of(self, campaign: str) -> tuple[int, str]:
        head = self._heads.get(campaign)
        if head is None:
            row = self.db.execute(event_blocks.HEAD, [campaign]).fetchone()
            head = (row[0], row[1]) if row else (0, GENESIS)
            self._heads[campaign] = head
        return head

    def append_batch(self, requests: list[AppendRequest]) -> list[Appended | Exception]:
        """Append every request whose expected head holds, all in one durable transaction.

        A request whose head moved gets a :class:`ConcurrencyError` in its place and appends
        nothing; the others still commit. If the transaction itself fails, every request gets
        a :class:`StoreError` and the in-memory heads are forgotten (reloaded on next use).
        Each stored request's result carries the chain hash of every event it appended.

        The writer's hot path: rows are plain tuples inserted a few hundred per statement
        (:mod:`events.bulk_insert`; a dict per row, bound by name and stepped one by one,
        cost more than SQLite's insert), each chain hash is one formatted string and one
        ``sha256`` call, and nothing else is built per event. What remains is mostly
        SQLite's: the pages each commit writes.
        """
        results: list[Appended | Exception] = []
        heads: dict[str, tuple[int, str]] = {}
        event_values: list[object] = []  # ten a row, flat: no list of rows to flatten
        command_rows: list[tuple[int, str, str, str, int, int]] = []
        sealed_rows: list[tuple[str, str, str]] = []
        token_rows: list[tuple[str, str]] = []
        run_rows: list[tuple[str, int, int]] = []  # a campaign's first event in a block
        try:  # the ids already in the log: the store keeps each unique in its campaign; each
            # is tested against the tail below, and on disk only if its sender did not
            taken = self._keys.in_generations(self.db.conn, [
                (r.campaign, r.command_id) for r in requests if r.events and not r.id_looked_up])
        except sqlite3.Error as error:
            return [StoreError(f"append failed: {error}")] * len(requests)
        tail = self._keys.tail
        next_id = self._keys.next_id
        position = self._next_position
        runs = self._runs
        block = position >> event_blocks.BLOCK_BITS
        added: set[str] = set()  # campaigns given a run in ``block`` by this batch
        try:
            known = runs.enter(self.db.conn, block)  # read, never changed here
        except sqlite3.Error as error:
            return [StoreError(f"append failed: {error}")] * len(requests)
        for request in requests:
            campaign, actor, command_id, at = (request.campaign, request.actor,
                                               request.command_id, request.at)
            seq, previous = heads.get(campaign) or self._head_of(campaign)
            if seq != request.expected_head:
                results.append(ConcurrencyError(
                    f"campaign {campaign!r} is at {seq}, not {request.expected_head}"))
                continue
            pair = (campaign, command_id)
            if request.events and (pair in taken or pair in tail):
                results.append(ConcurrencyError(
                    f"command id {command_id!r} was already appended to {campaign!r}"))
                continue
            first = seq + 1
            hashes: list[str] = []
            for prepared in request.events:
                seq += 1
                previous = sha256(
                    f"{previous}\x1f{campaign}\x1f{seq}\x1f{prepared.type}\x1f"
                    f"{prepared.version}\x1f{at}\x1f{actor}\x1f{command_id}\x1f".encode()
                    + prepared.payload).hexdigest()
                event_values += (position, campaign, seq, prepared.type, prepared.version,
                                 prepared.payload.decode(), at, actor, command_id, previous)
                hashes.append(previous)
                if position >> event_blocks.BLOCK_BITS != block:  # a new block: runs anew
                    block = position >> event_blocks.BLOCK_BITS
                    known, added = set(), set()
                if campaign not in added and campaign not in known:
                    added.add(campaign)
                    run_rows.append((campaign, seq, block))
                position += 1
                if prepared.type in ISSUING:  # an invite or a replay link: rare
                    token_rows.append((issued_hash(prepared.payload), campaign))
            if hashes:
                taken.add(pair)
                command_rows.append((next_id, campaign, command_id, actor, first, seq))
                next_id += 1
                if request.sealed_token is not None:
                    sealed_rows.append((campaign, command_id, request.sealed_token))
            heads[campaign] = (seq, previous)
            appended = Appended([seq] if seq == first else range(first, seq + 1))
            appended.hashes = hashes
            results.append(appended)
        if not event_values:
            return results
        connection = self.db.conn
        try:
            connection.execute("BEGIN")
            try:
                insert_values(connection, _INSERT_EVENT, 10, event_values)
                insert_rows(connection, event_blocks.INSERT_RUN, run_rows)
                insert_rows(connection, _INSERT_COMMAND, command_rows)
                insert_rows(connection, _INSERT_SEALED, sealed_rows)
                insert_rows(connection, issued_tokens.INSERT, token_rows)
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            self._heads.clear()  # the command index is as it was: it takes rows once committed
            failure = StoreError(f"append failed: {error}")
            return [failure if isinstance(r, Appended) else r for r in results]
        self._heads.update(heads)
        self._next_position = position
        runs.committed(block, added)
        self._keys.add(command_rows)
        self._keys.next_id = next_id
        return results

    @property
    def has_housework(self) -> bool:
        """Whether :meth:`housekeeping` has work pending: the WAL to empty, or the command
        index's merge."""
        return self._restart_wanted.is_set() or self._keys.has_work

    def housekeeping(self) -> None:
        """One small transaction of pending work, the writer's thread calling it between two
        commits: emptying the WAL when :meth:`checkpoint` asked for it (first: it is short
        and rare), else a step of the command index's merge (see :mod:`events.command_keys`).
        Raises :class:`sqlite3.Error` if the disk refuses; the work starts over later.

        Committed without its own fsync (``synchronous=NORMAL``): the index is derived, and
        the WAL is written in order, so the next append's fsync makes it durable too; lost
        in a power cut, it is only unlisted rows, cleared and merged again at the next open.
        """
        if self._restart_wanted.is_set():
            self._empty_wal()
            return
        connection = self.db.conn
        connection.execute("PRAGMA synchronous=NORMAL")
        try:
            self._keys.step(connection)
        finally:
            connection.execute("PRAGMA synchronous=FULL")

    def probe(self, at: str) -> None:
        """Prove the log takes writes again: commit a row that needs a new page of the file.

        The writer calls this (on its thread) while appends are failing, so the log recovers
        without a command having to fail first. A row of a page's size cannot fit a page
        already there, so the file must grow, as an append's would; one row (a few KiB) is
        kept per recovery. Raises :class:`sqlite3.Error` while the disk still refuses.
        """
        with self.db.atomic():
            self.db.conn.execute("INSERT INTO write_probes (at, room) VALUES (?, zeroblob("
                                 "(SELECT page_size FROM pragma_page_size)))", [at])

    def checkpoint(self) -> None:
        """Copy the WAL back into the database file without blocking the writer (PASSIVE),
        and get it emptied once it has grown past :data:`JOURNAL_SIZE_LIMIT`.

        A passive checkpoint copies the frames committed before it began. Under a writer that
        never pauses, more are always committed meanwhile, so the WAL never started over and
        grew for good (1 GB in a 15 s run at 50,000 events/s): the TRUNCATE tried from here
        (with no busy wait, so as never to hold the writer up) never found it idle. So when
        the file is past the limit and this checkpoint copied every frame it saw (no reader
        holds an older snapshot), a TRUNCATE is tried here, which succeeds while the writer
        is idle; if the writer is committing, two more passive checkpoints copy what came in
        meanwhile, and the writer's thread starts the WAL over between two commits
        (:meth:`housekeeping`), copying only the few frames left: about 10 ms once per
        :data:`JOURNAL_SIZE_LIMIT` written, after which SQLite cuts the file back to the
        limit. Called from one thread at a time (the committer's checkpointer), beside the
        writer; while the writer is asked, this copies nothing (two checkpoints at once
        would find each other busy), for :data:`RESTART_BACKOFF` seconds at most: a log
        whose writer keeps no house (a script appending by itself) is checkpointed as before.
        """
        if self._restart_wanted.is_set():
            if time.monotonic() < self._restart_asked_at + RESTART_BACKOFF:
                return
            self._restart_wanted.clear()  # not taken (no writer keeping house): copy as before
        connection = self._reader()
        try:
            connection.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
            _, frames, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.wal_held = copied < frames
            wal = self.path.with_name(self.path.name + "-wal")
            if (copied == frames and time.monotonic() >= self._restart_after
                    and wal.exists() and wal.stat().st_size > JOURNAL_SIZE_LIMIT):
                connection.execute("PRAGMA busy_timeout=0")  # never hold up the writer
                (busy, _, _) = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if busy:  # the writer is committing (or a reader reads): ask the writer
                    for _ in range(CATCH_UP_PASSES):  # each copies what came in meanwhile
                        connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    self._restart_asked_at = time.monotonic()
                    self._restart_wanted.set()
        finally:
            connection.close()

    def wal_size(self) -> int:
        """Bytes of the WAL file now (0 when there is none)."""
        try:
            return self.path.with_name(self.path.name + "-wal").stat().st_size
        except FileNotFoundError:
            return 0

    def _empty_wal(self) -> None:
        """Copy the rest of the WAL back and start it over (RESTART: the next commit writes
        from its start, and SQLite cuts the file back to :data:`JOURNAL_SIZE_LIMIT`), on the
        writer's thread between two commits, waiting for nothing. RESTART rather than
        TRUNCATE: emptying the file made every commit after it grow it again (30 ms a time
        against 9 ms, in the committer run). If a reader still reads the WAL, the next try
        waits :data:`RESTART_BACKOFF` seconds, so a long read (``poolhall verify`` of a live
        log) costs the writer one try a while, not one a checkpoint."""
        connection = self.db.conn
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
        """Close the writer connection and release the file to another server."""
        self._page_reader.close()
        self._close_page_writer()
        with self._lookup_lock:
            if self._lookup is not None:
                self._lookup.close()
                self._lookup = None
        try:
            self.db.close()
        finally:
            if self._lock >= 0:
                os.close(self._lock)
                self._lock = -1
