"""Which dice each rolling event drew, in the order they were drawn: ``(sides, face)`` pairs.

A roll's faces are the byte stream of :mod:`poolhall.events.fair` read die after die, so a verifier
needs, for each event that holds dice, the sides of each die in the order the rules drew them
(the order the rules modules call the dice source in, which is the order the event lists
them). This is that order, one small function per event type, used by ``poolhall verify``
(:mod:`poolhall.projections.fair_verify`) and mirrored by the page and the reference verifier.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Event
from poolhall.events.sr3_values import MAX_CHAIN
from poolhall.projections.narrative_dice import SIDES

__all__ = ["DRAWS", "chain_problem", "draws_of"]

Draws = list[tuple[int, int]]


def _free(event: Any) -> Draws:
    return [(term.sides, face) for term in event.terms for face in term.faces]


def _narrative(event: Any) -> Draws:
    return [(SIDES[die.kind], die.face) for die in event.dice]


def _destiny(event: Any) -> Draws:
    return [(SIDES["force"], die.face) for die in event.dice]


def _test(event: Any) -> Draws:
    return [(6, face) for die in event.dice for face in die.faces]


def _reroll(event: Any) -> Draws:
    return [(6, face) for chain in event.faces for face in chain]


def _initiative(event: Any) -> Draws:
    return [(6, face) for roll in event.rolls for face in roll.faces]


def _threshold(event: Any) -> Draws:
    return [(12, face) for face in event.faces]


DRAWS: dict[type[Event], Callable[[Any], Draws]] = {
    core.DiceRolled: _free,
    narrative.CheckRolled: _narrative,
    narrative.PoolRolled: _narrative,
    narrative.ForceDiceRolled: _narrative,
    narrative.DestinyPoolRolled: _destiny,
    sr3.PoolTestRolled: _test,
    sr3.PoolTestRerolled: _reroll,
    sr3.InitiativeScoresRolled: _initiative,
    d12.ThresholdDiceRolled: _threshold,
}
"""Every event type that holds rolled dice (a contract test checks each carries ``fair``)."""


def draws_of(event: Event) -> Draws | None:
    """The ``(sides, face)`` of each die ``event`` drew, or ``None`` if it rolls no dice."""
    draws = DRAWS.get(type(event))
    return None if draws is None else draws(event)


def chain_problem(event: Event) -> str | None:
    """What is wrong with an SR3 event's Rule-of-Six chains (a 6 not followed by its reroll,
    a reroll after a face that was not a 6), or ``None``: the stream checks each face, this
    checks that the chain drew as many dice as the rule says."""
    if isinstance(event, sr3.PoolTestRolled):
        chains = [die.faces for die in event.dice]
    elif isinstance(event, sr3.PoolTestRerolled):
        chains = list(event.faces)
    else:
        return None
    for chain in chains:
        for place, face in enumerate(chain):
            last = place == len(chain) - 1
            if not last and face != 6:
                return f"a die rerolled after a {face}: the Rule of Six rerolls only a 6"
            if last and face == 6 and len(chain) < MAX_CHAIN:
                return "a 6 was not rerolled: the Rule of Six rerolls every 6"
    return None
