"""The server's part of a game system's contract (see :mod:`poolhall.events.contract`).

Each ``server/rules/<id>.py`` exports ``RULES``, a :class:`Rules`: which commands it decides,
``decide``, and the views it sends the table. A system without views leaves them at their
defaults (none).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from poolhall.events.base import Command, Event
from poolhall.projections.campaign import CampaignState
from poolhall.server.rules.base import Decision
from poolhall.server.views import ViewSpec

__all__ = ["Decide", "Rules", "StandingViews", "Views"]

Decide = Callable[[Decision, Command], list[Event]]
"""A pure decision over ``ctx.state``, randomness drawn only from ``ctx.rng``; raises
:class:`poolhall.events.errors.Rejected` to refuse."""
Views = Callable[[CampaignState, list[Event]], list[ViewSpec]]
"""The views these (just appended, already folded) events changed, sent to the table."""
StandingViews = Callable[[CampaignState], list[ViewSpec]]
"""The views of everything still open, for a member who joins (or resumes) after catching up."""


def no_views(state: CampaignState, events: list[Event]) -> list[ViewSpec]:
    """A system that sends no views."""
    return []


def no_standing_views(state: CampaignState) -> list[ViewSpec]:
    """A system that sends no views."""
    return []


@dataclass(frozen=True)
class Rules:
    """How a game system decides its commands and what derived data it shows the table."""

    system: str
    """The system id, as registered in :data:`poolhall.events.systems.SYSTEMS`."""
    commands: frozenset[type[Command]]
    """The command types :attr:`decide` takes: the system's own, from its vocabulary."""
    decide: Decide
    views: Views = no_views
    standing_views: StandingViews = no_standing_views
