"""Following a shared log inside a hub: what other processes appended, read and folded here.

On a shared log (PostgreSQL, several ``poolhall serve`` processes) another process may append
to a campaign this hub serves. Its notification asks the hub to *follow* (read the rows after its
head, fold and broadcast them between two batches); a join whose token another process issued
waits for that follow to end (:meth:`poolhall.server.hub.CampaignHub.catch_up`). However many
notifications arrive, at most one follow is queued at a time, and one read serves every waiter.

The read itself (:func:`rows_after`) runs off the event loop: the follow, the reload after a
failure and a batch that lost a race to another process all read the log this one way.
"""

from __future__ import annotations

import asyncio

from poolhall.events.log import ServerLog, StoredRow

__all__ = ["FollowRequests", "release", "rows_after"]


async def rows_after(log: ServerLog, campaign: str, after: int,
                     upto: int | None = None) -> list[StoredRow]:
    """The rows of ``campaign`` after seq ``after`` (up to ``upto``, or all), read in a worker
    thread so the event loop keeps serving the other tables meanwhile."""
    return await asyncio.to_thread(lambda: list(log.rows(campaign, after, upto)))


class FollowRequests:
    """Whether a follow is queued in the hub's inbox, and who waits for it to end."""

    def __init__(self) -> None:
        self.queued = False
        """True from when a follow is queued until the hub takes it (or refuses its batch)."""
        self._waiters: list[asyncio.Future[None]] = []

    def ask(self) -> bool:
        """A follow is wanted: whether the caller must queue one (none is queued yet)."""
        if self.queued:
            return False
        self.queued = True
        return True

    def wait(self) -> asyncio.Future[None]:
        """A future the end of the next follow completes (:meth:`take`)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        return waiter

    def forget(self, waiter: asyncio.Future[None]) -> None:
        """Nobody will take a follow (the hub is closing): ``waiter`` is dropped."""
        self._waiters.remove(waiter)

    def take(self) -> list[asyncio.Future[None]]:
        """The follow queued is being carried out: its waiters, for :func:`release` once it
        is over. A notification arriving meanwhile queues the next one."""
        self.queued = False
        waiters, self._waiters = self._waiters, []
        return waiters


def release(waiters: list[asyncio.Future[None]]) -> None:
    """The follow these waited for is over, read or not: let them go on."""
    for waiter in waiters:
        if not waiter.done():
            waiter.set_result(None)
