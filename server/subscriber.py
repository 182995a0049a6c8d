"""One connection's way out: a bounded queue and a sender task of its own.

The hub never awaits a client. It drops encoded frames into each subscriber's queue and moves
on; each subscriber's task sends them at the pace its client reads. A client that falls more
than :data:`QUEUE_LIMIT` frames behind is disconnected (close code 1013, "try again later") and
resumes from its last sequence number when it reconnects, so one stalled client never slows
the table. A catch-up (the events a joining client missed, read from the log) is queued like a
frame, so it goes out after the welcome and before any live event.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

__all__ = ["QUEUE_LIMIT", "CatchUp", "Subscriber"]

logger = logging.getLogger(__name__)

QUEUE_LIMIT = 4096

CatchUp = Callable[["Subscriber"], Awaitable[None]]


class Subscriber:
    """The outbound side of one client connection."""

    def __init__(self, connection: ServerConnection, limit: int = QUEUE_LIMIT) -> None:
        self.connection = connection
        self._queue: asyncio.Queue[bytes | CatchUp | None] = asyncio.Queue(maxsize=limit)
        self.dropped = False
        self._closing: set[asyncio.Task[None]] = set()
        self._task = asyncio.create_task(self._send_loop(), name="poolhall-subscriber")

    def push(self, frame: bytes | CatchUp) -> None:
        """Queue a frame (or a catch-up); a subscriber that cannot keep up is dropped."""
        if self.dropped:
            return
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.drop("cannot keep up; reconnect and resume")

    async def send_now(self, frame: bytes) -> None:
        """Send directly; only for a catch-up, which runs on this subscriber's own task."""
        await self.connection.send(frame, text=True)

    def drop(self, reason: str) -> None:
        """Disconnect a client that fell behind; it keeps its place and can resume."""
        if self.dropped:
            return
        self.dropped = True
        logger.info("dropping %s: %s", self.connection.remote_address, reason)
        self._task.cancel()
        closing = asyncio.create_task(self.connection.close(1013, reason))
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    async def _send_loop(self) -> None:
        try:
            while True:
                item = await self._queue.get()
                if item is None:
                    return
                if isinstance(item, bytes):
                    await self.connection.send(item, text=True)
                else:
                    await item(self)
        except (ConnectionClosed, asyncio.CancelledError):
            return
        except Exception:
            logger.exception("sending to %s failed", self.connection.remote_address)
            self.drop("internal error while sending")

    async def finish(self, timeout: float = 2.0) -> None:
        """Let queued frames go out (within ``timeout``), then stop the sender."""
        if not self.dropped:
            try:
                self._queue.put_nowait(None)
                await asyncio.wait_for(asyncio.shield(self._task), timeout)
            except (TimeoutError, asyncio.QueueFull, asyncio.CancelledError):
                pass
        self._task.cancel()
