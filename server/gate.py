"""The server's door: :class:`poolhall.server.admission.Admission` wired into websockets' asyncio
server.

A connection is counted from the moment TCP accepts it
(:class:`poolhall.server.gated_connection.GatedConnection`, before any HTTP is read),
because an idle socket costs a file descriptor whether or not it ever starts the handshake.
One over a cap is answered ``503 Service Unavailable`` with a ``Retry-After`` header as soon as
its request arrives (``GET /health`` is still answered, so an operator can see the server is
full). Refused connections waiting for their answer are
bounded too (:func:`fit_to_descriptors`); past that, further ones are dropped at once without
an answer, since a flood must not cost descriptors.

Every connection has :attr:`Gate.join_timeout` seconds from its accept to join: the opening
handshake is bounded by it (``open_timeout``) and :meth:`Gate.arm_deadline` closes with 1008
one that has not joined by then, whatever it sent meanwhile.

Until its HTTP request is whole, a connection's bytes are kept by the gate, bounded, and only
the whole request is handed to websockets (:mod:`poolhall.server.request_head`); an address may send
``--unfinished-requests-per-address`` requests at once, and its further connections wait,
unread, for a turn. A request past the bounds is answered 431 (at its address's request pace)
and closed, so what it held is released at once; so is one of a method the server does not
answer, with 405 (:mod:`poolhall.server.http_methods`), before websockets would drop it unanswered
for the body it may carry, and one that declares a body, with 400. What follows a request is
held, unread, until its answer is sent (:mod:`poolhall.server.gated_connection`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Iterable
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from poolhall.server.admission import Admission, Refusal, source_of
from poolhall.server.gated_connection import GatedConnection
from poolhall.server.http_headers import secure
from poolhall.server.log_throttle import ACCEPT_FAILED, OncePerInterval
from poolhall.server.request_head import ReadingSlots
from poolhall.server.settings import Settings

try:
    import resource
except ImportError:  # not on Windows: the descriptor limit is left as it is
    resource = None  # type: ignore[assignment]

__all__ = ["ACCEPT_BATCH", "LISTEN_QUEUE", "PAGE_FILE_COST", "REFUSAL_DELAY",
           "REFUSED_PER_CONNECTION", "RESERVED_DESCRIPTORS", "SUMMARY_INTERVAL", "Gate",
           "GatedConnection", "fit_to_descriptors", "lengthen_listen_queue"]

logger = logging.getLogger(__name__)

SUMMARY_INTERVAL = 60.0
"""Seconds between two summary lines of what the door refused (and between two lines about
``accept()`` failing for want of descriptors)."""

RESERVED_DESCRIPTORS = 256
"""Descriptors kept free of connections: the log's files, the listening sockets, and the
sockets asyncio accepts in one go before any of them is counted (:data:`ACCEPT_BATCH`)."""

ACCEPT_BATCH = 4
"""Connections asyncio accepts in one turn of the event loop (its ``backlog``, 100 by default).
Each costs the loop a few hundred microseconds before a byte is read (websockets' objects, a
task, then its handshake's task in the next turn); 1,280 connections arriving at once were
accepted 100 at a time, and each turn held every table's frames behind it. A command takes a
few turns to reach every client (read, decide, commit, broadcast), each behind a turn's
accepts: at 16 a turn an honest table's p99 was 31-52 ms through such a storm
(``tests/chaos/slow_handshakes.py``), at 4 a turn 10-13 ms, while the storm is still accepted
at thousands of connections a second."""

LISTEN_QUEUE = 1024
"""Connections the kernel holds for the server until they are accepted (``listen()``'s
backlog, lengthened after asyncio set it to :data:`ACCEPT_BATCH`): a burst waits in the kernel,
costing the process nothing, rather than having its connection attempts dropped (a dropped
attempt is retried one second later, three the next time)."""

REFUSED_PER_CONNECTION = 4
"""Refused connections that may wait for their answer, per connection of the cap."""

REFUSAL_DELAY = 1.0
"""Seconds a connection over a cap waits for its 503. An outsider who reconnects as soon as it
is answered, 64 at a time, was refused ~350 times a second, each refusal a full HTTP handshake
on the event loop every table shares (another table's p99 rose from 4.6 to 25.6 ms); paced by
this delay it is refused 64 times a second. An honest client over the cap learns the same,
one second later. ``GET /health`` is answered at once."""

PAGE_FILE_COST = 0.2
"""What one file of the browser table (``/static/…``, answered from memory) costs of the
request rate: a page load is about two dozen files, which at a full request each kept players
behind one NAT address waiting seconds for the table; at a fifth, a load costs about five."""

Process = Callable[[ServerConnection, Request],
                   Response | None | Awaitable[Response | None]]
AsyncProcess = Callable[[ServerConnection, Request], Awaitable[Response | None]]


def lengthen_listen_queue(sockets: Iterable[Any]) -> None:
    """Give each listening socket a queue of :data:`LISTEN_QUEUE` (capped by the kernel's
    ``somaxconn``), keeping asyncio's accept batch of :data:`ACCEPT_BATCH`."""
    for listening in sockets:
        try:
            with socket.socket(fileno=os.dup(listening.fileno())) as same:
                same.listen(LISTEN_QUEUE)  # the queue belongs to the socket, not the descriptor
        except OSError as error:
            logger.warning("could not lengthen the listen queue: %s", error)


def fit_to_descriptors(requested: int) -> tuple[int, int]:
    """The connection cap, and how many refused connections may wait for their answer.

    Raises the soft file descriptor limit to the hard one first (an unprivileged process may),
    keeps :data:`RESERVED_DESCRIPTORS` free, and gives at most three quarters of the rest to
    connections and the others to refused ones, so ``accept()`` does not fail for want of
    descriptors while the server is within its caps.

    Refused connections are left open until they send their request (then answered 503) or
    their join time runs out, rather than closed at once: an attacker whose connections are
    closed at once opens new ones at once, and that churn cost the server far more than idle
    sockets (at ~12 KB each). Past :data:`REFUSED_PER_CONNECTION` times the cap, they are
    closed at once anyway, to bound memory.
    """
    if resource is None:
        return requested, REFUSED_PER_CONNECTION * requested
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = (1 + REFUSED_PER_CONNECTION) * requested + RESERVED_DESCRIPTORS
    target = hard if hard != resource.RLIM_INFINITY else max(soft, wanted)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            logger.warning("could not raise the file descriptor limit from %d to %d: %s",
                           soft, target, error)
    if soft == resource.RLIM_INFINITY:
        return requested, REFUSED_PER_CONNECTION * requested
    usable = max(0, soft - RESERVED_DESCRIPTORS)
    fitted = max(1, min(requested, usable * 3 // 4))
    refusals = max(0, min(REFUSED_PER_CONNECTION * requested, usable - fitted))
    if fitted < requested:
        logger.warning("at most %d connections (not %d) and %d refused ones waiting: the file"
                       " descriptor limit is %d", fitted, requested, refusals, soft)
    else:
        logger.info("at most %d connections and %d refused ones waiting (file descriptor"
                    " limit %d)", fitted, refusals, soft)
    return fitted, refusals


class Gate:
    """The door of one server: its admission counts, join deadlines and summary lines."""

    def __init__(self, settings: Settings) -> None:
        self.join_timeout = settings.join_timeout
        self._max_connections = settings.max_connections
        self.admission = Admission(
            max_connections=settings.max_connections,
            max_per_source=settings.max_connections_per_address,
            failures_allowed=settings.join_failures_allowed,
            failure_window=settings.join_failure_window,
            retry_after=settings.join_timeout,
            request_rate=settings.request_rate, request_burst=settings.request_burst)
        self.refusal_delay = REFUSAL_DELAY
        """Seconds before a refused connection gets its 503 (tests shorten it)."""
        self.refusing = 0
        """Refused connections not closed yet."""
        self.refusals_allowed = settings.max_connections
        """Refused connections that may wait for their answer at once (fitted in open())."""
        self.timed_out = 0
        """Connections closed since start for not joining in time."""
        self.slots: ReadingSlots[GatedConnection] = ReadingSlots(
            settings.unfinished_requests_per_address)
        """Each address's connections sending their request now, and those waiting a turn."""
        self.oversized = 0
        """Requests refused since start for headers past the bounds (431)."""
        self._oversized_interval = 0
        self.unjoined: dict[str, dict[GatedConnection, None]] = {}
        """Counted connections that have not joined yet, by address, oldest first."""
        self.evicted = 0
        """Connections closed since start to make room, while the server was full, for a
        newer one: the oldest that had not joined."""
        self._timed_out_interval = 0
        self._accept_failures = OncePerInterval(ACCEPT_FAILED, SUMMARY_INTERVAL)
        self._summary: asyncio.TimerHandle | None = None
        self._closing: set[asyncio.Task[None]] = set()

    def open(self) -> None:
        """Fit the connection cap to the descriptors; start the summaries and the log throttle."""
        self.admission.max_connections, self.refusals_allowed = fit_to_descriptors(
            self._max_connections)
        logging.getLogger("asyncio").addFilter(self._accept_failures)
        self._summary = asyncio.get_running_loop().call_later(SUMMARY_INTERVAL, self._tick)

    def close(self) -> None:
        """Undo :meth:`open`, logging what was refused since the last summary."""
        logging.getLogger("asyncio").removeFilter(self._accept_failures)
        if self._summary is not None:
            self._summary.cancel()
            self._summary = None
        self.log_summary("since the last summary")

    def connection_class(self) -> type[GatedConnection]:
        """The connection class for ``serve(create_connection=...)``, counted by this gate."""
        return type("GatedConnection", (GatedConnection,), {"gate": self})

    def process_request(self, then: Process) -> AsyncProcess:
        """``process_request`` for ``serve``: ``then`` first (``/health``), then the caps; a
        refusal is answered after :data:`REFUSAL_DELAY`; requests from an address asking faster
        than its request rate wait their turn (:meth:`Admission.request_delay`)."""

        async def process(connection: ServerConnection, request: Request) -> Response | None:
            cost = PAGE_FILE_COST if request.path.startswith("/static/") else 1.0
            delay = self.admission.request_delay(self._source(connection), self._now(), cost)
            if delay > 0:
                await asyncio.sleep(delay)
            answer = then(connection, request)
            response = await answer if inspect.isawaitable(answer) else answer
            refusal = getattr(connection, "refusal", None)
            if response is not None or refusal is None:
                return response
            await asyncio.sleep(self.refusal_delay)
            response = connection.respond(HTTPStatus.SERVICE_UNAVAILABLE,
                                          f"{refusal.code}: {refusal.message}\n")
            response.headers["Retry-After"] = str(refusal.retry_after)
            return response

        return process

    # ---- reading requests ---------------------------------------------------------------

    def start_reading(self, connection: GatedConnection) -> None:
        """A new connection sends its request now, or waits (unread) for its address's turn."""
        if self.slots.start(connection.source, connection):
            connection.reading = True
        else:
            connection.waiting = True
            # Not paused here: asyncio (3.11) adds the transport's reader just after
            # connection_made, whether it was paused meanwhile or not. Bytes read before the
            # pause are kept like any others (a whole request simply ends its wait).
            asyncio.get_running_loop().call_soon(self._pause_waiting, connection)

    @staticmethod
    def _pause_waiting(connection: GatedConnection) -> None:
        if connection.waiting:
            connection.transport.pause_reading()

    def finish_reading(self, connection: GatedConnection) -> None:
        """The connection's request is whole, or it closed: its address's next one is read."""
        if not (connection.reading or connection.waiting):
            return
        following = self.slots.finish(connection.source, connection, connection.reading)
        connection.reading = connection.waiting = False
        if following is not None:
            following.waiting, following.reading = False, True
            following.transport.resume_reading()

    def too_large(self, connection: GatedConnection, why: str) -> None:
        """Stop reading a request past the bounds and answer it 431 (:meth:`refuse_unread`)."""
        self.oversized += 1
        self._oversized_interval += 1
        response = connection.protocol.reject(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                                              f"{why}\n")
        secure(response.headers)
        self.refuse_unread(connection, response)

    def refuse_unread(self, connection: GatedConnection, response: Response) -> None:
        """Stop reading a request websockets is not to parse (past the bounds, or of a method
        the server does not answer); answer it ``response`` at its address's request pace
        (an address cannot be refused faster than it may ask), then close it. It keeps its
        turn until then, so its address's other connections wait meanwhile."""
        connection.discarding = True
        connection.transport.pause_reading()
        if connection.head is not None:
            connection.head.rest()  # its bytes are freed now, not when it closes
        delay = self.admission.request_delay(connection.source, self._now())
        connection.answer_due = asyncio.get_running_loop().call_later(
            delay, self._answer_unread, connection, response)

    @staticmethod
    def _answer_unread(connection: GatedConnection, response: Response) -> None:
        connection.answer_due = None
        if connection.transport.is_closing():
            return
        connection.transport.write(response.serialize())
        connection.transport.close()  # connection_lost frees its turn and what it held

    # ---- joining ----------------------------------------------------------------------

    def make_room_for(self, source: str, now: float) -> None:
        """Make room in a full server for a newcomer from ``source`` by closing the oldest
        connection that has not joined of the address holding the most connections, if that
        address holds at least two more than the newcomer's would.

        Filling the total cap with idle connections from a few addresses (16 addresses, or
        the /64s of one IPv6 /56, at 64 each) locked every newcomer out until their join
        timeouts ran out. A member joins within milliseconds of connecting, so a connection
        that has not joined is an idle one: it goes, the newcomer comes in, and joined
        members are never touched. Taking from the address that holds the most, and only
        while it holds more, moves the addresses towards equal shares and then stops: when
        1,280 connections from 20 addresses met a cap of 1,000 and each newcomer closed the
        oldest one of any address, they closed each other as fast as they reconnected
        (4,400 in 10 s; another table's p99 at 330 ms). An address also makes room at its
        request rate only (:meth:`Admission.may_evict`).
        """
        admission = self.admission
        mine = admission.open_from(source)
        if mine >= admission.max_per_source or not self.unjoined:
            return  # refused anyway, or nobody to close
        most = max(self.unjoined, key=admission.open_from)
        if mine + 1 >= admission.open_from(most) or not admission.may_evict(source, now):
            return
        idle = self.unjoined[most]
        oldest = next(iter(idle))
        self.joined(oldest)
        oldest.evicted = True
        admission.disconnect(oldest.source)
        self.evicted += 1
        oldest.transport.abort()

    def joined(self, connection: ServerConnection) -> None:
        """The connection has joined: it is no longer a candidate for eviction."""
        source = getattr(connection, "source", "")
        idle = self.unjoined.get(source)
        if idle is None or connection not in idle:
            return
        del idle[connection]
        if not idle:
            del self.unjoined[source]

    def arm_deadline(self, connection: ServerConnection) -> asyncio.TimerHandle:
        """Close ``connection`` with 1008 unless the handle is cancelled (on a join) in time."""
        loop = asyncio.get_running_loop()
        started = getattr(connection, "accepted_at", 0.0) or loop.time()
        return loop.call_at(started + self.join_timeout, self._expire, connection)

    def _expire(self, connection: ServerConnection) -> None:
        self.timed_out += 1
        self._timed_out_interval += 1
        closing = asyncio.ensure_future(
            connection.close(1008, f"no join within {self.join_timeout:g} s"))
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    def check_join(self, connection: ServerConnection) -> Refusal | None:
        """Refuse a join from an address that failed too many lately, before any token work."""
        return self.admission.check_join(self._source(connection), self._now())

    def join_failed(self, connection: ServerConnection) -> None:
        """Count a join refused for its token against the connection's address."""
        self.admission.join_failed(self._source(connection), self._now())

    @staticmethod
    def _source(connection: ServerConnection) -> str:
        return str(getattr(connection, "source", None) or source_of(connection.remote_address))

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    # ---- reporting ----------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What ``/health`` can show of the door: open, refused and rate-limited counts."""
        return {**self.admission.status(self._now()), "join_timeouts": self.timed_out,
                "evicted_unjoined": self.evicted, "reading_requests": self.slots.reading,
                "waiting_requests": self.slots.waiting,
                "reading_most_per_address": self.slots.most_reading_from_one_source,
                "oversized_requests": self.oversized}

    def log_summary(self, when: str = f"in the last {SUMMARY_INTERVAL:g} s") -> None:
        """Log one line on what was refused since the last one, if anything was."""
        line = self.admission.summary(self._now())
        timed_out, self._timed_out_interval = self._timed_out_interval, 0
        if timed_out:
            line = (f"{timed_out} connections closed for not joining within "
                    f"{self.join_timeout:g} s" + (f", {line}" if line else ""))
        oversized, self._oversized_interval = self._oversized_interval, 0
        if oversized:
            line = (f"{oversized} requests refused as too large (431)"
                    + (f", {line}" if line else ""))
        if line:
            logger.warning("%s: %s", when, line)

    def _tick(self) -> None:
        self.log_summary()
        self._summary = asyncio.get_running_loop().call_later(SUMMARY_INTERVAL, self._tick)
