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
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from hashlib import sha256
from typing import Any

import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool, PoolTimeout

from events.chain import GENESIS, link_hash
from events.errors import ConcurrencyError, StoreError
from events.log_contract import (
    PAGE_ROWS,
    Appended,
    AppendRequest,
    AppendResult,
    ChainProblem,
    CommandRecord,
    Created,
    ServerLog,
    StoredRow,
)
from events.postgres_backend.deployment import admin_hash, claim_admin_hash
from events.postgres_backend.schema import CHANNEL, SCHEMA_VERSION, STATEMENTS
from events.postgres_backend.seeds import PostgresSeedVault
from events.postgres_backend.snapshots import PostgresSnapshots
from events.sqlite_backend.issued_tokens import ISSUING, issued_hash

__all__ = ["PAGE_ROWS", "PostgresLog", "channel_for", "create_schema", "is_postgres_url",
           "safe_url"]

logger = logging.getLogger(__name__)


READERS = 4
"""Most connections the readers hold (the pool opens them as needed)."""

CONNECT_SECONDS = 2.0
"""How long a read waits for a connection before reporting the database unavailable."""

UNREACHABLE_PAUSE = 1.0
"""Seconds reads fail at once after one could not reach the database (see ``_read``)."""

_SCHEMA_LOCK = 7_366_001
"""The advisory lock taken while the schema is created, so processes starting together
create it once."""

_INSERT_EVENTS = (
    "INSERT INTO events (campaign, seq, type, version, payload, recorded_at, actor,"
    " command_id, hash) SELECT * FROM unnest(%b::text[], %b::bigint[], %b::text[],"
    " %b::integer[], %b::json[], %b::text[], %b::text[], %b::text[], %b::text[])")
_INSERT_COMMANDS = (
    "INSERT INTO commands (campaign, command_id, actor, first_seq, last_seq)"
    " SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], %b::bigint[], %b::bigint[])")
_INSERT_SEALED = ("INSERT INTO sealed_tokens (campaign, command_id, sealed)"
                  " SELECT * FROM unnest(%b::text[], %b::text[], %b::text[])")
_INSERT_ISSUED = ("INSERT INTO issued_tokens (token_hash, campaign)"
                  " SELECT * FROM unnest(%b::text[], %b::text[]) ON CONFLICT DO NOTHING")
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
    """Create the schema if it is not at :data:`SCHEMA_VERSION` (every statement idempotent;
    one transaction, under an advisory lock).

    A schema already there is left alone, not created again: its triggers' DDL takes a lock
    on each table that deadlocked with the appends of the processes already serving, when a
    process restarted beside them."""
    if _schema_version(connection) == SCHEMA_VERSION:
        return
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
        if _schema_version(connection) == SCHEMA_VERSION:  # another process made it meanwhile
            return
        for statement in STATEMENTS:
            connection.execute(statement.encode())


