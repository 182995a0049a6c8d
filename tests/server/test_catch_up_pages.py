"""A catch-up goes out a page at a time: complete, in order, one socket write per page."""

from __future__ import annotations

import asyncio
import math
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.server import catch_up, event_frames
from poolhall.server.app import Server
from poolhall.server.catch_up import CATCH_UP_PAGE, CATCH_UP_READ, CATCH_UP_READS_AHEAD
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN
from tests.server.raw import RawPeer

UNLIMITED = Settings(member_rate=1e6, member_burst=10**6, campaign_rate=1e6,
                     campaign_burst=10**6, member_in_flight=10**6)


async def _replay(server: Server, token: str, campaign: str, since: int,
                  head: int) -> tuple[list[int], int]:
    """The event seqs a replay from ``since`` delivers, and the pages its subscriber wrote."""
    peer = await RawPeer.open(server.url)
    await peer.join(token, campaign, since=since, replay=True)
    seqs: list[int] = []
    while not seqs or seqs[-1] < head:
        frame = await peer.recv()
        if frame["type"] == "event":
            seqs.append(frame["seq"])
    (subscriber,) = [s for s in server._connections  # earlier replays may linger, closing
                     if s.pages_written and not s.connection.transport.is_closing()]
    pages = subscriber.pages_written
    await peer.close()
    return seqs, pages


async def _rolled(server: Server) -> tuple[str, str, int]:
    """A new campaign of 2,200 rolls (past one read of 2,000): its id, the GM's token and
    its head."""
    async with Client(server.url, ADMIN_TOKEN, None) as admin:
        ack = await admin.call(core.CreateCampaign, name="Pages", system="d12")
    assert ack.campaign
    assert ack.token
    async with Client(server.url, ack.token, ack.campaign) as gm:
        for _ in range(11):
            await asyncio.gather(*(gm.call(core.Roll, expression="1d6") for _ in range(200)))
        return ack.campaign, ack.token, gm.head


def _pages(since: int, head: int, read: int) -> int:
    """Pages a catch-up of ``(since, head]`` writes: each read's (on multiples of ``read``)
    split in pages on multiples of 200, the first and last of each read maybe short."""
    pages, after = 0, since
    while after < head:
        upto = min((after // read + 1) * read, head)
        pages += math.ceil(upto / CATCH_UP_PAGE) - after // CATCH_UP_PAGE
        after = upto
    return pages


async def test_a_catch_up_of_several_pages_arrives_whole_in_one_write_per_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay longer than a read and several pages arrives complete and in order, from the
    start and from a seq inside a page, in exactly one write per page of 200 frames; also
    with reads of 300 events, so that more reads than the ones ahead are under way."""
    assert CATCH_UP_READ % CATCH_UP_PAGE == 0
    server = Server(tmp_path / "pages.db", "127.0.0.1", 0, rng=random.Random(3),
                    admin_token=ADMIN_TOKEN, settings=UNLIMITED)
    await server.start()
    try:
        campaign, token, head = await _rolled(server)
        assert head > CATCH_UP_READ
        for since in (0, 150, CATCH_UP_READ - 10):
            seqs, pages = await _replay(server, token, campaign, since, head)
            assert seqs == list(range(since + 1, head + 1))
            assert pages == _pages(since, head, CATCH_UP_READ)
        monkeypatch.setattr(catch_up, "CATCH_UP_READ", 300)  # 8 reads, each of 2 pages
        assert head > 300 * (CATCH_UP_READS_AHEAD + 2)
        for since in (0, 150):
            seqs, pages = await _replay(server, token, campaign, since, head)
            assert seqs == list(range(since + 1, head + 1))
            assert pages == _pages(since, head, 300) != _pages(since, head, CATCH_UP_READ)
    finally:
        await server.stop()


async def test_the_reads_of_a_catch_up_follow_one_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A catch-up's reads are made one at a time, never together: each builds its frames in
    Python, holding the interpreter lock, so reads started together took turns and the first
    page waited for all of them. The first read is the first page alone, so that it leaves at
    once; the others end on multiples of the read size (here 300; each read takes 20 ms)."""
    in_flight, most = 0, 0
    reads: list[tuple[int, int]] = []
    lock = threading.Lock()
    real = event_frames.frame_pages

    def slow_frame_pages(*args: Any) -> list[Any]:
        nonlocal in_flight, most
        with lock:
            in_flight += 1
            reads.append((args[2], args[3]))
            most = max(most, in_flight)
        try:
            time.sleep(0.02)  # a read long enough for another to start beside it
            return real(*args)
        finally:
            with lock:
                in_flight -= 1

    server = Server(tmp_path / "reads.db", "127.0.0.1", 0, rng=random.Random(4),
                    admin_token=ADMIN_TOKEN, settings=UNLIMITED)
    await server.start()
    try:
        campaign, token, head = await _rolled(server)
        monkeypatch.setattr(catch_up, "CATCH_UP_READ", 300)
        monkeypatch.setattr(catch_up, "frame_pages", slow_frame_pages)
        seqs, _ = await _replay(server, token, campaign, 0, head)
        assert seqs == list(range(1, head + 1))
        ends = [*range(300, head, 300), head]
        assert reads == [(0, CATCH_UP_PAGE), (CATCH_UP_PAGE, 300),
                         *zip(ends[:-1], ends[1:], strict=True)]
        assert most == 1
    finally:
        await server.stop()
