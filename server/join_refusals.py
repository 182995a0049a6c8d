"""What a join with a token that opens no seat is told: in general, or that its member was
removed.

"this token does not open 'night-of-the-long-dice'" was shown at the top of a removed
player's page, which then looked broken rather than closed to them. The server can tell the
difference: a removed member stays in the state, inactive, with the hash of the token they
were given (``state.tokens`` maps it to them), so a token whose hash matches such a member
exactly is that member's own token.

Saying so tells nothing to anyone who does not hold that very token, so it is safe:

- a token the log never issued for this campaign is refused before the campaign is even
  loaded, with the general words (:meth:`poolhall.server.joins.Joins._open_session`), so
  guessing tokens or campaign ids learns nothing new;
- only a token whose hash matches a removed member's (a constant-time comparison, as for an
  active one) gets the removal words, and whoever holds it was that member, or was handed
  their link: they knew the token opened this table, and learn only that it no longer does,
  and why. A replay link that the GM removed is said to be revoked, as its reads are told
  (:mod:`poolhall.server.replay_links`).
"""

from __future__ import annotations

from poolhall.events.errors import Rejected
from poolhall.projections.campaign import CampaignState, Member
from poolhall.server.auth import tokens_match

__all__ = ["REMOVED", "removed_member_by_token", "token_refused"]

REMOVED = "you were removed from this table by the GM"
"""The words for a removed member: their refused join, and the close of their connection."""


def removed_member_by_token(state: CampaignState | None, token_hash: str) -> Member | None:
    """The removed member ``token_hash`` is the very token of, if it is one."""
    if state is None:
        return None
    member = state.members.get(state.tokens.get(token_hash, ""))
    if member is None or member.active:
        return None
    return member if tokens_match(member.token_hash, token_hash) else None


def token_refused(campaign: str, removed: Member | None = None) -> Rejected:
    """The refusal of a join whose token opens no seat at ``campaign``: that its member was
    removed (or its replay link revoked) when ``removed`` is the token's member, else the
    general words, which say nothing of whether the token was ever issued."""
    if removed is None:
        return Rejected("unauthorized", f"this token does not open {campaign!r}", "$.token")
    if removed.role == "replay":
        return Rejected("unauthorized", "this replay link was revoked", "$.token")
    return Rejected("unauthorized", REMOVED, "$.token")
