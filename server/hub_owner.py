"""The hub as its parts see it: what :class:`poolhall.server.hub.CampaignHub` shows the objects it
is made of (its joins, audience, reads, views and derived writes), read-only.

One protocol for all of them, rather than one per part: each part reads what it needs of it,
and a test's stand-in for the hub implements it once.
"""

from __future__ import annotations

from typing import Protocol

from poolhall.projections.campaign import CampaignState
from poolhall.server.audience import PublicTable

__all__ = ["HubOwner"]


class HubOwner(Protocol):
    """The campaign, its state now (and the public table beside it), and whether the log
    holds that state."""

    @property
    def campaign(self) -> str: ...

    @property
    def state(self) -> CampaignState:
        """The table as the log has it (the GM's: every pending private roll)."""
        ...

    @property
    def head_hash(self) -> str: ...

    @property
    def public(self) -> PublicTable: ...

    @property
    def stale(self) -> bool:
        """Whether the state could not be reloaded from the log (work is refused meanwhile)."""
        ...

    @property
    def closing(self) -> bool: ...
