"""The events a client received and its caller has not read yet (``async for`` and ``drain``),
and the callers waiting for an event to be folded (``wait_for_seq``).

A client used only for its state (``poolhall state``, a bot reading ``client.state``) never
reads its events, so the buffer keeps the last so many and drops older ones with one warning:
the state is complete either way. A caller that reads a whole history at once asks for no
limit.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable

from poolhall.events.base import Recorded

__all__ = ["EventBuffer", "SeqWaiters"]

logger = logging.getLogger(__name__)


class EventBuffer:
    """Received events waiting for their reader, the last ``limit`` of them (``None``: all)."""

    def __init__(self, limit: int | None) -> None:
        self._events: deque[Recorded] = deque(maxlen=limit)
        self._ready = asyncio.Event()
        self._dropped = 0

    def put(self, recorded: Recorded) -> None:
        """Keep an event for the reader (the oldest unread one goes when the buffer is full)."""
        if len(self._events) == self._events.maxlen:
            self._dropped += 1
            if self._dropped == 1:
                logger.warning("no one is reading events: keeping the last %d (the state is "
                               "complete)", self._events.maxlen)
        self._events.append(recorded)
        self._ready.set()

    def wake(self) -> None:
        """Wake the reader to check whether the client has stopped."""
        self._ready.set()

    async def read(self, stopped: Callable[[], bool]) -> AsyncIterator[Recorded]:
        """Every event as it comes, until ``stopped()`` with nothing left to read."""
        while True:
            if self._events:
                yield self._events.popleft()
            elif stopped():
                return
            else:
                self._ready.clear()
                await self._ready.wait()

    def drain(self) -> list[Recorded]:
        """The events waiting, taken without waiting."""
        drained = list(self._events)
        self._events.clear()
        return drained


class SeqWaiters:
    """The callers of ``wait_for_seq``: each waits until the state has folded its event."""

    def __init__(self) -> None:
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []

    def wait(self, seq: int) -> asyncio.Future[None]:
        """A future set once :meth:`reached` passes ``seq``."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((seq, future))
        return future

    def reached(self, head: int) -> None:
        """The state has folded every event up to ``head``: its waiters go on."""
        if not self._waiting:
            return
        waiting = []
        for seq, future in self._waiting:
            if seq <= head:
                if not future.done():
                    future.set_result(None)
            elif not future.done():
                waiting.append((seq, future))
        self._waiting = waiting

    def fail(self, error: Exception) -> None:
        """No event will be folded any more: every waiter gets ``error``."""
        for _, waiter in self._waiting:
            if not waiter.done():
                waiter.set_exception(error)
        self._waiting = []