def _schema_version(connection: psycopg.Connection[Any]) -> int | None:
    row = connection.execute("SELECT to_regclass('deployment') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return None
    found = connection.execute(
        "SELECT value FROM deployment WHERE key = 'schema_version'").fetchone()
    return int(found[0]) if found else None


def _in_campaign_order(requests: Sequence[AppendRequest]) -> list[int]:
    """The requests' indexes by campaign (each campaign's in their order): every process
    inserts rows in this one order, so two batches that meet on the unique index wait for
    each other in a line, never in a cycle (a deadlock the database would break by failing
    one of them)."""
    return sorted(range(len(requests)), key=lambda index: requests[index].campaign)


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
        campaigns = list(self.heads)
        with connection.pipeline():  # the statements in one round trip
            cursor = connection.cursor()  # the arrays go in binary (%b): the text format
            # escaped every element with a regular expression (70% of a batch's time)
            cursor.execute(_INSERT_EVENTS, self.events)
            cursor.execute(_INSERT_COMMANDS, self.commands)
            if self.sealed[0]:
                cursor.execute(_INSERT_SEALED, self.sealed)
            if self.issued[0]:
                cursor.execute(_INSERT_ISSUED, self.issued)
            cursor.execute(_NOTIFY, [channel, campaigns, [self.heads[c][0] for c in campaigns]])


class PostgresLog(ServerLog):
    """The event log in one PostgreSQL database (or one schema of it, named in the URL's
    ``options=-csearch_path=...``), shared by every server process of a deployment."""

    def __init__(self, url: str, *, create: bool = True, readers: int = READERS) -> None:
        self.url = url
        self._writer: psycopg.Connection[Any] | None = None
        self._write_lock = threading.Lock()
        self._unreachable_until = 0.0
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
        """A pooled connection in one read-only snapshot (REPEATABLE READ).

        While the database is unreachable, reads fail at once for :data:`UNREACHABLE_PAUSE`
        seconds after each failure to connect, rather than each waiting for the pool's
        timeout: some reads (a join's token, a batch's command ids) are made on the server's
        event loop, which must not stall for every table while the database is away."""
        if time.monotonic() < self._unreachable_until:
            raise StoreError("read failed: the database cannot be reached")
        try:
            with self._pool.connection() as connection:
                connection.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
                with connection.transaction():
                    yield connection
        except (psycopg.OperationalError, PoolTimeout) as error:
            self._unreachable_until = time.monotonic() + UNREACHABLE_PAUSE
            raise StoreError(f"read failed: {_reason(error)}") from None
        except psycopg.Error as error:
            raise StoreError(f"read failed: {_reason(error)}") from None

    def _writer_connection(self) -> psycopg.Connection[Any]:
        connection = self._writer
        if connection is None or connection.closed or connection.broken:
            if connection is not None:
                connection.close()
            self._writer = connection = psycopg.connect(self.url, autocommit=True,
                                                        connect_timeout=10)
        return connection

    # ---- appending (one thread at a time) ---------------------------------------------------

    def append_batch(self, requests: Sequence[AppendRequest]) -> list[AppendResult]:
        """Append every request whose expected head holds, in one durable transaction.

        A request whose command id the campaign already holds (here, in another process, or
        earlier in the batch) gets that command's :class:`CommandRecord` and appends nothing.
        One whose head moved (here or in another process) gets a :class:`ConcurrencyError`
        and appends nothing; the others commit. If the database cannot be reached, every
        request that would have stored gets a :class:`StoreError`.
        """
        with self._write_lock:
            try:
                return self._append(list(requests))
            except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure) as lost:
                # Another process's batch and this one waited on each other: the database
                # rolled this one back whole. Nothing was stored; like a moved head, the hub
                # decides each command again (the client never sees it).
                self._known.clear()
                return [ConcurrencyError(f"campaign {request.campaign!r}: another process "
                                         f"appended at once ({_reason(lost)})")
                        for request in requests]
            except psycopg.Error as error:
                if self._writer is not None and self._writer.broken:
                    self._writer.close()
                self._known.clear()
                failure = StoreError(f"append failed: {_reason(error)}")
                return [failure] * len(requests)

    def _append(self, requests: list[AppendRequest]) -> list[AppendResult]:
        connection = self._writer_connection()
        previous = self._previous_hashes(connection, requests)
        # Command ids are not looked up first: a retried one is refused by the commands
        # table's primary key, and the batch is then judged request by request (which
        # answers it with its record). Retries are rare; a look-up was a round trip a batch.
        planned = self._plan(requests, previous, {}, failed=set())
        if any(isinstance(outcome, ConcurrencyError) for outcome in planned):
            return self._append_one_by_one(connection, requests)  # each judged by the database
        batch = _Batch()
        for index in _in_campaign_order(requests):
            request, outcome = requests[index], planned[index]
            if isinstance(outcome, Appended) and outcome:
                batch.add(request, outcome[0], outcome.hashes)
        try:
            with connection.transaction():
                batch.write(connection, self.channel)
        except psycopg.errors.UniqueViolation:
            return self._append_one_by_one(connection, requests)
        self._known.update(batch.heads)
        return planned

    def _append_one_by_one(self, connection: psycopg.Connection[Any],
                           requests: list[AppendRequest]) -> list[AppendResult]:
        """The batch met another process's rows: each request judged against the database
        in a savepoint of its own. A request whose expected head is the head an earlier,
        refused request of the batch would have made is refused too: it was decided on a
        state the log does not hold, even if another process's events reached that seq."""
        results: dict[int, AppendResult] = {}
        known: dict[str, tuple[int, str]] = {}
        refused: set[tuple[str, int]] = set()
        with connection.transaction():
            for index in _in_campaign_order(requests):
                request = requests[index]
                outcome = self._one(connection, request, known, refused)
                if isinstance(outcome, ConcurrencyError):
                    refused.add((request.campaign,
                                 request.expected_head + len(request.events)))
                results[index] = outcome
        self._known.update(known)
        return [results[index] for index in range(len(requests))]

    def _one(self, connection: psycopg.Connection[Any], request: AppendRequest,
             known: dict[str, tuple[int, str]], refused: set[tuple[str, int]]
             ) -> AppendResult:
        """One request of :meth:`_append_one_by_one`, in its own savepoint."""
        campaign, head = request.campaign, request.expected_head
        if not request.events:
            return _hashed(request, "")
        found = self._recorded(connection, [request]).get((campaign, request.command_id))
        if found is not None:
            return found
        if (campaign, head) in refused:
            return ConcurrencyError(f"campaign {campaign!r}: {head} was the head of a "
                                    "refused request")
        if campaign in known and known[campaign][0] == head:
            digest: str | None = known[campaign][1]
        elif head == 0:
            digest = GENESIS
        else:
            row = connection.execute("SELECT hash FROM events WHERE campaign = %s AND seq = %s",
                                     [campaign, head]).fetchone()
            digest = None if row is None else str(row[0])
        if digest is None:
            return ConcurrencyError(f"campaign {campaign!r} is not at {head}")
        appended = _hashed(request, digest)
        single = _Batch()
        single.add(request, appended[0], appended.hashes)
        try:
            with connection.transaction():
                single.write(connection, self.channel)
        except psycopg.errors.UniqueViolation:
            return self._lost_race(connection, request)
        known.update(single.heads)
        return appended

    def _lost_race(self, connection: psycopg.Connection[Any],
                   request: AppendRequest) -> AppendResult:
        """What a request that met another process's rows gets: the command's record if
        that process recorded it, else a conflict."""
        found = self._recorded(connection, [request]).get((request.campaign,
                                                           request.command_id))
        if found is not None:
            return found
        return ConcurrencyError(f"campaign {request.campaign!r} moved past "
                                f"{request.expected_head}")

    def _recorded(self, connection: psycopg.Connection[Any], requests: list[AppendRequest]
                  ) -> dict[tuple[str, str], CommandRecord]:
        """The commands the batch names that their campaigns already hold (one query)."""
        pairs = [(r.campaign, r.command_id) for r in requests if r.events]
        if not pairs:
            return {}
        rows = connection.execute(
            "SELECT campaign, command_id, actor, first_seq, last_seq FROM commands"
            " WHERE (campaign, command_id) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
            [[c for c, _ in pairs], [i for _, i in pairs]]).fetchall()
        return {(row[0], row[1]): CommandRecord(row[2], row[3], row[4]) for row in rows}

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
              recorded: dict[tuple[str, str], CommandRecord], failed: set[str],
              heads: dict[str, tuple[int, str]] | None = None) -> list[AppendResult]:
        """Each request's outcome: its recorded answer if its command is already held, else
        its sequence numbers and hashes, chained from the event before it."""
        heads = {} if heads is None else heads
        recorded = dict(recorded)
        results: list[AppendResult] = []
        for request in requests:
            campaign = request.campaign
            if not request.events:
                results.append(_hashed(request, ""))
                continue
            found = recorded.get((campaign, request.command_id))
            if found is not None:
                results.append(found)
                continue
            head = heads.get(campaign)
            if campaign in failed:
                results.append(ConcurrencyError(
                    f"campaign {campaign!r} moved past {request.expected_head}"))
                continue
            if head is not None and head[0] == request.expected_head:
                digest: str | None = head[1]
            elif head is None:
                digest = previous.get((campaign, request.expected_head))
            else:
                digest = None
            if digest is None:
                failed.add(campaign)
                results.append(ConcurrencyError(
                    f"campaign {campaign!r} is not at {request.expected_head}"))
                continue
            appended = _hashed(request, digest)
            seq, digest = appended[-1], appended.hashes[-1]
            heads[campaign] = (seq, digest)
            recorded[(campaign, request.command_id)] = CommandRecord(
                request.actor, request.expected_head + 1, seq)
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

    def snapshots(self) -> PostgresSnapshots:
        """The stored snapshots of this database, read and written through the log's pool."""
        return PostgresSnapshots(self._pool)

    def seed_vault(self) -> PostgresSeedVault:
        """The fair rolls' secret seeds in this database, through the log's pool."""
        return PostgresSeedVault(self._pool)

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

    def read(self, campaign: str, after: int = 0, upto: int | None = None,
             limit: int = PAGE_ROWS) -> list[StoredRow]:
        """One page: the campaign's first ``limit`` rows with ``after < seq <= upto``."""
        with self._read() as connection:
            page = connection.execute(_ROWS, [campaign, after, upto if upto is not None
                                              else 2**62, limit]).fetchall()
        return [StoredRow(*row) for row in page]

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

    def command_records(self, campaign: str, ids: Sequence[str]) -> dict[str, CommandRecord]:
        """What each of ``ids`` appended to ``campaign``, for the ids it accepted."""
        if not ids:
            return {}
        with self._read() as connection:
            rows = connection.execute(
                "SELECT command_id, actor, first_seq, last_seq FROM commands"
                " WHERE campaign = %s AND command_id = ANY(%s)", [campaign, list(ids)]).fetchall()
        return {row[0]: CommandRecord(row[1], row[2], row[3]) for row in rows}

    def directory(self) -> list[Created]:
        """Every campaign with the command that created it, in the order they were created."""
        with self._read() as connection:
            rows = connection.execute(
                "SELECT c.campaign, c.command_id, c.actor, c.last_seq FROM commands c"
                " JOIN events e ON e.campaign = c.campaign AND e.seq = 1"
                " WHERE c.first_seq = 1 ORDER BY e.position").fetchall()
        return [Created(row[0], row[1], row[2], int(row[3])) for row in rows]

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
                        "events dropped (or reordered)"))
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
            problems.append(ChainProblem(campaign, int(last_seq), f"events up to {last_seq}, "
                                         f"recorded by command {command_id!r}, are missing"))
        return checked, problems

    def close(self) -> None:
        """Release the connections."""
        self._pool.close()
        with self._write_lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None


def _hashed(request: AppendRequest, previous: str) -> Appended:
    """The sequence numbers of a request's events and their chain hashes, from the hash of
    the event before them (the writer's hot path: one formatted string and one sha256 an
    event, as in the SQLite backend)."""
    campaign, at, actor, command_id = (request.campaign, request.at, request.actor,
                                       request.command_id)
    seq = request.expected_head
    hashes: list[str] = []
    for prepared in request.events:
        seq += 1
        previous = sha256(
            f"{previous}\x1f{campaign}\x1f{seq}\x1f{prepared.type}\x1f{prepared.version}"
            f"\x1f{at}\x1f{actor}\x1f{command_id}\x1f".encode() + prepared.payload).hexdigest()
        hashes.append(previous)
    appended = Appended(range(request.expected_head + 1, seq + 1))
    appended.hashes = hashes
    return appended


def _reason(error: BaseException) -> str:
    """A database error in one line, without the URL's password."""
    return " ".join(str(error).split()) or type(error).__name__


def safe_url(url: str) -> str:
    """``url`` without its password, to name it in a message or a log line."""
    return re.sub(r"(://[^:@/]*):[^@/]*@", r"\1:***@", url)
