"""``poolhall replay CAMPAIGN [--session N] [--from SEQ] [--speed X] [--json]``.

Prints a campaign's log again, one line per event as ``watch`` prints it (the same function,
:func:`poolhall.clients.table_text.log_line`), paced as it was played: the real gap between two
events divided by ``--speed``, a pause longer than ``--max-pause`` seconds cut short to it. The
lines come from the facts in the events: nothing is rolled or decided again, so a log recorded by an
older release replays as it was. With a replay link's token it prints the link's events, their
lines read against the link's table at its first event (it reads nothing before it).
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import CliError, emit

if TYPE_CHECKING:
    from poolhall.events.base import Recorded
    from poolhall.projections.campaign import CampaignState


__all__ = ["MAX_PAUSE", "add_command", "number_of", "pause", "replay_lines"]

MAX_PAUSE = 2.0
"""Seconds a replay waits at most between two events, whatever the real gap (default)."""


def pause(before: str, after: str, speed: float, longest: float = MAX_PAUSE) -> float:
    """Seconds to wait between events recorded at ``before`` and ``after``: the real gap
    divided by ``speed``, at most ``longest``; 0 when a time cannot be read."""
    from datetime import datetime

    try:
        gap = (datetime.fromisoformat(after) - datetime.fromisoformat(before)).total_seconds()
    except ValueError:
        return 0.0
    return max(0.0, min(gap / speed, longest))


def replay_lines(events: list[Recorded], first: int, last: int,
                 start: CampaignState | None = None) -> list[tuple[Recorded, Any]]:
    """The events from ``first`` to ``last`` with the line ``watch`` would print for each
    (the table folded from the first event, so a line can name what it refers to).

    ``start``: the table the events fold onto (a replay link's, at its first event: it reads
    nothing before), else the campaign's before its first event; an event it already holds
    is not folded again."""
    from poolhall.clients.table_text import log_line
    from poolhall.projections.campaign import CampaignState, evolve

    state = start if start is not None else CampaignState()
    shown: list[tuple[Recorded, Any]] = []
    for recorded in events:
        if recorded.seq > state.head:
            evolve(state, recorded)
        if first <= recorded.seq <= last:
            shown.append((recorded, log_line(recorded, state)))
        elif recorded.seq > last:
            break
    return shown


async def _replay(args: argparse.Namespace) -> int:
    import asyncio

    from poolhall.clients.campaign_log import fetch_log, session_bounds

    start, events = await fetch_log(args, "replay", link_reads=True)
    first, last = (events[0].seq, events[-1].seq) if events else (1, 0)
    if args.session is not None:
        first, last = session_bounds(events, args.session, args.campaign)
    if args.from_seq is not None:
        if args.from_seq > last:
            raise CliError(f"--from {args.from_seq} is past the last event replayed (#{last})")
        first = max(first, args.from_seq)
    previous: str | None = None
    # a replay link's table starts at its first event; a member's is folded from the first
    begun = start if events and events[0].seq > 1 else None
    shown = ([(recorded, None) for recorded in events if first <= recorded.seq <= last]
             if args.json else replay_lines(events, first, last, begun))  # JSON: no line, no rich
    for recorded, line in shown:
        if previous is not None:
            wait = pause(previous, recorded.at, args.speed, args.max_pause)
            if wait:
                await asyncio.sleep(wait)
        previous = recorded.at
        emit(args, recorded, line)
    return common.EXIT_OK


def _speed(text: str) -> float:
    """An argparse type: a speed above 0 (``inf``: no waiting at all)."""
    try:
        speed = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a speed: {text!r}") from None
    if not speed > 0 or math.isnan(speed):
        raise argparse.ArgumentTypeError("--speed is above 0 (4 is four times as fast)")
    return speed


def number_of(what: str, many: str) -> Any:
    """An argparse type for a whole number from 1 up, its error naming ``what`` it is ("a game
    session"; ``many``: "game sessions")."""
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{many} are numbered from 1")
        return value
    return read


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= seconds <= 3600:
        raise argparse.ArgumentTypeError("--max-pause is 0 to 3600 seconds")
    return seconds


def add_command(sub: Any) -> None:
    """Register ``replay`` on the ``poolhall`` subparsers."""
    replay = sub.add_parser("replay", help="print the log again, paced as it was played")
    replay.add_argument("campaign")
    replay.add_argument("--session", type=number_of("a game session", "game sessions"),
                        metavar="N", help="only game session N")
    replay.add_argument("--from", dest="from_seq", type=number_of("an event", "events"),
                        metavar="SEQ", help="start at event SEQ")
    replay.add_argument("--speed", type=_speed, default=1.0, metavar="X",
                        help="X times as fast as played (default 1; inf: no waiting)")
    replay.add_argument("--max-pause", type=_seconds, default=MAX_PAUSE, metavar="SECONDS",
                        help=f"longest wait between two events (default {MAX_PAUSE:g})")
    common.add_connection_options(replay)
    replay.set_defaults(handler=_replay)
