"""Keepalive pings for every connection from one timer, instead of a task and timers each.

websockets' own keepalive runs a task per connection that sleeps ``ping_interval``, pings and
waits for the pong under a timeout: with 10,000 connections that is 500 pings a second, each
through an async context manager, a sleep future, a timer and a timeout, all alive for the
20 seconds of the sleep. Those objects outlive the collector's young generations, so they were
what its gen-1 and full collections kept scanning (tens of milliseconds each) between freezes.

:class:`Keepalive` spreads the connections over the slots of a wheel turning once per
``interval`` (a slot every :data:`TICK` seconds). When a connection's slot comes round, the
ping sent to it one turn earlier must have been answered: if it was, a new ping goes out (one
frame, written at once, as websockets writes it); if it was not, the connection is failed as
websockets fails it (close code 1011, "keepalive ping timeout"). So a client that stops
answering is closed between one and two intervals after its last pong (plus the close
timeout), the bound websockets gives with its defaults (20 s + 20 s). A connection holds no
timer and no task for this; a ping in flight is one entry in websockets' ``pending_pings``
(with a future resolved in advance, shared by all), which the pong removes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.protocol import State

__all__ = ["PAYLOAD", "TICK", "Keepalive"]

logger = logging.getLogger(__name__)

TICK = 0.1
"""Seconds between two slots of the wheel: each slot's pings are a small burst (50 at 10,000
connections and a 20 s interval), never all of them at once."""

PAYLOAD = b"poolhall-keepalive"
"""The keepalive ping's payload: one ping in flight per connection, so one fixed payload tells
whether the last one was answered (the pong removes it from ``pending_pings``)."""


class Keepalive:
    """Pings each connection once per ``interval``; fails one that left a ping unanswered."""

    def __init__(self, interval: float, *, close_timeout: float = 2.0,
                 tick: float = TICK) -> None:
        self.interval = interval
        self._close_timeout = close_timeout
        self._slots: list[set[ServerConnection]] = [
            set() for _ in range(max(1, round(interval / tick)))] if interval > 0 else []
        self._tick = interval / len(self._slots) if self._slots else tick
        self._slot_of: dict[ServerConnection, int] = {}
        self._next_slot = 0
        """The slot the next connection takes."""
        self._turn = 0
        self._timer: asyncio.TimerHandle | None = None
        self._answered: asyncio.Future[float] | None = None
        self._failing: set[asyncio.Task[None]] = set()
        self.pings = 0
        self.timeouts = 0
        """Connections failed for leaving a ping unanswered (for operators and tests)."""

    @property
    def enabled(self) -> bool:
        return bool(self._slots)

    def start(self) -> None:
        if not self.enabled:
            return
        loop = asyncio.get_running_loop()
        self._answered = loop.create_future()
        self._answered.set_result(0.0)
        self._timer = loop.call_later(self._tick, self._turn_wheel)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for task in tuple(self._failing):
            task.cancel()

    def add(self, connection: ServerConnection) -> None:
        """Ping ``connection`` from now on, within one interval.

        Connections take the slots in turn, so a burst of joins is spread over the whole
        wheel rather than pinged all at once an interval later."""
        if not self.enabled or connection in self._slot_of:
            return
        slot = self._next_slot
        self._next_slot = (slot + 1) % len(self._slots)
        self._slots[slot].add(connection)
        self._slot_of[connection] = slot

    def discard(self, connection: ServerConnection) -> None:
        """Stop pinging ``connection`` (it closed)."""
        slot = self._slot_of.pop(connection, None)
        if slot is not None:
            self._slots[slot].discard(connection)

    def _turn_wheel(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(self._tick, self._turn_wheel)
        slot = self._slots[self._turn]
        self._turn = (self._turn + 1) % len(self._slots)
        for connection in tuple(slot) if slot else ():
            try:
                self._ping(connection)
            except Exception:  # one connection's failure never stops the others' pings
                logger.exception("keepalive ping to %s failed", connection.remote_address)

    def _ping(self, connection: ServerConnection) -> None:
        protocol = connection.protocol
        if protocol.state is not State.OPEN or connection.transport.is_closing():
            return  # closing already: its handler's end discards it
        if PAYLOAD in connection.pending_pings:  # the last ping, an interval ago, unanswered
            self.discard(connection)
            self.timeouts += 1
            task = asyncio.create_task(self._fail(connection), name="keepalive-timeout")
            self._failing.add(task)
            task.add_done_callback(self._failing.discard)
            return
        assert self._answered is not None
        connection.pending_pings[PAYLOAD] = (self._answered, connection.loop.time())
        protocol.send_ping(PAYLOAD)
        connection.transport.write(b"".join(protocol.data_to_send()))
        self.pings += 1

    async def _fail(self, connection: ServerConnection) -> None:
        """Close as websockets' own keepalive does (1011, then the close timeout), and abort
        the socket if that has not closed it within the close timeout: a vanished peer whose
        send buffer is full never drains, and websockets would wait for it."""
        logger.info("closing %s: keepalive ping unanswered for %.0fs",
                    connection.remote_address, self.interval)
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            async with asyncio.timeout(self._close_timeout):
                async with connection.send_context():
                    connection.protocol.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
        connection.transport.abort()  # nothing left to do once closed
