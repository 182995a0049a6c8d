"""The commands a client sent and the server has not answered yet, by command id.

A command id is the client's promise that a re-send is the same command: the server answers a
re-sent id with the original ack and never appends twice. So an unanswered command is kept
until its answer comes, re-sent with the same id after a reconnect (:meth:`resend`), and a
``rate_limited`` refusal is waited out and re-sent once the server's ``retry_after`` has passed,
one command at a time, while the caller's timeout allows. A ``shutting_down`` refusal (the
server is stopping: a restart, a rolling upgrade) is held, as an unanswered command is, and
re-sent once the client has resumed, on the server started again or another one behind a proxy:
the server refuses it before deciding anything, so nothing was applied, and the caller's wait
ends with the real answer. Callers sending the same id share
one answer. A command unanswered for a few seconds makes the client check its link
(:mod:`poolhall.clients.link_check`): a dead one is dropped, and the command re-sent once the
client has resumed; one unanswered at its timeout fails with :class:`NoAnswer`, which says so.

:class:`poolhall.clients.client.Client` owns one of these; it lives apart so the client's module
keeps to the connection and the table.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from poolhall.clients.link_check import ANSWER_DUE, answer_of
from poolhall.events.errors import CommandRejected, NoAnswer
from poolhall.events.messages import Ack

__all__ = ["CommandsInFlight", "type_of"]

logger = logging.getLogger("poolhall.clients.client")
"""The client's logger: a command held through a server's stop is the client's line."""

Sender = Callable[[Any], Awaitable[None]]
"""Sends one command on the connection there is now (nothing when there is none; a
connection that closes meanwhile is not an error: the command is re-sent after the resume)."""


def type_of(command: Any) -> str:
    """A command's ``type``, as it is sent (``roll``, ``invite``)."""
    tag = command.__struct_config__.tag
    return tag if isinstance(tag, str) else type(command).__name__


class _InFlight:
    """A command sent and not yet answered, and how many callers await its answer."""

    __slots__ = ("command", "deadline", "future", "waiters")

    def __init__(self, command: Any, future: asyncio.Future[Ack], deadline: float) -> None:
        self.command = command
        self.future = future
        self.deadline = deadline
        """Loop time after which a ``rate_limited`` refusal is final, not waited out."""
        self.waiters = 0


