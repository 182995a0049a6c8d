"""A campaign's whole log as a member may read it, for ``report``, ``export`` and ``replay``.

The client joins with ``replay`` (every event from the first, not a snapshot), reads up to the
head the server had when it answered, and leaves. The events are the facts as recorded; the
fold of them (the state the client keeps) is at hand for the words of the game system.
"""

from __future__ import annotations

import argparse

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import CliError
from poolhall.events.base import Recorded
from poolhall.events.errors import ConnectionLost
from poolhall.projections.campaign import CampaignState

__all__ = ["fetch_log", "session_bounds"]


async def fetch_log(args: argparse.Namespace, doing: str, *, link_reads: bool = False
                    ) -> tuple[CampaignState, list[Recorded]]:
    """The state at the head and every event of ``args.campaign``, oldest first.

    A replay link's token gets no events when it joins (:mod:`poolhall.clients.replay_link_cli`):
    with ``link_reads`` its replay's events are read instead, with the table at their first;
    else the command (``doing``, as in "it cannot make a report") is refused at once.
    """
    from poolhall.clients.replay_link_cli import is_link, link_log, link_refusal
    from poolhall.events.errors import CommandRejected

    client = await common.open_client(args, args.campaign, replay=True)
    try:
        assert client.welcome is not None
        if is_link(client):
            if not link_reads:
                raise await link_refusal(client, args.campaign, doing)
            return await link_log(client)
        await client.wait_for_seq(client.welcome.head, timeout=600)
    except CommandRejected as refusal:  # a link revoked while it read, say
        raise CliError.refused(refusal) from None
    except ConnectionLost as lost:
        raise common.connection_lost(lost, f"stopped reading {args.campaign}") from None
    finally:
        await client.close()
    return client.state, client.drain()


def session_bounds(events: list[Recorded], session: int, campaign: str) -> tuple[int, int]:
    """The first and last sequence numbers of game session ``session`` (the last event so far
    if it has not ended), or a :class:`CliError` naming the sessions there are."""
    from poolhall.events.core import GameSessionEnded, GameSessionStarted

    first = last = None
    known: list[int] = []
    for recorded in events:
        event = recorded.event
        if isinstance(event, GameSessionStarted):
            known.append(event.session)
            if event.session == session:
                first = recorded.seq
        elif isinstance(event, GameSessionEnded) and event.session == session and first:
            last = recorded.seq
    if first is None:
        have = ", ".join(map(str, known)) if known else "none yet"
        raise CliError(f"--session {session}: no game session {session} in {campaign} "
                       f"(its sessions: {have})")
    return first, last if last is not None else (events[-1].seq if events else first)
