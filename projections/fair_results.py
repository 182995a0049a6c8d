"""What each rolled event says its dice came to, checked against its own faces.

``poolhall verify`` recomputes every face of a fair roll from its epoch's seed
(:mod:`poolhall.projections.fair_verify`). The number the table acts on is not a face, though:
a free roll's ``total``, a narrative check's successes and advantage, an SR3 test's successes,
a d12 test's margin. Whoever rewrote the log (and its hash chain) could leave every face right
and change that number; the page would show the true faces beside the forged total. So each
event that holds dice is also checked for agreeing with itself: what its faces come to, by
the rules' own counting functions, against what it records.

Two SR3 events are not checked here: a Karma reroll's successes count the test's other dice
(an earlier event), and an initiative score adds the character's Reaction (their sheet); their
faces are still recomputed like every other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Event
from poolhall.events.d12_dice import die_value
from poolhall.events.dice import total_of
from poolhall.events.sr3_dice import result_of
from poolhall.projections.narrative_dice import face_symbols, tally

__all__ = ["result_problem"]


def _free(event: core.DiceRolled) -> str | None:
    total = total_of(event.terms, event.constant)
    if event.total != total:
        return f"its total is {event.total}; its faces and constant make {total}"
    return None


def _symbols(dice: Iterable[Any], kind: str | None = None) -> str | None:
    """A die whose recorded symbols are not those of its face (``kind``: every die's)."""
    for die in dice:
        symbols = face_symbols(kind or die.kind, die.face)
        if tuple(die.symbols) != tuple(symbols):
            return (f"a {kind or die.kind} die showing face {die.face} records "
                    f"{', '.join(die.symbols) or 'no symbol'}; that face is "
                    f"{', '.join(symbols) or 'blank'}")
    return None


def _narrative(event: narrative.CheckRolled | narrative.PoolRolled) -> str | None:
    if (problem := _symbols(event.dice)) is not None:
        return problem
    result = tally(event.dice)
    if event.result != result:
        return "its result is not what its dice come to (successes, advantage, triumphs)"
    return None


def _pips(event: narrative.ForceDiceRolled | narrative.DestinyPoolRolled,
          kind: str | None) -> str | None:
    if (problem := _symbols(event.dice, kind)) is not None:
        return problem
    light = sum(die.symbols.count("light") for die in event.dice)
    dark = sum(die.symbols.count("dark") for die in event.dice)
    if (event.light, event.dark) != (light, dark):
        return (f"it records {event.light} light and {event.dark} dark; its dice show "
                f"{light} and {dark}")
    return None


def _force(event: narrative.ForceDiceRolled) -> str | None:
    return _pips(event, None)


def _destiny(event: narrative.DestinyPoolRolled) -> str | None:
    return _pips(event, "force")


def _test(event: sr3.PoolTestRolled) -> str | None:
    result = result_of(event.dice, event.tn)
    recorded = (event.successes, event.highest, event.disastrous)
    if recorded != (result.successes, result.highest, result.disastrous):
        return (f"it records {event.successes} successes, highest {event.highest}"
                f"{', disastrous' if event.disastrous else ''}; its dice make "
                f"{result.successes}, highest {result.highest}"
                f"{', disastrous' if result.disastrous else ''}")
    return None


def _threshold(event: d12.ThresholdDiceRolled) -> str | None:
    values = tuple(die_value(face, event.dt) for face in event.faces)
    successes = sum(v for v in values if v > 0)
    failures = -sum(v for v in values if v < 0)
    margin = successes - failures
    if (event.values, event.successes, event.failures, event.margin, event.succeeded) != (
            values, successes, failures, margin, margin > 0):
        return (f"it records a margin of {event.margin}; its faces against DT {event.dt} "
                f"make {successes} successes and {failures} failures, a margin of {margin}")
    return None


RESULTS: dict[type[Event], Callable[[Any], str | None]] = {
    core.DiceRolled: _free,
    narrative.CheckRolled: _narrative,
    narrative.PoolRolled: _narrative,
    narrative.ForceDiceRolled: _force,
    narrative.DestinyPoolRolled: _destiny,
    sr3.PoolTestRolled: _test,
    d12.ThresholdDiceRolled: _threshold,
}
"""The rolled events whose recorded result depends on their own dice alone."""


def result_problem(event: Event) -> str | None:
    """What is wrong with what ``event`` says its dice came to, or ``None``."""
    check = RESULTS.get(type(event))
    return None if check is None else check(event)
