"""Replay links: a token that opens one replay and nothing else.

The GM shares a game session's replay (or the campaign's, as it stood when shared) with
``share_replay``; the ack's token goes in a link (``/replay#campaign=…&token=…``) that someone
without a seat at the table can open. The link's "member" (role ``replay``) is in the log like
any other, so ``remove_member`` revokes it, a retry of the share gets its first answer, and the
token is kept only hashed.

Such a connection is never subscribed to the table: no live events, no snapshot, no views. It
may send ``state_at`` and ``history`` only, within its replay's events, checked against the
campaign's state at each request (a link revoked meanwhile is refused at once). What it reads
holds nothing from before its first event: a history page starts there, and the table at any
moment (``state_at``, with its ``recent`` events and its views) is the replay's own table
(:func:`replay_first`, :mod:`poolhall.projections.replay_start`). It may not ask for a report.
"""

from __future__ import annotations

from typing import Any

from poolhall.events.errors import Rejected
from poolhall.events.messages import History, StateAt, Welcome
from poolhall.projections.campaign import CampaignState, Member

__all__ = ["replay_first", "replay_request", "replay_welcome"]


def _range(state: CampaignState, member: Member) -> tuple[int, int]:
    current = state.members.get(member.member)
    span = state.replay_range(current) if current is not None and current.active else None
    if span is None:
        raise Rejected("unauthorized", "this replay link was revoked", "$.token")
    return span


def replay_first(state: CampaignState, member: Member) -> int:
    """The first event ``member`` may read: its replay's for a replay link, 1 for a member of
    the table (whose reads reach back to the campaign's start)."""
    return _range(state, member)[0] if member.role == "replay" else 1


def replay_welcome(state: CampaignState, member: Member) -> Welcome:
    """The welcome of a replay link: its replay's first and last events, nothing live."""
    first, last = _range(state, member)
    assert state.system, "a campaign has its system from its first event on"
    return Welcome(role="replay", member=member.member, campaign=state.campaign,
                   name=state.name, system=state.system, head=last, replay_from=first)


def replay_request(state: CampaignState, member: Member, message: Any) -> History | StateAt:
    """The request a replay link may make, kept within its replay; anything else refused."""
    first, last = _range(state, member)
    if isinstance(message, StateAt):
        if not first <= message.seq <= last:
            raise Rejected("invalid", f"this replay link shows events {first} to {last}",
                           "$.seq")
        return message
    if isinstance(message, History):
        before = min(message.before, last + 1)
        limit = min(message.limit, max(0, before - first))
        if limit == 0:  # nothing of the replay before that point: an empty page
            return History(id=message.id, before=1, limit=1)
        return History(id=message.id, before=before, limit=limit)
    raise Rejected("forbidden", "a replay link only reads its replay", "$.type")
