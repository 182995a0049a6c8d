"""A client that stops reading does not slow the others and is disconnected."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from poolhall.events import core
from tests.conftest import ADMIN_TOKEN
from tests.server.raw import RawPeer


async def test_stalled_reader_is_dropped_and_does_not_slow_the_table(tmp_path: Path) -> None:
    """With a stalled reader at the table, the others' acks stay fast and it gets closed."""
    import random

    from poolhall.clients.client import Client
    from poolhall.server.app import Server
    from poolhall.server.settings import Settings

    # rates lifted: this test is about a stalled reader, not about a member sending too much
    server = Server(tmp_path / "slow.db", "127.0.0.1", 0, rng=random.Random(5),
                    admin_token=ADMIN_TOKEN,
                    settings=Settings(queue_limit=64, member_rate=1e6, member_burst=10**6,
                                      campaign_rate=1e6, campaign_burst=10**6))
    await server.start()
    try:
        admin = Client(server.url, ADMIN_TOKEN)
        await admin.connect()
        created = await admin.call(core.CreateCampaign, name="Slow", system="d12")
        assert created.token is not None
        gm = Client(server.url, created.token, created.campaign)
        await gm.connect()
        # a small receive window, so the stalled reader's socket fills in a few hundred frames
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        sock.setblocking(False)
        stalled = RawPeer(await connect(server.url, sock=sock))
        assert (await stalled.join(created.token, created.campaign))["type"] == "welcome"
        stalled.connection.transport.pause_reading()  # it never reads again

        watcher = Client(server.url, created.token, created.campaign)
        await watcher.connect()

        assert created.campaign is not None
        hub = server.hubs[created.campaign]

        async def play() -> int:
            last = 0
            for _ in range(600):  # at most 6,000 rolls; the stalled reader goes long before
                acks = await asyncio.gather(*(
                    gm.call(core.Roll, expression="100d100") for _ in range(10)))
                last = max(ack.seqs[-1] for ack in acks)
                if len(hub.subscribers) == 2:
                    break
            return last

        # if the hub awaited the stalled client, these commands would hang, not just slow
        last = await asyncio.wait_for(play(), 60)
        assert len(hub.subscribers) == 2, "the stalled reader was not dropped"
        await watcher.wait_for_seq(last)
        assert watcher.state.head == last
        stalled.connection.transport.resume_reading()

        async def read_to_the_end() -> None:
            with contextlib.suppress(ConnectionClosed):
                async for _ in stalled.connection:
                    pass

        await asyncio.wait_for(read_to_the_end(), 30)
        assert stalled.connection.close_code == 1013
        for client in (watcher, gm, admin):
            await client.close()
    finally:
        await server.stop()
