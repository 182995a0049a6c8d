"""Appending to the PostgreSQL log: any process, any campaign, one writer at a time per
campaign.

Appends are group-committed like SQLite's: a batch of per-campaign requests is one
transaction, its events one ``INSERT ... SELECT FROM unnest(...)`` and its commands another,
so a thousand commands cost two round trips and one WAL flush:

1. ``BEGIN``; the advisory lock of each campaign the batch writes to
   (``pg_advisory_xact_lock``, taken in one order by every process, so two batches wait for
   each other in a line, never in a cycle); each campaign's head and its hash, and the batch's
   command ids its campaigns already hold, read under those locks;
2. the rows of the requests whose expected head is the head read (chain hashes computed here
   from the head's hash), a ``NOTIFY`` of each new head, ``COMMIT`` (which releases the locks).

So a process that lost a race learns it from the head it reads under the lock, before it
writes anything: only that campaign's requests get a
:class:`~poolhall.events.errors.ConcurrencyError` (the hub reads what it missed and decides again),
the batch's other campaigns commit, and no statement fails. Before the locks, the database's
unique constraints were the only referee: a batch met another process's rows, failed whole
(an aborted pipeline and a warning each time) and was judged again request by request, a
savepoint and several round trips each; two processes serving the same campaigns spent most
of their time on that (91 commands/s where one process made 2,900).

The constraints (``UNIQUE (campaign, seq)``, ``PRIMARY KEY (campaign, command_id)``) still
hold whoever writes: a writer that takes no lock (a process of an older release beside this
one) can still beat a batch between its read and its insert. The batch is then rolled back
and made again from a fresh read (:data:`RACE_TRIES` times), which finds that writer's rows.

The ``NOTIFY`` (:data:`~poolhall.events.postgres_backend.schema.CHANNEL`) is delivered only once the
transaction commits: :class:`~poolhall.events.postgres_backend.listener.HeadListener` hears it in
every process.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Sequence
from hashlib import blake2b, sha256
from typing import Any

import psycopg
import psycopg.errors
from psycopg import pq

from poolhall.events.chain import GENESIS
from poolhall.events.errors import ConcurrencyError, StoreError
from poolhall.events.issuing_events import ISSUING, issued_hash
from poolhall.events.log_contract import Appended, AppendRequest, AppendResult, CommandRecord
from poolhall.events.postgres_backend.database import connect, reason
from poolhall.events.postgres_backend.pooled import check_idle

__all__ = ["LOCK_SPACE", "RACE_TRIES", "Appender", "lock_key"]

logger = logging.getLogger("poolhall.events.postgres_backend.log")

LOCK_SPACE = 0x706F6F6C
"""The first key of every campaign's advisory lock (``pg_advisory_xact_lock(int, int)``), so
that they do not meet another application's locks in the same database."""

RACE_TRIES = 3
"""Times a batch is made again after the database refused it for meeting the rows of a
writer that takes no lock; then its requests get a :class:`ConcurrencyError`."""

SUMMARY_SECONDS = 60.0
"""Seconds between two log lines counting the requests that lost a race."""

_LOCK = "SELECT pg_advisory_xact_lock(%s, k) FROM unnest(%b::integer[]) AS k"
_HEADS = ("SELECT c, e.seq, e.hash FROM unnest(%b::text[]) AS c CROSS JOIN LATERAL"
          " (SELECT seq, hash FROM events WHERE campaign = c ORDER BY seq DESC LIMIT 1) AS e")
_RECORDED = ("SELECT w.campaign, w.command_id, c.actor, c.first_seq, c.last_seq"
             " FROM unnest(%b::text[], %b::text[]) AS w(campaign, command_id) CROSS JOIN LATERAL"
             " (SELECT actor, first_seq, last_seq FROM commands WHERE campaign = w.campaign"
             " AND command_id = w.command_id LIMIT 1) AS c")
"""The batch's command ids the log holds: one look-up in the primary key per id. The ``LIMIT
1`` (a no-op under the key) keeps the planner from flattening the look-ups into a join: on a
young table whose statistics say it is small, it hashed the ids and scanned every command
(2.7 ms a batch of 100 on 50,000 commands, and growing), and the batch's reads took more
than its writes. Every array goes in binary (``%b``), as the inserts' do."""
_CREATED = ("SELECT command_id, campaign FROM commands WHERE command_id = ANY(%b::text[])"
            " AND first_seq = 1")
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

_Statement = tuple[str, Sequence[Any] | None]


def lock_key(campaign: str) -> int:
    """The second key of the campaign's advisory lock: 32 bits of a hash of its name (two
    campaigns that share one are appended to one at a time, no more)."""
    return int.from_bytes(blake2b(campaign.encode(), digest_size=4).digest(), "big",
                          signed=True)


