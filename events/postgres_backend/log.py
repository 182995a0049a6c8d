"""The event log on PostgreSQL: several server processes append to one database.

Appends (:mod:`.append`) take each campaign's advisory lock, read its head under it and
write the requests whose expected head holds in one transaction; one whose campaign another
process appended to first gets :class:`~poolhall.events.errors.ConcurrencyError` (the caller reads
what it missed and decides again) while the batch's other campaigns commit. The append's
transaction also sends ``NOTIFY`` (:data:`~poolhall.events.postgres_backend.schema.CHANNEL`) with
each campaign's new head, which PostgreSQL delivers only once it commits:
:class:`~poolhall.events.postgres_backend.listener.HeadListener` hears them in every process.

Reads go through a small connection pool (psycopg_pool), each in its own transaction; writes
through one connection of their own, used by one thread at a time (the server's writer), made
again after the database went away. Every database error reaches the caller as a
:class:`~poolhall.events.errors.StoreError`: the server reports ``unavailable`` and retries.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from poolhall.events.chain import GENESIS, link_hash
from poolhall.events.database_names import safe_name
from poolhall.events.errors import DatabaseUnreachable, NotALog, StoreError
from poolhall.events.log_contract import (
    PAGE_ROWS,
    AppendRequest,
    AppendResult,
    ChainProblem,
    CommandRecord,
    Created,
    Deployment,
    ServerLog,
    StoredRow,
)
from poolhall.events.postgres_backend.append import Appender
from poolhall.events.postgres_backend.database import (
    channel_for,
    connect,
    conninfo,
    create_schema,
    missing_schema,
    reason,
    upgrade_refused,
    url_problem,
)
from poolhall.events.postgres_backend.deployment import admin_hash, claim_admin_hash
from poolhall.events.postgres_backend.pooled import check_idle
from poolhall.events.postgres_backend.presence import PostgresPresence
from poolhall.events.postgres_backend.report_tickets import PostgresReportTickets
from poolhall.events.postgres_backend.seeds import PostgresSeedVault
from poolhall.events.postgres_backend.snapshots import PostgresSnapshots

__all__ = ["PAGE_ROWS", "PostgresLog", "channel_for", "create_schema"]

logger = logging.getLogger(__name__)


READERS = 4
"""Most connections the readers hold (the pool opens them as needed)."""

CONNECT_SECONDS = 2.0
"""How long a read waits for a connection before reporting the database unavailable."""

UNREACHABLE_PAUSE = 1.0
"""Seconds reads fail at once after one could not reach the database (see ``_read``)."""

RECONNECT_SECONDS = 2.0
"""How long the readers' pool keeps trying, by itself, to make a connection it lost (its
``reconnect_timeout``). psycopg_pool waits longer and longer between tries (1, 2, 4 ... s, up
to its default of 300 s), so after a long outage its next try could come many seconds after
the database was back: rolls were refused for ~10 s while ``/health`` said ok. Bounded, its
tries are at most about a second apart and stop after this; the next read (or the writer's
probe, :meth:`PostgresLog.probe`) then starts a new one at once."""

_ROWS = ("SELECT seq, type, version, payload::text, recorded_at, actor, command_id, campaign,"
         " hash FROM events WHERE campaign = %s AND seq > %s AND seq <= %s ORDER BY seq"
         " LIMIT %s")


_HASHES_AT = ("SELECT w.campaign, e.hash FROM unnest(%b::text[], %b::bigint[]) AS w(campaign, seq)"
              " CROSS JOIN LATERAL (SELECT hash FROM events WHERE campaign = w.campaign"
              " AND seq = w.seq LIMIT 1) AS e")
_RECORDS_BY_CAMPAIGN = (
    "SELECT w.campaign, w.command_id, c.actor, c.first_seq, c.last_seq"
    " FROM unnest(%b::text[], %b::text[]) AS w(campaign, command_id) CROSS JOIN LATERAL"
    " (SELECT actor, first_seq, last_seq FROM commands WHERE campaign = w.campaign"
    " AND command_id = w.command_id LIMIT 1) AS c")

_UNCOVERED = (
    "SELECT e.campaign, e.seq, e.command_id FROM events AS e LEFT JOIN commands AS c"
    " ON c.campaign = e.campaign AND c.command_id = e.command_id"
    " WHERE c.first_seq IS NULL OR e.seq < c.first_seq OR e.seq > c.last_seq")
"""Every event its command id's recorded range does not hold: an event appended past
poolhall (which records each command with its events, in one transaction) or whose command
was removed."""
_RECORDED_BEYOND = (
    "SELECT c.campaign, c.last_seq, h.head FROM"
    " (SELECT campaign, max(last_seq) AS last_seq FROM commands GROUP BY campaign) AS c"
    " CROSS JOIN LATERAL (SELECT coalesce(max(seq), 0) AS head FROM events"
    " WHERE campaign = c.campaign) AS h WHERE c.last_seq > h.head")
"""Each campaign whose recorded commands appended past its last event: ``(campaign, last
recorded, head)``."""


def _command_problems(connection: psycopg.Connection[Any]) -> list[ChainProblem]:
    """Events their command did not record, and recorded events the log no longer holds (in
    the words of the SQLite backend's ``verify``, so that both report alike)."""
    problems = [ChainProblem(campaign, int(seq), f"command {command!r} did not append this"
                             " event")
                for campaign, seq, command in connection.execute(_UNCOVERED)]
    for campaign, last, head in connection.execute(_RECORDED_BEYOND):
        last, head = int(last), int(head)
        missing = (f"event {last} is missing" if last == head + 1
                   else f"events {head + 1} to {last} are missing")
        problems.append(ChainProblem(campaign, head + 1, f"{missing}: the commands table"
                                     f" records it, the log ends at {head}"))
    return problems


class PostgresLog(ServerLog):
    """The event log in one PostgreSQL database (or one schema of it, named in the URL's
    ``options=-csearch_path=...``), shared by every server process of a deployment."""

    def __init__(self, url: str, *, create: bool = True, readers: int = READERS) -> None:
        self.url = url
        self._unreachable_until = 0.0
        self.schema_made: str | None = None
        """What opening did to the schema, in words (``poolhall migrate`` says it), or
        ``None`` when it was there at this version."""
        problem = url_problem(url)
        if problem is not None:
            raise NotALog(f"{safe_name(url)} is not a database URL: {problem}")
        try:
            with connect(url, autocommit=True, connect_timeout=10) as connection:
                if create:
                    self.schema_made = create_schema(connection)
                elif connection.execute(
                        "SELECT to_regclass('events') IS NULL").fetchone() == (True,):
                    raise NotALog(f"{safe_name(url)} holds no poolhall log (run `poolhall "
                                     "migrate --db URL` or start `poolhall serve` on it)")
                self.channel = channel_for(connection)
        except psycopg.OperationalError as error:  # not answering, or will not let us in
            raise DatabaseUnreachable(f"cannot open {safe_name(url)}: {reason(error)}") from None
        except psycopg.errors.InvalidSchemaName as error:
            # no schema selected: the URL's search_path names one not there, or not this role's
            raise StoreError(f"cannot open {safe_name(url)}: {reason(error)}."
                             f" {missing_schema(url)}") from None
        except psycopg.errors.InsufficientPrivilege as error:
            if (older := upgrade_refused(url)) is not None:  # it reads them: not that
                raise StoreError(f"cannot open {safe_name(url)}: {older} ({reason(error)})"
                                 ) from None
            raise StoreError(f"cannot open {safe_name(url)}: {reason(error)}. This role may"
                             " not create or read the log's tables: the role that is to own"
                             " them needs to own their schema (or hold CREATE on it), and a"
                             " role that serves without owning them is granted by the owner's"
                             " `poolhall migrate --db URL --grant-to ROLE`") from None
        except psycopg.Error as error:
            raise StoreError(f"cannot open {safe_name(url)}: {reason(error)}") from None
        self._appender = Appender(url, self.channel)
        self._pool = ConnectionPool(conninfo(url), min_size=1, max_size=readers, open=True,
                                    kwargs={"autocommit": True}, name="poolhall-readers",
                                    timeout=CONNECT_SECONDS, check=check_idle,
                                    reconnect_timeout=RECONNECT_SECONDS)

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
            raise StoreError(f"read failed: {reason(error)}") from None
        except psycopg.Error as error:
            raise StoreError(f"read failed: {reason(error)}") from None

    # ---- appending (:mod:`.append`) ------------------------------------------------------

    def append_batch(self, requests: Sequence[AppendRequest]) -> list[AppendResult]:
        """Append every request whose expected head holds, in one durable transaction.

        A request whose command id the campaign already holds (here, in another process, or
        earlier in the batch) gets that command's :class:`CommandRecord` and appends nothing.
        One whose head moved (here or in another process) gets a
        :class:`~poolhall.events.errors.ConcurrencyError` and appends nothing; the others commit. If
        the database cannot be reached, every request that would have stored gets a
        :class:`StoreError`.
        """
        return self._appender.append_batch(requests)

    def probe(self, at: str) -> None:
        """Prove the database takes writes again (the writer calls it while appends fail):
        a transaction that asks for a transaction id, written and flushed like an append's;
        then that the readers reach it too.

        The writer reports the log recovered (``/health`` 200, commands taken) once this
        returns, so it must not return while a command would still fail: the readers' pool
        reconnects on its own schedule, and a hub whose log could not be read refused rolls
        for seconds after ``/health`` said ok. Asking the pool for a connection here also
        starts its next try at once if it has given up waiting (:data:`RECONNECT_SECONDS`),
        and clears the reads' fail-fast pause (``_read``)."""
        del at
        self._appender.probe()
        try:
            with self._pool.connection() as connection:
                connection.execute("SELECT 1")
        except (psycopg.Error, PoolTimeout) as error:
            raise StoreError("probe failed: the database takes writes, but the readers cannot"
                             f" reach it yet: {reason(error)}") from None
        self._unreachable_until = 0.0

    def snapshots(self) -> PostgresSnapshots:
        """The stored snapshots of this database, read and written through the log's pool."""
        return PostgresSnapshots(self._pool)

    def seed_vault(self) -> PostgresSeedVault:
        """The fair rolls' secret seeds in this database, through the log's pool."""
        return PostgresSeedVault(self._pool)

    def presence_board(self, process: str, expiry: float) -> PostgresPresence:
        """Who is connected through each process of the deployment (:mod:`.presence`), on a
        connection of its own: its heartbeat never waits for a reader's."""
        return PostgresPresence(self.url, process, expiry=expiry)

    def report_tickets(self) -> PostgresReportTickets:
        """The report pages' tickets (:mod:`.report_tickets`), through the readers' pool."""
        return PostgresReportTickets(self._pool)

    def deployment(self) -> Deployment:
        """This log itself: its database is what the deployment's processes share."""
        return self

    def admin_hash(self) -> str | None:
        """The deployment's admin token hash, if one is set (:mod:`.deployment`)."""
        try:
            with self._pool.connection() as connection:
                return admin_hash(connection)
        except psycopg.Error as error:
            raise StoreError(f"cannot read the admin token's hash: {reason(error)}") from None

    def claim_admin_hash(self, token_hash: str) -> str:
        """Set the deployment's admin token hash unless one is set; the one set now, which
        may be another process's (:mod:`.deployment`)."""
        try:
            with self._pool.connection() as connection:
                return claim_admin_hash(connection, token_hash)
        except psycopg.Error as error:
            raise StoreError(f"cannot set the admin token's hash: {reason(error)}") from None

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
        """The chain hash of each campaign's event ``wanted[campaign]`` (GENESIS at 0): a
        look-up in the unique key per campaign (``LIMIT 1`` keeps them look-ups, as in
        :data:`~poolhall.events.postgres_backend.append._RECORDED`)."""
        found = {campaign: GENESIS for campaign, seq in wanted.items() if seq == 0}
        asked = [(campaign, seq) for campaign, seq in wanted.items() if seq > 0]
        if asked:
            with self._read() as connection:
                rows = connection.execute(
                    _HASHES_AT,
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

    def command_records_by_campaign(self, wanted: Mapping[str, Sequence[str]]
                                    ) -> dict[str, dict[str, CommandRecord]]:
        """Each campaign's ``wanted`` ids it holds, in one statement for all the campaigns:
        a look-up in the primary key per id (``LIMIT 1`` keeps them look-ups, as in
        :data:`~poolhall.events.postgres_backend.append._RECORDED`)."""
        pairs = [(campaign, command_id) for campaign, ids in wanted.items() for command_id in ids]
        found: dict[str, dict[str, CommandRecord]] = {}
        if not pairs:
            return found
        with self._read() as connection:
            rows = connection.execute(
                _RECORDS_BY_CAMPAIGN,
                [[campaign for campaign, _ in pairs], [command for _, command in pairs]]
            ).fetchall()
        for campaign, command_id, actor, first, last in rows:
            found.setdefault(campaign, {})[command_id] = CommandRecord(actor, first, last)
        return found

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
            problems += _command_problems(connection)
        return checked, sorted(problems, key=lambda p: (p.campaign, p.seq))

    def close(self) -> None:
        """Release the connections."""
        self._pool.close()
        self._appender.close()
