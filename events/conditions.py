"""Conditions on a character's sheet: wounds, strain, soak, defence; condition monitors.

One event, :class:`ConditionChanged`, sets one condition of one character to a value (the
GM, or the character's player, with :class:`SetCondition`); the sheet shows the latest value
of each. Which conditions a character has depends on the campaign's game system
(:data:`CONDITIONS`):

- ``narrative``: wound threshold and wounds, strain threshold and strain, soak, melee and
  ranged defence (the sheet's characteristics of the narrative games);
- ``sr3``: the Physical and Stun Condition Monitors, 10 boxes each, whose wound modifiers
  raise every target number (:mod:`poolhall.projections.sr3_wounds`);
- ``d12``: none: the d12 sources give no conditions, and nothing is invented.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from poolhall.events.base import Command, Event, Reason, Slug

__all__ = ["CONDITIONS", "ConditionChanged", "ConditionName", "SetCondition"]

ConditionName = Literal["wound_threshold", "wounds", "strain_threshold", "strain", "soak",
                        "melee_defence", "ranged_defence", "physical", "stun"]

CONDITIONS: dict[str, dict[str, int]] = {
    "narrative": {"wound_threshold": 99, "wounds": 99, "strain_threshold": 99, "strain": 99,
                  "soak": 20, "melee_defence": 4, "ranged_defence": 4},
    "sr3": {"physical": 10, "stun": 10},
    "d12": {},
}
"""The conditions of each system's characters, with the highest value each may take (SR3:
the 10 boxes of a Condition Monitor; narrative defence: 4, the most the rules grant)."""

ConditionValue = Annotated[int, Meta(ge=0, le=99)]


class ConditionChanged(Event, frozen=True, kw_only=True):
    """A condition of a character was set (wounds taken or healed, a threshold changed...)."""

    character: Slug
    condition: ConditionName
    value: ConditionValue
    was: ConditionValue = 0
    reason: Reason = ""


class SetCondition(Command, frozen=True, kw_only=True):
    """Set a condition of a character (the GM, or the character's player)."""

    character: Slug
    condition: ConditionName
    value: ConditionValue
    reason: Reason = ""
