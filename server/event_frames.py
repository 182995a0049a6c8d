"""The ``event`` frames of stored rows, built in Python from the log's contract.

What a catch-up, a history page and a snapshot's recent events send: each row's
:class:`~poolhall.events.messages.OutgoingEventFrame` (the stored payload less what no client
receives, :mod:`poolhall.events.client_payload`), and for a catch-up, pages of them framed as
websocket text frames back to back (:func:`poolhall.server.subscriber.text_frames`), so that a page
is written to the socket as one bytes object. Called in worker threads, never on the event
loop.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from poolhall.events.base import Visibility
from poolhall.events.client_payload import client_payload
from poolhall.events.codec import encode
from poolhall.events.log import ServerLog
from poolhall.events.messages import OutgoingEventFrame
from poolhall.server.audience import sealed_event
from poolhall.server.subscriber import text_frames

__all__ = ["FramePage", "event_frames", "frame_pages"]

class FramePage(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A page of a catch-up: how many events it holds and their text frames, back to back."""

    events: int
    frames: bytes


def event_frames(log: ServerLog, campaign: str, after: int, upto: int,
                 hidden: Mapping[int, Visibility] | None = None) -> list[bytes]:
    """The JSON of ``OutgoingEventFrame`` for each event ``(after, upto]``, in order; the
    ``hidden`` seqs (private rolls the reader may not see) sealed, as
    :func:`poolhall.server.audience.sealed_frame` seals a live one.

    The range is read in one statement (a catch-up's reads are 2,000 events): page after
    page of :data:`~poolhall.events.log_contract.PAGE_ROWS` cost 0.1 µs of CPU an event more.
    """
    hidden = hidden or {}
    rows = log.read(campaign, after, upto, limit=max(upto - after, 0))
    return [encode(OutgoingEventFrame(
        seq=row.seq, at=row.at, actor=row.actor, command=row.command_id,
        event=msgspec.Raw(client_payload(row.type, row.payload)), hash=row.hash))
        if row.seq not in hidden else encode(OutgoingEventFrame(
            seq=row.seq, at=row.at, actor=row.actor, command=row.command_id,
            event=msgspec.Raw(sealed_event(row.payload, hidden[row.seq])), hash=""))
        for row in rows]


def frame_pages(log: ServerLog, campaign: str, after: int, upto: int, size: int,
                hidden: Mapping[int, Visibility] | None = None) -> list[FramePage]:
    """Events ``(after, upto]`` in pages ending on multiples of ``size`` (the first shorter
    if the range starts inside one), each the text frames of its events back to back."""
    frames = event_frames(log, campaign, after, upto, hidden)
    pages: list[FramePage] = []
    start = 0
    seq = after
    while start < len(frames):
        end = start + (seq // size + 1) * size - seq
        page = frames[start:end]
        pages.append(FramePage(len(page), text_frames(page)))
        seq += len(page)
        start = end
    return pages
