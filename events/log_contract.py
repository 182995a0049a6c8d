"""The event log's contract: what every backend (SQLite, PostgreSQL) keeps, and nothing more.

A log holds, per campaign, a gap-free sequence of events numbered from 1. Each event is a row
of the plain schema below, chained to the one before it in its campaign by a SHA-256 hash over
every stored field (:mod:`poolhall.events.chain`), so that ``poolhall verify`` detects an edited,
dropped or reordered event. Every append names the head it was decided against (optimistic
concurrency) and the client's command id (idempotency).

**Sync, on purpose.** Every method is a plain blocking call. The server never calls the log on
its event loop: the group committer (:mod:`poolhall.server.writer`) calls
:meth:`EventLog.append_batch` on its one writer thread, and reads run in worker threads
(``asyncio.to_thread``). A blocking contract keeps the SQLite backend free of a thread hop per call,
and a PostgreSQL backend implements it naturally with psycopg 3's blocking connections and
``psycopg_pool.ConnectionPool`` (one connection per thread at a time); an ``async`` contract would
have forced one of the two to wrap the other.

The plain schema (both backends; names are part of the contract, the contract tests write
rows with raw SQL)::

    events   (position, campaign, seq, type, version, payload, recorded_at, actor,
              command_id, hash)            UNIQUE (campaign, seq); no UPDATE, no DELETE
    commands (campaign, command_id, actor, first_seq, last_seq)
                                           UNIQUE (campaign, command_id); no UPDATE, no DELETE

``position`` is the append order across campaigns (a backend's own identity column);
``payload`` is the event's JSON, readable by any SQL tool; ``hash`` is the row's link of the
chain. The database itself refuses a second event at a sequence number, a second command with
one id in a campaign, and any change or removal of either (triggers): those promises do not
rest on this code.

The exception tree, under :class:`poolhall.events.errors.StoreError`::

    StoreError             the log could not read or append (the disk, the server, a bug)
    ├── ConcurrencyError   a request expected a head that is no longer the head: nothing
    │                      of it was written (the caller reads what it missed, decides again)
    └── ChainBroken        ``verify`` found an edited, dropped or reordered event
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import msgspec

from poolhall.events.errors import ChainBroken, ConcurrencyError, StoreError

__all__ = [
    "PAGE_ROWS",
    "AppendRequest",
    "AppendResult",
    "Appended",
    "ChainBroken",
    "ChainProblem",
    "CommandRecord",
    "ConcurrencyError",
    "Created",
    "Deployment",
    "EventLog",
    "IssuedTokens",
    "Maintenance",
    "PreparedEvent",
    "PresenceBoard",
    "ReportTickets",
    "SealedTokens",
    "SeedVault",
    "ServerLog",
    "SnapshotRows",
    "StoreError",
    "StoredRow",
    "TicketJob",
]

PAGE_ROWS = 256
"""Rows a page of :meth:`EventLog.read` holds unless asked otherwise. Small on purpose: a page
of 4,000 rows (with what is decoded from it) no longer fits the CPU cache, and a full rebuild
ran 1.5 times slower than with 256."""


class PreparedEvent(msgspec.Struct, frozen=True):
    """An event encoded once, ready to store and to broadcast
    (:func:`poolhall.events.log.prepare`)."""

    type: str
    version: int
    payload: bytes


class AppendRequest(msgspec.Struct, frozen=True, kw_only=True):
    """Append ``events`` to ``campaign`` if its head is still ``expected_head``.

    All or nothing: either every event is stored (numbered ``expected_head + 1`` on) and the
    command recorded, or none is.
    """

    campaign: str
    expected_head: int
    events: tuple[PreparedEvent, ...]
    actor: str
    command_id: str
    at: str
    sealed_token: str | None = None
    """The token the command issued, sealed under its retry key (see
    :mod:`poolhall.server.sealed_tokens`): stored in the same transaction, never in an event."""


class StoredRow(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One event as stored, with ``hash``, its link of the chain.

    Clients are sent the hash with each event, so that one always knows the hash of the last
    event it holds and can prove on resuming that its history is the server's.
    """

    seq: int
    type: str
    version: int
    payload: bytes | str
    at: str
    actor: str
    command_id: str
    campaign: str = ""
    hash: str = ""


