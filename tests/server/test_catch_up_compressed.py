"""A catch-up page written to a connection with permessage-deflate is framed by websockets
(compressed), not written as the store's plain frames."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from poolhall.server.subscriber import Subscriber, text_frames, text_payloads

PAYLOADS = [b'{"type":"event","seq":%d,"pad":"%s"}' % (n, b"x" * size)
            for n, size in enumerate((0, 100, 200, 70_000), start=1)]


def test_text_payloads_undo_text_frames() -> None:
    """The payloads are read back out of frames of every header form."""
    assert text_payloads(text_frames(PAYLOADS)) == PAYLOADS
    assert text_payloads(b"") == []


@pytest.mark.parametrize("compression", ["deflate", None])
async def test_a_page_reaches_the_client_whole_with_or_without_compression(
        compression: str | None) -> None:
    """The client receives each payload of a page as one message, in order, whether the
    connection negotiated permessage-deflate or not; compressed when it did."""
    negotiated: list[bool] = []
    written: list[int] = []

    async def handler(connection: ServerConnection) -> None:
        negotiated.append(bool(connection.protocol.extensions))
        transport = connection.transport
        write = transport.write

        def counted(data: bytes | bytearray | memoryview) -> None:  # counts, then writes
            written.append(len(data))
            write(data)

        transport.write = counted  # type: ignore[method-assign]
        subscriber = Subscriber(connection)

        async def catch_up(target: Subscriber) -> None:
            assert await target.send_page(text_frames(PAYLOADS[:2]))
            assert await target.send_page(text_frames(PAYLOADS[2:]))

        subscriber.push(catch_up)
        await subscriber.finish()
        await connection.wait_closed()

    async with serve(handler, "127.0.0.1", 0, compression=compression) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=compression) as client:
            received = [await asyncio.wait_for(client.recv(decode=False), 5)
                        for _ in PAYLOADS]
    assert received == PAYLOADS
    assert negotiated == [compression is not None]
    size = sum(len(payload) for payload in PAYLOADS)  # mostly "x": deflate takes it to little
    assert sum(written) < size / 10 if compression else sum(written) > size
