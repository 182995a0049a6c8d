"""What a campaign's hub keeps to answer joins from afar and history requests cheaply.

A join afresh gets a snapshot of the table (:mod:`poolhall.projections.snapshot`), which carries the
last events of the log as frames: :class:`SnapshotCache` keeps those frames as they are
broadcast (reading them from the log once after a start or a reload) and the encoded snapshot
of the current head, so a hundred joins to a quiet table cost one encoding. History pages and
catch-ups are read and encoded in a worker thread (:func:`encoded_page`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Mapping

import msgspec

from poolhall.events.base import Visibility
from poolhall.events.codec import encode
from poolhall.events.errors import Rejected
from poolhall.events.log import ServerLog, to_recorded
from poolhall.events.messages import History, OutgoingHistoryPage, StateAt
from poolhall.projections.campaign import CampaignState, evolve, fold_sealed
from poolhall.projections.replay_start import replay_start
from poolhall.projections.snapshot import RECENT_EVENTS, snapshot_of
from poolhall.server.audience import fold_public, sealed_frame
from poolhall.server.event_frames import event_frames
from poolhall.server.stored_snapshots import Folded, SnapshotStore, fold_from

__all__ = ["SnapshotCache", "encoded_page", "history_page", "replay_at", "snapshot_at"]


Hidden = Mapping[int, Visibility]
"""The seqs a reader may not see yet (private rolls), sealed in what it is sent."""


def encoded_page(log: ServerLog, campaign: str, after: int, upto: int,
                 hidden: Hidden | None = None) -> list[bytes]:
    """The frames of events ``(after, upto]`` (the ``hidden`` ones sealed); called in a
    worker thread, so the event loop only writes them."""
    return event_frames(log, campaign, after, upto, hidden)


async def history_page(log: ServerLog, campaign: str, head: int, request: History,
                       hidden: Hidden | None = None) -> bytes:
    """The encoded answer to ``history``: the latest ``limit`` events before ``before``,
    oldest first (the ``hidden`` ones sealed), read in a worker thread."""
    upto = min(request.before - 1, head)
    frames = (await asyncio.to_thread(encoded_page, log, campaign,
                                      max(0, upto - request.limit), upto, hidden)
              if upto > 0 else [])
    return encode(OutgoingHistoryPage(id=request.id, before=request.before,
                                      events=[msgspec.Raw(frame) for frame in frames]))


def snapshot_at(log: ServerLog, store: SnapshotStore, campaign: str, request: StateAt,
                every: int, first: int = 1, hidden: Hidden | None = None,
                ) -> tuple[bytes, CampaignState]:
    """The encoded answer to ``state_at`` (the snapshot of the table after ``request.seq``:
    the nearest stored snapshot at or before it, and the events between, with the last events
    up to it as ``recent``) and the state it shows. Called in a worker thread. Raises
    :class:`Rejected` if the log has no event ``seq`` yet.

    ``first`` > 1 (a replay link's first event, ``request.seq`` at or after it): the table
    is the replay's own, :func:`replay_at`, and ``recent`` holds no event before ``first``.

    ``hidden``: the private rolls the reader may not see, left out of the table and sealed in
    ``recent`` (:mod:`poolhall.server.audience`)."""
    hidden = hidden or {}
    if first > 1:
        state, head_hash = replay_at(log, store, campaign, first, request.seq, every, hidden)
    elif hidden:
        state, head_hash = fold_public(log, store, campaign, request.seq, hidden, every)
    else:
        state, head_hash = fold_from(log, store, campaign, upto=request.seq, every=every)
    if state.head != request.seq:
        raise Rejected("invalid", f"there is no event #{request.seq}: the campaign's last "
                       f"event is #{state.head}", "$.seq")
    recent = encoded_page(log, campaign, max(first - 1, request.seq - RECENT_EVENTS),
                          request.seq, hidden)
    return encode(snapshot_of(state, head_hash, [msgspec.Raw(frame) for frame in recent],
                              id=request.id)), state


def replay_at(log: ServerLog, store: SnapshotStore, campaign: str, first: int, seq: int,
              every: int, hidden: Hidden | None = None) -> Folded:
    """The table after event ``seq`` as a replay from event ``first`` shows it: the table
    before ``first`` cut to what a replay may show (:func:`poolhall.projections.replay_start`), with
    events ``first`` to ``seq`` folded onto it. A seek costs the fold of the replay's events
    up to it (a game session's: hundreds or a few thousand), as stored snapshots within the
    replay hold what came before it. The ``hidden`` events (private rolls not yet revealed)
    are left out."""
    hidden = hidden or {}
    before = (fold_public(log, store, campaign, first - 1, hidden, every) if hidden
              else fold_from(log, store, campaign, upto=first - 1, every=every))
    state, head_hash = replay_start(before.state), before.head_hash
    last = state.head
    for row in log.rows(campaign, first - 1, seq):
        if row.seq in hidden:
            fold_sealed(state, to_recorded(row))
            head_hash = ""
        else:
            evolve(state, to_recorded(row))
            head_hash = row.hash
        last = row.seq
    state.head = last  # a hidden last event still moves the head: live events follow it
    return Folded(state, head_hash)


class SnapshotCache:
    """The last :data:`~poolhall.projections.snapshot.RECENT_EVENTS` event frames of one campaign,
    and its snapshot encoded once per head."""

    def __init__(self) -> None:
        self._recent: deque[tuple[int, bytes]] = deque(maxlen=RECENT_EVENTS)
        self._encoded: tuple[int, bytes] | None = None

    def add(self, seq: int, frame: bytes) -> None:
        """Event ``seq``'s frame as broadcast whole (events arrive in order)."""
        self._recent.append((seq, frame))

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
        first = max(0, head - RECENT_EVENTS)
        frames = await asyncio.to_thread(encoded_page, log, campaign, first, head)
        self._recent.clear()
        self._recent.extend(enumerate(frames, start=first + 1))

    def frame(self, state: CampaignState, head_hash: str, hidden: Hidden | None = None,
              *, shared: bool = True) -> bytes:
        """The snapshot of ``state`` at its head, encoded (once per head); for a reader who
        may not see the ``hidden`` events, with those sealed. ``shared``: ``state`` is the
        table everyone sees, so its encoding is kept for the next join; while a private roll
        is pending it is not (members see different tables), and each join is encoded."""
        if hidden or not shared:
            hidden = hidden or {}
            recent = [msgspec.Raw(sealed_frame(frame, hidden[seq]) if seq in hidden else frame)
                      for seq, frame in self._recent]
            return encode(snapshot_of(state, "" if state.head in hidden else head_hash,
                                      recent))
        if self._encoded is None or self._encoded[0] != state.head:
            recent = [msgspec.Raw(frame) for _, frame in self._recent]
            self._encoded = (state.head, encode(snapshot_of(state, head_hash, recent)))
        return self._encoded[1]
