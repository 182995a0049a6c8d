"""The connection under a :class:`poolhall.clients.client.Client`: open it and join, read every
frame, and when it drops, reconnect and resume from the last event the client holds.

Keeping a connection alive is a job of its own (the handshake and the join, the backoff, which
join refusals pass, the close frame that says why it ended, a reader that never dies silently),
and the client's reading of frames need not read it. So it lives apart, as the base class of the
client: the client says what a frame means (:meth:`ResumingConnection._dispatch`), where its
table stands (:attr:`ResumingConnection.head`), what to do once resumed (re-send its unanswered
commands) and what stopping ends (its waiters); this class opens, reads, resumes and gives up.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.frames import Close

from poolhall.clients.connection_words import why_closed
from poolhall.clients.link_check import LinkCheck, link_seconds
from poolhall.clients.printable import printable
from poolhall.events.codec import encode
from poolhall.events.errors import CommandRejected, ConnectionLost, HistoryDiverged, RejoinRefused
from poolhall.events.messages import Join, Welcome

__all__ = ["CLOSE_WAIT", "RETRYABLE_JOIN_REFUSALS", "ResumingConnection"]

logger = logging.getLogger("poolhall.clients.client")
"""The client's logger: these lines are the client's, as ``poolhall watch`` quiets them."""

CLOSE_WAIT = 1.0
"""Seconds ``close()`` lets a live reader finish before cancelling it."""

RETRYABLE_JOIN_REFUSALS = frozenset({"shutting_down", "unavailable", "rate_limited",
                                     "too_many_connections"})
"""Join refusals that pass: the client keeps trying to resume through them (a connection the
server has not yet seen die still counts against the token's connection cap)."""


class ResumingConnection(ABC):
    """A connection to one campaign (or the admin's, with no campaign) that resumes after a
    drop; what its frames mean is the subclass's."""

    def __init__(
        self,
        url: str,
        token: str,
        campaign: str | None,
        *,
        reconnect: bool,
        reconnect_for: float,
        timeout: float,
        replay: bool,
        on_connection: Callable[[bool, int], None] | None,
        answer_due: float,
        link_silence: float,
    ) -> None:
        self._answer_due = link_seconds("answer_due", answer_due)
        """Seconds a request waits for its answer before the link is checked."""
        self._link = LinkCheck(link_silence)
        self.url = url
        self.campaign = campaign
        self.welcome: Welcome | None = None
        self.reconnects = 0
        self.last_close: Close | None = None
        """The close frame that ended the last connection, as the server sent it: its code
        and reason (1008 "you were removed from this table by the GM", 1001 when it shuts
        down); ``None`` when none came (the server stopped answering, the network dropped),
        so a follower can say which of the two happened."""
        self.last_hash = ""
        """The chain hash of the last event folded (its frame's ``hash``), sent on resuming."""
        self._token = token
        self._reconnect = reconnect
        self._replay = replay
        self._reconnect_for = reconnect_for
        self._timeout = timeout
        self._connection: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._lost: ConnectionLost | None = None
        self._joined: asyncio.Future[Welcome] | None = None
        """Set by :meth:`_dispatch` with the welcome, or the join's refusal."""
        self._closed = False
        self._on_connection = on_connection
        self._live = False
        """Joined on :attr:`_connection`, and reading it (not reconnecting)."""

    # ---- what the subclass says -----------------------------------------------------

    @property
    @abstractmethod
    def head(self) -> int:
        """The last sequence number the client holds: it resumes from there."""

    @abstractmethod
    def _dispatch(self, frame: str | bytes) -> None:
        """Take one frame from the server (settling :attr:`_joined` with the welcome or the
        join's refusal); a :class:`ConnectionLost` raised here is a gap: the connection is
        closed and resumed from :attr:`head`."""

    @abstractmethod
    async def _resumed(self) -> None:
        """The connection is back and joined: re-send what is still unanswered."""

    @abstractmethod
    def _stopped(self, error: ConnectionLost) -> None:
        """The end of this client (:meth:`_give_up`): whoever waits learns ``error``."""

    # ---- lifecycle --------------------------------------------------------------------

    @property
    def lost(self) -> ConnectionLost | None:
        """Why the client stopped (gave up reconnecting, or was closed); ``None`` while live."""
        return self._lost

    async def connect(self) -> Welcome:
        """Open the connection, join and take the table (unless replaying); raises
        :class:`CommandRejected` if the join is refused (:class:`HistoryDiverged` if the
        server's history is not the one this client holds)."""
        welcome = await self._open()
        self._reader = asyncio.create_task(self._read_forever(), name="poolhall-client")
        return welcome

    async def _open(self) -> Welcome:
        connection = await connect(self.url, max_size=2**24, open_timeout=self._timeout)
        self._connection = connection
        self._joined = asyncio.get_running_loop().create_future()
        try:
            await connection.send(encode(Join(token=self._token, campaign=self.campaign,
                                              since=self.head, since_hash=self._since_hash(),
                                              replay=self._replay)), text=True)
            while not self._joined.done():
                self._dispatch(await asyncio.wait_for(connection.recv(), self._timeout))
            head = self._joined.result().head
            # The table (a snapshot, or the few events missed) is at hand once joined; a
            # replay of the whole log is read by the reader instead, at its own pace, and a
            # replay link gets no events at all (it asks for what it shows).
            reads_events = not self._replay and self._joined.result().role != "replay"
            while reads_events and self.head < head:
                self._dispatch(await asyncio.wait_for(connection.recv(), self._timeout))
        except BaseException:  # refused, timed out, dropped: never leave the socket open
            await connection.close()
            raise
        self.welcome = self._joined.result()
        self._live = True
        return self.welcome

    def _since_hash(self) -> str | None:
        """The hash to resume with: none before any event, nor for a server that sends none
        (one older than the field would refuse a join carrying it)."""
        if not self.last_hash or self.welcome is None or not self.welcome.head_hash:
            return None
        return self.last_hash

    async def close(self) -> None:
        """Close the connection and end the reader; then the client has stopped."""
        was_live = self._live
        self._closed = True
        self._live = False
        await self._link.close()
        if self._connection is not None:
            await self._connection.close()
        if self._reader is not None:
            # A live reader ends with its connection. One between connections, asleep before
            # its next attempt or caught in a reconnect's handshake, would wait out its delay
            # or its timeout: it is cancelled at once (its socket closes on the way), and a
            # CLI that timed out on a dead server says so a second sooner.
            done, _ = await asyncio.wait({self._reader}, timeout=CLOSE_WAIT if was_live else 0)
            if not done:
                self._reader.cancel()
                await asyncio.gather(self._reader, return_exceptions=True)
        self._give_up(ConnectionLost("client closed"))

    # ---- reading ----------------------------------------------------------------------

    async def _read_forever(self) -> None:
        """Read until the end; whatever stops it, waiters learn why (never hang silently)."""
        try:
            await self._read_until_done()
        except Exception as error:
            logger.exception("the client's reader failed")
            self._give_up(ConnectionLost(f"the client failed: {error}"))

    async def _read_until_done(self) -> None:
        while True:
            connection = self._connection
            assert connection is not None
            gap_closed = False
            try:
                async for frame in connection:
                    try:
                        self._dispatch(frame)
                    except ConnectionLost as gap:  # resume from what we hold, as after a drop
                        logger.warning("%s; resuming", gap)
                        await connection.close()
                        gap_closed = True
                        break
                    except Exception as error:  # undecodable, or a fold that fails
                        # Fatal: reconnecting would bring the same frame again, and again.
                        logger.error("cannot read a frame from the server: %s",
                                     printable(str(error)))  # its text may be the server's
                        logger.debug("the frame that could not be read", exc_info=True)
                        self._give_up(ConnectionLost(f"cannot read the server's frame: {error}"))
                        await connection.close()
                        return
            except ConnectionClosed:
                pass
            self._live = False
            # The server's close frame says why it ended; after a gap we closed it ourselves,
            # and the server's echo of our close says nothing.
            self.last_close = None if gap_closed else connection.protocol.close_rcvd
            if self._closed or not self._reconnect:
                self._give_up(ConnectionLost("connection closed" if self._closed
                                             else why_closed(self.last_close)))
                return
            if self._on_connection is not None:
                self._on_connection(False, self.head)
            if not await self._resume():
                return

    async def _resume(self) -> bool:
        """Reconnect with backoff, rejoin from our head, re-send unanswered commands.

        Keeps trying for ``reconnect_for`` seconds: a server restarting, or refusing joins
        while it shuts down (``shutting_down``) or cannot read its log (``unavailable``), is
        waited for; any other refusal of the join (the token was revoked) is final, and so is
        ``diverged``: this client holds events the server's log does not have.
        """
        delay = 0.05
        deadline = asyncio.get_running_loop().time() + self._reconnect_for
        while not self._closed:
            try:
                await self._open()
                if self._closed:  # close() was called while we reconnected
                    assert self._connection is not None
                    await self._connection.close()
                    break
                self.reconnects += 1
                if self._on_connection is not None:
                    self._on_connection(True, self.head)
                await self._resumed()
                return True
            except (TimeoutError, OSError, ConnectionClosed, InvalidHandshake, InvalidURI) as error:
                logger.info("reconnect failed (%s); retrying in %.2fs", error, delay)
            except HistoryDiverged as diverged:
                logger.info("not resuming: %s", diverged)  # the caller is told: it is `lost`
                self._give_up(diverged)
                return False
            except CommandRejected as refusal:
                if refusal.code not in RETRYABLE_JOIN_REFUSALS:
                    self._give_up(RejoinRefused(refusal))
                    return False
                delay = max(delay, refusal.retry_after or 0.0)  # never sooner than asked
                logger.info("rejoin refused for now (%s); retrying in %.2fs", refusal, delay)
            if asyncio.get_running_loop().time() + delay > deadline:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
        self._give_up(ConnectionLost("client closed" if self._closed else
                                     f"could not reconnect within {self._reconnect_for:g}s"))
        return False

    def _check_link(self) -> None:
        """A request has waited too long for its answer: ping the link, and drop it if it is
        dead (:mod:`poolhall.clients.link_check`); the reader then resumes and the request
        goes again. Nothing to do while reconnecting: that is under way already."""
        if self._live and self._connection is not None:
            self._link.check(self._connection)

    def _where(self) -> str:
        """Where the connection stands, in words (for a request that got no answer)."""
        if self._lost is not None:
            return f"the client stopped: {self._lost}"
        if self._live:
            dropped = self._link.dropped
            return ("the connection is up, yet the server did not answer" if not dropped else
                    f"the connection is up again after {dropped} dead link"
                    f"{'s' if dropped > 1 else ''} dropped, yet the server did not answer")
        return f"the connection was lost and is not back: {why_closed(self.last_close)}"

    def _give_up(self, error: ConnectionLost) -> None:
        """The end of this client: pending commands fail, later sends fail at once."""
        if self._lost is None:
            self._lost = error
        self._stopped(error)
