"""The owner's session: what the admin token may ask besides creating campaigns.

The owner's page (``/owner``) lists the server's campaigns with ``list_campaigns``: each
campaign's id, name and game system, read from its first event (``campaign_created``), off the
event loop. Creating a campaign stays :mod:`poolhall.server.campaign_creation`'s job, and a GM's
link for an existing campaign is an ordinary ``invite`` the owner's page sends after joining that
campaign with the admin token (which is GM everywhere): no new power, only a new page.
"""

from __future__ import annotations

import asyncio
import logging

from poolhall.events.codec import encode
from poolhall.events.core import CampaignCreated
from poolhall.events.errors import Rejected
from poolhall.events.log import EventLog, to_recorded
from poolhall.events.owner import CAMPAIGN_LIST_LIMIT, CampaignEntry, CampaignList, ListCampaigns

__all__ = ["campaign_list", "list_campaigns"]

logger = logging.getLogger("poolhall.server.app")


def campaign_list(log: EventLog, campaigns: set[str],
                  limit: int = CAMPAIGN_LIST_LIMIT) -> tuple[list[CampaignEntry], bool]:
    """The first ``limit`` of ``campaigns`` by id, each named by its first event; and whether
    more were left out. A campaign whose first event is not its creation is left out (a log
    edited by hand; ``poolhall verify`` reports it)."""
    entries: list[CampaignEntry] = []
    ordered = sorted(campaigns)
    for campaign in ordered[:limit]:
        first = next(iter(log.rows(campaign, 0, 1)), None)
        if first is None:
            continue
        event = to_recorded(first).event
        if not isinstance(event, CampaignCreated):
            continue
        entries.append(CampaignEntry(campaign=campaign, name=event.name, system=event.system,
                                     events=log.head(campaign)))
    return entries, len(ordered) > limit


async def list_campaigns(log: EventLog | None, campaigns: set[str],
                         request: ListCampaigns) -> bytes:
    """The encoded ``campaign_list`` answering ``request``; ``unavailable`` if the log cannot
    be read."""
    if log is None:
        raise Rejected("unavailable", "the server is not serving a log yet", None)
    try:
        entries, more = await asyncio.to_thread(campaign_list, log, set(campaigns))
    except Exception:
        logger.exception("listing the campaigns failed")
        raise Rejected("unavailable", "the log could not be read; retry shortly", None) from None
    return encode(CampaignList(id=request.id, campaigns=entries, more=more))
