"""Shadowrun 3 tests: base dice, target number, the roll with the Rule of Six, the result.

A die is rolled as a chain of faces: a 6 is rolled again and the new face added, as often as
sixes come up (Rule of Six), up to :data:`poolhall.events.sr3.MAX_CHAIN` faces. Successes are the
dice whose value reaches the TN; an open test's result is the highest value; if every die shows 1
the test is a disastrous failure (Rule of One). Dice come only from ``ctx.rng``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from poolhall.events import sr3 as vocabulary
from poolhall.events.errors import Rejected
from poolhall.events.sr3 import (
    MAX_CHAIN,
    MAX_TEST_DICE,
    MAX_TN,
    POOLS,
    PoolDie,
    PoolName,
    Sr3Stats,
)
from poolhall.events.sr3_dice import Result, result_of
from poolhall.events.suggest import did_you_mean
from poolhall.projections.sr3 import GameState, TestRecord
from poolhall.projections.sr3_pools import karma_pool, pool_sizes
from poolhall.server.rules.base import Decision, DiceSource, no_such
from poolhall.server.rules.sr3_dodge import pool_successes
from poolhall.server.rules.sr3_limits import Situation

__all__ = [
    "KARMA_QUOTES",
    "PER_DIE_KARMA_KINDS",
    "roll_chain",
    "roll_dice",
    "Result",
    "result_of",
    "resolve_base",
    "resolve_tn",
    "check_tn_limit",
    "situation_of",
    "pools_left",
    "pools_full",
    "karma_left",
    "karma_dice_cost",
    "outcome_against",
]

PER_DIE_KARMA_KINDS = frozenset({"damage_resistance", "spell_resistance"})
KARMA_QUOTES = {
    "buy": "Karma pool may be used to purchase additional dice at a ratio of one karma pool "
           "point per die on damage resistance and spell resistance tests only. Other karma "
           "pool expenditures use the book rule of one KP point for the first extra die, two "
           "more KP points for the second extra die, and so forth.",
    "reroll": "The first reroll costs 1 KP, the second, 2 KP, the third, 3 KP, and so on.",
    "own": "Karma pool may only be used to karma your rolls. In general, if they are not "
           "\"your character's\" dice, then you may not use your character's karma pool to "
           "reroll them.",
}


def roll_chain(rng: DiceSource) -> tuple[int, ...]:
    """One die by the Rule of Six: faces until one is not a 6 (at most MAX_CHAIN faces)."""
    faces = [rng.randint(1, 6)]
    while faces[-1] == 6 and len(faces) < MAX_CHAIN:
        faces.append(rng.randint(1, 6))
    return tuple(faces)


def resolve_base(stats: Sr3Stats, command: Any,
                 who: str) -> tuple[int, vocabulary.Sr3Skill | None]:
    """The base dice of a test and its skill: from the skill, the attribute or ``dice``.

    A Dodge Test uses Combat Pool dice alone (no base dice). Damage Resistance defaults to Body
    and Drain Resistance to Willpower when nothing else is named.
    """
    named = [name for name in ("skill", "attribute", "dice") if getattr(command, name) is not None]
    if command.kind == "dodge":
        if named and not (named == ["dice"] and command.dice == 0):
            raise Rejected("rule", '"If a character dodging such an attack generates more '
                           'successes with his Combat Pool dice alone ...": a Dodge Test '
                           "rolls Combat Pool dice only", f"$.{named[0]}")
        return 0, None
    if len(named) > 1:
        raise Rejected("invalid", "give a skill, an attribute or dice, not several",
                       f"$.{named[1]}")
    if command.skill is not None:
        skill = _skill(stats, who, command.skill)
        return skill.rating, skill
    if command.attribute is not None:
        return _attribute(stats, command.attribute), None
    if command.dice is not None:
        return command.dice, None
    return _resisted_with(stats, command.kind), None


def _skill(stats: Sr3Stats, who: str, name: str) -> vocabulary.Sr3Skill:
    """The character's skill ``name``, or a refusal suggesting the nearest they have."""
    skill = stats.skills.get(name)
    if skill is None:
        raise Rejected("not_found", f"{who} has no skill {name!r}"
                       + did_you_mean(name, stats.skills), "$.skill")
    return skill


def _attribute(stats: Sr3Stats, attribute: str) -> int:
    """An attribute's rating; Reaction's is its natural rating plus its bonus."""
    if attribute == "reaction":
        return stats.natural_reaction + stats.reaction_bonus
    return int(getattr(stats, attribute))


def _resisted_with(stats: Sr3Stats, kind: str) -> int:
    """The dice of a test that names none: Body resists damage, Willpower drain; any other
    test must name its skill, attribute or dice."""
    if kind == "damage_resistance":
        return stats.body
    if kind == "drain":
        return stats.willpower
    raise Rejected("invalid", "give a skill, an attribute or dice for the test", "$.skill")


def resolve_tn(game: GameState, command: Any) -> int | None:
    """The TN (None: open test). Opposing an open test with no TN takes its highest value."""
    if command.open and command.tn is not None:
        raise Rejected("invalid", "a test has a target number or is open, not both", "$.tn")
    other: TestRecord | None = None
    if command.opposes is not None:
        other = game.tests.get(command.opposes)
        if other is None:
            raise no_such("test", command.opposes, "$.opposes")
    if command.open:
        if command.kind == "dodge":
            raise Rejected("invalid", "a Dodge Test has a target number", "$.open")
        if other is not None and other.tn is not None:
            raise Rejected("invalid", "an open test opposes only an open test", "$.opposes")
        return None
    if command.tn is not None:
        return int(command.tn)
    if other is not None and other.tn is None:
        return max(other.highest, 2)  # the open test's highest total is the opponent's TN
    raise Rejected("invalid", "give a target number (tn, 2 or more) or make it open", "$.tn")


