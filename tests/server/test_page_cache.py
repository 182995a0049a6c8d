"""Catch-up pages are encoded once and shared: concurrent requests share one load, the cache
stays within its bytes, and a failed load is not kept."""

from __future__ import annotations

import asyncio
import threading

import pytest

from poolhall.server.event_frames import FramePage
from poolhall.server.page_cache import PageCache

ONE = [FramePage(1, b"0123456789")]
TWO = [FramePage(1, b"frame-1"), FramePage(1, b"frame-2")]


async def test_concurrent_catch_ups_share_one_load_and_later_ones_hit() -> None:
    cache = PageCache()
    loads = 0
    release = threading.Event()

    def load() -> list[FramePage]:
        nonlocal loads
        loads += 1
        release.wait(5)
        return TWO

    waiting = [asyncio.create_task(cache.get(("c", 0, 200), load)) for _ in range(8)]
    await asyncio.sleep(0.05)
    release.set()
    pages = await asyncio.gather(*waiting)
    assert loads == 1
    assert all(page == TWO for page in pages)
    assert await cache.get(("c", 0, 200), load) == TWO
    assert loads == 1
    assert (cache.hits, cache.misses) == (8, 1)


async def test_the_least_recently_used_page_goes_past_the_bound() -> None:
    cache = PageCache(max_bytes=20)
    for after in (0, 200, 400):  # 10 bytes each: the first goes when the third comes
        await cache.get(("c", after, after + 200), lambda: ONE)
    assert cache.size == 20
    loaded: list[int] = []

    def load() -> list[FramePage]:
        loaded.append(1)
        return ONE

    await cache.get(("c", 0, 200), load)
    assert loaded == [1]  # read again: it had been dropped


async def test_a_failed_load_reaches_every_waiter_and_is_not_kept() -> None:
    cache = PageCache()

    def broken() -> list[FramePage]:
        raise OSError("disk I/O error")

    with pytest.raises(OSError, match="disk I/O error"):
        await cache.get(("c", 0, 200), broken)
    assert await cache.get(("c", 0, 200), lambda: ONE) == ONE


async def test_a_waiter_that_stops_does_not_cancel_a_shared_load() -> None:
    """The catch-up that started a read leaves (cancelled) while another waits for the same
    read: the other still gets it, and the read is kept for the next."""
    cache = PageCache()
    release = threading.Event()
    loads = 0

    def load() -> list[FramePage]:
        nonlocal loads
        loads += 1
        release.wait(5)
        return ONE

    first = asyncio.create_task(cache.get(("c", 0, 200), load))
    second = asyncio.create_task(cache.get(("c", 0, 200), load))
    await asyncio.sleep(0.05)
    first.cancel()
    await asyncio.sleep(0)
    release.set()
    assert await second == ONE
    assert first.cancelled()
    assert await cache.get(("c", 0, 200), load) == ONE
    assert loads == 1
