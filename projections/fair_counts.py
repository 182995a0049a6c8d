"""Whether each rolled event drew as many dice as its recorded request asks for.

Every face of a fair roll is recomputed from its seed (:mod:`poolhall.projections.fair_verify`),
but faces are read from the stream die after die: a roll recorded with its last dice left out
holds a true prefix of the stream, and every face checks. A host could then always drop a
disliked last die. So the number of dice is checked against what the event says was asked
for: a free roll's expression, a narrative pool, an SR3 test's base dice, pool draws and the
Karma paid for its Karma dice, a Karma reroll's failed dice, a d12 test's pool.

Some counts are in the event itself (:func:`count_problem`); others in earlier events of
the log (a d12 test's pool, an SR3 test's dice that a Karma reroll rerolls, a character's
initiative dice, the players who roll the destiny pool): :class:`DrawCounts` keeps those, fed
every event in log order, as ``poolhall verify`` does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Event
from poolhall.events.dice import parse_dice
from poolhall.events.errors import NotationError
from poolhall.events.sr3_values import POOLS

__all__ = ["DrawCounts", "count_problem", "karma_cost"]

PER_DIE_KARMA_KINDS = frozenset({"damage_resistance", "spell_resistance"})
"""The test kinds whose Karma dice cost one point each (server/rules/sr3_tests.py)."""


def karma_cost(kind: str, dice: int) -> int:
    """What ``dice`` Karma dice cost on a test of ``kind``: 1 a die on damage and spell
    resistance, else 1, then 2, then 3 ... (the rules module's ``karma_dice_cost``)."""
    return dice if kind in PER_DIE_KARMA_KINDS else dice * (dice + 1) // 2


def _off(drawn: int, asked: int) -> str:
    """The words for a roll holding ``drawn`` dice where ``asked`` were asked for."""
    return "dice left out" if drawn < asked else "dice added"


def _free(event: core.DiceRolled) -> str | None:
    try:
        asked = parse_dice(event.expression)
    except NotationError:
        return f"its expression {event.expression!r} is no dice notation"
    wanted = [(t.sides, t.sign, t.count) for t in asked.terms]
    drawn = [(t.sides, t.sign, len(t.faces)) for t in event.terms]
    if wanted != drawn or asked.constant != event.constant:
        return (f"it holds {sum(len(t.faces) for t in event.terms)} dice in "
                f"{len(event.terms)} term(s); {event.expression} asks for "
                f"{sum(t.count for t in asked.terms)} in {len(asked.terms)}: "
                + _off(sum(len(t.faces) for t in event.terms), sum(t.count for t in asked.terms)))
    return None


def _pool(event: narrative.CheckRolled | narrative.PoolRolled) -> str | None:
    drawn: Counter[str] = Counter(die.kind for die in event.dice)
    for kind in narrative.DIE_KINDS:
        if drawn[kind] != event.pool.count(kind):
            return (f"it holds {drawn[kind]} {kind} dice; its pool "
                    f"{event.pool.notation()} has {event.pool.count(kind)}: "
                    + _off(drawn[kind], event.pool.count(kind)))
    return None


def _test(event: sr3.PoolTestRolled) -> str | None:
    order = ["base", *POOLS, "karma"]
    sources = [die.source for die in event.dice]
    if sources != sorted(sources, key=order.index):
        return "its dice are not in the order drawn: base dice, then each pool's, then Karma's"
    base = sources.count("base")
    if base != event.base_dice:
        return (f"it holds {base} base dice; the test has {event.base_dice}: "
                + _off(base, event.base_dice))
    karma = sources.count("karma")
    if karma_cost(event.kind, karma) != event.karma_spent:
        return (f"it holds {karma} Karma dice; the {event.karma_spent} Karma Pool "
                "point(s) it paid buy another number of them")
    return None


def _reroll(event: sr3.PoolTestRerolled) -> str | None:
    if len(event.faces) != len(event.indices):
        return (f"it rerolls {len(event.indices)} dice and holds {len(event.faces)}: "
                + _off(len(event.faces), len(event.indices)))
    return None


CHECKS: dict[type[Event], Any] = {
    core.DiceRolled: _free,
    narrative.CheckRolled: _pool,
    narrative.PoolRolled: _pool,
    sr3.PoolTestRolled: _test,
    sr3.PoolTestRerolled: _reroll,
}


def count_problem(event: Event) -> str | None:
    """What is wrong with the number of dice ``event`` holds, by the event alone, or None."""
    check = CHECKS.get(type(event))
    return None if check is None else check(event)


class DrawCounts:
    """The counts that earlier events of the log set: fed every event in log order,
    :meth:`problem` says what is wrong with a roll's number of dice (:func:`count_problem`
    and these)."""

    def __init__(self) -> None:
        self.d12_pools: dict[int, int] = {}
        """A d12 test's pool as it stands: started, failures removed, refresh dice added."""
        self.tests: dict[int, tuple[int | None, list[int]]] = {}
        """An SR3 test's TN and each die's total, for the Karma rerolls of its failed dice."""
        self.initiative: dict[str, int] = {}
        """An SR3 character's initiative dice, from their sheet."""
        self.players: dict[str, bool] = {}  # insertion-ordered set
        """The players at the table, who each roll a die of the destiny pool."""

    def problem(self, event: Event) -> str | None:
        """Take in ``event``; what is wrong with its number of dice, if it is a roll."""
        problem = count_problem(event)
        learn = self._LEARN.get(type(event))
        found = None if learn is None else learn(self, event)
        return problem or found

    def _pool(self, event: Any) -> None:
        self.d12_pools[event.test] = event.pool

    def _threshold(self, event: d12.ThresholdDiceRolled) -> str | None:
        pool = self.d12_pools.get(event.test)
        drawn = len(event.faces)
        if pool is not None and drawn != pool:
            return f"it holds {drawn} dice; the test's pool is {pool}: " + _off(drawn, pool)
        return None

    def _sheet(self, event: Any) -> None:
        dice = getattr(getattr(event, "stats", None), "initiative_dice", None)
        if isinstance(dice, int):
            self.initiative[event.character] = dice

    def _rolled(self, event: sr3.PoolTestRolled) -> None:
        self.tests[event.test] = (event.tn, [sum(die.faces) for die in event.dice])

    def _invited(self, event: core.MemberInvited) -> None:
        if event.role == "player":
            self.players[event.member] = True

    def _removed(self, event: core.MemberRemoved) -> None:
        self.players.pop(event.member, None)

    def _destiny(self, event: narrative.DestinyPoolRolled) -> str | None:
        rolled = sorted(die.member for die in event.dice)
        if self.players and rolled != sorted(self.players):
            return (f"{len(rolled)} players rolled the destiny pool; {len(self.players)} are "
                    "at the table: " + _off(len(rolled), len(self.players)))
        return None

    def _initiative(self, event: sr3.InitiativeScoresRolled) -> str | None:
        for roll in event.rolls:
            dice = self.initiative.get(roll.character)
            if dice is not None and len(roll.faces) != dice:
                return (f"{roll.character}'s initiative holds {len(roll.faces)} dice; their "
                        f"sheet gives {dice}: " + _off(len(roll.faces), dice))
        return None

    def _reroll(self, event: sr3.PoolTestRerolled) -> str | None:
        test = self.tests.get(event.test)
        if test is None:
            return None
        tn, totals = test
        failed = [i for i, total in enumerate(totals) if tn is None or total < tn]
        for index, chain in zip(event.indices, event.faces, strict=False):
            if index < len(totals):
                totals[index] = sum(chain)
        if list(event.indices) != failed:
            return (f"it rerolls dice {list(event.indices)} of test #{event.test}; its failed "
                    f"dice are {failed}")
        return None

    _LEARN: dict[type[Event], Callable[[DrawCounts, Any], str | None]] = {
        d12.ThresholdTestStarted: _pool,
        d12.FailedDiceRemoved: _pool,
        d12.RefreshDiceAdded: _pool,
        d12.ThresholdDiceRolled: _threshold,
        core.CharacterCreated: _sheet,
        core.CharacterUpdated: _sheet,
        sr3.InitiativeScoresRolled: _initiative,
        sr3.PoolTestRolled: _rolled,
        sr3.PoolTestRerolled: _reroll,
        core.MemberInvited: _invited,
        core.MemberRemoved: _removed,
        narrative.DestinyPoolRolled: _destiny,
    }
    """What each event sets or checks (the rest: nothing)."""
