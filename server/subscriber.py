"""One connection's way out: a bounded queue and a sender task of its own.

The hub never awaits a client. It drops encoded frames into each subscriber's queue and moves
on; each subscriber's task sends them at the pace its client reads. A client that falls more
than :data:`QUEUE_LIMIT` frames behind is disconnected (close code 1013, "try again later") and
resumes from its last sequence number when it reconnects, so one stalled client never slows
the table. A catch-up (the events a joining client missed, read from the log) is queued like a
frame, so it goes out after the welcome and before any live event. It is sent a page at a time
(:meth:`Subscriber.send_page`), each page within :data:`CATCH_UP_TIMEOUT`: a client that does
not take its catch-up is closed (1013) and resumes later, so it never pins the server's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections import deque
from collections.abc import Awaitable, Callable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

__all__ = ["CATCH_UP_TIMEOUT", "QUEUE_LIMIT", "CatchUp", "Subscriber", "text_frames",
           "text_payloads"]

logger = logging.getLogger(__name__)

QUEUE_LIMIT = 4096

CATCH_UP_TIMEOUT = 10.0
"""Seconds a client has to take one page of its catch-up before it is closed."""

CatchUp = Callable[["Subscriber"], Awaitable[None]]

_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")
_LENGTH_16 = struct.Struct("!H")
_LENGTH_64 = struct.Struct("!Q")


def text_frames(payloads: list[bytes]) -> bytes:
    """Unfragmented, unmasked text frames (RFC 6455, 5.2): what websockets' protocol writes
    for a server without extensions, built nine times faster, as one catch-up of 30,000 events
    framed one by one held the event loop for about 200 ms."""
    parts: list[bytes] = []
    for payload in payloads:
        size = len(payload)
        if size < 126:
            parts.append(_SHORT.pack(0x81, size))
        elif size < 65536:
            parts.append(_MEDIUM.pack(0x81, 126, size))
        else:
            parts.append(_LONG.pack(0x81, 127, size))
        parts.append(payload)
    return b"".join(parts)


def text_payloads(frames: bytes) -> list[bytes]:
    """The payloads of unmasked, unfragmented frames back to back (what :func:`text_frames`
    and the store's framed pages hold): for a connection whose extensions frame them anew."""
    payloads: list[bytes] = []
    view = memoryview(frames)
    at = 0
    while at < len(frames):
        size = frames[at + 1]
        if size == 126:
            (size,) = _LENGTH_16.unpack_from(frames, at + 2)
            at += 4
        elif size == 127:
            (size,) = _LENGTH_64.unpack_from(frames, at + 2)
            at += 10
        else:
            at += 2
        payloads.append(bytes(view[at:at + size]))
        at += size
    return payloads


class Subscriber:
    """The outbound side of one client connection."""

    def __init__(self, connection: ServerConnection, limit: int = QUEUE_LIMIT, *,
                 catch_up_timeout: float = CATCH_UP_TIMEOUT) -> None:
        self.connection = connection
        self._limit = limit
        self._catch_up_timeout = catch_up_timeout
        self._pending: deque[bytes | CatchUp | None] = deque()
        self._wake = asyncio.Event()
        self.dropped = False
        self.member: str | None = None
        """The member this connection joined as (set when it joins a campaign)."""
        self.pages_written = 0
        """Catch-up pages sent, each in one socket write (for tests and operators)."""
        self._closing: set[asyncio.Task[None]] = set()
        self._idle = False
        """True while the sender task waits for work: frames may then be written directly."""
        self._flushing = False
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._send_loop(), name="poolhall-subscriber")

    def push(self, frame: bytes | CatchUp | None) -> None:
        """Queue a frame (a catch-up, or None to finish); a client too far behind is dropped."""
        if self.dropped:
            return
        if len(self._pending) >= self._limit:
            self.drop("cannot keep up; reconnect and resume")
            return
        self._pending.append(frame)
        if not self._idle or not isinstance(frame, bytes):
            self._wake.set()
        elif not self._flushing:  # written with whatever else is pushed before the callback
            self._flushing = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        """Write the frames queued while the sender was idle, as ``websockets.broadcast``
        does: one write, no task switch, no ``send_context``.

        Waking the sender task for each frame (an event, a task step, an async context
        manager) cost more than the write itself at a busy table. The sender takes over
        whenever this cannot be done at once: the socket's buffer is over its high-water mark
        (it drains first), something other than a frame is queued, or the connection is not
        open (``send_context`` raises, the loop ends).
        """
        self._flushing = False
        connection = self.connection
        if (not self._idle or self.dropped or connection.paused or connection.protocol.extensions
                or connection.send_in_progress is not None
                or connection.protocol.state is not State.OPEN
                or connection.transport.is_closing()):
            self._wake.set()
            return
        frames: list[bytes] = []
        pending = self._pending
        while pending and isinstance(pending[0], bytes):
            frames.append(pending.popleft())  # type: ignore[arg-type]
        if frames:
            data = b"".join(connection.protocol.data_to_send())  # a pong goes first
            connection.transport.write(data + text_frames(frames) if data
                                       else text_frames(frames))
        if pending:
            self._wake.set()

    async def send_page(self, frames: bytes) -> bool:
        """Send a page of a catch-up (unmasked text frames back to back, as
        :func:`text_frames` builds them); only from a catch-up, on this subscriber's own task.

        The page is written at once and drained down to websockets' ``write_limit``, so the
        server holds at most about one page per joining client. If the client does not take
        it within the catch-up timeout, it is dropped (1013: it resumes from the last event it
        got) and ``False`` is returned: the catch-up stops and everything it held is freed.
        A page always ends on a frame's end: websockets may write a pong between two pages.
        """
        if self.connection.transport.is_closing():  # the client left mid catch-up
            return False
        try:
            async with asyncio.timeout(self._catch_up_timeout):
                async with self.connection.send_context():
                    protocol = self.connection.protocol
                    transport = self.connection.transport
                    if protocol.extensions or protocol.expect_continuation_frame:
                        for payload in text_payloads(frames):  # websockets frames them:
                            protocol.send_text(payload)      # compressed, or mid-message
                        transport.write(b"".join(protocol.data_to_send()))
                    else:  # whatever the protocol has queued (a pong) goes first
                        queued = protocol.data_to_send()
                        if queued:
                            transport.writelines(queued)
                        transport.write(frames)
                    self.pages_written += 1
        except TimeoutError:
            self.drop("too slow to catch up; resume")
            return False
        return True

    async def _send_frames(self, frames: list[bytes]) -> None:
        """Send text frames with one socket write and one drain for the lot.

        ``connection.send`` writes each frame with its own system call; at a busy table that
        was the server's largest cost. Inside websockets' ``send_context`` (which checks the
        connection state, drains, and handles errors as ``send`` does) the frames are built by
        the sans-I/O protocol and their bytes written once.
        """
        async with self.connection.send_context():
            protocol = self.connection.protocol
            if protocol.extensions or protocol.expect_continuation_frame:
                for frame in frames:
                    protocol.send_text(frame)
                self.connection.transport.write(b"".join(protocol.data_to_send()))
            else:  # framed in one pass, as websockets frames them without extensions
                self.connection.transport.write(
                    b"".join(protocol.data_to_send()) + text_frames(frames))

    def drop(self, reason: str) -> None:
        """Disconnect a client that fell behind; it keeps its place and can resume."""
        if self.dropped:
            return
        self.dropped = True
        self._pending.clear()
        logger.info("dropping %s: %s", self.connection.remote_address, reason)
        self._task.cancel()
        closing = asyncio.create_task(self.connection.close(1013, reason))
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    def close_after_queued(self, code: int, reason: str) -> None:
        """Close the connection once the frames queued so far have gone out."""

        async def close(subscriber: Subscriber) -> None:
            await subscriber.connection.close(code, reason)

        self.push(close)

    async def _send_loop(self) -> None:
        try:
            while True:
                if not self._pending:
                    self._wake.clear()
                    self._idle = True
                    try:
                        await self._wake.wait()
                    finally:
                        self._idle = False
                    continue
                item = self._pending.popleft()
                if item is None:
                    return
                if not isinstance(item, bytes):
                    await item(self)
                    continue
                frames = [item]
                while self._pending and isinstance(self._pending[0], bytes):
                    frames.append(self._pending.popleft())  # type: ignore[arg-type]
                await self._send_frames(frames)
        except (ConnectionClosed, asyncio.CancelledError):
            return
        except Exception:
            logger.exception("sending to %s failed", self.connection.remote_address)
            self.drop("internal error while sending")

    async def finish(self, timeout: float = 2.0) -> None:
        """Let queued frames go out (within ``timeout``), then stop the sender."""
        if not self.dropped:
            self._pending.append(None)
            self._wake.set()
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._task), timeout)
        self._task.cancel()
