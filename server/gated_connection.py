"""One connection at the door: counted by its server's :class:`poolhall.server.gate.Gate` from
TCP accept on, its request's bytes kept until the request is whole (and refused unread when
websockets would drop it: a method the server does not answer, a body), and what follows the
request held until the request is answered.

The :class:`~poolhall.server.gate.Gate` decides (caps, turns to read, answers); the connection
here tells it what happened to its bytes.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Response
from websockets.protocol import CONNECTING, OPEN

from poolhall.server.admission import Admission, Refusal, source_of
from poolhall.server.http_methods import (
    ALLOWED,
    bad_request,
    body_header_of,
    carries_body,
    method_of,
    not_allowed,
)
from poolhall.server.request_head import BareLineFeed, RequestHead, TooLarge

__all__ = ["Door", "GatedConnection"]


class Door(Protocol):
    """What a connection tells its server's gate (:class:`poolhall.server.gate.Gate`), which
    imports this module: the gate is named here by what it does, not imported back."""

    admission: Admission
    unjoined: dict[str, dict[GatedConnection, None]]
    refusing: int
    refusals_allowed: int

    def make_room_for(self, source: str, now: float) -> None: ...
    def start_reading(self, connection: GatedConnection) -> None: ...
    def finish_reading(self, connection: GatedConnection) -> None: ...
    def too_large(self, connection: GatedConnection, why: str) -> None: ...
    def refuse_unread(self, connection: GatedConnection, response: Response) -> None: ...
    def joined(self, connection: ServerConnection) -> None: ...


class GatedConnection(ServerConnection):
    """A websockets connection counted by its server's :class:`Gate` from TCP accept on."""

    gate: Door
    """Set on the subclass :meth:`poolhall.server.gate.Gate.connection_class` makes for one
    server."""

    source = "local"
    """Where the connection comes from, as :func:`poolhall.server.admission.source_of` counts it."""
    refusal: Refusal | None = None
    """Why the connection is refused, if it is over a cap (it is then not counted)."""
    accepted_at = 0.0
    """The event loop's time when TCP accepted the connection: the join deadline starts here."""

    evicted = False
    """Closed to make room for a newer connection while it had not joined (not counted)."""

    head: RequestHead | None = None
    """The request's bytes until it is whole; ``None`` once handed to websockets."""
    reading = False
    """Whether it has one of its address's turns to send a request (:class:`ReadingSlots`)."""
    waiting = False
    """Whether it waits, unread, for such a turn."""
    discarding = False
    """Its request was too large: it is answered 431 and closed, nothing more is read."""
    answer_due: asyncio.TimerHandle | None = None

    held: bytearray | None = None
    """What came after the request, from its handover to websockets until its answer is sent
    (``None`` before and after): see :meth:`hold`."""
    held_eof = False
    """The client half-closed while its request waited for its answer."""
    answered = False
    """The answer is sent; the held bytes are passed on at the loop's next turn."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        _abort_once_gone(transport)
        self.accepted_at = self.loop.time()
        self.source = source_of(transport.get_extra_info("peername"))
        admission = self.gate.admission
        if admission.total >= admission.max_connections:
            self.gate.make_room_for(self.source, self.accepted_at)
        self.refusal = admission.connect(self.source)
        if self.refusal is None:
            self.gate.unjoined.setdefault(self.source, {})[self] = None
        else:
            self.gate.refusing += 1
            if self.gate.refusing > self.gate.refusals_allowed:
                self.transport.abort()  # connection_lost follows: no answer, no descriptor held
                return
        self.head = RequestHead()
        self.gate.start_reading(self)

    def data_received(self, data: bytes) -> None:
        if self.held is not None:  # handed over, not answered yet
            self.hold(data)
            return
        head = self.head
        if head is None:  # the request was handed over and answered: websockets reads on
            super().data_received(data)
            return
        if self.discarding:
            return
        try:
            whole = head.feed(data)
        except TooLarge as why:
            self.gate.too_large(self, str(why))
            return
        except BareLineFeed as why:
            self.gate.refuse_unread(self, bad_request(self.protocol, str(why)))
            return
        if whole is None:
            return
        request, following = whole
        method = method_of(request)
        if method is not None and method not in ALLOWED:  # before websockets drops a body
            self.gate.refuse_unread(self, not_allowed(self.protocol, method))
            return
        body = body_header_of(request)
        if body is not None:  # websockets would drop it unanswered, and read the body on
            self.gate.refuse_unread(self, carries_body(self.protocol, body))
            return
        self.head = None
        self.gate.finish_reading(self)
        self.held = bytearray()
        self.hold(following)
        super().data_received(request)

    def hold(self, data: bytes) -> None:
        """Keep ``data``, sent after the request, until the request is answered.

        websockets reads whatever follows a request as WebSocket frames at once, before the
        request is answered: a second request pipelined behind ``GET /health`` (or any bytes
        that are not a frame) failed the connection, so the first request went unanswered and
        sending its answer then tripped an assertion in websockets, logged as a traceback
        each time. Held here, they are passed on once the answer is sent
        (:meth:`send_data`): after a 101 websockets reads them as it would have (a frame sent
        before the 101, which RFC 6455 forbids and websockets takes, still arrives); after
        any other answer, which closes the connection, they are dropped, as HTTP/1.1 lets a
        server answer only the first request of a connection. Reading stops meanwhile, so at
        most one read is held; the rest waits in the kernel."""
        if data and self.held is not None:
            self.held += data
            self.transport.pause_reading()

    def send_data(self) -> None:
        """Write what websockets has to send; once that includes the request's answer (a 101,
        or the end of the connection after any other), pass on what was held."""
        super().send_data()
        if self.held is not None and not self.answered and (
                self.protocol.state is not CONNECTING or self.protocol.eof_sent):
            self.answered = True
            # at the next turn: this may run inside websockets' own reading of the request
            self.loop.call_soon(self._pass_on_held)

    def _pass_on_held(self) -> None:
        held, self.held = self.held, None
        if held is None or self.transport.is_closing():
            return
        self.transport.resume_reading()
        if held and self.protocol.state is OPEN:
            super().data_received(bytes(held))
        if self.held_eof:
            super().eof_received()
            self.transport.close()  # what asyncio does after an EOF handled at once

    def eof_received(self) -> bool | None:  # type: ignore[override]  # asyncio's signature
        """The client half-closed. Before its answer is sent, the connection is kept open
        (``True``) for that answer: websockets, told at once, failed the connection and
        sent none."""
        if self.held is not None:
            self.held_eof = True
            return True
        head = self.head
        if head is not None and not self.discarding:  # ended before its blank line
            self.head = None
            self.gate.finish_reading(self)
            if len(head):
                super().data_received(head.rest())  # websockets refuses it as before
        super().eof_received()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.held = None
        super().connection_lost(exc)
        if self.answer_due is not None:
            self.answer_due.cancel()
        self.gate.finish_reading(self)
        self.gate.joined(self)
        if self.refusal is not None:
            self.gate.refusing -= 1
        elif not self.evicted:
            self.gate.admission.disconnect(self.source)


def _abort_once_gone(transport: asyncio.BaseTransport) -> None:
    """Make ``transport.abort()`` do nothing once the transport is gone.

    CPython's selector transport (3.11 to 3.13 at least) has a race: ``close()`` with bytes
    still buffered defers the close; when the buffer drains it releases the socket and the
    loop without counting the connection as lost, so a later ``abort()`` (websockets aborts a
    connection whose handshake or close went wrong) raises ``AttributeError: 'NoneType' object
    has no attribute 'call_soon'`` in the connection's task (agronholm/anyio#1250 traces it).
    Under load, with frames written straight to the transport, that printed a traceback for a
    connection that had closed cleanly. Aborting a transport that is gone has nothing to do.
    """
    abort = getattr(transport, "abort", None)
    if abort is None:
        return

    def abort_unless_gone() -> None:
        if transport.is_closing() and getattr(transport, "_sock", True) is None:
            return  # already closed and released: nothing to abort
        abort()

    transport.abort = abort_unless_gone  # type: ignore[attr-defined]
