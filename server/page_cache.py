"""Encoded pages of the log, shared by every catch-up that needs them.

A member may still ask for a whole campaign (``replay``, or resuming up to the resume limit
behind). Each page of 200 frames was read and encoded again for every such join; eight
members re-joining a 30,000-event campaign with ``replay`` nonstop had a worker thread
encoding ~500,000 frames a second, and its hold on the interpreter lock raised another
table's p99 from 4.5 to 33.5 ms. The log is append-only, so the frames of events
``(after, upto]`` never change once written: a page encoded once serves every catch-up that
asks for it, and concurrent requests for the same page share one read.

The cache lives on the event loop (no lock): the loading itself runs in a worker thread.
It is bounded in bytes across all campaigns, least recently used first out.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["PAGE_CACHE_BYTES", "PageCache"]

PAGE_CACHE_BYTES = 16 * 2**20
"""Encoded frames kept at most (about 300 pages of 200 frames: a 60,000-event campaign)."""

PageKey = tuple[str, int, int]
"""A page: the campaign and the events ``(after, upto]``."""


class PageCache:
    """Encoded pages by campaign and range; least recently used out past ``max_bytes``."""

    def __init__(self, max_bytes: int = PAGE_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._pages: OrderedDict[PageKey, list[bytes]] = OrderedDict()
        self._sizes: dict[PageKey, int] = {}
        self._loading: dict[PageKey, asyncio.Future[list[bytes]]] = {}
        self.size = 0
        """Bytes of frames held."""
        self.hits = 0
        self.misses = 0

    async def get(self, key: PageKey, load: Callable[[], list[bytes]]) -> list[bytes]:
        """The page ``key``, from the cache, from a load already under way, or from ``load``
        run in a worker thread (then kept)."""
        page = self._pages.get(key)
        if page is not None:
            self._pages.move_to_end(key)
            self.hits += 1
            return page
        loading = self._loading.get(key)
        if loading is not None:
            self.hits += 1
            return await asyncio.shield(loading)
        self.misses += 1
        future: asyncio.Future[list[bytes]] = asyncio.get_running_loop().create_future()
        self._loading[key] = future
        try:
            page = await asyncio.to_thread(load)
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(error)
                future.exception()  # retrieved: a failed load no one waits for is not logged
            raise
        finally:
            del self._loading[key]
        future.set_result(page)
        self._keep(key, page)
        return page

    def _keep(self, key: PageKey, page: list[bytes]) -> None:
        size = sum(len(frame) for frame in page)
        if size > self.max_bytes:
            return
        self._pages[key] = page
        self._sizes[key] = size
        self.size += size
        while self.size > self.max_bytes:
            oldest, _ = self._pages.popitem(last=False)
            self.size -= self._sizes.pop(oldest)