class Appender:
    """The writer of one process: one connection, used by one thread at a time (the server's
    writer), made again after the database went away."""

    def __init__(self, url: str, channel: str) -> None:
        self.url = url
        self.channel = channel
        self._connection: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()
        self.lost_races = 0
        """Requests refused because another process appended to their campaign first."""
        self._summary = _RaceSummary()

    def append_batch(self, requests: Sequence[AppendRequest]) -> list[AppendResult]:
        """Append every request whose expected head holds, in one durable transaction (see
        :meth:`poolhall.events.log_contract.ServerLog.append_batch`)."""
        requests = list(requests)
        lost: psycopg.Error | None = None
        with self._lock:
            for _ in range(RACE_TRIES):
                try:
                    results = self._append(requests)
                except (psycopg.errors.UniqueViolation, psycopg.errors.DeadlockDetected,
                        psycopg.errors.SerializationFailure) as error:
                    lost = error  # a writer that takes no lock: read again, it shows
                    continue
                except psycopg.Error as error:
                    if self._connection is not None and self._connection.broken:
                        self._connection.close()
                    failure = StoreError(f"append failed: {reason(error)}")
                    return [failure] * len(requests)
                refused = sum(isinstance(result, ConcurrencyError) for result in results)
                if refused:
                    self.lost_races += refused
                    self._summary.add(refused)
                return results
        self.lost_races += len(requests)
        self._summary.add(len(requests))
        return [ConcurrencyError(f"campaign {request.campaign!r}: another writer appended "
                                 f"at once ({reason(lost) if lost else ''})")
                for request in requests]

    def probe(self) -> None:
        """A transaction that asks for a transaction id, written and flushed like an
        append's; raises :class:`StoreError` if the database does not take it."""
        with self._lock:
            try:
                connection = self._writer()
                with connection.transaction():
                    connection.execute("SELECT txid_current()")
            except psycopg.Error as error:
                raise StoreError(f"probe failed: {reason(error)}") from None

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _writer(self) -> psycopg.Connection[Any]:
        """The writer's connection, made again if it is gone: closed, broken, or dropped by a
        database that restarted since the last batch (:func:`.pooled.check_idle`), so that the
        first batch after a restart is not failed by the connection of before."""
        connection = self._connection
        if connection is not None and not (connection.closed or connection.broken):
            with contextlib.suppress(psycopg.Error):  # then broken: made again below
                check_idle(connection)
        if connection is None or connection.closed or connection.broken:
            if connection is not None:
                connection.close()
            self._connection = connection = connect(self.url, autocommit=True,
                                                    connect_timeout=10)
        return connection

    def _append(self, requests: list[AppendRequest]) -> list[AppendResult]:
        writing = [r for r in requests if r.events]
        if not writing:
            return _plan(requests, {}, {})
        connection = self._writer()
        campaigns = sorted({r.campaign for r in writing})
        try:
            _, _, heads, held = _pipelined(connection, [
                ("BEGIN", None),
                (_LOCK, [LOCK_SPACE, sorted({lock_key(c) for c in campaigns})]),
                (_HEADS, [campaigns]),
                (_RECORDED, [[r.campaign for r in writing], [r.command_id for r in writing]]),
            ])
            previous = {campaign: (int(seq), str(digest))
                        for campaign, seq, digest in heads.fetchall()}
            recorded = {(row[0], row[1]): CommandRecord(row[2], row[3], row[4])
                        for row in held.fetchall()}
            planned = _plan(requests, previous, recorded, _creations(connection, writing))
            batch = _Batch()
            for index in sorted(range(len(requests)), key=lambda i: requests[i].campaign):
                outcome = planned[index]
                if isinstance(outcome, Appended) and outcome:
                    batch.add(requests[index], outcome[0], outcome.hashes)
            _pipelined(connection, [*batch.statements(self.channel), ("COMMIT", None)])
        except BaseException:
            _roll_back(connection)
            raise
        return planned


def _pipelined(connection: psycopg.Connection[Any], statements: list[_Statement],
               ) -> list[psycopg.Cursor[Any]]:
    """Run ``statements`` in one round trip; their cursors, to fetch from.

    The first error is raised once the pipeline is closed: raised inside it, psycopg logged
    a warning (``error ignored terminating <psycopg.Pipeline [INERROR]>: pipeline aborted``)
    for the statements the error skipped, once a batch."""
    cursors: list[psycopg.Cursor[Any]] = []
    failure: psycopg.Error | None = None
    try:
        with connection.pipeline():
            for query, params in statements:
                cursor = connection.cursor()  # the arrays go in binary (%b): the text format
                cursors.append(cursor)  # escaped every element with a regular expression
                try:
                    cursor.execute(query, params)
                except psycopg.Error as error:
                    failure = error
                    break
    except psycopg.Error as error:
        failure = failure or error
    if failure is not None:
        raise failure
    return cursors


