"""Finding a dead link while a request waits for its answer, as the page does
(``clients/web/connection.js``, ``LinkCheck``).

A link can die without a word: a laptop sleeps, a train's Wi-Fi drops, and no FIN or RST ever
comes. websockets' keepalive finds it (a ping every 20 s, then 20 s for the pong), but only up to
40 s later, after a command's own timeout (30 s): the command then failed with a bare
``TimeoutError`` and was never re-sent, although a reconnect would have got its answer. So
when a command (or a read) goes unanswered for :data:`ANSWER_DUE` seconds, the client pings
the link itself; no pong within :data:`LINK_SILENCE` seconds and the connection is dropped,
which makes the client reconnect, resume and re-send what is unanswered, with its id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

__all__ = ["ANSWER_DUE", "LINK_SILENCE", "LinkCheck", "answer_of"]

logger = logging.getLogger("poolhall.clients.client")
"""The client's logger (``poolhall watch`` quiets it)."""

ANSWER_DUE = 5.0
"""Seconds a request waits for its answer before the link is checked. A server answers in
milliseconds, a busy one in well under a second (the page's ``ANSWER_DUE_MS``)."""

LINK_SILENCE = 4.0
"""Seconds the check waits for the pong before it gives the connection up: one round trip on
a live link, with room for a phone's radio waking up (the page's ``SILENCE_MS``). A dead link
is found at most 9 s after a command, well within its 30 s timeout."""

_Answer = TypeVar("_Answer")


async def answer_of(future: asyncio.Future[_Answer], timeout: float,
                    due: Callable[[], None]) -> _Answer:
    """The answer ``future`` brings within ``timeout`` seconds, ``due()`` called each
    :data:`ANSWER_DUE` seconds it has not come; a bare :class:`TimeoutError` after the timeout
    (the caller says what was not answered).

    ``future`` is never cancelled here: callers sharing one answer each wait for it with their
    own timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        left = deadline - loop.time()
        if left <= 0:
            raise TimeoutError
        done, _ = await asyncio.wait({future}, timeout=min(ANSWER_DUE, left))
        if done:
            return future.result()
        due()


class LinkCheck:
    """One check of the link at a time: a ping, and the connection dropped if no pong comes."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self.dropped = 0
        """How many connections the checks gave up (a test, or a curious caller, reads it)."""

    def check(self, connection: ClientConnection) -> None:
        """Ping ``connection`` unless a check is already out; drop it if no pong comes in
        :data:`LINK_SILENCE` seconds."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._ping(connection), name="poolhall-link-check")

    async def _ping(self, connection: ClientConnection) -> None:
        try:
            pong = await connection.ping()
            await asyncio.wait_for(pong, LINK_SILENCE)
        except ConnectionClosed:
            return  # it is gone already: the reader is reconnecting
        except TimeoutError:
            logger.info("no answer to a ping in %gs: the link is dead; reconnecting",
                        LINK_SILENCE)
            self.dropped += 1
            # No close handshake (it would wait for an answer that cannot come): the reader
            # sees the connection end without a close frame, and resumes.
            connection.transport.abort()

    async def close(self) -> None:
        """Stop a check under way (the client is closing)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
