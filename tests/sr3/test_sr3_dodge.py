"""Dodge: the target rolls Combat Pool dice alone; beating the attacker's successes is a miss."""

from __future__ import annotations

import pytest

from poolhall.events import sr3
from poolhall.events.errors import Rejected
from poolhall.projections.sr3 import describe
from tests.sr3.sr3_support import Table


def attack_then_dodge(attack_faces: tuple[int, ...], dodge_faces: tuple[int, ...],
                      dodge_dice: int) -> tuple[Table, sr3.PoolTestRolled]:
    table = Table()
    table.run("gm", sr3.StartCombat)
    table.dice(*attack_faces)
    table.run("sam-player", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
              tn=4, pools={"combat": 2})
    table.dice(*dodge_faces)
    (dodge,) = table.run("deck-player", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
                         pools={"combat": dodge_dice}, opposes=1)
    assert isinstance(dodge, sr3.PoolTestRolled)
    return table, dodge


def test_rule_dodge_beating_the_attack_with_combat_pool_dice_alone_is_a_complete_miss() -> None:
    """"If a character dodging such an attack generates more successes with his Combat Pool
    dice alone than the attacker generates successes, the attack is considered a complete
    miss."""
    table, dodge = attack_then_dodge((5, 1, 1, 1, 1, 4, 1), (4, 5, 6, 3, 1), 4)
    assert {d.source for d in dodge.dice} == {"combat"}
    assert dodge.base_dice == 0
    assert dodge.outcome == sr3.OpposedOutcome(test=1, theirs=2, ours=3, net=1, missed=True)
    assert "test #1 is a complete miss" in describe(table.log[-1], table.state)
    assert dodge.pools_left is not None
    assert dodge.pools_left["combat"] == 6 - 4


def test_a_dodge_that_only_ties_the_attack_does_not_make_it_miss() -> None:
    """Equal successes are not "more successes": the attack still hits."""
    table, dodge = attack_then_dodge((5, 1, 1, 1, 1, 4, 1), (4, 5, 1, 1), 4)
    assert dodge.outcome == sr3.OpposedOutcome(test=1, theirs=2, ours=2, net=0, missed=False)
    assert "test #1 still hits, 2 to 2" in describe(table.log[-1], table.state)


def test_a_dodge_rolls_no_skill_or_attribute_dice() -> None:
    """A Dodge Test with a skill or an attribute is refused, quoting "Combat Pool dice alone"."""
    table = Table()
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
                     attribute="quickness", pools={"combat": 1})
    assert (refused.value.code, refused.value.path) == ("rule", "$.attribute")
    assert "Combat Pool dice alone" in refused.value.message
