"""Framed pages of the log, shared by every catch-up that needs them.

A member may still ask for a whole campaign (``replay``, or resuming up to the resume limit
behind). Each page of 200 frames was read and encoded again for every such join; eight
members re-joining a 30,000-event campaign with ``replay`` nonstop had a worker thread
encoding ~500,000 frames a second, and its hold on the interpreter lock raised another
table's p99 from 4.5 to 33.5 ms. The log is append-only, so the frames of events
``(after, upto]`` never change once written: a page encoded once serves every catch-up that
asks for it, and concurrent requests for the same page share one read.

A read is kept as the store gives it: a few pages, each the websocket frames of its events
back to back in one bytes object (:class:`poolhall.server.event_frames.FramePage`), so a cached read
of 2,000 events is about ten objects, not two thousand.

The cache lives on the event loop (no lock): the loading itself runs in a worker thread.
It is bounded in bytes across all campaigns, least recently used first out.
"""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from collections.abc import Callable

from poolhall.server.event_frames import FramePage

__all__ = ["PAGE_CACHE_BYTES", "PageCache"]

PAGE_CACHE_BYTES = 16 * 2**20
"""Frame bytes kept at most (about 300 pages of 200 frames: a 60,000-event campaign)."""

PageKey = tuple[str, int, int]
"""A page: the campaign and the events ``(after, upto]``."""


class PageCache:
    """Framed reads by campaign and range; least recently used out past ``max_bytes``."""

    def __init__(self, max_bytes: int = PAGE_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._pages: OrderedDict[PageKey, list[FramePage]] = OrderedDict()
        self._sizes: dict[PageKey, int] = {}
        self._loading: dict[PageKey, asyncio.Future[list[FramePage]]] = {}
        self.size = 0
        """Bytes of frames held."""
        self.hits = 0
        self.misses = 0

    async def get(self, key: PageKey, load: Callable[[], list[FramePage]]) -> list[FramePage]:
        """The read ``key``, from the cache, from a load already under way, or from ``load``
        run in a worker thread (then kept).

        The load is a task of its own: a catch-up that stops (its client left) while waiting
        does not cancel the read another catch-up shares, and what was read is kept.
        """
        page = self._pages.get(key)
        if page is not None:
            self._pages.move_to_end(key)
            self.hits += 1
            return page
        loading = self._loading.get(key)
        if loading is not None:
            self.hits += 1
        else:
            self.misses += 1
            loading = asyncio.ensure_future(asyncio.to_thread(load))
            self._loading[key] = loading
            loading.add_done_callback(functools.partial(self._loaded, key))
        return await asyncio.shield(loading)

    def _loaded(self, key: PageKey, loading: asyncio.Future[list[FramePage]]) -> None:
        """Keep a finished load (a failed one is not kept: its error went to its waiters)."""
        del self._loading[key]
        if not loading.cancelled() and loading.exception() is None:
            self._keep(key, loading.result())

    def _keep(self, key: PageKey, page: list[FramePage]) -> None:
        size = sum(len(part.frames) for part in page)
        if size > self.max_bytes:
            return
        self._pages[key] = page
        self._sizes[key] = size
        self.size += size
        while self.size > self.max_bytes:
            oldest, _ = self._pages.popitem(last=False)
            self.size -= self._sizes.pop(oldest)
