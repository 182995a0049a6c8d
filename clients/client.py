"""The Python client: join a campaign, send commands, follow the table, keep projections current.

::

    async with Client("ws://127.0.0.1:8765", token, "edge-of-the-empire") as table:
        ack = await table.call(core.Roll, expression="2d6+1")
        async for recorded in table:          # live events (and any missed on resuming)
            print(recorded.seq, recorded.event)

On joining afresh (or far behind) the client receives a snapshot of the table
(:attr:`Client.snapshot`) and sets :attr:`Client.state` from it; it then folds every event into
the state with the same projection code the server runs, so it never replays a campaign to
know the table. Older events come a page at a time (:meth:`Client.history`); a client built
with ``replay=True`` gets every event instead, as a tool reading the whole log needs.

If the connection drops it reconnects, resumes from the last sequence number it
holds (no gap, no duplicate) and re-sends unanswered commands with their original ids, which
the server answers without appending twice. A link that dies without a word is found by the
command waiting on it: unanswered for a few seconds, the client pings the link and drops it
if no pong comes (:mod:`poolhall.clients.link_check`). A command refused with
``rate_limited`` is re-sent after the ``retry_after`` the server asked for, one at a time,
while its timeout allows; one refused ``shutting_down`` (unapplied: the server is stopping) is
re-sent once the client has resumed, as an unanswered one is.

On resuming it also sends the chain hash of its last event. A server whose log no longer has
that event (it lost acknowledged events, or was restored from an older copy) answers
``diverged``: the client then stops with :class:`~poolhall.events.errors.HistoryDiverged` and keeps
the state it had, rather than folding new events onto a history the server does not have.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar, cast

from websockets.exceptions import ConnectionClosed

from poolhall.clients.defaults import DEFAULT_URL, new_command_id
from poolhall.clients.event_buffer import EventBuffer, SeqWaiters
from poolhall.clients.in_flight import CommandsInFlight
from poolhall.clients.link_check import ANSWER_DUE, LINK_SILENCE, answer_of
from poolhall.clients.printable import printable
from poolhall.clients.resuming_connection import RETRYABLE_JOIN_REFUSALS, ResumingConnection
from poolhall.clients.sealed_refresh import SealedRefresh
from poolhall.clients.sealed_rolls import SealedRolls, pages
from poolhall.clients.server_frames import read_server_frame
from poolhall.events.base import Recorded, ViewData
from poolhall.events.codec import encode
from poolhall.events.core import PrivateRoll
from poolhall.events.errors import (
    CommandRejected,
    ConnectionLost,
    ErrorCode,
    HistoryDiverged,
    NoAnswer,
)
from poolhall.events.messages import (
    HISTORY_LIMIT,
    Ack,
    ErrorReply,
    EventFrame,
    History,
    HistoryPage,
    Revealed,
    StateAt,
    View,
    Welcome,
)
from poolhall.projections.campaign import CampaignState, evolve, new_state
from poolhall.projections.snapshot import Snapshot, state_from

__all__ = [
    "DEFAULT_URL",
    "EVENT_BUFFER",
    "RETRYABLE_JOIN_REFUSALS",
    "Client",
    "new_command",
    "new_command_id",
    "new_retry_key",
]

logger = logging.getLogger(__name__)

EVENT_BUFFER = 10_000
"""Events kept for ``async for`` until read; a client used only for its state keeps no more."""


def new_retry_key() -> str:
    """A fresh secret for one token-issuing command (192 bits from the OS CSPRNG)."""
    return secrets.token_urlsafe(24)


def new_command(command_type: type[Any], **fields: Any) -> Any:
    """A command of ``command_type`` with a fresh id.

    A command that issues a token (``invite``, ``create_campaign``) gets a fresh ``retry_key``
    too, so that its retries after a reconnect, even across a server restart, get the token
    back. (A caller who builds its own command for :meth:`Client.send` sets its own.)
    """
    if "retry_key" in command_type.__struct_fields__ and fields.get("retry_key") is None:
        fields["retry_key"] = new_retry_key()
    return command_type(id=new_command_id(), **fields)


_Answer = TypeVar("_Answer", HistoryPage, Snapshot)


def _settle(waiting: asyncio.Future[Any] | None, answer: Any) -> None:
    """Answer who waits on ``waiting``, if anyone still does."""
    if waiting is not None and not waiting.done():
        waiting.set_result(answer)


class Client(ResumingConnection):
    """One member's live connection to one campaign (or the admin's, with no campaign).

    Opening, reading and resuming the connection is its base's
    (:class:`~poolhall.clients.resuming_connection.ResumingConnection`); here each frame is
    folded into the table or handed to whoever waits for it.
    """

    def __init__(
        self,
        url: str,
        token: str,
        campaign: str | None = None,
        *,
        reconnect: bool = True,
        reconnect_for: float = 60.0,
        timeout: float = 30.0,
        keep_all: bool = False,
        on_connection: Callable[[bool, int], None] | None = None,
        on_view: Callable[[View], None] | None = None,
        on_revealed: Callable[[list[EventFrame]], None] | None = None,
        replay: bool = False,
        answer_due: float = ANSWER_DUE,
        link_silence: float = LINK_SILENCE,
    ) -> None:
        """``keep_all``: keep every event for ``async for`` until read, not only the last
        :data:`EVENT_BUFFER` (for a caller that reads the whole history at once, like
        ``poolhall state --at``). ``replay``: ask for every event rather than a snapshot
        (the state is then the fold of the whole log).

        ``on_connection(connected, head)`` is called when an established connection drops
        (``False``) and when the client has resumed (``True``, at the head it resumed from),
        so a follower can say "reconnecting" instead of going silent; ``on_view(view)`` with
        each view as it arrives (after :attr:`views` is updated); ``on_revealed(frames)``
        with the private rolls a session's end revealed (after :attr:`revealed` is
        extended). They run on the reader task: they must not block.

        ``answer_due`` and ``link_silence`` time the check of a link that died without a word
        (:mod:`poolhall.clients.link_check`): a command or read unanswered for ``answer_due``
        seconds makes the client ping the link, and no pong within ``link_silence`` seconds
        drops the connection, which the client then resumes, sending the request again. The
        defaults (5 and 4) find a dead link within 9 s, well inside the 30 s ``timeout``; a
        bot on a LAN may want less, a tool on a slow satellite link more. Each must be a
        number of seconds of at least 0.1 (less only floods the server with pings):
        anything else raises ``TypeError`` or ``ValueError``, naming it, before anything is
        opened.
        """
        super().__init__(url, token, campaign, reconnect=reconnect, reconnect_for=reconnect_for,
                         timeout=timeout, replay=replay, on_connection=on_connection,
                         answer_due=answer_due, link_silence=link_silence)
        self.state: CampaignState = new_state()
        self.views: dict[str, ViewData] = {}
        """The latest view about each thing at the table (``check:<id>``, ``combat`` ...),
        typed: a :class:`poolhall.events.narrative.NarrativeCheckOdds`, ... ."""
        self.snapshot: Snapshot | None = None
        """The last snapshot of the table the server sent (``None`` if it sent events)."""
        self.revealed: list[EventFrame] = []
        """Private rolls received sealed and since revealed (``revealed``), whole; or, for a
        client away when the session ended, read again from the log once it has resumed
        (:mod:`poolhall.clients.sealed_rolls`). The state is then the server's table again,
        asked for with ``state_at`` (:mod:`poolhall.clients.sealed_refresh`), as after each
        sealed roll."""
        self._history: dict[str, asyncio.Future[HistoryPage]] = {}
        self._state_at: dict[str, asyncio.Future[Snapshot]] = {}
        self._commands = CommandsInFlight(self._send_now, timeout, self._check_link, self._where,
                                          self._answer_due, resumes=reconnect)
        self._asked: dict[str, History | StateAt] = {}
        """Read requests not answered yet: sent again once resumed."""
        self._events = EventBuffer(None if keep_all else EVENT_BUFFER)
        self._waiters = SeqWaiters()
        self._received = asyncio.Event()
        self._on_view = on_view
        self._on_revealed = on_revealed
        self._refresh = SealedRefresh(self.state_at, self._adopt, lambda: self.head)
        self._sealed = SealedRolls()
        self._rereading: asyncio.Task[None] | None = None

    # ---- lifecycle --------------------------------------------------------------------

    @property
    def head(self) -> int:
        """The last sequence number folded into :attr:`state`."""
        return self.state.head

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object
                        ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the connection; pending commands fail with :class:`ConnectionLost`."""
        self._commands.closing = True
        await self._refresh.close()
        if self._rereading is not None:
            self._rereading.cancel()
            await asyncio.gather(self._rereading, return_exceptions=True)
        await super().close()

    # ---- commands ---------------------------------------------------------------------

    async def send(self, command: Any) -> Ack:
        """Send a command and wait for its ack; raises :class:`CommandRejected` on ``error``.

        Raises :class:`ConnectionLost` at once if the client has given up reconnecting, and
        :class:`~poolhall.events.errors.NoAnswer` (a :class:`TimeoutError`) if no answer came
        within the timeout, although the client checked its link after a few seconds and
        reconnected if it was dead: the message says where the connection stood.
        """
        if self._lost is not None:
            raise self._lost
        return await self._commands.send(command)

    async def _send_now(self, command: Any) -> None:
        """Send a command (or a read) on the connection there is, if any
        (:mod:`poolhall.clients.in_flight`'s sender): a connection lost meanwhile re-sends it
        once resumed."""
        if self._connection is None:
            return
        with contextlib.suppress(ConnectionClosed):  # re-sent with the same id once it is back
            await self._connection.send(encode(command), text=True)

    async def call(self, command_type: type[Any], **fields: Any) -> Ack:
        """Build a command with a fresh id (:func:`new_command`) and :meth:`send` it."""
        return await self.send(new_command(command_type, **fields))

    # ---- events -----------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[Recorded]:
        return self._events.read(lambda: self._lost is not None)

    def drain(self) -> list[Recorded]:
        """The events received and not yet iterated, without waiting."""
        return self._events.drain()

    async def wait_for_seq(self, seq: int, timeout: float | None = None) -> None:
        """Wait until the local projection has folded event ``seq``.

        Raises :class:`~poolhall.events.errors.NoAnswer` (a :class:`TimeoutError`) if it has
        not come within the timeout: the message names the event, the table's head and where
        the connection stood, which a bare ``TimeoutError`` left the caller to guess.
        """
        if self.head >= seq:
            return
        if self._lost is not None:
            raise self._lost
        waited = timeout or self._timeout
        try:
            await asyncio.wait_for(self._waiters.wait(seq), waited)
        except TimeoutError:
            where = self._where()
            raise NoAnswer(f"event {seq} did not arrive in {waited:g}s (this client's table "
                           f"is at event {self.head}; {where})", where) from None

    async def history(self, before: int, limit: int = 100) -> list[Recorded]:
        """The events before ``before`` (the latest ``limit``, at most
        :data:`~poolhall.events.messages.HISTORY_LIMIT`), oldest first; empty once none is left.

        Read off the server's log on request: nothing is folded into :attr:`state`.
        """
        page = await self._ask(History(id=new_command_id(), before=before,
                                       limit=max(1, min(limit, HISTORY_LIMIT))), self._history)
        return [f.recorded() for f in page.events]

    async def state_at(self, seq: int) -> Snapshot:
        """The table as it stood after event ``seq``: a snapshot the server rebuilds from its
        nearest stored snapshot (its ``recent`` events are the last ones up to ``seq``).

        Nothing changes here: :attr:`state` stays the live table (``state_from`` the answer
        for a state to read). Raises :class:`CommandRejected` (``invalid``, path ``$.seq``)
        if the campaign has no event ``seq``.
        """
        return await self._ask(StateAt(id=new_command_id(), seq=seq), self._state_at)

    async def _ask(self, request: History | StateAt,
                   answers: dict[str, asyncio.Future[_Answer]]) -> _Answer:
        """Send a read request and wait for the answer with its id (:meth:`_dispatch` sets
        it in ``answers``, or the refusal); like a command, it is sent again once resumed,
        and its wait checks the link (:mod:`poolhall.clients.link_check`)."""
        if self._lost is not None:
            raise self._lost
        future: asyncio.Future[_Answer] = asyncio.get_running_loop().create_future()
        answers[request.id] = future
        self._asked[request.id] = request
        try:
            await self._send_now(request)
            return await answer_of(future, self._timeout, self._check_link, self._answer_due)
        except TimeoutError:
            where = self._where()
            raise NoAnswer(f"no answer to the {request.__struct_config__.tag} request in "
                           f"{self._timeout:g}s ({where})", where) from None
        finally:
            answers.pop(request.id, None)
            self._asked.pop(request.id, None)

    # ---- reading ----------------------------------------------------------------------

    async def wait_until(self, check: Callable[[], Any], timeout: float | None = None) -> Any:
        """Wait until ``check()`` is truthy, re-checking after every frame; return its value.

        Views arrive after the ack of the command that changed them, once their odds are
        computed: wait for one with
        ``await client.wait_until(lambda: client.views.get("check:shot"))``. Raises
        :class:`~poolhall.events.errors.NoAnswer` (a :class:`TimeoutError`) after the timeout.
        """
        waited = timeout or self._timeout
        try:
            async with asyncio.timeout(waited):
                while not (result := check()):
                    if self._lost is not None:
                        raise self._lost
                    self._received.clear()
                    await self._received.wait()
        except TimeoutError:
            where = self._where()
            raise NoAnswer(f"what was waited for did not come in {waited:g}s ({where})",
                           where) from None
        return result

    def _dispatch(self, frame: str | bytes) -> None:
        """One frame from the server: an event is folded, an answer goes to who waits for it."""
        self._received.set()
        message = read_server_frame(frame)
        match message:
            case EventFrame():
                self._fold(message)
            case Snapshot() if message.id is not None:  # the answer to state_at
                _settle(self._state_at.get(message.id), message)
            case Snapshot():
                self._take_snapshot(message)
            case HistoryPage():
                _settle(self._history.get(message.id), message)
            case Ack():
                self._commands.answer(message)
            case ErrorReply():
                self._refused(message)
            case Welcome():
                _settle(self._joined, message)
            case View():
                self._take_view(message)
            case Revealed():
                self._take_revealed(message)

    def _refused(self, message: ErrorReply) -> None:
        """A refusal of the join, else of a read request, else of a command; of none of them
        (no longer waited for) it is only logged."""
        # A newer server's code, unknown here, is passed on as it came.
        refusal = CommandRejected(cast(ErrorCode, message.code), message.message,
                                  message.path, retry_after=message.retry_after)
        if message.id is None and self._joined is not None and not self._joined.done():
            self._joined.set_exception(HistoryDiverged(message.message)
                                       if message.code == "diverged" else refusal)
            return
        asked = self._history.get(message.id or "") or self._state_at.get(message.id or "")
        if asked is not None and not asked.done():
            if not self._commands.waits_for_resume(refusal):  # else asked again once resumed
                asked.set_exception(refusal)
            return
        if not self._commands.refuse(message.id or "", refusal):
            logger.warning("server error: %s", printable(str(refusal)))

    def _take_view(self, view: View) -> None:
        self.views[view.about] = view.data
        if self._on_view is not None:
            self._on_view(view)

    def _take_revealed(self, revealed: Revealed) -> None:
        self._reveal(revealed.events)

    def _reveal(self, frames: list[EventFrame]) -> None:
        """Private rolls whole now (sent live, or read again): kept, handed to
        ``on_revealed``, and the table asked for again (what they change is the server's)."""
        frames = self._sealed.taken(frames)
        if not frames:
            return
        self.revealed.extend(frames)
        if self._on_revealed is not None:
            self._on_revealed(frames)
        self._waiters.reached(self.head)
        self._refresh.ask(self.head)

    def _read_sealed_again(self) -> None:
        """Once resumed: read again the sealed rolls held whose seed was revealed meanwhile
        (the server sent them whole only to those connected then)."""
        due = self._sealed.due(self.state.fair.revealed)
        if due and (self._rereading is None or self._rereading.done()):
            self._rereading = asyncio.get_running_loop().create_task(
                self._reread(due), name="poolhall-client-revealed")

    async def _reread(self, seqs: list[int]) -> None:
        """The events ``seqs`` from history pages, whole, revealed as if sent live; what
        could not be read stays sealed until the next resume."""
        wanted, frames = set(seqs), []
        try:
            for before, limit in pages(seqs):
                page = await self._ask(History(id=new_command_id(), before=before, limit=limit),
                                       self._history)
                frames += [frame for frame in page.events if frame.seq in wanted]
        except (CommandRejected, ConnectionLost, TimeoutError) as error:
            logger.info("could not read the rolls revealed while away: %s", error)
        self._reveal(frames)

    def _take_snapshot(self, snapshot: Snapshot) -> None:
        """Set the state from the table as it stands; live events fold onto it from here."""
        if snapshot.seq < self.head:
            return  # older than what we hold (cannot happen with a correct server)
        self.snapshot = snapshot
        self.state = state_from(snapshot)
        for frame in snapshot.recent:
            if isinstance(frame.event, PrivateRoll):
                self._sealed.held(frame.seq, frame.event, self.state.fair.revealed)
        self._refresh.replaced()
        self.last_hash = snapshot.head_hash
        self._waiters.reached(self.head)

    def _fold(self, frame: EventFrame) -> None:
        if frame.seq <= self.head:
            return  # already folded (cannot happen with a correct server; cheap to guard)
        if frame.seq != self.head + 1:
            raise ConnectionLost(f"gap in the log: have {self.head}, got {frame.seq}")
        recorded = frame.recorded()
        evolve(self.state, recorded)
        self._refresh.folded(recorded)
        self.last_hash = frame.hash
        self._events.put(recorded)
        self._waiters.reached(self.head)
        if isinstance(recorded.event, PrivateRoll):  # sealed: what it changed is the server's
            self._sealed.held(recorded.seq, recorded.event, self.state.fair.revealed)
            self._refresh.ask(recorded.seq)

    def _adopt(self, state: CampaignState) -> None:
        """The table refreshed after a sealed roll (:class:`SealedRefresh`), at this head."""
        self.state = state
        self._received.set()  # a wait_until checks again

    # ---- what the connection asks of the client ----------------------------------------

    async def _resumed(self) -> None:
        """Back and joined: the unanswered commands go again, with their ids, and the
        unanswered reads; sealed rolls revealed while away are read again."""
        await self._commands.resend()
        for request in list(self._asked.values()):
            await self._send_now(request)
        self._read_sealed_again()

    def _stopped(self, error: ConnectionLost) -> None:
        """Given up: pending commands fail with ``error``, and every wait ends."""
        self._commands.fail(error)
        asked: list[asyncio.Future[Any]] = [*self._history.values(), *self._state_at.values()]
        for waiting in asked:
            if not waiting.done():
                waiting.set_exception(error)
        self._waiters.fail(error)
        self._events.wake()
        self._received.set()  # wake wait_until, which raises
