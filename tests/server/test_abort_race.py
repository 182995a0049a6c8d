"""A transport closed with bytes still buffered, drained, then aborted: CPython's race."""

from __future__ import annotations

import asyncio
import socket

import pytest

from poolhall.server.gated_connection import _abort_once_gone


async def _closed_after_draining(guard: bool) -> asyncio.Transport:
    """A server-side transport that was closed with 4 MB unsent, then fully drained by its
    peer: CPython has released its socket and loop without counting it as lost."""
    made: asyncio.Future[asyncio.Transport] = asyncio.get_running_loop().create_future()
    lost = asyncio.Event()

    class Sender(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            if guard:
                _abort_once_gone(transport)
            transport.write(b"x" * 4_000_000)  # more than the kernel takes: some stays buffered
            transport.close()  # deferred until the buffer drains
            made.set_result(transport)

        def connection_lost(self, exc: Exception | None) -> None:
            lost.set()

    server = await asyncio.get_running_loop().create_server(Sender, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    transport = await made
    await reader.read()  # everything, to the end: the server's buffer drains, it closes
    await lost.wait()
    writer.close()
    server.close()
    return transport


async def test_aborting_a_transport_gone_this_way_raises_in_cpython() -> None:
    """The race itself (agronholm/anyio#1250): abort() then fails inside asyncio."""
    transport = await _closed_after_draining(guard=False)
    assert getattr(transport, "_sock", None) is None
    with pytest.raises(AttributeError):
        transport.abort()


async def test_the_gate_makes_such_an_abort_do_nothing() -> None:
    """With the gate's guard the same abort is a no-op, and a live transport still aborts."""
    transport = await _closed_after_draining(guard=True)
    transport.abort()  # no AttributeError
    left, right = socket.socketpair()
    live, _ = await asyncio.get_running_loop().connect_accepted_socket(asyncio.Protocol, left)
    _abort_once_gone(live)
    live.abort()
    await asyncio.sleep(0)
    assert live.is_closing()
    right.close()
