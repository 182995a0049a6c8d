"""Catch-up pages are encoded once and shared: concurrent requests share one load, the cache
stays within its bytes, and a failed load is not kept."""

from __future__ import annotations

import asyncio
import threading

import pytest

from server.page_cache import PageCache


async def test_concurrent_catch_ups_share_one_load_and_later_ones_hit() -> None:
    cache = PageCache()
    loads = 0
    release = threading.Event()

    def load() -> list[bytes]:
        nonlocal loads
        loads += 1
        release.wait(5)
        return [b"frame-1", b"frame-2"]

    waiting = [asyncio.create_task(cache.get(("c", 0, 200), load)) for _ in range(8)]
    await asyncio.sleep(0.05)
    release.set()
    pages = await asyncio.gather(*waiting)
    assert loads == 1 and all(page == [b"frame-1", b"frame-2"] for page in pages)
    assert await cache.get(("c", 0, 200), load) == [b"frame-1", b"frame-2"]
    assert loads == 1 and (cache.hits, cache.misses) == (8, 1)


async def test_the_least_recently_used_page_goes_past_the_bound() -> None:
    cache = PageCache(max_bytes=20)
    for after in (0, 200, 400):  # 10 bytes each: the first goes when the third comes
        await cache.get(("c", after, after + 200), lambda: [b"0123456789"])
    assert cache.size == 20
    loaded = []
    await cache.get(("c", 0, 200), lambda: loaded.append(1) or [b"0123456789"])
    assert loaded == [1]  # read again: it had been dropped


async def test_a_failed_load_reaches_every_waiter_and_is_not_kept() -> None:
    cache = PageCache()

    def broken() -> list[bytes]:
        raise OSError("disk I/O error")

    with pytest.raises(OSError):
        await cache.get(("c", 0, 200), broken)
    assert await cache.get(("c", 0, 200), lambda: [b"ok"]) == [b"ok"]
