"""The poolhall server: one asyncio process on websockets' asyncio server.

A connection's first message is ``join``. The admin token (no campaign) may create campaigns;
any member token opens its own campaign, where the campaign's hub serializes every command.
A campaign's hub is loaded when it is first joined (from its latest stored snapshot and the
events after it) and unloaded once nobody has been connected to it for ``--idle-unload``
seconds: the server starts without folding the log, and holds the tables in use.
``GET /health`` answers over plain HTTP for load balancers and scripts: 200, or 503 with the
reason while the log cannot take writes (:mod:`poolhall.server.health`). :meth:`Server.stop` is
graceful: new commands are refused, queued ones finish and are made durable, commands received
but not carried out are answered ``shutting_down``, queued frames go out, then connections
close with 1001 (going away); every step runs even if one before it failed.

:class:`Server` keeps the lifecycle and the connection loop; the parts it owns do the rest:
:mod:`poolhall.server.loaded_campaigns` (which campaigns exist, loading and unloading their hubs),
:mod:`poolhall.server.joins` (checking a join's token, opening its session; :func:`member_by_token`
lives there and is re-exported here), :mod:`poolhall.server.table_messages` (a member's reads and
commands once joined), :mod:`poolhall.server.campaign_creation` (the admin's one command),
:mod:`poolhall.server.shared_admin` (the admin token of several processes on one database) and
:mod:`poolhall.server.refusal_cost` (how long a refused frame leaves its connection unread).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from poolhall.events.backends import is_postgres_url, open_log, safe_name
from poolhall.events.codec import encode
from poolhall.events.errors import Rejected, StoreError
from poolhall.events.log import ServerLog
from poolhall.events.log_contract import Deployment, SeedVault
from poolhall.events.messages import CLIENT_DECODER, ErrorReply, History, Join, StateAt
from poolhall.events.owner import ListCampaigns
from poolhall.projections.campaign import Member
from poolhall.server.allowed_hosts import AllowedHosts
from poolhall.server.auth import (
    admin_token_path,
    check_admin_token,
    hash_token,
    load_or_create_admin_token,
)
from poolhall.server.campaign_creation import CampaignCreation
from poolhall.server.fair_seeds import system_seed
from poolhall.server.gate import ACCEPT_BATCH, Gate, lengthen_listen_queue
from poolhall.server.gc_tuning import GcTuning
from poolhall.server.health import LogHealth, health_response
from poolhall.server.http_door import HttpDoor
from poolhall.server.hub import CampaignHub
from poolhall.server.joins import Joins, member_by_token
from poolhall.server.keepalive import Keepalive
from poolhall.server.loaded_campaigns import LoadedCampaigns
from poolhall.server.log_redact import redact_frames
from poolhall.server.owner import list_campaigns
from poolhall.server.page_cache import PageCache
from poolhall.server.protocol import (
    RECEIVE_QUEUE,
    WEBSOCKET_MAX_SIZE,
    command_id_of,
    read_frame,
    read_join,
)
from poolhall.server.rates import Limits, MemberKey, member_key
from poolhall.server.refusal_cost import pause_after
from poolhall.server.report_page import ReportPages
from poolhall.server.settings import Settings
from poolhall.server.shared_admin import claim_shared_admin_token
from poolhall.server.shutdown import answer_unread, run_steps
from poolhall.server.stored_snapshots import SnapshotStore, seal_key
from poolhall.server.subscriber import Subscriber
from poolhall.server.table_messages import TableMessages
from poolhall.server.utc_clock import UtcClock
from poolhall.server.views import ViewWorkers
from poolhall.server.web import WebTable
from poolhall.server.writer import GroupCommitter

if TYPE_CHECKING:  # psycopg is needed only on a shared log (pip install 'poolhall[postgres]')
    from poolhall.server.shared_deployment import SharedDeployment

__all__ = ["REPORT_BUDGET", "Server", "member_by_token", "utc_now"]

REPORT_BUDGET = 120.0
"""Seconds of a worker one report page may take (100,000 events: a few)."""

logger = logging.getLogger(__name__)

CLOSE_TIMEOUT = 2.0
"""Seconds a closing handshake may take. A client that stopped reading never answers it; at
websockets' default of 10 s, one such client held up a Ctrl-C for 10 s."""


