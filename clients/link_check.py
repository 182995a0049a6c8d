"""Finding a dead link while a request waits for its answer, as the page does
(``clients/web/connection.js``, ``LinkCheck``).

A link can die without a word: a laptop sleeps, a train's Wi-Fi drops, and no FIN or RST ever
comes. websockets' keepalive finds it (a ping every 20 s, then 20 s for the pong), but only up to
40 s later, after a command's own timeout (30 s): the command then failed with a bare
``TimeoutError`` and was never re-sent, although a reconnect would have got its answer. So
when a command (or a read) goes unanswered for :data:`ANSWER_DUE` seconds, the client pings
the link itself; no pong within :data:`LINK_SILENCE` seconds and the connection is dropped,
which makes the client reconnect, resume and re-send what is unanswered, with its id.

Both are defaults: a :class:`~poolhall.clients.client.Client` takes its own (``answer_due``,
``link_silence``, checked by :func:`link_seconds`), as websockets' ``ping_interval`` and
``ping_timeout`` are its own: a bot on a LAN may want a dead link found in a second, a
tool on a satellite link (600 ms round trips, more under load) may want more room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable
from typing import TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

__all__ = ["ANSWER_DUE", "LINK_SECONDS_MIN", "LINK_SILENCE", "LinkCheck", "answer_of",
           "link_seconds"]

logger = logging.getLogger("poolhall.clients.client")
"""The client's logger (``poolhall watch`` quiets it)."""

ANSWER_DUE = 5.0
"""Seconds a request waits for its answer before the link is checked, by default (a client's
``answer_due``). A server answers in milliseconds, a busy one in well under a second (the
page's ``ANSWER_DUE_MS``)."""

LINK_SILENCE = 4.0
"""Seconds the check waits for the pong before it gives the connection up, by default (a
client's ``link_silence``): one round trip on a live link, with room for a phone's radio
waking up (the page's ``SILENCE_MS``). A dead link is found at most 9 s after a command, well
within its 30 s timeout."""

LINK_SECONDS_MIN = 0.1
"""The least ``answer_due`` or ``link_silence`` a client takes: a round trip on a LAN is well
under it, and less only floods the server with pings (and drops healthy links) without
finding a dead one any sooner that matters."""

_Answer = TypeVar("_Answer")


def link_seconds(name: str, value: object) -> float:
    """``value`` as the seconds of the link check's ``name`` (``answer_due``,
    ``link_silence``): a finite number of at least :data:`LINK_SECONDS_MIN`, else an error
    that names it and says what it got (a ``TypeError`` for no number at all, a
    ``ValueError`` for one out of range, an int too large for a float among them).

    Checked where the client is made, not when a request first waits: a wrong value would
    otherwise surface minutes later, deep in a check of the link, or never find a dead one.
    The floor keeps one client from flooding the server: at 1e-6 s a waiting command pinged
    once per round trip (thousands a second), and a healthy link was dropped and joined again
    five times a second."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds, not {value!r}")
    try:
        seconds = float(value)
    except OverflowError:  # an int past a float's range: no number of seconds either
        digits = math.floor(math.log10(abs(value))) + 1  # str() refuses past 4,300 digits
        raise ValueError(f"{name} must be a number of seconds of at least "
                         f"{LINK_SECONDS_MIN:g}, not a number of about {digits} digits") from None
    if not (math.isfinite(seconds) and seconds >= LINK_SECONDS_MIN):
        raise ValueError(f"{name} must be a number of seconds of at least "
                         f"{LINK_SECONDS_MIN:g}, not {value!r}")
    return seconds


async def answer_of(future: asyncio.Future[_Answer], timeout: float,
                    due: Callable[[], None], every: float = ANSWER_DUE) -> _Answer:
    """The answer ``future`` brings within ``timeout`` seconds, ``due()`` called each
    ``every`` seconds it has not come (the client's ``answer_due``); a bare
    :class:`TimeoutError` after the timeout (the caller says what was not answered).

    ``future`` is never cancelled here: callers sharing one answer each wait for it with their
    own timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        left = deadline - loop.time()
        if left <= 0:
            raise TimeoutError
        done, _ = await asyncio.wait({future}, timeout=min(every, left))
        if done:
            return future.result()
        due()


class LinkCheck:
    """One check of the link at a time: a ping, and the connection dropped if no pong comes
    within ``silence`` seconds (the client's ``link_silence``)."""

    def __init__(self, silence: float = LINK_SILENCE) -> None:
        self.silence = link_seconds("link_silence", silence)
        self._task: asyncio.Task[None] | None = None
        self.dropped = 0
        """How many connections the checks gave up (a test, or a curious caller, reads it)."""

    def check(self, connection: ClientConnection) -> None:
        """Ping ``connection`` unless a check is already out; drop it if no pong comes in
        :attr:`silence` seconds."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._ping(connection), name="poolhall-link-check")

    async def _ping(self, connection: ClientConnection) -> None:
        try:
            pong = await connection.ping()
            await asyncio.wait_for(pong, self.silence)
        except ConnectionClosed:
            return  # it is gone already: the reader is reconnecting
        except TimeoutError:
            logger.info("no answer to a ping in %gs: the link is dead; reconnecting",
                        self.silence)
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
