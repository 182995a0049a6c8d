"""A hub's reads: history pages, the table at an earlier seq and its views.

None waits in the hub's queue nor holds the event loop: each is read (and folded) in a worker
thread when the connection that asked has been admitted for it, and what the asker may not
see yet is sealed or left out (:func:`poolhall.server.audience.hidden_for`).
"""

from __future__ import annotations

import asyncio

from poolhall.events.log import ServerLog
from poolhall.events.messages import History, StateAt
from poolhall.projections.campaign import CampaignState
from poolhall.server.audience import hidden_for
from poolhall.server.hub_owner import HubOwner
from poolhall.server.hub_views import HubViews
from poolhall.server.snapshots import history_page, snapshot_at
from poolhall.server.stored_snapshots import SnapshotStore

__all__ = ["HubReads"]



class HubReads:
    """The reads of one campaign's hub, made by the connections that ask."""

    def __init__(self, owner: HubOwner, *, log: ServerLog, store: SnapshotStore, views: HubViews,
                 snapshot_every: int) -> None:
        self._owner = owner
        self._log = log
        self._store = store
        self._views = views
        self._every = snapshot_every

    async def history_page(self, request: History, member: str | None = None) -> bytes:
        """The encoded page of events before ``request.before``: history never waits in the
        hub's queue nor holds the event loop. Called by the connection that asked, once
        rate-limited; the private rolls ``member`` (``None``: the admin) may not see yet are
        sealed."""
        return await history_page(self._log, self._owner.campaign, self._owner.state.head, request,
                                  hidden_for(self._owner.state, member))

    async def state_at(self, request: StateAt, first: int = 1, member: str | None = None,
                       ) -> tuple[bytes, CampaignState]:
        """The encoded snapshot of the table after event ``request.seq`` (the nearest stored
        snapshot and the events after it, read and folded in a worker thread), and that state:
        like history, outside the hub's queue. Raises :class:`Rejected` for a seq past the
        log's head. ``first``: a replay link's first event (the table it shows holds nothing
        from before it: :func:`poolhall.server.snapshots.replay_at`); ``member``: who asks
        (``None``: the admin), whose table leaves out the private rolls they may not see yet."""
        hidden = hidden_for(self._owner.state, member)
        return await asyncio.to_thread(snapshot_at, self._log, self._store, self._owner.campaign,
                                       request, self._every, first, hidden)

    async def views_at(self, request: StateAt, state: CampaignState) -> bytes:
        """The encoded ``views_at`` answer for ``state`` (a past table): its standing views,
        their odds from the result cache or the workers (:meth:`HubViews.views_at`)."""
        return await self._views.views_at(request, state)