def _roll_back(connection: psycopg.Connection[Any]) -> None:
    """End the transaction a failed batch left open (nothing to do on a broken connection:
    the server rolled it back)."""
    if connection.broken or connection.closed:
        return
    if connection.info.transaction_status != pq.TransactionStatus.IDLE:
        try:
            connection.execute("ROLLBACK")
        except psycopg.Error:
            connection.close()  # made again by the next batch


def _creations(connection: psycopg.Connection[Any], writing: list[AppendRequest]
               ) -> dict[str, str]:
    """The campaign each creating request's command id created already, if it did (read in
    the batch's transaction, rarely: only a batch holding a creation asks). The unique index
    of creations (:mod:`poolhall.events.one_creation`) refuses a second one: a creation
    retried through this process while another committed it met it as a unique violation,
    and this look-up has the batch made again refuse that request alone."""
    ids = [r.command_id for r in writing if r.expected_head == 0]
    if not ids:
        return {}
    return {str(command_id): str(campaign) for command_id, campaign in connection.execute(
        _CREATED, [ids]).fetchall()}


def _plan(requests: list[AppendRequest], heads: dict[str, tuple[int, str]],
          recorded: dict[tuple[str, str], CommandRecord],
          created: dict[str, str] | None = None) -> list[AppendResult]:
    """Each request's outcome: its recorded answer if its command is already held, else its
    sequence numbers and hashes, chained from the event before it (``heads``: each
    campaign's head and its hash, none for a campaign with no event); a
    :class:`ConcurrencyError` if the head is not the one it expected.

    A request whose expected head is the head a refused request would have made is refused
    too: it was decided on a state the log does not hold, even if another process's events
    reached that seq."""
    heads = dict(heads)
    refused: set[tuple[str, int]] = set()
    recorded = dict(recorded)
    results: list[AppendResult] = []
    for request in requests:
        campaign, expected = request.campaign, request.expected_head
        if not request.events:
            results.append(_hashed(request, ""))
            continue
        found = recorded.get((campaign, request.command_id))
        if found is not None:
            results.append(found)
            continue
        other = created.get(request.command_id) if created and expected == 0 else None
        if other is not None and other != campaign:
            results.append(ConcurrencyError(f"command {request.command_id!r} created campaign"
                                            f" {other!r} already"))
            continue
        head, digest = heads.get(campaign, (0, GENESIS))
        if (campaign, expected) in refused or head != expected:
            refused.add((campaign, expected + len(request.events)))
            results.append(ConcurrencyError(f"campaign {campaign!r} is at {head}, not at "
                                            f"{expected}"))
            continue
        appended = _hashed(request, digest)
        heads[campaign] = (appended[-1], appended.hashes[-1])
        recorded[(campaign, request.command_id)] = CommandRecord(
            request.actor, expected + 1, appended[-1])
        results.append(appended)
    return results


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


class _Batch:
    """The rows of a batch of requests, as the columns ``unnest`` takes."""

    def __init__(self) -> None:
        self.events: list[list[Any]] = [[] for _ in range(9)]
        self.commands: list[list[Any]] = [[] for _ in range(5)]
        self.sealed: list[list[str]] = [[], [], []]
        self.issued: list[list[str]] = [[], []]
        self.heads: dict[str, int] = {}

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
        self.heads[campaign] = last

    def statements(self, channel: str) -> list[_Statement]:
        """The inserts of the rows and the notification of the new heads."""
        if not self.events[0]:
            return []
        campaigns = list(self.heads)
        return [
            (_INSERT_EVENTS, self.events),
            (_INSERT_COMMANDS, self.commands),
            *([(_INSERT_SEALED, self.sealed)] if self.sealed[0] else []),
            *([(_INSERT_ISSUED, self.issued)] if self.issued[0] else []),
            (_NOTIFY, [channel, campaigns, [self.heads[c] for c in campaigns]]),
        ]


class _RaceSummary:
    """One log line a minute at most, counting the requests that lost a race: expected
    where several processes serve one campaign, and no failure (each is decided again)."""

    def __init__(self) -> None:
        self._count = 0
        self._since = time.monotonic()

    def add(self, count: int) -> None:
        self._count += count
        now = time.monotonic()
        if now - self._since >= SUMMARY_SECONDS:
            logger.info("%d appends met another process's events in their campaign in the "
                        "last %.0f s, and were decided again", self._count, now - self._since)
            self._count, self._since = 0, now
