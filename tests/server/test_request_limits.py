"""A request before it is whole: bounded in bytes and lines, and an address sends only a few
at once (issue 26, items 1 and 2).

Real servers on port 0 with real SQLite files; requests written by hand over real sockets, from
loopback addresses of their own (127.0.0.2, 127.0.0.3) where the per-address count matters.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from poolhall.server.app import Server
from poolhall.server.request_head import (
    MAX_HEADER_LINES,
    MAX_LINE_BYTES,
    MAX_REQUEST_BYTES,
    ReadingSlots,
    RequestHead,
    TooLarge,
)
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, until
from tests.server.http_raw import handshake_lines, parse_reply, send_request


@asynccontextmanager
async def server_with(tmp_path: Path, **settings: object) -> AsyncIterator[Server]:
    """A real server on 127.0.0.1:0 with the given settings."""
    server = Server(tmp_path / "poolhall.db", "127.0.0.1", 0, rng=random.Random(5),
                    admin_token=ADMIN_TOKEN, settings=Settings(**settings))  # type: ignore[arg-type]
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def unfinished(port: int, source: str, sent: bytes = b"GET / HTTP/1.1\r\nHost: x\r\n"
                     ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection from ``source`` that sent part of a request and stops there."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(sent)
    await writer.drain()
    return reader, writer


def health_lines(port: int) -> list[str]:
    return ["GET /health HTTP/1.1", f"Host: 127.0.0.1:{port}"]


# ---- the bounds of one request ------------------------------------------------------------


async def test_huge_headers_that_never_end_are_refused_431_and_released(
        tmp_path: Path) -> None:
    """126 headers of 8,000 bytes and no end: answered 431 (secured) long before the last is
    sent, and the connection closed, so the server holds nothing of it."""
    async with server_with(tmp_path) as server:
        reader, writer = await unfinished(server.port, "127.0.0.2")
        line = b"X-Big: " + b"a" * 7991 + b"\r\n"
        sent = 0
        try:
            async with asyncio.timeout(5):  # the old server waited for the 10 s timeout
                answer = asyncio.ensure_future(reader.read())
                while not answer.done() and sent < 126:
                    writer.write(line)
                    sent += 1
                    await asyncio.wait([answer], timeout=0.01)
                reply = parse_reply(await answer)
        finally:
            writer.transport.abort()
        assert reply.status == 431
        assert b"over 16384 bytes" in reply.body
        assert "default-src 'none'" in reply.header("Content-Security-Policy")
        assert sent < 10
        await until(lambda: server.gate.slots.reading == 0 and server.gate.admission.total == 0)
        assert server.gate.oversized == 1
        assert "oversized_requests=1" in (await send_request(
            server.port, health_lines(server.port))).body.decode()


@pytest.mark.parametrize(("extra", "why"), [
    ([f"X-{n}: y" for n in range(MAX_HEADER_LINES)], b"header lines"),
    (["X-Long: " + "a" * MAX_LINE_BYTES], b"a line of the request is over"),
])
async def test_too_many_lines_or_a_line_too_long_is_431(tmp_path: Path, extra: list[str],
                                                        why: bytes) -> None:
    """A whole handshake with too many header lines, or one line too long, is 431, though
    its bytes are under the total bound (websockets alone let 128 lines through)."""
    async with server_with(tmp_path) as server:
        reply = await send_request(server.port, handshake_lines(server.port, *extra))
        assert reply.status == 431
        assert why in reply.body


async def test_a_request_sent_a_byte_at_a_time_is_still_answered(tmp_path: Path) -> None:
    """An honest client on a slow link: its handshake arrives in pieces, the blank line split
    across them, and is accepted once whole."""
    async with server_with(tmp_path) as server:
        data = ("\r\n".join(handshake_lines(server.port)) + "\r\n\r\n").encode()
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            for k in range(0, len(data), 7):
                writer.write(data[k:k + 7])
                await writer.drain()
                await asyncio.sleep(0.001)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        finally:
            writer.transport.abort()
        assert head.startswith(b"HTTP/1.1 101")


# ---- an address's unfinished requests -----------------------------------------------------


async def test_an_address_sends_few_requests_at_once_and_its_others_wait(
        tmp_path: Path) -> None:
    """Two half-sent requests from 127.0.0.2 hold its two turns: its third connection waits
    unread (answered only once a turn frees), while another address is answered at once."""
    async with server_with(tmp_path, unfinished_requests_per_address=2) as server:
        port = server.port
        slow = [await unfinished(port, "127.0.0.2") for _ in range(2)]
        third = asyncio.ensure_future(send_request(port, health_lines(port),
                                                   source="127.0.0.2"))
        try:
            await until(lambda: server.gate.slots.waiting == 1)
            other = await send_request(port, health_lines(port), source="127.0.0.3")
            assert other.status == 200
            assert "reading_requests=2 waiting_requests=1 reading_most_per_address=2" in \
                other.body.decode()
            await asyncio.sleep(0.2)
            assert not third.done()
            slow[0][1].transport.abort()  # a turn frees: the third is read and answered
            assert (await asyncio.wait_for(third, 5)).status == 200
        finally:
            for _, writer in slow:
                writer.transport.abort()
        await until(lambda: server.gate.slots.reading == server.gate.slots.waiting == 0)


async def test_a_request_cut_short_frees_its_turn(tmp_path: Path) -> None:
    """A connection that half-closes before its blank line is closed, and its turn is free."""
    async with server_with(tmp_path, unfinished_requests_per_address=1) as server:
        reader, writer = await unfinished(server.port, "127.0.0.2")
        await until(lambda: server.gate.slots.reading == 1)
        writer.write_eof()
        assert await asyncio.wait_for(reader.read(), 5) == b""
        writer.transport.abort()
        await until(lambda: server.gate.slots.reading == 0)
        reply = await send_request(server.port, health_lines(server.port), source="127.0.0.2")
        assert reply.status == 200


# ---- the sans-I/O parts -------------------------------------------------------------------


def test_a_request_head_is_handed_over_whole() -> None:
    """Bytes are kept until the blank line, then handed over, apart from whatever followed
    (which websockets must not read as frames before the request is answered)."""
    head = RequestHead()
    assert head.feed(b"GET / HTTP/1.1\r\nHost: x\r") is None
    assert head.feed(b"\n\r") is None
    assert head.feed(b"\nrest") == (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"rest")
    with pytest.raises(TooLarge):
        RequestHead().feed(b"GET / HTTP/1.1\r\n" + b"a" * MAX_REQUEST_BYTES)


def test_reading_slots_hand_a_freed_turn_to_the_oldest_waiting() -> None:
    """Per source, at most ``per_source`` read; a freed turn goes to the source's oldest
    waiting connection; a waiting one that closes just leaves the queue."""
    slots: ReadingSlots[str] = ReadingSlots(2)
    assert slots.start("a", "a1")
    assert slots.start("a", "a2")
    assert not slots.start("a", "a3")
    assert not slots.start("a", "a4")
    assert slots.start("b", "b1")
    assert (slots.reading, slots.waiting) == (3, 2)
    assert slots.finish("a", "a4", was_reading=False) is None
    assert slots.finish("a", "a1", was_reading=True) == "a3"
    assert slots.finish("a", "a2", was_reading=True) is None
    assert slots.finish("a", "a3", was_reading=True) is None
    assert slots.finish("b", "b1", was_reading=True) is None
    assert (slots.reading, slots.waiting) == (0, 0)
    assert slots.reading_from("a") == slots.waiting_from("a") == 0
