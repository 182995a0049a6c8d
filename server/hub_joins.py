"""The join path inside a hub: a join is attached between batches, so the head cannot move
while it is.

First the joiner's copy is checked against this log's history (``since`` and its hash: a
copy that is not this log's is refused ``diverged``); then, for a snapshot, the last events
are made sure to be at hand. Attaching sends the welcome, then a snapshot of the table (a
join afresh, or further than :data:`RESUME_LIMIT` behind) or exactly the events it missed
(:mod:`poolhall.server.catch_up`), then the ``table`` message and the standing views, each sealed or
left out for what the joiner may not see yet (:mod:`poolhall.server.audience`); the live frames
follow, so there is never a gap nor a duplicate.
"""

from __future__ import annotations

import asyncio
import logging

from poolhall.events.codec import encode
from poolhall.events.log import ServerLog
from poolhall.events.messages import Welcome
from poolhall.server.audience import hidden_for, role_of, view_about
from poolhall.server.catch_up import schedule_catch_up
from poolhall.server.divergence import check_history, needs_lookup
from poolhall.server.hub_audience import Audience
from poolhall.server.hub_core import current_member
from poolhall.server.hub_owner import HubOwner
from poolhall.server.hub_views import HubViews
from poolhall.server.hub_work import JoinWork, refuse_unavailable
from poolhall.server.join_refusals import token_refused
from poolhall.server.log_throttle import LogThrottle
from poolhall.server.page_cache import PageCache
from poolhall.server.snapshots import SnapshotCache
from poolhall.server.table_feed import TableFeed

__all__ = ["RESUME_LIMIT", "HubJoins"]

logger = logging.getLogger("poolhall.server.hub")

RESUME_LIMIT = 1_000
"""Most events a resuming client is sent to catch up; one further behind gets a snapshot of
the table (one message, whatever the log's length) unless it asks for a replay."""



class HubJoins:
    """Checks and attaches the joins of one campaign's hub."""

    def __init__(self, owner: HubOwner, *, log: ServerLog, pages: PageCache,
                 snapshots: SnapshotCache, table: TableFeed, views: HubViews,
                 audience: Audience) -> None:
        self._owner = owner
        self._log = log
        self._pages = pages
        self._snapshots = snapshots
        self._table = table
        self._views = views
        self._audience = audience
        self._diverged = LogThrottle(60.0)
        self.joined_once = False
        """True once a member joined (:attr:`poolhall.server.hub.CampaignHub.joined_once`)."""

    async def admit(self, join: JoinWork) -> None:
        """Attach ``join`` if its history holds and what it needs is at hand; else it has
        been answered."""
        if await self._history_holds(join) and await self._recent_ready(join):
            self._attach(join)

    async def _history_holds(self, join: JoinWork) -> bool:
        """Refuse with ``diverged`` a join whose copy is not this log's history.

        The hash at ``since`` is the head's (in memory) or one indexed read, made off the
        event loop; the hub waits for it between batches, so the head does not move meanwhile.
        """
        if self._owner.stale:
            return True  # refused as unavailable by _attach: the head is not known
        head, found, campaign = self._owner.state.head, None, self._owner.campaign
        if needs_lookup(join.since, join.since_hash, head):
            try:
                found = (await asyncio.to_thread(
                    self._log.hashes_at, {campaign: join.since})).get(campaign)
            except Exception:
                logger.exception("reading the hash of %s #%d failed", campaign, join.since)
                refuse_unavailable([join])
                return False
        refusal = check_history(since=join.since, since_hash=join.since_hash, head=head,
                                head_hash=self._owner.head_hash, hash_at_since=found,
                                hidden=hidden_for(self._owner.state, join.viewer))
        if refusal is not None:
            self._log_diverged(refusal.message)
            if not join.done.done():
                join.done.set_exception(refusal)
            return False
        return not join.done.done()  # a join given up while we read is not attached

    def _log_diverged(self, message: str) -> None:
        """One line a minute at most: a member may join with a ``since`` past the head as
        often as the join rate allows, and a line per join filled the log (69 in 10 s)."""
        admitted = self._diverged.admit()
        if admitted is None:
            return
        held = admitted.held
        logger.warning("join to %s refused: %s%s", self._owner.campaign, message,
                       f" ({held} more such joins since the last line)" if held else "")

    def _attach(self, join: JoinWork) -> None:
        state, campaign = self._owner.state, self._owner.campaign
        head = state.head
        member = join.viewer
        hidden = hidden_for(state, member)
        """Private rolls this member may not see yet (:mod:`poolhall.server.audience`)."""
        welcome = Welcome(role=join.member.role, member=join.member.member,
                          campaign=campaign, name=state.name, system=state.system, head=head,
                          head_hash="" if head in hidden else self._owner.head_hash)
        if self._owner.stale:
            refuse_unavailable([join])
            return
        if current_member(state, join.member) is None:  # removed while the join was queued
            join.done.set_exception(token_refused(campaign, join.member))
            return
        subscriber = join.subscriber
        subscriber.member = member
        self._audience.subscribers.add(subscriber)
        subscriber.push(encode(welcome))
        if self._wants_snapshot(join):
            table = self._audience.table_of(subscriber)
            subscriber.push(self._snapshots.frame(table, self._owner.head_hash, hidden,
                                                  shared=self._owner.public.state is None))
        elif join.since < head:  # replayed from the log ahead of the live frames queued
            schedule_catch_up(subscriber, log=self._log, pages=self._pages,
                              campaign=campaign, since=join.since, head=head,
                              hidden=hidden)
        if self._table.joined(subscriber, subscriber.member, join.table):
            self._table.broadcast(self._audience.table_of)  # someone came: every watcher sees them
        else:
            self._table.send_to(subscriber, self._audience.table_of(subscriber))
        sees_all = role_of(state, member) in ("gm", "admin")
        for frame in self._views.standing_now():  # after the catch-up: views of the head
            if sees_all or not state.private or view_about(frame) not in state.private:
                subscriber.push(frame)
        self._views.start_computing()
        self.joined_once = True
        join.done.set_result(welcome)

    def _wants_snapshot(self, join: JoinWork) -> bool:
        """A join afresh or from further than :data:`RESUME_LIMIT` gets a snapshot, unless it
        asked for a replay; one within the limit gets exactly the events it missed."""
        head = self._owner.state.head
        if join.replay or join.since >= head:
            return False
        return join.since == 0 or head - join.since > RESUME_LIMIT

    async def _recent_ready(self, join: JoinWork) -> bool:
        """Make sure the last events are at hand for a snapshot (read once after a start or a
        reload, off the event loop, while the head cannot move); refuse the join if the log
        cannot be read."""
        if self._owner.stale or not self._wants_snapshot(join):
            return True
        if self._snapshots.needs_reading(self._owner.state.head):
            try:
                await self._snapshots.read(self._log, self._owner.campaign, self._owner.state.head)
            except Exception:
                logger.exception("reading the last events of %s failed", self._owner.campaign)
                refuse_unavailable([join])
                return False
        return not join.done.done()