def check_tn_limit(command: Any, tn: int | None, wounds: int) -> None:
    """Refuse a target number past :data:`MAX_TN` once the wound modifiers are added, or one an
    open test's highest total sets, in words and before anything is logged: the event type
    holds TNs up to 100, and the notation takes 100 before wounds (a refusal that read "the
    result would break a limit of the log: expected int <= 100 - at $.tn" told no one why)."""
    if tn is None or tn + wounds <= MAX_TN:
        return
    wounded = f" + {wounds} for wounds" if wounds else ""
    if command.tn is None:  # the open test's highest total is this test's TN
        past = f"and {tn}{wounded} is" if wounds else "which is"
        raise Rejected("invalid", f"test #{command.opposes}'s highest total, {tn}, is this "
                       f"test's TN, {past} past the limit of {MAX_TN} for a target number",
                       "$.opposes")
    raise Rejected("invalid", f"TN {tn}{wounded} is past the limit of {MAX_TN} for a target "
                   "number", "$.tn")


def situation_of(command: Any, base: int, skill: vocabulary.Sr3Skill | None) -> Situation:
    """What the pool limits look at."""
    return Situation(kind=command.kind, skill=skill, base_dice=base,
                     surprised=command.surprised, rigged=command.rigged, astral=command.astral,
                     magic=command.magic, elemental=command.elemental)


def pools_left(ctx: Decision, stats: Sr3Stats, character: str) -> tuple[dict[str, int], bool]:
    """The dice left in each pool and whether they deplete (a combatant in a running turn).

    **Decision**: outside a Combat Turn (or for a character not in the combat) there is no turn
    to deplete within, so every test may draw up to the full pool.
    """
    game = ctx.game(GameState)
    combat = game.combat
    if combat is not None and combat.turn_running and character in combat.combatants:
        return dict(combat.combatants[character].pools_left), True
    return pool_sizes(stats), False


def pools_full(ctx: Decision, stats: Sr3Stats, character: str) -> dict[str, int]:
    """Each pool's dice at the start of this Combat Turn (a combatant in a running turn), else
    the character's full pools: what :func:`pools_left` counts down from."""
    combat = ctx.game(GameState).combat
    if combat is not None and combat.turn_running and character in combat.combatants:
        return dict(combat.combatants[character].pools_full)
    return pool_sizes(stats)


def karma_left(ctx: Decision, stats: Sr3Stats, character: str) -> int:
    """Karma Pool points not yet spent this scene."""
    full, _ = karma_pool(stats.karma_earned, stats.metahuman)
    return max(full - ctx.game(GameState).karma_spent.get(character, 0), 0)


def karma_dice_cost(kind: str, count: int) -> int:
    """1 point per die on damage and spell resistance tests; else 1, then 2, then 3 ..."""
    if kind in PER_DIE_KARMA_KINDS:
        return count
    return count * (count + 1) // 2


def outcome_against(game: GameState, opposes: int | None, kind: str, tn: int | None,
                    result: Result, dice: Sequence[PoolDie]) -> vocabulary.OpposedOutcome | None:
    """The opposed result: net successes; a Dodge whose Combat Pool dice alone beat the
    attack's successes makes it a complete miss (its Karma dice count in ``ours`` and ``net``,
    never toward the miss: :mod:`poolhall.server.rules.sr3_dodge`)."""
    if opposes is None or opposes not in game.tests:
        return None
    other = game.tests[opposes]
    theirs = other.highest if other.successes is None else other.successes
    ours = result.highest if result.successes is None else result.successes
    # against their open test: our successes against the TN it set
    net = ours if tn is not None and other.successes is None else ours - theirs
    if kind != "dodge" or tn is None or other.successes is None:
        return vocabulary.OpposedOutcome(test=opposes, theirs=theirs, ours=ours, net=net)
    alone = pool_successes(dice, tn)
    return vocabulary.OpposedOutcome(test=opposes, theirs=theirs, ours=ours, net=net,
                                     missed=alone > theirs, pool_successes=alone)


def roll_dice(rng: DiceSource, base: int, draws: Mapping[PoolName, int], karma: int
              ) -> tuple[PoolDie, ...]:
    """Base dice, then each pool's dice in the source's order, then bought karma dice."""
    count = base + sum(draws.values()) + karma
    if count < 1:
        raise Rejected("invalid", "a test needs at least one die: give dice, a skill or an "
                       "attribute, or draw from a pool", "$.pools" if draws else "$.dice")
    if count > MAX_TEST_DICE:
        raise Rejected("invalid", f"at most {MAX_TEST_DICE} dice in one test", "$.pools")
    dice = [PoolDie(source="base", faces=roll_chain(rng)) for _ in range(base)]
    for pool in POOLS:
        dice.extend(PoolDie(source=pool, faces=roll_chain(rng))
                    for _ in range(draws.get(pool, 0)))
    dice.extend(PoolDie(source="karma", faces=roll_chain(rng)) for _ in range(karma))
    return tuple(dice)
