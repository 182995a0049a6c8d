"""A hub's views: the derived data (exact odds, sheets) the table is sent as its state changes.

The game system says which views a batch's events changed and which views the table stands
with (sent to each joining member); a view ready at once is sent with the batch, one that needs
computing is queued (:class:`~poolhall.server.views.ViewQueue`), computed by the worker processes
and broadcast when it arrives, if it is still the current one. This is apart from
:mod:`poolhall.server.hub` because it is a flow of its own beside the hub's (tasks, a queue, a
cache) that must never take the table down: the hub only tells it when the state changed, asks it
what to send, and gives it the broadcast to use.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from poolhall.events.base import Event
from poolhall.events.codec import encode
from poolhall.events.messages import StateAt, View, ViewsAt
from poolhall.projections.campaign import CampaignState
from poolhall.server import rules
from poolhall.server.hub_owner import HubOwner
from poolhall.server.views import Job, NotComputed, ViewQueue, ViewResult, ViewSpec, ViewWorkers

__all__ = ["HubViews"]

logger = logging.getLogger("poolhall.server.hub")
"""The hub's logger: these lines are the hub's, as operators and their filters know them."""



class HubViews:
    """One campaign's views: the standing ones, and those being computed off the loop."""

    def __init__(self, owner: HubOwner, *, broadcast: Callable[[bytes], None],
                 workers: ViewWorkers, backlog: int) -> None:
        self._owner = owner
        self._broadcast = broadcast
        self._workers = workers
        self.queue = ViewQueue(workers.cache, in_flight=workers.workers, backlog=backlog)
        self._computing: set[asyncio.Task[None]] = set()
        self._standing: list[ViewSpec] | None = None
        """The standing views of the state as it is, declared at the first join after a change
        (a reconnecting table joins at once); their odds come from the cache or the workers."""
        self._standing_frames: list[bytes] | None = None
        """Those views encoded, once every one of them is complete."""

    @property
    def busy(self) -> bool:
        """Whether a view is being computed: a hub is not idle (nor unloaded) meanwhile."""
        return bool(self._computing)

    def state_changed(self) -> None:
        """The state changed (a batch, a reload): the standing views are declared again."""
        self._standing = None

    def of_events(self, changed: list[Event]) -> list[View]:
        """The views these events changed that can be sent now; the others are computed off
        the loop and broadcast when they arrive (:meth:`_compute`)."""
        if not changed:
            return []
        system = rules.rules(self._owner.state.system)
        specs = self._derived(lambda state: system.views(state, changed))
        if not specs:  # most batches (a free roll, say) change no view: nothing to start
            return []
        ready = [view for spec in specs if (view := self.queue.offer(spec)) is not None]
        self.start_computing()
        return ready

    def start_computing(self) -> None:
        """Start computing the queued views the workers have room for."""
        campaign = self._owner.state.campaign
        for key, job in self.queue.take():
            task = asyncio.create_task(self._compute(key, job), name=f"view-{campaign}-{key}")
            self._computing.add(task)
            task.add_done_callback(self._computing.discard)

    async def stop(self) -> None:
        """Cancel the computations under way: odds owed to a table that is going away."""
        for task in tuple(self._computing):
            task.cancel()
        await asyncio.gather(*self._computing, return_exceptions=True)

    async def _compute(self, key: str, job: Job) -> None:
        """Compute one view in a worker; broadcast it if it is still the current one."""
        try:
            outcome: ViewResult | NotComputed = await self._workers.compute(job)
        except NotComputed as error:
            outcome = error
        except Exception:  # derived data must never take the table down
            logger.exception("computing %s of %s failed", key, self._owner.state.campaign)
            outcome = NotComputed("the computation failed")
        view = self.queue.finished(key, job, outcome)
        if view is not None and not self._owner.stale:
            self._broadcast(encode(view))
        self.start_computing()

    def _derived(self, views: Callable[[CampaignState], list[ViewSpec]]) -> list[ViewSpec]:
        """Call one of the game system's view functions; a failure costs only the views."""
        return self._derived_of(self._owner.state, views)

    def _derived_of(self, state: CampaignState,
                    views: Callable[[CampaignState], list[ViewSpec]]) -> list[ViewSpec]:
        """One of the game system's view functions of ``state``; a failure costs only them."""
        try:
            return list(views(state))
        except Exception:  # derived data must never take the table down
            logger.exception("the views of %s failed", state.campaign)
            return []

    async def views_at(self, request: StateAt, state: CampaignState) -> bytes:
        """The encoded ``views_at`` answer: the standing views of ``state`` (a past table),
        their odds from the result cache or the workers (never the event loop), each within
        the workers' time budget; a view whose odds were not computed says why."""
        specs = self._derived_of(state, rules.rules(state.system).standing_views)
        views: list[View] = []
        for spec in specs:
            if isinstance(spec, View):
                views.append(spec)
                continue
            result = self.queue.cache.get(spec.job)
            if result is None:
                try:
                    result = await self._workers.compute(spec.job)
                except NotComputed as why:
                    views.append(spec.not_computed(str(why)))
                    continue
                self.queue.cache.put(spec.job, result)
            views.append(spec.complete(result))
        return encode(ViewsAt(id=request.id, seq=request.seq, views=views))

    def standing_now(self) -> list[bytes]:
        """The standing views known now; the others are computed and broadcast when ready."""
        if self._standing_frames is not None and self._standing is not None:
            return self._standing_frames
        if self._standing is None:  # the state changed: declare them again
            system = rules.rules(self._owner.state.system)
            self._standing, self._standing_frames = self._derived(system.standing_views), None
        views = []
        for spec in self._standing:
            owed = not isinstance(spec, View) and self.queue.waits_for(spec.key)
            view = self.queue.offer(spec)
            if view is not None and owed:  # the cache answered before the table's own
                self._broadcast(encode(view))  # computation came back: it is not sent now
            views.append(view)
        frames = [encode(view) for view in views if view is not None]
        if len(frames) == len(views):
            self._standing_frames = frames
        return frames