class Appended(list[int]):
    """The sequence numbers one request stored, with ``hashes[i]`` the chain hash of
    ``self[i]`` (the hub sends it with the event and keeps the last as the head's hash)."""

    __slots__ = ("hashes",)
    hashes: list[str]
    """Set by the backend that builds one (no ``__init__`` of its own: none runs per append)."""


class CommandRecord(msgspec.Struct, frozen=True):
    """The recorded answer to a command: who sent it and the sequence numbers it appended."""

    actor: str
    first_seq: int
    last_seq: int

    @property
    def seqs(self) -> list[int]:
        return list(range(self.first_seq, self.last_seq + 1))


AppendResult = Appended | CommandRecord | StoreError
"""What :meth:`EventLog.append_batch` answers for one request: the events it stored; the
recorded answer of a command id the campaign already holds (a retry: nothing appended); a
:class:`ConcurrencyError` (stale head: nothing appended); or a :class:`StoreError` (the
transaction failed: nothing of the batch appended)."""


class Created(NamedTuple):
    """A campaign, with the command that created it (its event 1) and what that appended."""

    campaign: str
    command_id: str
    actor: str
    last_seq: int


class ChainProblem(msgspec.Struct, frozen=True):
    """One break in a campaign's hash chain, as ``poolhall verify`` reports it."""

    campaign: str
    seq: int
    problem: str


@runtime_checkable
class EventLog(Protocol):
    """The log of every campaign. A backend subclasses this (inheriting :meth:`rows` and
    :meth:`campaigns`, written once here over the methods it implements)."""

    def append_batch(self, requests: Sequence[AppendRequest]) -> list[AppendResult]:
        """Append each request, in order, in one durable transaction; a result per request.

        A request whose ``command_id`` the campaign already holds gets that command's
        :class:`CommandRecord` and appends nothing (whatever its head). Otherwise one whose
        head moved (by an earlier commit or an earlier request of the batch) gets a
        :class:`ConcurrencyError` and appends nothing; the others still commit. A request
        with no events stores nothing and records no command. Returns only once the stored
        requests are durable; if the transaction fails, every request that would have
        stored gets a :class:`StoreError`.
        """
        ...

    def read(self, campaign: str, after: int = 0, upto: int | None = None,
             limit: int = PAGE_ROWS) -> list[StoredRow]:
        """One page: the campaign's first ``limit`` rows with ``after < seq <= upto`` (no
        upper bound if ``upto`` is None), in order, each with its hash and campaign."""
        ...

    def head(self, campaign: str) -> int:
        """The campaign's last sequence number (0 when it has none)."""
        ...

    def hashes_at(self, wanted: dict[str, int]) -> dict[str, str]:
        """The chain hash of each campaign's event ``wanted[campaign]`` (:data:`GENESIS
        <events.chain.GENESIS>` at 0); a campaign without that event is left out. At the
        head, the head's hash: what a hub keeps and a resuming client proves."""
        ...

    def command_records(self, campaign: str, ids: Sequence[str]) -> dict[str, CommandRecord]:
        """The recorded answer of each of ``ids`` the campaign holds (the others left out)."""
        ...

    def command_records_by_campaign(self, wanted: Mapping[str, Sequence[str]]
                                    ) -> dict[str, dict[str, CommandRecord]]:
        """:meth:`command_records` of several campaigns at once (``wanted``: each campaign's
        ids); a campaign none of whose ids it holds is left out. Here a call per campaign; a
        backend may read them all in one statement (SQLite does: the server reads every
        hub's look-ups of one turn of its event loop together)."""
        return {campaign: found for campaign, ids in wanted.items()
                if (found := self.command_records(campaign, ids))}

    def directory(self) -> list[Created]:
        """Every campaign with at least one event, in the order they were created."""
        ...

    def verify(self) -> tuple[int, list[ChainProblem]]:
        """Walk every campaign's chain: the events checked and each problem found (an edited
        event, a dropped one, two swapped)."""
        ...

    def close(self) -> None:
        """Release the connections (and, for SQLite, the file to another server)."""
        ...

    def rows(self, campaign: str, after: int = 0, upto: int | None = None
             ) -> Iterator[StoredRow]:
        """Every row with ``after < seq <= upto``, read a page at a time."""
        while True:
            page = self.read(campaign, after, upto)
            yield from page
            if len(page) < PAGE_ROWS:
                return
            after = page[-1].seq

    def scan(self) -> Iterator[list[StoredRow]]:
        """Every row of every campaign, a page at a time, each campaign's in seq order (the
        campaigns' rows may interleave). Here campaign after campaign; a backend may read its
        table in one pass instead (SQLite does)."""
        for campaign in self.campaigns():
            after = 0
            while page := self.read(campaign, after):
                yield page
                after = page[-1].seq

    def campaigns(self) -> list[str]:
        """Every campaign with at least one event, in the order they were created."""
        return [created.campaign for created in self.directory()]


