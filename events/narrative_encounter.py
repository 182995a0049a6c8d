"""The narrative system's encounter and the spending of a check's result, as events.

An encounter (the narrative Combat Turn): the GM starts it; each character's initiative is a
Cool or Vigilance check built and rolled like any other (so anyone may add dice to it), then
entered with ``enter_initiative``; the slots are those results ordered by successes, then
advantage, each a player slot or an NPC slot after the character who rolled it. Each round
the slots are filled in order: any player character who has not yet acted this round may claim
a player slot, the GM fills NPC slots. The GM advances the rounds and ends the encounter.

Spending (narrative quick reference, "Interpreting the result"): "In combat, you spend the
advantage and triumph and the GM spends the threat and despair. Out of combat, the GM spends
it all." Each spend is a :class:`ResultSpent`: how many of which symbol, on what, in words.

Registered in :mod:`poolhall.events.narrative`'s ``EVENTS`` and ``COMMANDS``; decided by
:mod:`poolhall.server.rules.narrative_encounter`, folded by
:mod:`poolhall.projections.narrative_encounter`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from poolhall.events.base import Command, Event, Reason, Slug
from poolhall.events.narrative_values import Net, SkillName, Tally

__all__ = [
    "ENCOUNTER_COMMANDS",
    "ENCOUNTER_EVENTS",
    "INITIATIVE_SKILLS",
    "AdvanceRound",
    "ClaimSlot",
    "EncounterEnded",
    "EncounterStarted",
    "EndEncounter",
    "EnterInitiative",
    "InitiativeEntered",
    "ResultSpent",
    "RoundStarted",
    "SlotClaimed",
    "SlotSide",
    "SpendResult",
    "StartEncounter",
]

INITIATIVE_SKILLS = ("Cool", "Vigilance")
"""The skills an initiative check uses: Cool when the character is ready for the fight,
Vigilance when it comes upon them (the GM and the player choose which when opening it)."""

SlotSide = Literal["player", "npc"]
Symbol = Literal["advantage", "triumph", "threat", "despair"]
SlotNumber = Annotated[int, Meta(ge=1, le=100, description="a slot, 1 the first to act")]
Round = Annotated[int, Meta(ge=1, le=10_000)]
Spend = Annotated[int, Meta(ge=1, le=40, description="how many symbols")]
SpentOn = Annotated[str, Meta(min_length=1, max_length=200,
                              description="what the symbols buy, in words")]


# ---- events -------------------------------------------------------------------------------


class EncounterStarted(Event, frozen=True, kw_only=True):
    """The GM started an encounter: initiative checks come next."""

    encounter: Annotated[int, Meta(ge=1)]
    reason: Reason = ""


class InitiativeEntered(Event, frozen=True, kw_only=True):
    """A character's rolled initiative check became a slot (the result as the table saw it)."""

    character: Slug
    check: Slug
    skill: SkillName
    side: SlotSide
    successes: Net
    advantages: Net
    triumphs: Tally = 0


class RoundStarted(Event, frozen=True, kw_only=True):
    """A round of the encounter began: every slot is open again."""

    round: Round


class SlotClaimed(Event, frozen=True, kw_only=True):
    """A character took a slot of this round and acts in it."""

    round: Round
    slot: SlotNumber
    side: SlotSide
    character: Slug


class EncounterEnded(Event, frozen=True, kw_only=True):
    """The GM ended the encounter."""

    encounter: Annotated[int, Meta(ge=1)]
    rounds: Annotated[int, Meta(ge=0)] = 0
    reason: Reason = ""


class ResultSpent(Event, frozen=True, kw_only=True):
    """Symbols of a rolled check were spent: how many of which, on what, by whom (actor)."""

    check: Slug
    symbol: Symbol
    count: Spend
    on: SpentOn
    in_combat: bool = False
    left: Annotated[int, Meta(ge=0)] = 0
    """How many of that symbol are left unspent after this."""


ENCOUNTER_EVENTS: tuple[type[Event], ...] = (
    EncounterStarted, InitiativeEntered, RoundStarted, SlotClaimed, EncounterEnded, ResultSpent,
)


# ---- commands -----------------------------------------------------------------------------


class StartEncounter(Command, frozen=True, kw_only=True):
    """Start an encounter (GM)."""

    reason: Reason = ""


class EnterInitiative(Command, frozen=True, kw_only=True):
    """Enter a Cool or Vigilance check rolled since the encounter began as its character's
    initiative (GM, or the character's player)."""

    check: Slug


class AdvanceRound(Command, frozen=True, kw_only=True):
    """Start the first round, or the next one (GM)."""


class ClaimSlot(Command, frozen=True, kw_only=True):
    """Act in a slot of this round: a player character in a player slot (its player or the
    GM), an NPC in an NPC slot (the GM)."""

    slot: SlotNumber
    character: Slug


class EndEncounter(Command, frozen=True, kw_only=True):
    """End the encounter (GM)."""

    reason: Reason = ""


class SpendResult(Command, frozen=True, kw_only=True):
    """Spend symbols of a rolled check on something, said in words."""

    check: Slug
    symbol: Symbol
    count: Spend = 1
    on: SpentOn


ENCOUNTER_COMMANDS: tuple[type[Command], ...] = (
    StartEncounter, EnterInitiative, AdvanceRound, ClaimSlot, EndEncounter, SpendResult,
)
