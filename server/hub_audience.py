"""A hub's audience: who is connected to the table, and which frame each of them is sent.

An event's frame goes whole to whoever may see it and sealed to the others while it is a
pending private roll (:mod:`poolhall.server.audience` decides who sees what; this sends it); a view
about a pending private roll (its odds) goes to the GM only; at the reveal every member gets
the rolls whole; a member removed from the campaign is closed once they have seen it. A
subscriber that fell behind is dropped here and resumes from the log when it returns.
"""

from __future__ import annotations

import asyncio
import logging

import msgspec

from poolhall.events import core
from poolhall.events.base import Event
from poolhall.events.codec import encode
from poolhall.events.log import ServerLog
from poolhall.events.messages import OutgoingRevealed
from poolhall.projections.campaign import CampaignState
from poolhall.projections.privacy import pending_seqs
from poolhall.server.audience import role_of, view_about
from poolhall.server.hub_core import Publish
from poolhall.server.hub_owner import HubOwner
from poolhall.server.join_refusals import REMOVED
from poolhall.server.snapshots import SnapshotCache, encoded_page
from poolhall.server.subscriber import Subscriber

__all__ = ["Audience"]

logger = logging.getLogger("poolhall.server.hub")



class Audience:
    """The subscribers of one campaign's hub, and what each is sent."""

    def __init__(self, owner: HubOwner, snapshots: SnapshotCache) -> None:
        self._owner = owner
        self._snapshots = snapshots
        """Every event frame broadcast is kept there too, for the snapshots of the head."""
        self.subscribers: set[Subscriber] = set()

    def close_removed(self, events: list[Event]) -> None:
        """Close the connections of members these events removed, once they have seen it."""
        removed = {event.member for event in events if isinstance(event, core.MemberRemoved)}
        if not removed:  # nearly every batch: no walk over the table's connections
            return
        for subscriber in tuple(self.subscribers):
            if subscriber.member in removed:
                self.subscribers.discard(subscriber)
                subscriber.close_after_queued(1008, REMOVED)

    def broadcast(self, frame: bytes) -> None:
        for subscriber in tuple(self.subscribers):
            subscriber.push(frame)
            if subscriber.dropped:  # it fell behind: it resumes from the log when it returns
                self.subscribers.discard(subscriber)

    def publish(self, publish: Publish) -> None:
        """Broadcast an event's frame: whole to whoever may see it, sealed to the others
        while it is a pending private roll (:meth:`HubCore.publish`)."""
        self._snapshots.add(publish.seq, publish.frame)
        if publish.sealed is None:
            self.broadcast(publish.frame)
            return
        for subscriber in tuple(self.subscribers):
            subscriber.push(publish.frame_for(subscriber.member))
            if subscriber.dropped:
                self.subscribers.discard(subscriber)

    def broadcast_view(self, frame: bytes) -> None:
        """Broadcast a view; one about a pending private roll (its odds) goes to the GM only."""
        if not self._owner.state.private or view_about(frame) not in self._owner.state.private:
            self.broadcast(frame)
            return
        for subscriber in tuple(self.subscribers):
            if role_of(self._owner.state, subscriber.member) in ("gm", "admin"):
                subscriber.push(frame)

    def table_of(self, subscriber: Subscriber) -> CampaignState:
        """The table ``subscriber`` sees (:meth:`PublicTable.for_member`)."""
        return self._owner.public.for_member(self._owner.state, subscriber.member)

    async def reveal(self, pending: set[int], log: ServerLog, campaign: str) -> None:
        """Send every member the events of ``pending`` that are no longer pending (their
        seed was revealed), whole, once the reveal is durable."""
        revealed = sorted(pending - set(pending_seqs(self._owner.state.private)))
        if not revealed:
            return
        wanted = set(revealed)
        try:
            frames = await asyncio.to_thread(lambda: [
                frame for seq, frame in zip(range(revealed[0], revealed[-1] + 1),
                                            encoded_page(log, campaign,
                                                         revealed[0] - 1, revealed[-1]),
                                            strict=False) if seq in wanted])
        except Exception:  # they are in the log: a join or a history page shows them
            logger.exception("reading the revealed rolls of %s failed", campaign)
            return
        self.broadcast(encode(OutgoingRevealed(events=[msgspec.Raw(f) for f in frames])))