class CommandsInFlight:
    """Unanswered commands: their answers, refusals, rate-limited retries and re-sends.

    ``due()`` is called each ``answer_due`` seconds a command waits for its answer (the client
    checks its link); ``where()`` says, in words, where the connection stands, for the error
    of a command that got no answer at all."""

    def __init__(self, send: Sender, timeout: float, due: Callable[[], None],
                 where: Callable[[], str], answer_due: float = ANSWER_DUE,
                 resumes: bool = True) -> None:
        """``resumes``: the client reconnects after a drop, so a command refused
        ``shutting_down`` can wait for the resume; without, the refusal is the caller's."""
        self._send = send
        self._resumes = resumes
        self._timeout = timeout
        self._due = due
        self._answer_due = answer_due
        self._where = where
        self._pending: dict[str, _InFlight] = {}
        self._to_retry: deque[_InFlight] = deque()
        self._retry_gap = 0.0
        self._retrier: asyncio.Task[None] | None = None
        self.closing = False
        """Set when the client closes: a refusal is then final, never waited out."""

    def __contains__(self, command_id: object) -> bool:
        """Whether a command of that id is still waiting for its answer."""
        return command_id in self._pending

    async def send(self, command: Any) -> Ack:
        """Send a command (unless its id is already on its way) and wait for its answer;
        raises :class:`CommandRejected` if it is refused, :class:`NoAnswer` (a
        :class:`TimeoutError`) after the timeout."""
        in_flight = self._pending.get(command.id)
        if in_flight is None:
            loop = asyncio.get_running_loop()
            in_flight = _InFlight(command, loop.create_future(), loop.time() + self._timeout)
            self._pending[command.id] = in_flight
            await self._send(command)
        # else: the same id is already on its way, and its answer is ours too
        in_flight.waiters += 1
        try:
            return await answer_of(in_flight.future, self._timeout, self._due,
                                   self._answer_due)
        except TimeoutError:
            where = self._where()
            raise NoAnswer(f"no answer to the {type_of(command)} command {command.id} in "
                           f"{self._timeout:g}s ({where}); it may have been applied: "
                           "sending it again with the same id gets its answer without "
                           "applying it twice", where) from None
        finally:
            in_flight.waiters -= 1
            if not in_flight.waiters and self._pending.get(command.id) is in_flight:
                del self._pending[command.id]

    def answer(self, ack: Ack) -> None:
        """The server accepted a command (an ack for an id no one awaits is ignored)."""
        pending = self._pending.get(ack.id)
        if pending is not None and not pending.future.done():
            pending.future.set_result(ack)

    def refuse(self, command_id: str, refusal: CommandRejected) -> bool:
        """The server refused a command: a ``rate_limited`` one is queued to be re-sent after
        ``retry_after`` if its timeout allows, a ``shutting_down`` one is held for the resume
        (:meth:`resend`), any other refusal is raised to its callers. ``False`` if no command
        of that id was sent (the caller logs it)."""
        pending = self._pending.get(command_id)
        if pending is None:
            return False
        if pending.future.done() or self._hold(pending, refusal):
            return True
        if not self._retry_later(pending, refusal):
            pending.future.set_exception(refusal)
        return True

    async def resend(self) -> None:
        """Send every unanswered command again, with its id (after a resume)."""
        for pending in list(self._pending.values()):
            if not pending.future.done():
                await self._send(pending.command)

    def fail(self, error: Exception) -> None:
        """The client gave up: every unanswered command fails with ``error``."""
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(error)
        self._to_retry.clear()
        if self._retrier is not None:
            self._retrier.cancel()

    def waits_for_resume(self, refusal: CommandRejected) -> bool:
        """Whether a request so refused is kept unanswered, to be sent again once resumed:
        ``shutting_down``, while the client will resume (it reconnects and is not closing).
        The server closes the connection once it has drained, and the resume sends the request
        again, same id. The refusal comes before the server decides anything
        (:mod:`poolhall.server.table_messages`, a hub that is closing, a creation refused
        before it looks at the log), so the command was not applied there; one it had applied
        before is answered by its id."""
        return refusal.code == "shutting_down" and self._resumes and not self.closing

    def _hold(self, pending: _InFlight, refusal: CommandRejected) -> bool:
        """Keep a command refused ``shutting_down`` for the resume (:meth:`waits_for_resume`);
        ``False`` for another refusal, or if the client will not resume."""
        if not self.waits_for_resume(refusal):
            return False
        logger.info("the server is shutting down: the %s command %s is sent again once "
                    "resumed", type_of(pending.command), pending.command.id)
        return True

    def _retry_later(self, pending: _InFlight, refusal: CommandRejected) -> bool:
        """Queue a command refused with ``rate_limited`` to be re-sent after ``retry_after``;
        ``False`` if it cannot be (another refusal, or its timeout would pass first)."""
        wait = refusal.retry_after
        if refusal.code != "rate_limited" or wait is None or self.closing:
            return False
        if asyncio.get_running_loop().time() + wait >= pending.deadline:
            return False
        self._retry_gap = wait
        self._to_retry.append(pending)
        if self._retrier is None or self._retrier.done():
            self._retrier = asyncio.create_task(self._retry_queued(), name="poolhall-retry")
        return True

    async def _retry_queued(self) -> None:
        """Re-send rate-limited commands one per ``retry_after``: at the pace the server
        allows, so a client with many refused commands never hammers it."""
        while self._to_retry:
            await asyncio.sleep(self._retry_gap)
            pending = self._to_retry.popleft()
            if not pending.future.done():
                await self._send(pending.command)
