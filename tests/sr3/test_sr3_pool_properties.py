"""Properties of drawing pool dice: the declared limits are exactly what the rules accept."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from poolhall.events import core, sr3
from poolhall.events.errors import Rejected
from poolhall.events.sr3 import POOLS, TEST_KINDS
from poolhall.events.sr3_values import PoolName
from poolhall.server.rules.sr3_dodge import DODGE_POOLS
from tests.sr3.sr3_support import Table

SITUATIONS = st.fixed_dictionaries({
    "character": st.sampled_from(["sam", "deck", "mage", "rig"]),
    "kind": st.sampled_from(TEST_KINDS),
    "skill": st.sampled_from([None, "pistols", "computer", "sorcery", "car", "physics",
                              "conjuring", "unarmed"]),
    "surprised": st.booleans(),
    "rigged": st.booleans(),
    "astral": st.booleans(),
    "magic": st.booleans(),
    "elemental": st.booleans(),
})


def _situation(table: Table, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields of a test the character can roll: a skill it has, else Intelligence."""
    stats = table.state.characters[fields["character"]].stats
    assert isinstance(stats, sr3.Sr3Stats)
    fields = dict(fields)
    if fields["kind"] == "dodge":
        fields["skill"] = None
    elif fields["skill"] is None or fields["skill"] not in stats.skills:
        fields["skill"] = None
        fields["attribute"] = "intelligence"
    return fields


@settings(max_examples=150, deadline=None)
@given(SITUATIONS, st.sampled_from(POOLS), st.booleans())
def test_declared_limits_are_exactly_what_a_roll_may_draw(fields: dict[str, Any], pool: PoolName,
                                                          in_combat: bool) -> None:
    """Drawing up to the declared limit is accepted, one more die is refused with a quoted
    rule at that pool's path; a pool not offered refuses even one die. (A Dodge also needs a
    Combat Pool die, and a surprised character none: ``test_sr3_dodge.py`` has those.)"""
    assume(fields["kind"] != "dodge" or (not fields["surprised"] and pool in DODGE_POOLS))
    table = Table()
    if in_combat:
        table.run("gm", sr3.StartCombat)
    test = _situation(table, fields)
    (declared,) = table.run("gm", sr3.DeclarePoolTest, tn=5, **test)
    assert isinstance(declared, sr3.PoolTestDeclared)
    most = declared.limits.get(pool, 0)
    if most:
        (event,) = table.decide("gm", sr3.RollPoolTest, tn=5, pools={pool: most}, **test)
        assert isinstance(event, sr3.PoolTestRolled)
        assert sum(1 for d in event.dice if d.source == pool) == most
        if in_combat:
            assert table.game.combat is not None
            assert event.pools_left is not None
            full = table.game.combat.combatants[test["character"]].pools_full[pool]
            assert event.pools_left[pool] == full - most >= 0
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RollPoolTest, tn=5, pools={pool: most + 1}, **test)
    assert refused.value.code == "rule"
    assert refused.value.path == f"$.pools.{pool}"
    assert refused.value.message.count('"') >= 2  # the rule, quoted


def test_pool_sizes_of_a_turn_are_the_recorded_ones_not_todays_stats() -> None:
    """A character's stats changing mid-turn does not change the pools recorded for the turn;
    the next Combat Turn takes the new sizes."""
    table = Table()
    table.run("gm", sr3.StartCombat)
    quick = msgspec.structs.replace(table.state.characters["sam"].stats, quickness=10)
    table.fold(core.CharacterUpdated(character="sam", stats=quick))
    assert table.game.combat is not None
    assert table.game.combat.combatants["sam"].pools_full["combat"] == 7
    while table.game.combat.turn == 1:
        table.run("gm", sr3.AdvanceCombatPass)
    assert table.game.combat.combatants["sam"].pools_full["combat"] == (10 + 5 + 4) // 2