class IssuedTokens(Protocol):
    """Which campaign each token was issued for (invites and replay links), written by the
    log's append in the same transaction as the event that issued it: a join's token is
    checked before its campaign loads, with the same work for any campaign id."""

    def token_campaign(self, token_hash: str) -> str | None:
        """The campaign a token with this hash was issued for, if any."""
        ...


class SealedTokens(Protocol):
    """The token a command issued, sealed under its retry key (:attr:`AppendRequest.sealed_token`),
    so that a retry of it is answered with the same token; never in an event."""

    def sealed_token(self, campaign: str, command_id: str) -> str | None:
        """The sealed token the command stored with its events, if it stored one."""
        ...


class SnapshotRows(Protocol):
    """Stored snapshots: derived rows beside the log, keyed by ``(campaign, seq)`` with the
    chain hash of that event and the fingerprint of the code that folded them (what a row
    holds, and when it is trusted, is :mod:`poolhall.server.stored_snapshots`'s)."""

    def save(self, campaign: str, fingerprint: str,
             rows: Iterable[tuple[int, str, bytes, str]]) -> None:
        """Store ``(seq, head_hash, state, seal)`` rows, replacing any row at the same seq."""
        ...

    def latest(self, campaign: str, fingerprint: str, at_most: int
               ) -> tuple[int, str, bytes, str] | None:
        """``(seq, head_hash, state, seal)`` of the row of greatest seq ``<= at_most`` with
        this fingerprint, if any."""
        ...

    def discard(self, campaign: str, seq: int) -> None:
        """Delete the campaign's row at ``seq`` (one the log does not vouch for)."""
        ...


class SeedVault(Protocol):
    """Durable storage of one secret seed per (campaign, epoch): the fair rolls' one secret
    (:mod:`poolhall.events.fair`), never in an event, a frame, a log line or a snapshot until
    ``seed_revealed`` puts it in the log. Kept durably, so a server killed between a
    commitment and its reveal continues the same epoch after a restart; a seed is stored
    *before* the ``seed_committed`` that publishes its hash is appended
    (:class:`poolhall.server.fair_seeds.FairSeeds` does it in that order). Append-only like the
    log: the database refuses a change, a removal or a replacement of a stored seed."""

    def put(self, campaign: str, epoch: int, seed: bytes) -> bytes:
        """Store ``seed`` for the epoch unless one is stored already; return the stored one.

        It is durable when this returns (another process may have stored its own first:
        then that one is returned, and used).
        """
        ...

    def get(self, campaign: str, epoch: int) -> bytes | None:
        """The seed of the epoch, or ``None`` if none was stored."""
        ...

    def close(self) -> None:
        """Release the storage."""
        ...


