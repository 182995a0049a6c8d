"""Projections of the `sr3` game system (scaffold: filled by its issue)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from events.base import Recorded

if TYPE_CHECKING:
    from projections.campaign import CampaignState

__all__ = ["GameState", "initial_state", "evolve", "describe"]


class GameState(msgspec.Struct, kw_only=True):
    """This system's part of a campaign's state."""


def initial_state() -> GameState:
    """The state before any of this system's events."""
    return GameState()


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """Fold one of this system's events."""
    return state


def describe(recorded: Recorded, campaign: CampaignState) -> str:
    """One line for people."""
    return recorded.event.__class__.__name__
