"""What a campaign's hub keeps to answer joins from afar and history requests cheaply.

A join afresh gets a snapshot of the table (:mod:`projections.snapshot`), which carries the
last events of the log as frames: :class:`SnapshotCache` keeps those frames as they are
broadcast (reading them from the log once after a start or a reload) and the encoded snapshot
of the current head, so a hundred joins to a quiet table cost one encoding. History pages and
catch-ups are read and encoded in a worker thread (:func:`encoded_page`).
"""

from __future__ import annotations

import asyncio
from collections import deque

import msgspec

from events.codec import encode
from events.errors import Rejected
from events.log import ServerLog
from events.messages import History, OutgoingHistoryPage, StateAt
from projections.campaign import CampaignState
from projections.snapshot import RECENT_EVENTS, snapshot_of
from server.event_frames import event_frames
from server.stored_snapshots import SnapshotStore, fold_from

__all__ = ["SnapshotCache", "encoded_page", "history_page", "snapshot_at"]


def encoded_page(log: ServerLog, campaign: str, after: int, upto: int) -> list[bytes]:
    """The frames of events ``(after, upto]``; called in a worker thread, so the event loop
    only writes them."""
    return event_frames(log, campaign, after, upto)


async def history_page(log: ServerLog, campaign: str, head: int, request: History) -> bytes:
    """The encoded answer to ``history``: the latest ``limit`` events before ``before``,
    oldest first, read in a worker thread."""
    upto = min(request.before - 1, head)
    frames = (await asyncio.to_thread(encoded_page, log, campaign,
                                      max(0, upto - request.limit), upto)
              if upto > 0 else [])
    return encode(OutgoingHistoryPage(id=request.id, before=request.before,
                                      events=[msgspec.Raw(frame) for frame in frames]))


def snapshot_at(log: ServerLog, store: SnapshotStore, campaign: str, request: StateAt,
                every: int) -> tuple[bytes, CampaignState]:
    """The encoded answer to ``state_at`` (the snapshot of the table after ``request.seq``:
    the nearest stored snapshot at or before it, and the events between, with the last events
    up to it as ``recent``) and the state it shows. Called in a worker thread. Raises
    :class:`Rejected` if the log has no event ``seq`` yet."""
    state, head_hash = fold_from(log, store, campaign, upto=request.seq, every=every)
    if state.head != request.seq:
        raise Rejected("invalid", f"there is no event #{request.seq}: the campaign's last "
                       f"event is #{state.head}", "$.seq")
    recent = encoded_page(log, campaign, max(0, request.seq - RECENT_EVENTS), request.seq)
    return encode(snapshot_of(state, head_hash, [msgspec.Raw(frame) for frame in recent],
                              id=request.id)), state


class SnapshotCache:
    """The last :data:`~projections.snapshot.RECENT_EVENTS` event frames of one campaign,
    and its snapshot encoded once per head."""

    def __init__(self) -> None:
        self._recent: deque[bytes] = deque(maxlen=RECENT_EVENTS)
        self._encoded: tuple[int, bytes] | None = None

    def add(self, frame: bytes) -> None:
        """An event frame as broadcast (events arrive in order)."""
        self._recent.append(frame)

    def clear(self) -> None:
        """Forget everything (the state was reloaded from the log)."""
        self._recent.clear()
        self._encoded = None

    def needs_reading(self, head: int) -> bool:
        """True while the frames held are fewer than the last events at ``head``."""
        return len(self._recent) < min(RECENT_EVENTS, head)

    async def read(self, log: ServerLog, campaign: str, head: int) -> None:
        """Read the last events from the log, off the event loop (the hub waits for it
        between batches, so the head does not move meanwhile)."""
        frames = await asyncio.to_thread(encoded_page, log, campaign,
                                         max(0, head - RECENT_EVENTS), head)
        self._recent.clear()
        self._recent.extend(frames)

    def frame(self, state: CampaignState, head_hash: str) -> bytes:
        """The snapshot of ``state`` at its head, encoded (once per head)."""
        if self._encoded is None or self._encoded[0] != state.head:
            recent = [msgspec.Raw(frame) for frame in self._recent]
            self._encoded = (state.head, encode(snapshot_of(state, head_hash, recent)))
        return self._encoded[1]
