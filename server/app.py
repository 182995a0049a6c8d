"""The poolhall server: one asyncio process on websockets' asyncio server.

A connection's first message is ``join``. The admin token (no campaign) may create campaigns;
any member token opens its own campaign, where the campaign's hub serializes every command.
``GET /health`` answers over plain HTTP for load balancers and scripts. :meth:`Server.stop`
is graceful: new commands are refused, queued ones finish and are made durable, queued frames
go out, then connections close with 1001 (going away).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import random
import secrets
import socket
import time
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from events import core
from events.base import Recorded
from events.codec import encode
from events.errors import Rejected, StoreError
from events.log import AppendRequest, CommandRecord, prepare
from events.messages import Ack, ErrorReply, Join, Welcome
from events.store import SqliteLog
from projections.campaign import CampaignState, Member, evolve, new_state
from server.auth import admin_token_path, hash_token, load_or_create_admin_token, tokens_match
from server.hub import CampaignHub, CommandWork, JoinWork
from server.protocol import command_id_of, read_frame
from server.rebuild import load_all_states
from server.rules.base import ADMIN_MEMBER
from server.rules.core import open_campaign, slugify
from server.settings import Settings
from server.subscriber import Subscriber
from server.writer import GroupCommitter

__all__ = ["IN_FLIGHT_LIMIT", "Server", "utc_now"]

logger = logging.getLogger(__name__)

IN_FLIGHT_LIMIT = 64
"""Commands one connection may have queued before the server stops reading its frames."""

CLOSE_TIMEOUT = 2.0
"""Seconds a closing handshake may take. A client that stopped reading never answers it; at
websockets' default of 10 s, one such client held up a Ctrl-C for 10 s."""