class PresenceBoard(Protocol):
    """One process's view of who is connected to each campaign, through which process
    (:mod:`poolhall.server.presence_board` has one in memory; PostgreSQL's is in the database)."""

    process: str
    """This process's id on the board (unique per start)."""

    def enter(self, opened_at: str) -> str:
        """Say this process lives, as it opens the log at ``opened_at`` (ISO 8601 UTC, the
        events' clock): since when the deployment has been serving, the earliest time a live
        process says (each says the one it found entering), or ``opened_at`` when none lives.
        A process forgotten although alive says the same time again."""
        ...

    def publish(self, campaign: str, members: Mapping[str, int]) -> None:
        """This process's connections to ``campaign`` now, by member (empty: none); if its
        set of members changed (not only a count), every process is told the campaign
        changed."""
        ...

    def elsewhere(self, campaign: str) -> frozenset[str]:
        """The members connected to ``campaign`` through the other live processes."""
        ...

    def beat(self) -> list[str]:
        """Say this process lives (once per heartbeat), and forget the processes that have not
        for the expiry: the campaigns whose presence changed, of which every process is told.
        A process forgotten although alive publishes everything it holds again."""
        ...

    def close(self) -> None:
        """Withdraw this process (every process is told of its campaigns) and release."""
        ...


class TicketJob(NamedTuple):
    """What a report page's ticket opens: a campaign's report (one game ``session``, or all
    when ``None``) as of ``head``, with the ``hidden`` events (seq, visibility) sealed as its
    reader receives them."""

    campaign: str
    session: int | None
    head: int
    hidden: tuple[tuple[int, str], ...]


class ReportTickets(Protocol):
    """The report pages' tickets, in the database every process of a deployment shares, so
    that any of them opens a ticket another issued (:mod:`poolhall.server.report_page`).
    Each method is one blocking statement or two; only the ticket's hash is stored."""

    def issue(self, ticket_hash: str, job: TicketJob, seconds: float) -> None:
        """Store a ticket good for ``seconds``."""
        ...

    def find(self, ticket_hash: str) -> TicketJob | None:
        """What the ticket opens, unless it was spent or expired."""
        ...

    def extend(self, ticket_hash: str, seconds: float) -> None:
        """Keep the ticket at least ``seconds`` more."""
        ...

    def spend(self, ticket_hash: str) -> bool:
        """Spend the ticket: whether it was there to spend, so that one process only sends
        its page."""
        ...


class Deployment(Protocol):
    """What a log shared by several server processes (PostgreSQL) also keeps for them: a log
    of one process (SQLite) has no such thing (:meth:`ServerLog.deployment` is ``None``)."""

    url: str
    """The database the processes share (what each follows the others' appends on)."""

    def admin_hash(self) -> str | None:
        """The deployment's admin token hash, if one is set."""
        ...

    def claim_admin_hash(self, token_hash: str) -> str:
        """Set the deployment's admin token hash to ``token_hash`` unless one is set; the one
        set now (which may not be ``token_hash``: another process's came first)."""
        ...

    def presence_board(self, process: str, expiry: float) -> PresenceBoard:
        """Who is connected through each process of the deployment."""
        ...

    def report_tickets(self) -> ReportTickets:
        """The report pages' tickets, which any process opens."""
        ...


class ServerLog(EventLog, IssuedTokens, SealedTokens, Protocol):
    """What a server opens: the log, the two token tables its appends write, and the tables
    the server keeps beside the log in the same database, each through a small interface
    (every backend has each of them)."""

    def creation(self, command_id: str) -> tuple[str, CommandRecord] | None:
        """The campaign the command id created (its event 1), and what it appended, if it
        created one: a retried create finds its campaign even if another process made it."""
        ...

    def snapshots(self) -> SnapshotRows:
        """The stored snapshots beside the log (derived rows, not append-only)."""
        ...

    def seed_vault(self) -> SeedVault:
        """The fair rolls' secret seeds beside the log."""
        ...

    def deployment(self) -> Deployment | None:
        """What the processes sharing this log share beyond it, or ``None`` when the log
        has one server process (SQLite: the file's lock refuses a second)."""
        ...


class Maintenance(Protocol):
    """What a backend may want done beside the writer (SQLite: WAL checkpoints, a probe
    write while the disk refuses). The group committer calls each if the log has it."""

    def checkpoint(self) -> None:
        """Housekeeping beside the writer, from another thread."""
        ...

    def probe(self, at: str) -> None:
        """Prove the log takes writes again (raises while it does not)."""
        ...

    @property
    def has_housework(self) -> bool:
        """Whether :meth:`housekeeping` has work pending."""
        ...

    def housekeeping(self) -> None:
        """A short step of pending work, on the writer's thread between two commits."""
        ...
