"""A joining client's catch-up: the events it missed, read from the log and written to it.

A hub schedules one when it attaches a subscriber behind the head (:meth:`Subscriber.push` of
the coroutine below, ahead of the live frames already queued for it). It is apart from
:mod:`poolhall.server.hub` because it is a pipeline of its own (reads of the log in worker threads,
ahead of the pages being written, shared through the page cache) that needs nothing of the
hub's state but the campaign and the range: the hub only decides *that* a client catches up.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Mapping

from poolhall.events.base import Visibility
from poolhall.events.errors import StoreError
from poolhall.events.log import ServerLog
from poolhall.server.event_frames import FramePage, frame_pages
from poolhall.server.page_cache import PageCache
from poolhall.server.subscriber import Subscriber

__all__ = ["CATCH_UP_PAGE", "CATCH_UP_READ", "CATCH_UP_READS_AHEAD", "schedule_catch_up"]

CATCH_UP_PAGE = 200
"""Events written per step of a catch-up: about 60 KB, the most a joining client holds in its
socket's buffer while it reads; one page of :func:`poolhall.server.event_frames.frame_pages`."""
CATCH_UP_READ = 2_000
"""Events read from the log and encoded per trip to a worker thread (about 650 KB, shared
through the page cache). Pages of 2,000 encoded one by one on the event loop once cost an
unrelated table 413 ms of p99 under a storm of since=0 joins; here they are encoded off it."""
CATCH_UP_READS_AHEAD = 2
"""Reads of one catch-up held ahead of the one whose pages are being written, so that a
client reading fast never waits for the log. They are made one after the other, not at once:
a read builds its frames in Python (about 2 µs an event, holding the interpreter lock), so
three reads started together took turns and the first page waited for all of them (the first
event of a cold catch-up 17-37 ms after the welcome, against 6 ms for one read alone)."""


def schedule_catch_up(subscriber: Subscriber, *, log: ServerLog, pages: PageCache,
                      campaign: str, since: int, head: int,
                      hidden: Mapping[int, Visibility] | None = None) -> None:
    """Replay ``(since, head]`` from the log ahead of the live frames already queued.

    The log is read :data:`CATCH_UP_READ` events per trip to a worker thread (a trip per
    page of 200 capped a catch-up near 100,000 events/s), up to
    :data:`CATCH_UP_READS_AHEAD` reads ahead of the pages being written, each starting when
    the one before it is done, so that reading the log and writing the socket overlap; each
    read is cached and shared by every catch-up that needs it. A read comes as pages of framed
    events (:class:`~poolhall.server.event_frames.FramePage`), each written as it is.

    A read holding one of the ``hidden`` events (private rolls this subscriber may not see
    yet) is its own, with those sealed, and not cached.
    """
    subscriber.push(_CatchUp(log, pages, campaign, since, head, dict(hidden or {})).run)


class _CatchUp:
    """One subscriber's catch-up (see :func:`schedule_catch_up`): the reads under way, oldest
    first, ``(after, upto, pages)`` each, and where the next read starts (``ahead``)."""

    def __init__(self, log: ServerLog, pages: PageCache, campaign: str, since: int, head: int,
                 sealed: dict[int, Visibility]) -> None:
        self.log = log
        self.pages = pages
        self.campaign = campaign
        self.head = head
        self.sealed = sealed
        self.reads: deque[tuple[int, int, asyncio.Future[list[FramePage]]]] = deque()
        self.ahead = since
        self.first = True
        self.finished = False

    async def run(self, target: Subscriber) -> None:
        """Write every read's pages in order, reading ahead as each is taken."""
        try:
            while True:
                self._read_ahead()
                if not self.reads:
                    return
                if not await self._write(target, *self.reads.popleft()):
                    return  # too slow: dropped, it resumes from what it got
        finally:
            self.finished = True
            self._cancel_reads()

    def _read_ahead(self) -> None:
        """Start the next read, unless one is under way, :data:`CATCH_UP_READS_AHEAD` are held
        beyond the one being written, or the head is reached; called again as each read ends,
        so the reads follow one another."""
        if (self.finished or self.ahead >= self.head or len(self.reads) > CATCH_UP_READS_AHEAD
                or (self.reads and not self.reads[-1][2].done())):
            return
        # Reads end on multiples of the read size, so that every catch-up shares them; the
        # first ends on the first page's end, so that page leaves at once (a read of 2,000
        # took ~6 ms before the first event, one of 200 under 1 ms).
        size = CATCH_UP_PAGE if self.first else CATCH_UP_READ
        self.first = False
        upto = min((self.ahead // size + 1) * size, self.head)
        reading = self._read(self.ahead, upto)
        self.reads.append((self.ahead, upto, reading))
        self.ahead = upto
        reading.add_done_callback(lambda _: self._read_ahead())

    def _read(self, after: int, upto: int) -> asyncio.Future[list[FramePage]]:
        """The pages of ``(after, upto]``: from the cache (shared), or this subscriber's own
        read if it holds an event sealed for it."""
        own = {seq: how for seq, how in self.sealed.items() if after < seq <= upto}
        if own:
            return asyncio.ensure_future(asyncio.to_thread(
                frame_pages, self.log, self.campaign, after, upto, CATCH_UP_PAGE, own))
        return asyncio.ensure_future(self.pages.get(
            (self.campaign, after, upto),
            functools.partial(frame_pages, self.log, self.campaign, after, upto,
                              CATCH_UP_PAGE)))

    async def _write(self, target: Subscriber, after: int, upto: int,
                     reading: asyncio.Future[list[FramePage]]) -> bool:
        """Write one read's pages; False once the subscriber is dropped as too slow."""
        for page in await reading:
            if not await target.send_page(page.frames):
                return False
            after += page.events
        if after < upto:  # the log holds less than the head: never skip
            raise StoreError(f"{self.campaign} has no events after #{after}")
        return True

    def _cancel_reads(self) -> None:
        """The reads ahead no one will take (each still fills the cache)."""
        for _, _, reading in self.reads:
            reading.cancel()
            if reading.done() and not reading.cancelled():
                reading.exception()  # retrieved: the failure was raised or is moot
