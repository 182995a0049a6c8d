"""The owner's page on the wire: the list of the server's campaigns.

The owner (whoever holds the admin token) opens ``/owner`` with the link the first
``poolhall serve`` printed. That page creates campaigns with the existing ``create_campaign``
command, and lists them with :class:`ListCampaigns`, answered by one :class:`CampaignList`.
Apart from :mod:`poolhall.events.messages` because only the owner's session speaks it; the two
unions there include it, so ``poolhall schema`` prints it with every other message.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from poolhall.events.base import CommandId, Name, Slug

__all__ = ["CAMPAIGN_LIST_LIMIT", "CampaignEntry", "CampaignList", "ListCampaigns"]

CAMPAIGN_LIST_LIMIT = 1000
"""Most campaigns one list names: a server's owner runs tables, not a hosting service."""


class ListCampaigns(msgspec.Struct, frozen=True, kw_only=True, tag_field="type",
                    tag="list_campaigns", forbid_unknown_fields=True):
    """Ask for the server's campaigns (the owner's session only).

    Not a command: it appends nothing and is answered by a ``campaign_list`` carrying ``id``.
    """

    id: CommandId


class CampaignEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One campaign as the owner's page lists it."""

    campaign: Slug
    name: Name
    system: str
    events: Annotated[int, Meta(ge=0)] = 0
    """How many events its log held when the list was made."""


class CampaignList(msgspec.Struct, frozen=True, kw_only=True, tag_field="type",
                   tag="campaign_list"):
    """The answer to ``list_campaigns``: the campaigns, in the order of their ids."""

    id: str
    campaigns: list[CampaignEntry]
    more: bool = False
    """True when the server holds more campaigns than one list names."""