UNJOINED_GRACE = 5.0
"""Most seconds a campaign stays loaded when no join to it ever succeeded (say, joins with
wrong tokens): loading costs the server memory, and an outsider's refused joins must not keep
every campaign of the log loaded for the whole ``--idle-unload``."""


def utc_now() -> str:
    """The time an event is recorded, ISO 8601 in UTC to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Server:
    """Owns the log, the writer, the loaded campaigns' hubs and the listening socket."""

    def __init__(
        self,
        db_path: str | Path = "poolhall.db",
        host: str = "127.0.0.1",
        port: int = 8765,
        *,
        rng: random.Random | None = None,
        admin_token: str | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.database = str(db_path)
        """The SQLite file's path, or the ``postgresql://`` URL of a shared database."""
        self.shared = is_postgres_url(self.database)
        """Whether other server processes may append to the same log (PostgreSQL)."""
        self.db_path = Path(db_path) if not self.shared else Path(".")
        self.host = host
        self.port = port
        self.new_seed = (lambda: rng.randbytes(32)) if rng is not None else system_seed
        """Each epoch's secret seed: the OS CSPRNG (tests give a seeded ``rng``: fixed seeds)."""
        self.vault: SeedVault | None = None
        self.settings = settings if settings is not None else Settings()
        if admin_token is not None:
            check_admin_token(admin_token, "the admin token given")
        self._given_admin_token = admin_token
        self.admin_token_created = False
        self.log: ServerLog | None = None
        self.deployment: SharedDeployment | None = None
        """On a shared log, its followers and its presence (:mod:`.shared_deployment`)."""
        self.committer: GroupCommitter | None = None
        self.hosts = AllowedHosts.of(host, self.settings.base_url,
                                     self.settings.allowed_origins)
        """The host names this server answers to and the page origins it trusts."""
        self.web = WebTable(self.hosts)
        """The browser table's files and the handshake's origin check."""
        self.door = HttpDoor(self.hosts, self._health)
        """Every HTTP request's first stop: headers and host checked, every answer secured."""
        self.health = LogHealth()
        """Whether the log takes writes: fed by the writer, read by ``/health`` and hubs."""
        self.store: SnapshotStore | None = None
        self._stopped_reading_pauses = asyncio.Event()
        """Set when the stop begins: a handler pausing after a refusal reads on at once, so
        the frames it has received are answered ``shutting_down`` before the close."""
        self._stop_task: asyncio.Future[None] | None = None
        self._lifecycle = asyncio.Lock()
        self._ws: WsServer | None = None
        self._connections: set[Subscriber] = set()
        self.gate = Gate(self.settings)
        """Connection caps, the join deadline and the failed-join throttle."""
        self.pages = PageCache()
        """Encoded catch-up pages, shared by every campaign's catch-ups (bounded in bytes)."""
        self.limits = Limits(self.settings, time.monotonic)
        """Per-member and per-campaign rates and caps, checked before work reaches a hub."""
        self.clock = UtcClock()
        """The time each event is recorded (text formatted once a second, not per batch)."""
        self.gc = GcTuning(self.settings.gc_freeze_joins)
        """Keeps connections out of the collector's full scans; measures its pauses."""
        self.keepalive = Keepalive(self.settings.ping_interval, close_timeout=CLOSE_TIMEOUT)
        """Every connection's keepalive pings, from one timer (not websockets' task each)."""
        self.view_workers = ViewWorkers(workers=self.settings.view_workers,
                                        budget=self.settings.view_budget,
                                        cache_size=self.settings.view_cache)
        self.report_workers = ViewWorkers(workers=1, budget=REPORT_BUDGET, cache_size=16,
                                          memory=self.settings.report_memory * 2**20)
        """Post-game report pages are drawn in their own worker: odds never wait for one."""
        self.reports = ReportPages(self.database, self.report_workers)
        self.loaded = LoadedCampaigns(self.settings, new_seed=self.new_seed, clock=self.clock,
                                      health=self.health, workers=self.view_workers,
                                      pages=self.pages, unjoined_grace=UNJOINED_GRACE)
        """Every campaign of the log, and the hubs of those loaded now."""
        self.loaded.shared = self.shared
        self.creation = CampaignCreation(self.loaded, health=self.health, limits=self.limits,
                                         clock=self.clock)
        """The admin session's campaign creations, one at a time."""
        self.joins = Joins(self.loaded, gate=self.gate, limits=self.limits)
        """Checks each connection's join and opens its session."""
        self.table = TableMessages(self.loaded, self.limits, self.reports)
        """Answers a joined member's reads and queues their commands on the hub."""
        self._use_admin_token(admin_token or "")  # from the file beside the log, in start()

    @property
    def hubs(self) -> dict[str, CampaignHub]:
        """The campaigns loaded now (joined lately), by id."""
        return self.loaded.hubs

    @property
    def campaigns(self) -> set[str]:
        """Every campaign of the log, loaded or not (read through the index at start)."""
        return self.loaded.campaigns

    @property
    def unloads(self) -> int:
        """Hubs unloaded after being idle (for operators, tests)."""
        return self.loaded.unloads

    async def load(self, campaign: str) -> CampaignHub | None:
        """The campaign's hub, loaded if it is not (for operators and tests: a connection
        that joins loads it the same way); ``None`` if the log has no such campaign."""
        return await self.loaded.load(campaign)

    def _use_admin_token(self, token: str) -> None:
        """Use ``token`` as the admin token ("" until start() reads it: it opens nothing)."""
        self.admin_token = token
        self.joins.admin_hash = hash_token(token)

    async def _use_shared_admin_token(self, shared: Deployment) -> None:
        """The deployment's admin token on a shared database
        (:mod:`poolhall.server.shared_admin`)."""
        held = await claim_shared_admin_token(shared, self._given_admin_token, self.database)
        self.admin_token, self.admin_token_created = held.token, held.created
        self.joins.admin_hash = held.hash

    # ---- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Open the log, read which campaigns it holds (not their events), start listening.

        Raises :class:`~poolhall.events.errors.StoreError` if the log cannot be opened (another
        server holds it, or it is not a database) and :class:`OSError` if the address cannot be
        bound; either way nothing is left running and the file is released. The admin token
        file is created with the log, and taken back if the server then fails to start, so
        the first start that succeeds is the one that prints it.
        """
        try:
            async with self._lifecycle:  # a stop() called meanwhile waits for this start
                if self.loaded.stopping:
                    raise StoreError("the server was stopped before it started")
                await self._open_and_listen()
        except BaseException:  # cancelled too: nothing may be left half started
            await self.stop()  # the lifecycle lock is released by now
            if self.admin_token_created:
                admin_token_path(self.database).unlink(missing_ok=True)
                self.admin_token_created = False
            raise
        assert self._ws is not None
        self.port = self._ws.sockets[0].getsockname()[1]
        logger.info("serving %d campaigns from %s on ws://%s:%d", len(self.hubs),
                    safe_name(self.database), self.host, self.port)

    async def _open_and_listen(self) -> None:
        """The steps of :meth:`start`, which undoes them if one fails."""
        self.log = log = await asyncio.to_thread(open_log, self.database)
        shared = log.deployment()  # None for SQLite: its one server is the deployment
        if shared is not None:
            await self._use_shared_admin_token(shared)
        elif self._given_admin_token is None:
            try:
                token, self.admin_token_created = load_or_create_admin_token(self.db_path)
            except OSError as error:  # a full disk, or no right to write beside the log
                raise StoreError(f"cannot keep the admin token in "
                                 f"{admin_token_path(self.db_path)}: "
                                 f"{error.strerror or error}") from None
            self._use_admin_token(token)
        self.committer = GroupCommitter(
            log, health=self.health,
            directory=None if self.shared else self.db_path.resolve().parent,
            reserve_bytes=self.settings.disk_reserve_mb * 2**20, clock=self.clock)
        self.committer.start()
        CLIENT_DECODER.ready()  # built now: the first frame would wait for it
        started = time.perf_counter()
        # A process of a shared log may hold only the admin token's hash: its rows go unsealed,
        # and the database's own access control is what guards them (docs: what clients see).
        self.store = SnapshotStore(log.snapshots(),
                                   seal_key(self.admin_token) if self.admin_token else None)
        self.vault = self.loaded.vault = log.seed_vault()
        if shared is not None:  # any process opens a report link another issued
            self.reports.shared = shared.report_tickets()
        if shared is not None:  # made first: opening the log enters it on the presence board
            from poolhall.server.shared_deployment import SharedDeployment  # psycopg

            self.deployment = SharedDeployment(shared, self.loaded, self.health,
                                               self.settings.presence_expiry)
        await self.loaded.open(log, self.store, self.committer)  # and unloads idle hubs
        if self.deployment is not None:
            self.deployment.start()
        logger.info("found %d campaigns in %.3fs (each loads when first joined)",
                    len(self.campaigns), time.perf_counter() - started)
        self.gc.start()  # the state loaded so far is frozen with the rest
        self.keepalive.start()
        self.gate.open()
        self.door.open()
        self._ws = await serve(
            self._handle, self.host, self.port,
            process_request=self.gate.process_request(self.door.process_request),
            process_response=self.door.process_response, max_size=WEBSOCKET_MAX_SIZE,
            max_queue=RECEIVE_QUEUE, backlog=ACCEPT_BATCH,  # then lengthen_listen_queue
            ping_interval=None,  # self.keepalive pings every connection from one timer
            compression=None,  # ~200-byte JSON frames: deflate cost more CPU than it saved
            close_timeout=CLOSE_TIMEOUT,
            create_connection=self.gate.connection_class(),  # counted from TCP accept on
            open_timeout=self.settings.join_timeout,  # the handshake is part of the join time
            logger=redact_frames(),  # -v logs frames: tokens among them; kind and size only
        )
        lengthen_listen_queue(self._ws.sockets)

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    async def stop(self) -> None:
        """Graceful shutdown: finish in-flight commands, flush, then close connections.

        Safe to call more than once, or from two places at once: every call returns when the
        one shutdown has finished. A server is started once; make a new one to start again.
        """
        if self._stop_task is None:
            self._stop_task = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(self._stop_task)

    async def _shut_down(self) -> None:
        """Every step runs even if an earlier one fails (a full disk, a dead log): it is
        logged in one line and the next goes on, so clients are told and the file released."""
        self.loaded.stopping = True  # nothing loads, is created, joined or decided from now on
        self._stopped_reading_pauses.set()
        async with self._lifecycle:  # a start in progress finishes first, then is undone
            pass
        await self.creation.finished()  # a campaign being created gets its hub first
        await self.loaded.stop_loading()
        failed = await run_steps(
            ("finishing the campaigns' queued work", self.loaded.stop_hubs),
            ("stopping the odds workers", self.view_workers.stop),
            ("stopping the report worker", self.report_workers.stop),
            ("stopping the writer", self._stop_writer),
            ("answering unread commands",
             lambda: answer_unread(s.connection for s in self._connections)),
            ("sending queued frames",
             lambda: asyncio.gather(*(s.finish() for s in tuple(self._connections)))),
            ("closing connections", self._close_listener),
            ("closing the log", self._close_log),
        )
        self.gc.stop()
        self.keepalive.stop()
        if self._ws is None:  # a start that failed, undone: its error is what the user reads
            logger.debug("a start that failed was undone (%d step(s) failed)", failed)
        else:
            logger.info("stopped" + (f" ({failed} step(s) failed; see above)" if failed else ""))

    async def _stop_writer(self) -> None:
        if self.committer is not None:
            await self.committer.stop()

    async def _close_listener(self) -> None:
        if self._ws is not None:
            self._ws.close()
            await self._ws.wait_closed()
        self.gate.close()
        self.door.close()

    async def _close_log(self) -> None:
        if self.deployment is not None:
            await asyncio.to_thread(self.deployment.stop)
        if self.vault is not None:
            self.vault.close()
        if self.log is not None:
            self.log.close()

    # ---- HTTP -------------------------------------------------------------------------

    def _health(self, connection: ServerConnection,
                request: Request) -> Response | None | Awaitable[Response | None]:
        """``GET /health``: 200 ``ok N campaigns``, or 503 ``failing: <why> (since <when>)``;
        ``/report/<ticket>`` a report page (:mod:`poolhall.server.report_page`); any other request
        is the browser table's (:mod:`poolhall.server.web`).

        ``?format=json`` (or ``Accept: application/json``) answers the same as JSON.
        """
        path, _, query = request.path.partition("?")
        if path.startswith("/report/"):
            return self.reports.respond(connection, request)
        if path != "/health":
            return self.web.respond(connection, request)
        return health_response(connection, request, query, self.health, len(self.campaigns),
                               self.gate.status(), self.gc.status())

    # ---- connections --------------------------------------------------------------------

    async def _handle(self, connection: ServerConnection) -> None:
        sock = connection.transport.get_extra_info("socket")
        if sock is not None and self.settings.send_buffer:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.settings.send_buffer)
        session = _Session(connection, self.gate.arm_deadline(connection),  # cancelled on join
                           Subscriber(connection, self.settings.queue_limit,
                                      catch_up_timeout=self.settings.catch_up_timeout))
        subscriber = session.subscriber
        self._connections.add(subscriber)
        self.keepalive.add(connection)
        try:
            async for frame in connection:
                try:
                    if session.key is not None and not self.loaded.stopping:  # stopping:
                        self.limits.refuse_if_spent(session.key)  # shutting_down; before decoding
                    await self._dispatch(session, read_frame(frame) if session.member is not None
                                         else read_join(frame))
                except Rejected as refusal:
                    subscriber.push(encode(ErrorReply(
                        id=command_id_of(frame) if isinstance(frame, str) else None,
                        code=refusal.code, message=refusal.message, path=refusal.path,
                        retry_after=refusal.retry_after)))
                    pause = pause_after(refusal, session.key, connection,
                                        limits=self.limits, gate=self.gate)
                    if pause > 0:
                        await self._pause_reading(pause)
        except ConnectionClosed:
            pass
        finally:
            session.deadline.cancel()
            if session.key is not None:
                self.limits.release_connection(session.key)
            if session.hub is not None:
                session.hub.leave(subscriber)
                session.hub.unpin()
            self._connections.discard(subscriber)
            self.keepalive.discard(connection)
            if session.member is not None:
                self.gc.closed(len(self._connections))
            await subscriber.finish(timeout=0.5)

    async def _dispatch(self, session: _Session, message: Any) -> None:
        """Route one decoded message by its type: a ``match`` over the client union
        (:data:`poolhall.events.messages.ClientMessage`), the session's state in the guards."""
        match message:
            case Join():
                if session.member is not None:
                    raise Rejected("already_joined", "this connection has joined", "$.type")
                await self._join(session, message)
            case _ if session.member is None or session.key is None:
                raise Rejected("not_joined", "send join with your token first", "$.type")
            case ListCampaigns():
                if session.hub is not None:
                    raise Rejected("forbidden", "only the owner's session (the admin "
                                   "token, no campaign) lists campaigns", "$.type")
                self.limits.admit_command(session.key, None)
                listed = list_campaigns(self.log, self.campaigns, message)
                await self.table.read(session.key, listed, session.subscriber)
            case History() | StateAt() if session.hub is None:
                raise Rejected("invalid", "the admin session has no campaign and so no "
                               "history", "$.type")
            case _ if session.hub is None:
                await self.creation.admin_command(message, session.subscriber, session.key)
            case _:
                await self.table.at_table(session.hub, session.member, session.key, message,
                                     session.subscriber)

    async def _join(self, session: _Session, join: Join) -> None:
        hub, member = await self.joins.join(join, session.subscriber)
        session.hub, session.member = hub, member
        session.deadline.cancel()
        self.gate.joined(session.connection)
        self.gc.joined()
        session.key = member_key(hub.campaign if hub else None, member.member, member.admin)

    async def _pause_reading(self, seconds: float) -> None:
        """Leave a connection's frames unread for ``seconds``, or until the stop begins."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopped_reading_pauses.wait(), seconds)


@dataclass(slots=True)
class _Session:
    """One connection's state between its frames: who joined, to which hub."""

    connection: ServerConnection
    deadline: asyncio.TimerHandle
    """Closes the connection if it has not joined in time; cancelled by the join."""
    subscriber: Subscriber
    hub: CampaignHub | None = None
    """``None`` before the join, and for the owner's session (the admin token, no campaign)."""
    member: Member | None = None
    key: MemberKey | None = None
    """The member's key for the rate limits, set by the join."""
