"""The event log on PostgreSQL: several server processes append to one database.

Appends are group-committed like SQLite's: a batch of per-campaign requests is one
transaction, its events one ``INSERT ... SELECT FROM unnest(...)`` and its commands another,
so a thousand commands cost one round trip and one WAL flush. The chain hash of each event is
computed here from the hash of the event before it, which this process keeps for the heads it
wrote and reads (one indexed row) for any other.

Another process may have appended to a campaign since this one decided: then the database
refuses the batch (``UNIQUE (campaign, seq)`` or ``PRIMARY KEY (campaign, command_id)``), and
the batch is tried again one request at a time, each in a savepoint, so that only the
requests that lost the race fail (with :class:`~events.errors.ConcurrencyError`: the caller
reads what it missed and decides again) and the others commit. Later requests of a campaign
whose request failed fail too: their expected heads chained from it.

The append's transaction also sends ``NOTIFY`` (:data:`~events.postgres_backend.schema.CHANNEL`)
with each campaign's new head, which PostgreSQL delivers only once it commits:
:class:`~events.postgres_backend.listener.HeadListener` hears them in every process.

Reads go through a small connection pool (psycopg_pool), each in its own transaction; writes
through one connection of their own, used by one thread at a time (the server's writer), made
again after the database went away. Every database error reaches the caller as a
:class:`~events.errors.StoreError`: the server reports ``unavailable`` and retries.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from hashlib import sha256
from typing import Any

import msgspec
import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool

from events.chain import GENESIS, link_hash
from events.codec import encode
from events.errors import ConcurrencyError, StoreError
from events.framed_pages import FramePage
from events.issued_tokens import ISSUING, issued_hash
from events.log import (
    Appended,
    AppendRequest,
    ChainProblem,
    CommandRecord,
    EventLog,
    RowTuple,
    StoredRow,
)
from events.messages import OutgoingEventFrame
from events.postgres_backend.deployment import admin_hash, claim_admin_hash
from events.postgres_backend.schema import CHANNEL, STATEMENTS
from events.postgres_backend.snapshots import PostgresSnapshots

__all__ = ["PAGE_ROWS", "PostgresLog", "channel_for", "create_schema", "is_postgres_url",
           "safe_url"]

logger = logging.getLogger(__name__)

PAGE_ROWS = 1000
"""Rows read at a time by the readers that page through a log."""

READERS = 4
"""Most connections the readers hold (the pool opens them as needed)."""

CONNECT_SECONDS = 5.0
"""How long a read waits for a connection before reporting the database unavailable."""

_SCHEMA_LOCK = 7_366_001
"""The advisory lock taken while the schema is created, so processes starting together
create it once."""

_INSERT_EVENTS = (
    "INSERT INTO events (campaign, seq, type, version, payload, recorded_at, actor,"
    " command_id, hash) SELECT * FROM unnest(%s::text[], %s::bigint[], %s::text[],"
    " %s::integer[], %s::json[], %s::text[], %s::text[], %s::text[], %s::text[])")
_INSERT_COMMANDS = (
    "INSERT INTO commands (campaign, command_id, actor, first_seq, last_seq)"
    " SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::bigint[], %s::bigint[])")
_INSERT_SEALED = ("INSERT INTO sealed_tokens (campaign, command_id, sealed)"
                  " SELECT * FROM unnest(%s::text[], %s::text[], %s::text[])")
_INSERT_ISSUED = ("INSERT INTO issued_tokens (token_hash, campaign)"
                  " SELECT * FROM unnest(%s::text[], %s::text[]) ON CONFLICT DO NOTHING")
_NOTIFY = ("SELECT pg_notify(%s, h::text || ' ' || c)"
           " FROM unnest(%s::text[], %s::bigint[]) AS t(c, h)")
_ROWS = ("SELECT seq, type, version, payload::text, recorded_at, actor, command_id, campaign,"
         " hash FROM events WHERE campaign = %s AND seq > %s AND seq <= %s ORDER BY seq"
         " LIMIT %s")


def is_postgres_url(database: object) -> bool:
    """Whether ``database`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(database, str) and database.startswith(("postgresql://", "postgres://"))


def channel_for(connection: psycopg.Connection[Any]) -> str:
    """The NOTIFY channel of the schema this connection works in."""
    row = connection.execute("SELECT current_schema()").fetchone()
    schema = row[0] if row else None
    return CHANNEL if schema in (None, "public") else f"{CHANNEL}_{schema}"


def create_schema(connection: psycopg.Connection[Any]) -> None:
    """Create the schema if it is not there (every statement idempotent; one transaction,
    under an advisory lock)."""
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
        for statement in STATEMENTS:
            connection.execute(statement.encode())


class _Batch:
    """The rows of a batch of requests, as the columns ``unnest`` takes."""

    def __init__(self) -> None:
        self.events: list[list[Any]] = [[] for _ in range(9)]
        self.commands: list[list[Any]] = [[] for _ in range(5)]
        self.sealed: list[list[str]] = [[], [], []]
        self.issued: list[list[str]] = [[], []]
        self.heads: dict[str, tuple[int, str]] = {}

    def add(self, request: AppendRequest, first: int, hashes: list[str]) -> None:
        campaign, at, actor, command_id = (request.campaign, request.at, request.actor,
                                           request.command_id)
        columns = self.events
        for offset, (prepared, digest) in enumerate(zip(request.events, hashes, strict=True)):
            for column, value in zip(columns, (
                    campaign, first + offset, prepared.type, prepared.version,
                    prepared.payload.decode(), at, actor, command_id, digest), strict=True):
                column.append(value)
            if prepared.type in ISSUING:
                self.issued[0].append(issued_hash(prepared.payload))
                self.issued[1].append(campaign)
        last = first + len(hashes) - 1
        for column, value in zip(self.commands, (campaign, command_id, actor, first, last),
                                 strict=True):
            column.append(value)
        if request.sealed_token is not None:
            for column, value in zip(self.sealed, (campaign, command_id, request.sealed_token),
                                     strict=True):
                column.append(value)
        self.heads[campaign] = (last, hashes[-1])

    def write(self, connection: psycopg.Connection[Any], channel: str) -> None:
        """Insert the rows and notify the new heads (inside the caller's transaction)."""
        if not self.events[0]:
            return
        cursor = connection.cursor()
        cursor.execute(_INSERT_EVENTS, self.events)
        cursor.execute(_INSERT_COMMANDS, self.commands)
        if self.sealed[0]:
            cursor.execute(_INSERT_SEALED, self.sealed)
        if self.issued[0]:
            cursor.execute(_INSERT_ISSUED, self.issued)
        campaigns = list(self.heads)
        cursor.execute(_NOTIFY, [channel, campaigns, [self.heads[c][0] for c in campaigns]])


class PostgresLog:
    """The event log in one PostgreSQL database (or one schema of it, named in the URL's
    ``options=-csearch_path=...``), shared by every server process of a deployment."""

    def __init__(self, url: str, *, create: bool = True, readers: int = READERS) -> None:
        self.url = url
        self._writer: psycopg.Connection[Any] | None = None
        self._write_lock = threading.Lock()
        self._known: dict[str, tuple[int, str]] = {}
        """The last head this process wrote or read per campaign, with its hash (a hash at a
        seq never changes: the log is append-only; whether it is still the head, the
        database's unique constraint decides)."""
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=10) as connection:
                if create:
                    create_schema(connection)
                elif connection.execute(
                        "SELECT to_regclass('events') IS NULL").fetchone() == (True,):
                    raise StoreError(f"{safe_url(url)} holds no poolhall log (run `poolhall "
                                     "migrate --db URL` or start `poolhall serve` on it)")
                self.channel = channel_for(connection)
        except psycopg.Error as error:
            raise StoreError(f"cannot open {safe_url(url)}: {_reason(error)}") from None
        self._pool = ConnectionPool(url, min_size=1, max_size=readers, open=True,
                                    kwargs={"autocommit": True}, name="poolhall-readers",
                                    timeout=CONNECT_SECONDS)

    # ---- connections ----------------------------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in one read-only snapshot (REPEATABLE READ)."""
        try:
            with self._pool.connection() as connection:
                connection.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
                with connection.transaction():
                    yield connection
        except psycopg.Error as error:
            raise StoreError(f"read failed: {_reason(error)}") from None
        except Exception as error:  # the pool's timeout: no connection to be had
            if type(error).__module__.startswith("psycopg_pool"):
                raise StoreError(f"read failed: {error}") from None
            raise

    def _writer_connection(self) -> psycopg.Connection[Any]:
        connection = self._writer
        if connection is None or connection.closed or connection.broken:
            if connection is not None:
                connection.close()
            self._writer = connection = psycopg.connect(self.url, autocommit=True,
                                                        connect_timeout=10)
        return connection

    # ---- appending (one thread at a time) ---------------------------------------------------

    def append_batch(self, requests: list[AppendRequest]) -> list[Appended | Exception]:
        """Append every request whose expected head holds, in one durable transaction.

        A request whose head moved (here or in another process), or whose command id the
        campaign already holds, gets a :class:`ConcurrencyError` and appends nothing; the
        others commit. If the database cannot be reached, every request gets a
        :class:`StoreError`.
        """
        with self._write_lock:
            try:
                return self._append(requests)
            except psycopg.Error as error:
                if self._writer is not None and self._writer.broken:
                    self._writer.close()
                self._known.clear()
                failure = StoreError(f"append failed: {_reason(error)}")
                return [failure] * len(requests)

    def _append(self, requests: list[AppendRequest]) -> list[Appended | Exception]:
        connection = self._writer_connection()
        previous = self._previous_hashes(connection, requests)
        planned = self._plan(requests, previous, failed=set())
        batch = _Batch()
        for request, outcome in zip(requests, planned, strict=True):
            if isinstance(outcome, Appended) and outcome:
                batch.add(request, outcome[0], outcome.hashes)
        try:
            with connection.transaction():
                batch.write(connection, self.channel)
        except psycopg.errors.UniqueViolation:
            return self._append_one_by_one(connection, requests, previous)
        self._known.update(batch.heads)
        return planned

    def _append_one_by_one(self, connection: psycopg.Connection[Any],
                           requests: list[AppendRequest],
                           previous: dict[tuple[str, int], str]) -> list[Appended | Exception]:
        """The batch met another process's rows: each request in a savepoint of its own."""
        results: list[Appended | Exception] = []
        failed: set[str] = set()
        heads: dict[str, tuple[int, str]] = {}
        with connection.transaction():
            for request in requests:
                planned = dict(heads)  # the head it plans becomes known once written
                (outcome,) = self._plan([request], previous, failed, planned)
                if isinstance(outcome, Appended) and outcome:
                    single = _Batch()
                    single.add(request, outcome[0], outcome.hashes)
                    try:
                        with connection.transaction():
                            single.write(connection, self.channel)
                    except psycopg.errors.UniqueViolation as error:
                        outcome = _conflict(request, error)
                    else:
                        heads = planned
                if not isinstance(outcome, Appended):
                    failed.add(request.campaign)
                results.append(outcome)
        self._known.update(heads)
        return results

    def _previous_hashes(self, connection: psycopg.Connection[Any],
                         requests: list[AppendRequest]) -> dict[tuple[str, int], str]:
        """The hash of each campaign's event at the first expected head the batch names (one
        query for those this process does not know)."""
        wanted: dict[tuple[str, int], str] = {}
        missing: list[tuple[str, int]] = []
        seen: set[str] = set()
        for request in requests:
            key = (request.campaign, request.expected_head)
            if key[0] in seen:  # a later request of the campaign chains from the first
                continue
            seen.add(key[0])
            known = self._known.get(request.campaign)
            if request.expected_head == 0:
                wanted[key] = GENESIS
            elif known is not None and known[0] == request.expected_head:
                wanted[key] = known[1]
            else:
                missing.append(key)
        if missing:
            rows = connection.execute(
                "SELECT campaign, seq, hash FROM events WHERE (campaign, seq) IN"
                " (SELECT * FROM unnest(%s::text[], %s::bigint[]))",
                [[c for c, _ in missing], [s for _, s in missing]]).fetchall()
            for campaign, seq, digest in rows:
                wanted[(campaign, seq)] = digest
        return wanted

    def _plan(self, requests: list[AppendRequest], previous: dict[tuple[str, int], str],
              failed: set[str], heads: dict[str, tuple[int, str]] | None = None,
              ) -> list[Appended | Exception]:
        """Each request's sequence numbers and hashes, chained from the event before it."""
        heads = {} if heads is None else heads
        results: list[Appended | Exception] = []
        for request in requests:
            campaign = request.campaign
            head = heads.get(campaign)
            if campaign in failed:
                results.append(ConcurrencyError(
                    f"campaign {campaign!r} moved past {request.expected_head}"))
                continue
            if head is not None and head[0] == request.expected_head:
                digest: str | None = head[1]
            else:
                digest = previous.get((campaign, request.expected_head))
            if digest is None or (head is not None and head[0] != request.expected_head):
                failed.add(campaign)
                results.append(ConcurrencyError(
                    f"campaign {campaign!r} is not at {request.expected_head}"))
                continue
            seq = request.expected_head
            hashes: list[str] = []
            for prepared in request.events:
                seq += 1
                digest = sha256(
                    f"{digest}\x1f{campaign}\x1f{seq}\x1f{prepared.type}\x1f"
                    f"{prepared.version}\x1f{request.at}\x1f{request.actor}\x1f"
                    f"{request.command_id}\x1f".encode() + prepared.payload).hexdigest()
                hashes.append(digest)
            appended = Appended(range(request.expected_head + 1, seq + 1))
            appended.hashes = hashes
            heads[campaign] = (seq, digest)
            results.append(appended)
        return results

    def probe(self, at: str) -> None:
        """Prove the database takes writes again (the writer calls it while appends fail):
        a transaction that asks for a transaction id, written and flushed like an append's."""
        del at
        with self._write_lock:
            try:
                connection = self._writer_connection()
                with connection.transaction():
                    connection.execute("SELECT txid_current()")
            except psycopg.Error as error:
                raise StoreError(f"probe failed: {_reason(error)}") from None

    def snapshots(self, fingerprint: str) -> PostgresSnapshots:
        """The stored snapshots of this database, read and written through the log's pool."""
        return PostgresSnapshots(self._pool, fingerprint)

    def admin_hash(self, given: str | None) -> str | None:
        """The deployment's admin token hash: ``given`` becomes it if none is set yet; the
        one set (which may not be ``given``) otherwise (:mod:`.deployment`)."""
        try:
            with self._pool.connection() as connection:
                if given is None:
                    return admin_hash(connection)
                return claim_admin_hash(connection, given)
        except psycopg.Error as error:
            raise StoreError(f"cannot read the admin token's hash: {_reason(error)}") from None

    def checkpoint(self) -> None:
        """Nothing to do: PostgreSQL keeps its own house."""

    # ---- reading ------------------------------------------------------------------------

    def rows(self, campaign: str, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        """The campaign's rows with ``after < seq <= upto``, in order, each with its hash,
        read a page at a time."""
        last = upto if upto is not None else 2**62
        while after < last:
            with self._read() as connection:
                page = connection.execute(_ROWS, [campaign, after, last, PAGE_ROWS]).fetchall()
            for row in page:
                yield StoredRow(*row)
            if len(page) < PAGE_ROWS:
                return
            after = page[-1][0]

    def event_frames(self, campaign: str, after: int, upto: int) -> list[bytes]:
        """The ``event`` frames (JSON of ``OutgoingEventFrame``) of events ``(after, upto]``."""
        return [encode(OutgoingEventFrame(seq=row.seq, at=row.at, actor=row.actor,
                                          command=row.command_id,
                                          event=msgspec.Raw(row.payload), hash=row.hash))
                for row in self.rows(campaign, after, upto)]

    def frame_pages(self, campaign: str, after: int, upto: int, size: int) -> list[FramePage]:
        """Events ``(after, upto]`` in pages of ``size``, each the websocket text frames of
        its events back to back (RFC 6455 5.2: a server's frames are not masked)."""
        frames = self.event_frames(campaign, after, upto)
        return [FramePage(len(chunk), b"".join(_text_frame(frame) for frame in chunk))
                for chunk in (frames[i:i + size] for i in range(0, len(frames), size))]

    def store_frame_pages(self, campaign: str, after: int | None, upto: int) -> int:
        """Keeps no pages (derived data the SQLite log keeps): pages are built when read."""
        del campaign, upto
        return after or 0

    def hashes_at(self, wanted: dict[str, int]) -> dict[str, str]:
        """The chain hash of each campaign's event ``wanted[campaign]`` (GENESIS at 0)."""
        found = {campaign: GENESIS for campaign, seq in wanted.items() if seq == 0}
        asked = [(campaign, seq) for campaign, seq in wanted.items() if seq > 0]
        if asked:
            with self._read() as connection:
                rows = connection.execute(
                    "SELECT campaign, hash FROM events WHERE (campaign, seq) IN"
                    " (SELECT * FROM unnest(%s::text[], %s::bigint[]))",
                    [[c for c, _ in asked], [s for _, s in asked]]).fetchall()
            found.update({campaign: digest for campaign, digest in rows})
        return found

    def head(self, campaign: str) -> int:
        """The campaign's last sequence number (0 when it has none)."""
        with self._read() as connection:
            row = connection.execute("SELECT max(seq) FROM events WHERE campaign = %s",
                                     [campaign]).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def head_hash(self, campaign: str) -> tuple[int, str]:
        """The campaign's head and its chain hash ((0, GENESIS) when it has no event)."""
        with self._read() as connection:
            row = connection.execute(
                "SELECT seq, hash FROM events WHERE campaign = %s ORDER BY seq DESC LIMIT 1",
                [campaign]).fetchone()
        return (int(row[0]), str(row[1])) if row else (0, GENESIS)

    def campaigns(self) -> list[str]:
        """Every campaign with at least one event."""
        with self._read() as connection:
            rows = connection.execute(
                "SELECT campaign FROM events WHERE seq = 1 ORDER BY position").fetchall()
        return [row[0] for row in rows]

    def all_rows(self, typed: bool = False) -> Iterator[list[RowTuple]]:
        """Every row in append order, in pages: ``(seq, payload, at, actor, command_id,
        campaign)`` and then ``(type, version)`` when ``typed``."""
        columns = "seq, payload::text, recorded_at, actor, command_id, campaign, position"
        if typed:
            columns += ", type, version"
        position = 0
        while True:
            with self._read() as connection:
                page = connection.execute(
                    f"SELECT {columns} FROM events WHERE position > %s ORDER BY position"
                    " LIMIT %s", [position, PAGE_ROWS]).fetchall()
            if not page:
                return
            position = page[-1][6]
            yield [(*row[:6], *row[7:]) for row in page]

    def commands(self, campaign: str) -> dict[str, CommandRecord]:
        """Every command id the campaign accepted, with what it appended."""
        with self._read() as connection:
            rows = connection.execute(
                "SELECT command_id, actor, first_seq, last_seq FROM commands"
                " WHERE campaign = %s", [campaign]).fetchall()
        return {row[0]: CommandRecord(row[1], row[2], row[3]) for row in rows}

    def command_records(self, campaign: str, ids: list[str]) -> dict[str, CommandRecord]:
        """What each of ``ids`` appended to ``campaign``, for the ids it accepted."""
        if not ids:
            return {}
        with self._read() as connection:
            rows = connection.execute(
                "SELECT command_id, actor, first_seq, last_seq FROM commands"
                " WHERE campaign = %s AND command_id = ANY(%s)", [campaign, ids]).fetchall()
        return {row[0]: CommandRecord(row[1], row[2], row[3]) for row in rows}

    def directory(self) -> list[tuple[str, str, str, int]]:
        """Every campaign with the command that created it: ``(campaign, command_id, actor,
        last_seq)``."""
        with self._read() as connection:
            rows = connection.execute(
                "SELECT campaign, command_id, actor, last_seq FROM commands WHERE first_seq = 1"
                " ORDER BY campaign").fetchall()
        return [(row[0], row[1], row[2], int(row[3])) for row in rows]

    def creation(self, command_id: str) -> tuple[str, CommandRecord] | None:
        """The campaign a command id created, and what it appended, if it created one."""
        with self._read() as connection:
            row = connection.execute(
                "SELECT campaign, actor, first_seq, last_seq FROM commands"
                " WHERE command_id = %s AND first_seq = 1", [command_id]).fetchone()
        return None if row is None else (row[0], CommandRecord(row[1], row[2], row[3]))

    def token_campaign(self, token_hash: str) -> str | None:
        """The campaign a token with this hash was issued for, if any."""
        with self._read() as connection:
            row = connection.execute("SELECT campaign FROM issued_tokens WHERE token_hash = %s",
                                     [token_hash]).fetchone()
        return None if row is None else str(row[0])

    def sealed_token(self, campaign: str, command_id: str) -> str | None:
        """The sealed token a command stored with its events, if it stored one."""
        with self._read() as connection:
            row = connection.execute(
                "SELECT sealed FROM sealed_tokens WHERE campaign = %s AND command_id = %s",
                [campaign, command_id]).fetchone()
        return None if row is None else str(row[0])

    def verify(self) -> tuple[int, list[ChainProblem]]:
        """Walk every campaign's chain in one snapshot: the events checked, each problem."""
        checked = 0
        problems: list[ChainProblem] = []
        last: dict[str, tuple[int, str]] = {}
        with self._read() as connection, connection.cursor(name="poolhall_verify") as cursor:
            cursor.itersize = PAGE_ROWS
            cursor.execute("SELECT campaign, seq, type, version, payload::text, recorded_at,"
                           " actor, command_id, hash FROM events ORDER BY campaign, seq")
            for campaign, seq, type_, version, payload, at, actor, command_id, digest in cursor:
                checked += 1
                expected_seq, previous = last.get(campaign, (0, GENESIS))
                if seq != expected_seq + 1:
                    problems.append(ChainProblem(
                        campaign, seq, f"expected event {expected_seq + 1}, found {seq}: "
                        "events dropped or reordered"))
                elif link_hash(previous, campaign, seq, type_, version, at, actor, command_id,
                               payload) != digest:
                    problems.append(ChainProblem(
                        campaign, seq, "hash does not chain: the event or one before it was "
                        "edited, dropped or reordered"))
                last[campaign] = (seq, digest)
            commands = connection.execute(
                "SELECT c.campaign, c.command_id, c.last_seq FROM commands c WHERE c.last_seq >"
                " coalesce((SELECT max(seq) FROM events e WHERE e.campaign = c.campaign), 0)"
            ).fetchall()
        for campaign, command_id, last_seq in commands:
            problems.append(ChainProblem(campaign, int(last_seq), f"command {command_id!r} "
                                         "recorded events the log no longer holds"))
        return checked, problems

    def close(self) -> None:
        """Release the connections."""
        self._pool.close()
        with self._write_lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None


def _text_frame(payload: bytes) -> bytes:
    """One websocket text frame holding ``payload``."""
    size = len(payload)
    if size < 126:
        header = bytes((0x81, size))
    elif size < 65536:
        header = bytes((0x81, 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((0x81, 127)) + size.to_bytes(8, "big")
    return header + payload


def _conflict(request: AppendRequest, error: psycopg.errors.UniqueViolation) -> ConcurrencyError:
    constraint = error.diag.constraint_name or ""
    if constraint.startswith("commands"):
        return ConcurrencyError(f"command id {request.command_id!r} was already appended to "
                                f"{request.campaign!r}")
    return ConcurrencyError(f"campaign {request.campaign!r} moved past {request.expected_head}")


def _reason(error: BaseException) -> str:
    """A database error in one line, without the URL's password."""
    return " ".join(str(error).split()) or type(error).__name__


def safe_url(url: str) -> str:
    """``url`` without its password, to name it in a message or a log line."""
    return re.sub(r"(://[^:@/]*):[^@/]*@", r"\1:***@", url)


def _conforms(log: PostgresLog) -> EventLog:
    """For the type checker: a PostgresLog is an EventLog."""
    return log
