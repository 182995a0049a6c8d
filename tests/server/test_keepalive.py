"""Keepalive pings from one timer: a client that answers them stays; one that does not is
closed with 1011, as websockets' own keepalive closes it."""

from __future__ import annotations

import asyncio
import base64
import os
import random
import struct
from pathlib import Path

from poolhall.server.app import Server
from poolhall.server.keepalive import PAYLOAD
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, until
from tests.server.raw import RawPeer


async def _server(tmp_path: Path, interval: float) -> Server:
    server = Server(tmp_path / "keepalive.db", "127.0.0.1", 0, rng=random.Random(1),
                    admin_token=ADMIN_TOKEN, settings=Settings(ping_interval=interval))
    await server.start()
    return server


async def _frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One unmasked frame from the server: its opcode and payload."""
    first, second = await reader.readexactly(2)
    size = second & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", await reader.readexactly(2))
    elif size == 127:
        (size,) = struct.unpack("!Q", await reader.readexactly(8))
    return first & 0x0F, await reader.readexactly(size)


async def test_a_client_that_answers_pings_stays_connected(tmp_path: Path) -> None:
    """Pings go out every interval and a client that answers (websockets does) is kept: it
    is still joined and answered after several rounds of pings."""
    server = await _server(tmp_path, 0.2)
    try:
        peer = await RawPeer.open(server.url)
        welcome = await peer.join(ADMIN_TOKEN, None)
        assert welcome["type"] == "welcome"
        await until(lambda: server.keepalive.pings >= 4)
        assert server.keepalive.timeouts == 0
        (subscriber,) = server._connections
        assert subscriber.connection.latency > 0  # the pongs came back and were timed
        await peer.send({"type": "create_campaign", "id": "c1", "name": "Kept",
                         "system": "narrative"})
        assert (await peer.recv_until("ack"))["campaign"] == "kept"
        await peer.connection.close()
    finally:
        await server.stop()


async def test_a_client_that_never_answers_is_closed_1011(tmp_path: Path) -> None:
    """A peer that completed the handshake and then reads nothing and answers no ping (a
    client whose machine vanished) gets a ping, then, one interval later with the ping still
    unanswered, a close frame 1011 "keepalive ping timeout", and the socket is closed."""
    server = await _server(tmp_path, 0.2)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        status = await reader.readuntil(b"\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 101")
        opcode, payload = await asyncio.wait_for(_frame(reader), 10)
        assert (opcode, payload) == (0x9, PAYLOAD)  # a ping; we leave it unanswered
        opcode, payload = await asyncio.wait_for(_frame(reader), 10)
        assert opcode == 0x8  # close
        assert struct.unpack("!H", payload[:2])[0] == 1011
        assert payload[2:] == b"keepalive ping timeout"
        assert await asyncio.wait_for(reader.read(), 10) == b""  # then the server hangs up
        assert server.keepalive.timeouts == 1
        writer.close()
    finally:
        await server.stop()


async def test_no_pings_when_the_interval_is_zero(tmp_path: Path) -> None:
    """``--ping-interval 0`` sends no pings (websockets' own keepalive stays off too)."""
    server = await _server(tmp_path, 0)
    try:
        peer = await RawPeer.open(server.url)
        await peer.join(ADMIN_TOKEN, None)
        await asyncio.sleep(0.3)
        assert server.keepalive.pings == 0
        assert not server.keepalive.enabled
        (subscriber,) = server._connections
        assert subscriber.connection.latency == 0  # no ping, so no pong timed
        await peer.connection.close()
    finally:
        await server.stop()