def utc_now() -> str:
    """The time an event is recorded, ISO 8601 in UTC to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Server:
    """Owns the log, the writer, the hubs and the listening socket."""

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
        self.db_path = Path(db_path)
        self.host = host
        self.port = port
        self.rng = rng if rng is not None else secrets.SystemRandom()
        self.settings = settings if settings is not None else Settings()
        self._given_admin_token = admin_token
        self.admin_token_created = False
        self._use_admin_token(admin_token or "")  # from the file beside the log, in start()
        self.log: SqliteLog | None = None
        self.committer: GroupCommitter | None = None
        self.hubs: dict[str, CampaignHub] = {}
        self._admin_lock = asyncio.Lock()
        self._stopping = False
        self._stop_task: asyncio.Future[None] | None = None
        self._lifecycle = asyncio.Lock()
        self._ws: WsServer | None = None
        self._connections: set[Subscriber] = set()

    def _use_admin_token(self, token: str) -> None:
        self.admin_token = token
        self._admin_hash = hash_token(token)
        self._token_key = hashlib.sha256(b"poolhall-token-key" + token.encode()).digest()

    # ---- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Open the log, rebuild every campaign from it, and start listening.

        Raises :class:`~events.errors.StoreError` if the log cannot be opened (another server
        holds it, or it is not a database) and :class:`OSError` if the address cannot be
        bound; either way nothing is left running and the file is released. The admin token
        file is created with the log, and taken back if the server then fails to start, so
        the first start that succeeds is the one that prints it.
        """
        try:
            async with self._lifecycle:  # a stop() called meanwhile waits for this start
                if self._stopping:
                    raise StoreError("the server was stopped before it started")
                await self._open_and_listen()
        except BaseException:  # cancelled too: nothing may be left half started
            await self.stop()  # the lifecycle lock is released by now
            if self.admin_token_created:
                admin_token_path(self.db_path).unlink(missing_ok=True)
                self.admin_token_created = False
            raise
        assert self._ws is not None
        self.port = self._ws.sockets[0].getsockname()[1]
        logger.info("serving %d campaigns from %s on ws://%s:%d", len(self.hubs),
                    self.db_path, self.host, self.port)

    async def _open_and_listen(self) -> None:
        """The steps of :meth:`start`, which undoes them if one fails."""
        self.log = SqliteLog(self.db_path)
        if self._given_admin_token is None:
            token, self.admin_token_created = load_or_create_admin_token(self.db_path)
            self._use_admin_token(token)
        self.committer = GroupCommitter(self.log)
        self.committer.start()
        started = time.perf_counter()
        loaded = await asyncio.to_thread(load_all_states, self.log)
        for state, commands in loaded.values():
            self._open_hub(state, commands)
        logger.info("rebuilt %d campaigns (%d events) in %.2fs", len(loaded),
                    sum(state.head for state, _ in loaded.values()),
                    time.perf_counter() - started)
        self._ws = await serve(
            self._handle, self.host, self.port,
            process_request=self._health, max_size=2**20, max_queue=64,
            compression=None,  # ~200-byte JSON frames: deflate cost more CPU than it saved
            close_timeout=CLOSE_TIMEOUT,
        )

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
        self._stopping = True
        async with self._lifecycle:  # a start in progress finishes first, then is undone
            pass
        async with self._admin_lock:  # a campaign being created gets its hub first
            pass
        for hub in self.hubs.values():
            hub.closing = True
        await asyncio.gather(*(hub.stop() for hub in self.hubs.values()))
        if self.committer is not None:
            await self.committer.stop()
        await asyncio.gather(*(s.finish() for s in tuple(self._connections)))
        if self._ws is not None:
            self._ws.close()
            await self._ws.wait_closed()
        if self.log is not None:
            self.log.close()
        logger.info("stopped")

    def _open_hub(self, state: CampaignState, commands: dict[str, Any]) -> CampaignHub:
        assert self.log is not None and self.committer is not None
        hub = CampaignHub(state=state, commands=commands, log=self.log,
                          committer=self.committer, rng=self.rng, clock=utc_now,
                          token_for=self.token_for)
        self.hubs[state.campaign] = hub
        hub.start()
        return hub

    def token_for(self, campaign: str, command_id: str) -> str:
        """The token issued by a command: derived, so a retried invite returns the same one."""
        mac = hmac.new(self._token_key, f"{campaign}\x1f{command_id}".encode(), "sha256")
        return "ph_" + mac.hexdigest()

    # ---- HTTP -------------------------------------------------------------------------

    def _health(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.path == "/health":
            return connection.respond(HTTPStatus.OK, f"ok {len(self.hubs)} campaigns\n")
        return None

    # ---- connections --------------------------------------------------------------------

    async def _handle(self, connection: ServerConnection) -> None:
        sock = connection.transport.get_extra_info("socket")
        if sock is not None and self.settings.send_buffer:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.settings.send_buffer)
        subscriber = Subscriber(connection, self.settings.queue_limit)
        self._connections.add(subscriber)
        hub: CampaignHub | None = None
        member: Member | None = None
        in_flight = asyncio.Semaphore(IN_FLIGHT_LIMIT)
        try:
            async for frame in connection:
                try:
                    message = read_frame(frame)
                    if isinstance(message, Join):
                        if member is not None:
                            raise Rejected("already_joined", "this connection has joined", "$.type")
                        hub, member = await self._join(message, subscriber)
                        continue
                    if member is None:
                        raise Rejected("not_joined", "send join with your token first", "$.type")
                    if hub is None:
                        await self._admin_command(message, subscriber)
                        continue
                    await in_flight.acquire()
                    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                    done.add_done_callback(lambda _: in_flight.release())
                    try:
                        hub.submit(CommandWork(command=message, member=member,
                                               subscriber=subscriber, done=done))
                    except Rejected:
                        done.set_result(None)
                        raise
                except Rejected as refusal:
                    subscriber.push(encode(ErrorReply(
                        id=command_id_of(frame) if isinstance(frame, str) else None,
                        code=refusal.code, message=refusal.message, path=refusal.path)))
        except ConnectionClosed:
            pass
        finally:
            if hub is not None:
                hub.leave(subscriber)
            self._connections.discard(subscriber)
            await subscriber.finish(timeout=0.5)

    async def _join(self, join: Join, subscriber: Subscriber) -> tuple[CampaignHub | None, Member]:
        """Check the token against the campaign; attach to its hub, or an admin session."""
        token_hash = hash_token(join.token)
        is_admin = tokens_match(token_hash, self._admin_hash)
        if join.campaign is None:
            if not is_admin:
                raise Rejected("unauthorized", "only the admin token joins without a campaign",
                               "$.campaign")
            admin = Member(member=ADMIN_MEMBER, name="Admin", role="admin", characters=[],
                           token_hash=token_hash, admin=True)
            subscriber.push(encode(Welcome(role="admin", member=ADMIN_MEMBER, campaign=None,
                                           name="", system="", head=0)))
            return None, admin
        hub = self.hubs.get(join.campaign)
        if hub is None:
            if not is_admin:  # the same answer as a wrong token: no probing for campaign ids
                raise Rejected("unauthorized", f"this token does not open {join.campaign!r}",
                               "$.token")
            raise Rejected("not_found", f"no campaign {join.campaign!r}", "$.campaign")
        if is_admin:
            member = Member(member=ADMIN_MEMBER, name="Admin", role="gm", characters=[],
                            token_hash=token_hash, admin=True)
        else:
            found = next((m for m in hub.state.members.values()
                          if m.active and tokens_match(m.token_hash, token_hash)), None)
            if found is None:
                raise Rejected("unauthorized", f"this token does not open {join.campaign!r}",
                               "$.token")
            member = found
        done: asyncio.Future[Welcome] = asyncio.get_running_loop().create_future()
        hub.submit(JoinWork(member=member, since=join.since, subscriber=subscriber, done=done))
        await done
        return hub, member

    async def _admin_command(self, command: Any, subscriber: Subscriber) -> None:
        """The admin session's one command: create a campaign and its GM's token.

        Creations are serialized (they are rare): a retry that arrives while its original is
        still being committed waits for it, then finds the campaign it made and gets the
        original answer, never a second campaign.
        """
        if not isinstance(command, core.CreateCampaign):
            raise Rejected("forbidden", "the admin session only creates campaigns; join a campaign"
                           " to send this command", "$.type")
        async with self._admin_lock:
            if self._stopping:
                raise Rejected("shutting_down", "the server is shutting down; retry shortly", None)
            ack = self._created_by(command.id) or await self._create_campaign(command)
        subscriber.push(encode(ack))

    def _created_by(self, command_id: str) -> Ack | None:
        """The original answer to a create command already carried out, if it was."""
        for hub in self.hubs.values():
            record = hub.commands.get(command_id)
            if record is not None and record.actor == ADMIN_MEMBER and record.first_seq == 1:
                return Ack(id=command_id, seqs=record.seqs, campaign=hub.campaign, member="gm",
                           token=self.token_for(hub.campaign, command_id))
        return None

    async def _create_campaign(self, command: core.CreateCampaign) -> Ack:
        assert self.committer is not None
        if command.campaign is not None:
            if command.campaign in self.hubs:
                raise Rejected("conflict", f"campaign {command.campaign!r} exists", "$.campaign")
            campaign = command.campaign
        else:
            campaign = slugify(command.name, self.hubs, "campaign")
        token = self.token_for(campaign, command.id)
        new_events = open_campaign(command, campaign, hash_token(token))
        at = utc_now()
        request = AppendRequest(campaign=campaign, expected_head=0,
                                events=tuple(prepare(e) for e in new_events),
                                actor=ADMIN_MEMBER, command_id=command.id, at=at)
        try:
            (result,) = await self.committer.append([request])
        except StoreError:
            result = None
        if not isinstance(result, list):
            raise Rejected("unavailable", "the log could not store this; retry it", None)
        state = new_state()
        for seq, event in zip(result, new_events, strict=True):
            evolve(state, Recorded(seq=seq, at=at, actor=ADMIN_MEMBER, command=command.id,
                                   event=event))
        self._open_hub(state, {command.id: CommandRecord(ADMIN_MEMBER, 1, result[-1])})
        return Ack(id=command.id, seqs=result, campaign=campaign, member="gm", token=token)
