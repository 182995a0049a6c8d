"""What the CLI does with a replay link's token: read its replay, or say at once why not.

A replay link (``share_replay``, role ``replay``) reads its replay's events and the table at any
of them, and nothing else (:mod:`poolhall.server.replay_links`): when it joins, the server sends
it no events and no table, only a welcome naming its first and last events. A command that
waited for the table to arrive would wait in vain (it waited ten minutes, then printed a
traceback). So ``replay`` reads the link's events a history page at a time (:func:`link_log`),
``state --at`` asks for the table at one of them as for anyone, and every other command that
reads the campaign is refused as soon as the welcome says it is a link
(:func:`link_refusal`), in words that say what the link can do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poolhall.clients.cli_errors import EXIT_REFUSED, CliError

if TYPE_CHECKING:
    from poolhall.clients.client import Client
    from poolhall.events.base import Recorded
    from poolhall.projections.campaign import CampaignState

__all__ = ["is_link", "link_log", "link_refusal"]


def is_link(client: Client) -> bool:
    """Whether ``client`` joined with a replay link's token."""
    return client.welcome is not None and client.welcome.role == "replay"


async def link_log(client: Client) -> tuple[CampaignState, list[Recorded]]:
    """The table at the link's first event (what the replay starts from: the server's, which
    holds nothing from before it) and the link's events, first to last, oldest first."""
    from poolhall.events.messages import HISTORY_LIMIT
    from poolhall.projections.snapshot import state_from

    assert client.welcome is not None
    first, last = client.welcome.replay_from, client.welcome.head
    start = state_from(await client.state_at(first))
    events: list[Recorded] = []
    at = first
    while at <= last:  # forward, a page at a time: [at, upto)
        upto = min(at + HISTORY_LIMIT, last + 1)
        events += await client.history(upto, upto - at)
        at = upto
    return start, events


async def link_refusal(client: Client, campaign: str, command: str) -> CliError:
    """The refusal of ``command`` (``report``, ``state`` ...) for a replay link: what the link
    is (which game session, which events) and what to do with it instead."""
    from poolhall.events.core import GameSessionStarted

    assert client.welcome is not None
    first, last = client.welcome.replay_from, client.welcome.head
    what = "the campaign"  # a link of the campaign starts at its first event
    if first > 1:  # a game session's: named by its first event, the session's start
        opening = await client.history(first + 1, 1)
        event = opening[0].event if opening else None
        what = (f"game session {event.session}" if isinstance(event, GameSessionStarted)
                else "a game session")
    message = (f"this is a read-only replay link of {what}, events {first} to {last}: it cannot "
               f"{command}. Open the link in a browser, or print its events with `poolhall "
               f"replay {campaign}` (the table at one of them: `poolhall state {campaign} "
               f"--at SEQ`)")
    return CliError(message, EXIT_REFUSED, "forbidden", "$.token")
