"""The Shadowrun 3 Dodge Test: what it may answer, the dice it needs, and what makes a miss.

The source (``sr3-dice-pools.md``): "Whenever a character takes damage from a ranged or melee
attack, he or she can allocate dice to either dodge the attack or 'soak up' the damage. If a
character dodging such an attack generates more successes with his Combat Pool dice alone than
the attacker generates successes, the attack is considered a complete miss." and "Surprised
characters may not use Combat Pool dice to defend themselves."

So a Dodge answers a test that counts successes (an open test's highest total is not a count
of successes), once per character and attack, and rolls at least one Combat Pool die (on the
astral plane, Astral Combat Pool, "a variant of the Combat Pool"); a surprised character rolls
none, so cannot Dodge at all. Karma Pool may still buy dice for a Dodge (Karma rule 2 lists
"dodging" among the expenditures done "by book rules", at 1, then 2, then 3 points ...): they
add to the test's successes and so to the net successes against the attack, but the complete
miss is decided by the Combat Pool dice alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from poolhall.events.errors import Rejected
from poolhall.events.sr3 import PoolDie, PoolName
from poolhall.events.sr3_dice import result_of
from poolhall.projections.sr3 import GameState
from poolhall.server.rules.sr3_limits import QUOTES

__all__ = ["DODGE_POOLS", "DODGE_QUOTES", "check_answer", "check_dice", "pool_successes"]

DODGE_POOLS: tuple[PoolName, ...] = ("combat", "astral_combat")
"""The pools whose dice decide a Dodge's complete miss: "his Combat Pool dice alone" (the
Astral Combat Pool is "a variant of the Combat Pool" for Combat Tests on the astral plane)."""

DODGE_QUOTES = {
    "miss": "If a character dodging such an attack generates more successes with his Combat "
            "Pool dice alone than the attacker generates successes, the attack is considered a "
            "complete miss.",
    "once": "Whenever a character takes damage from a ranged or melee attack, he or she can "
            "allocate dice to either dodge the attack or 'soak up' the damage.",
}


def check_answer(game: GameState, command: Any) -> None:
    """Refuse a Dodge (declared or rolled) that the rules do not let happen, before any dice.

    A surprised character cannot Dodge, Karma dice or not; a Dodge answers only a test with a
    target number (it compares successes); and one character dodges one attack once: a second
    Dodge would let the same attack be rolled against until it missed.
    """
    if command.kind != "dodge":
        return
    if command.surprised:
        raise Rejected("rule", f'a surprised character cannot Dodge: "{QUOTES["surprised"]}", '
                       "and a Dodge is rolled with Combat Pool dice (Karma dice only add to "
                       "them)", "$.surprised")
    other = game.tests.get(command.opposes) if command.opposes is not None else None
    if other is None:
        return
    if other.successes is None:
        raise Rejected("rule", f"test #{other.test} is an open test: a Dodge answers a test "
                       "with a target number, whose successes it must beat "
                       f'("{DODGE_QUOTES["miss"]}"); an open test\'s highest total is no count '
                       "of successes", "$.opposes")
    for number in other.opposed_by:
        earlier = game.tests.get(number)
        if earlier is not None and earlier.kind == "dodge" \
                and earlier.character == command.character:
            raise Rejected("rule", f"{command.character} already dodged test #{other.test} "
                           f"with test #{number}: one Dodge per attack "
                           f'("{DODGE_QUOTES["once"]}"); a Karma Pool reroll of test '
                           f"#{number} is the way to try again", "$.opposes")


def check_dice(command: Any) -> None:
    """Refuse a Dodge with no Combat Pool (or Astral Combat Pool) die: Karma dice alone
    would make a Dodge no Combat Pool die could win, which the rule's "Combat Pool dice alone"
    leaves no room for. The path names the pool to draw from (a page marks its field)."""
    draws: Mapping[PoolName, int] = command.pools
    if command.kind == "dodge" and not any(draws.get(pool, 0) > 0 for pool in DODGE_POOLS):
        pool = "astral_combat" if command.astral else "combat"
        raise Rejected("rule", "a Dodge needs at least one Combat Pool die (on the astral "
                       "plane, Astral Combat Pool): draw one, e.g. +1cp; Karma dice only add "
                       f'to them, since "{DODGE_QUOTES["miss"]}"', f"$.pools.{pool}")


def pool_successes(dice: Sequence[PoolDie], tn: int) -> int:
    """A Dodge's successes with its Combat Pool (or Astral Combat Pool) dice alone: what the
    attacker's successes are compared with for a complete miss."""
    counted = [die for die in dice if die.source in DODGE_POOLS]
    if not counted:
        return 0
    return result_of(counted, tn).successes or 0
