"""Drawing pool dice: every limit of the source, each refusal quoting its rule."""

from __future__ import annotations

from typing import Any

import pytest

from poolhall.events import sr3
from poolhall.events.errors import Rejected
from poolhall.events.sr3 import Sr3Skill
from poolhall.server.rules.sr3_limits import QUOTES
from tests.sr3.sr3_support import Table, mage, stats


def draw(table: Table, character: str, **fields: Any) -> sr3.PoolTestRolled:
    """Roll a test as the GM with TN 4 (unless given) and return its event."""
    fields.setdefault("tn", 4)
    (event,) = table.run("gm", sr3.RollPoolTest, character=character, **fields)
    assert isinstance(event, sr3.PoolTestRolled)
    return event


def refused(table: Table, character: str, **fields: Any) -> Rejected:
    """The refusal of a test; nothing is appended."""
    fields.setdefault("tn", 4)
    head = table.seq
    with pytest.raises(Rejected) as caught:
        table.decide("gm", sr3.RollPoolTest, character=character, **fields)
    assert table.seq == head
    return caught.value


def assert_quotes(refusal: Rejected, key: str, pool: str) -> None:
    assert refusal.code == "rule"
    assert refusal.path == f"$.pools.{pool}"
    assert QUOTES[key] in refusal.message


def from_pool(event: sr3.PoolTestRolled, pool: str) -> int:
    return sum(1 for die in event.dice if die.source == pool)


# ---- Combat Pool --------------------------------------------------------------------------


def test_rule_offensive_combat_pool_at_most_the_skill_rating() -> None:
    """"The maximum number of Combat Pool dice that a player can add to any offensive test is
    equal to his or her character's rating in the skill for which he is making the test."""
    table = Table()
    event = draw(table, "sam", kind="combat", skill="pistols", pools={"combat": 5})
    assert from_pool(event, "combat") == 5
    assert event.base_dice == 5
    refusal = refused(table, "sam", kind="combat", skill="pistols", pools={"combat": 6})
    assert_quotes(refusal, "combat_offensive", "combat")
    assert "at most 5" in refusal.message


def test_rule_dodge_and_damage_resistance_draw_any_number_of_combat_pool_dice() -> None:
    """"A player may draw any number of dice from the Combat Pool for a defensive Dodge or
    Damage Resistance Test."""
    table = Table()
    dodge = draw(table, "sam", kind="dodge", pools={"combat": 7})
    assert dodge.base_dice == 0
    assert from_pool(dodge, "combat") == 7
    soak = draw(table, "sam", kind="damage_resistance", pools={"combat": 7})
    assert soak.base_dice == 6
    assert from_pool(soak, "combat") == 7


def test_rule_no_combat_pool_when_surprised() -> None:
    """"Surprised characters may not use Combat Pool dice to defend themselves."""
    table = Table()
    for kind in ("damage_resistance", "combat"):
        refusal = refused(table, "sam", kind=kind, skill="pistols" if kind == "combat" else None,
                          surprised=True, pools={"combat": 1})
        assert_quotes(refusal, "surprised", "combat")
    refusal = refused(table, "sam", kind="dodge", surprised=True, pools={"combat": 1})
    assert (refusal.code, refusal.path) == ("rule", "$.surprised")  # no Dodge at all
    assert QUOTES["surprised"] in refusal.message
    assert draw(table, "sam", kind="damage_resistance", surprised=True).base_dice == 6


def test_rule_combat_pool_on_magic_only_for_elemental_manipulation() -> None:
    """"A player can only use Combat Pool dice to augment or resist magic-related tests in the
    case of elemental manipulation spells. The player uses these dice to dodge or resist damage
    from such spells in the same manner as normal Ranged Combat Tests."""
    table = Table()
    assert_quotes(refused(table, "mage", kind="spell", skill="sorcery", pools={"combat": 2}),
                  "combat_magic", "combat")
    assert_quotes(refused(table, "sam", kind="dodge", magic=True, pools={"combat": 2}),
                  "combat_magic", "combat")
    assert_quotes(refused(table, "mage", kind="drain", pools={"combat": 1}),
                  "combat_magic", "combat")
    fireball = draw(table, "mage", kind="spell", skill="sorcery", elemental=True,
                    pools={"combat": 5})
    assert from_pool(fireball, "combat") == 5
    assert_quotes(refused(table, "mage", kind="spell", skill="sorcery", elemental=True,
                          pools={"combat": 6}), "combat_offensive", "combat")
    assert from_pool(draw(table, "sam", kind="dodge", magic=True, elemental=True,
                          pools={"combat": 7}), "combat") == 7
    assert from_pool(draw(table, "sam", kind="damage_resistance", elemental=True,
                          pools={"combat": 7}), "combat") == 7


def test_rule_combat_pool_only_on_combat_tests() -> None:
    """"Players may allocate dice from the Combat Pool to any offensive or defensive
    combat-related tests": not to a social test."""
    assert_quotes(refused(Table(), "sam", skill="etiquette", pools={"combat": 1}),
                  "combat_tests", "combat")


def test_decision_no_combat_pool_on_the_astral_plane() -> None:
    """Decision: "Because the physical Attribute of Quickness does not exist on the astral",
    the Astral Combat Pool replaces the Combat Pool there."""
    assert_quotes(refused(Table(), "mage", kind="combat", skill="unarmed", astral=True,
                          pools={"combat": 1}), "combat_astral", "combat")


# ---- Control Pool -------------------------------------------------------------------------


def test_rule_control_pool_at_most_the_base_skill_dice() -> None:
    """"The maximum number of Control Pool dice that a character can add to any control-related
    test is equal to the base number of skill dice involved in the test."""
    table = Table()
    assert from_pool(draw(table, "rig", kind="control", skill="car", rigged=True,
                          pools={"control": 4}), "control") == 4
    assert_quotes(refused(table, "rig", kind="control", skill="car", rigged=True,
                          pools={"control": 5}), "control_max", "control")


def test_rule_control_pool_only_while_rigged() -> None:
    """"If a rigger is driving or piloting a vehicle that she is not currently rigged into, she
    cannot use Control Pool for tests concerning that vehicle."""
    assert_quotes(refused(Table(), "rig", kind="control", skill="car", pools={"control": 1}),
                  "control_rigged", "control")


def test_rule_control_pool_only_with_a_vehicle_control_rig() -> None:
    """"Only characters with a Vehicle Control Rig can use a Control Pool."""
    assert_quotes(refused(Table(), "sam", kind="control", dice=3, rigged=True,
                          pools={"control": 1}), "control_vcr", "control")


def test_rule_control_pool_only_for_controlling_a_rigged_vehicle() -> None:
    """"The Control Pool is used by riggers to augment tests strictly relating to controlling a
    rigged vehicle"."""
    assert_quotes(refused(Table(), "rig", attribute="body", rigged=True, pools={"control": 1}),
                  "control_tests", "control")


# ---- Hacking Pool -------------------------------------------------------------------------


def test_rule_hacking_pool_at_most_the_base_skill_or_attribute_dice() -> None:
    """"The maximum number of Hacking Pool dice that may be used for any test is equal to the
    base number of skill or attribute dice in use."""
    table = Table()
    assert from_pool(draw(table, "deck", kind="matrix", skill="computer",
                          pools={"hacking": 6}), "hacking") == 6
    assert_quotes(refused(table, "deck", kind="matrix", skill="computer", pools={"hacking": 7}),
                  "hacking_max", "hacking")
    assert from_pool(draw(table, "deck", kind="matrix", attribute="willpower",
                          pools={"hacking": 4}), "hacking") == 4
    assert_quotes(refused(table, "deck", kind="matrix", attribute="willpower",
                          pools={"hacking": 5}), "hacking_max", "hacking")


def test_rule_no_hacking_pool_for_etiquette_matrix_tests() -> None:
    """"... with the exception of Etiquette (Matrix) Tests ..."."""
    assert_quotes(refused(Table(), "deck", kind="matrix_etiquette", skill="etiquette-matrix",
                          pools={"hacking": 1}), "hacking_except", "hacking")


def test_rule_no_hacking_pool_resisting_damaging_ic() -> None:
    """"... and Body or Willpower Tests made to resist the effects of gray or black IC that is
    damaging to the decker."""
    assert_quotes(refused(Table(), "deck", kind="ic_resistance", attribute="body",
                          pools={"hacking": 1}), "hacking_except", "hacking")


def test_rule_hacking_pool_only_for_tests_in_the_matrix() -> None:
    """"Hacking Pool dice may be added to any test conducted in the Matrix"; not a Pistols
    test in the flesh."""
    assert_quotes(refused(Table(), "deck", kind="combat", skill="pistols", pools={"hacking": 1}),
                  "hacking_matrix", "hacking")


def test_rule_hacking_pool_only_with_hot_asist() -> None:
    """"Hacking Pool is only available to characters using a hot ASIST interface."""
    assert_quotes(refused(Table(), "sam", kind="matrix", skill="electronics",
                          pools={"hacking": 1}), "hacking_asist", "hacking")


# ---- Spell Pool ---------------------------------------------------------------------------


def weak_sorcerer() -> Table:
    sheet = stats(intelligence=6, willpower=6, magic=6,  # Spell Pool 6
                  skills={"sorcery": Sr3Skill(rating=3, attribute="willpower", kind="sorcery"),
                          "conjuring": Sr3Skill(rating=4, attribute="willpower",
                                                kind="conjuring")})
    return Table(characters={"mage": sheet})


def test_rule_spell_pool_at_most_the_base_sorcery_dice() -> None:
    """"The maximum number of Spell Pool dice that a character can add to a Sorcery Test is
    equal to her base Sorcery Skill dice used in that test."""
    table = weak_sorcerer()
    for kind in ("spell", "spell_defense", "dispelling"):
        assert from_pool(draw(table, "mage", kind=kind, skill="sorcery", pools={"spell": 3}),
                         "spell") == 3
        assert_quotes(refused(table, "mage", kind=kind, skill="sorcery", pools={"spell": 4}),
                      "spell_max", "spell")


def test_rule_drain_resistance_draws_any_number_of_spell_pool_dice() -> None:
    """"There is no limit to the number of dice a character may draw from the Spell Pool for
    the Drain Resistance Test."""
    table = weak_sorcerer()
    event = draw(table, "mage", kind="drain", dice=2, pools={"spell": 6})
    assert from_pool(event, "spell") == 6
    assert draw(table, "mage", kind="drain").base_dice == 6  # Willpower by default


def test_rule_no_spell_pool_for_conjuring() -> None:
    """"Dice from the Spell Pool cannot be used to augment Conjuring or any other magic-related
    tests."""
    table = weak_sorcerer()
    assert_quotes(refused(table, "mage", kind="conjuring", skill="conjuring",
                          pools={"spell": 1}), "spell_conjuring", "spell")
    assert_quotes(refused(table, "mage", kind="magical_skill", dice=3, pools={"spell": 1}),
                  "spell_conjuring", "spell")


def test_rule_spell_pool_only_for_sorcery_tests() -> None:
    """"A magician uses dice from the Spell Pool to augment Sorcery Tests"; not to climb."""
    assert_quotes(refused(weak_sorcerer(), "mage", attribute="strength", pools={"spell": 1}),
                  "spell_tests", "spell")
    assert_quotes(refused(Table(), "sam", kind="drain", pools={"spell": 1}),
                  "spell_magician", "spell")


# ---- Astral Combat, Task and Astral Pools --------------------------------------------------


def test_astral_combat_pool_serves_combat_tests_on_the_astral_plane() -> None:
    """"Astral Combat Pool ... relates to Combat Tests made on the astral plane"; offensive
    tests draw at most the skill rating (decision: "similar to the Combat Pool")."""
    table = Table()
    assert from_pool(draw(table, "mage", kind="combat", skill="sorcery", astral=True,
                          pools={"astral_combat": 5}), "astral_combat") == 5
    assert_quotes(refused(table, "mage", kind="combat", skill="sorcery", astral=True,
                          pools={"astral_combat": 6}), "astral_combat_offensive",
                  "astral_combat")
    assert from_pool(draw(table, "mage", kind="dodge", astral=True,
                          pools={"astral_combat": 8}), "astral_combat") == 8
    assert_quotes(refused(table, "mage", kind="combat", skill="unarmed",
                          pools={"astral_combat": 1}), "astral_combat_plane", "astral_combat")


def test_rule_task_pool_only_for_intelligence_linked_skills() -> None:
    """"Task Pool works with the following Intelligence-linked skills: Technical, Build/Repair,
    Knowledge and Language ... You may not use it to fire a pistol or talk to a contact."""
    table = Table()
    assert from_pool(draw(table, "deck", skill="physics", pools={"task": 1}), "task") == 1
    assert from_pool(draw(table, "deck", kind="matrix", skill="computer", pools={"task": 1}),
                     "task") == 1
    for skill in ("pistols", "etiquette-matrix"):
        assert_quotes(refused(table, "deck", skill=skill, pools={"task": 1}), "task_skills",
                      "task")
    assert_quotes(refused(table, "deck", attribute="intelligence", pools={"task": 1}),
                  "task_skills", "task")


def test_rule_task_pool_not_for_perception_tests() -> None:
    """"This Intelligence bonus does not affect Perception Tests."""
    assert_quotes(refused(Table(), "deck", kind="perception", skill="physics",
                          pools={"task": 1}), "task_perception", "task")


def test_rule_astral_pool_on_the_astral_plane_except_magical_skill_tests() -> None:
    """"Astral Pool dice can be used for any test made while on the astral plane or
    metaplanes, except for Magical Skill Tests. They can be used to augment Astral Combat
    Tests (even when Sorcery is used) and Astral Perception Tests."""
    table = Table()
    assert from_pool(draw(table, "mage", kind="perception", attribute="intelligence",
                          astral=True, pools={"astral": 2}), "astral") == 2
    assert from_pool(draw(table, "mage", kind="combat", skill="sorcery", astral=True,
                          pools={"astral": 2}), "astral") == 2
    assert_quotes(refused(table, "mage", attribute="intelligence", pools={"astral": 1}),
                  "astral_plane", "astral")
    for kind, skill in (("spell", "sorcery"), ("conjuring", "conjuring"),
                        ("magical_skill", "aura-reading")):
        assert_quotes(refused(table, "mage", kind=kind, skill=skill, astral=True,
                              pools={"astral": 1}), "astral_plane", "astral")


# ---- what is left -------------------------------------------------------------------------


def test_rule_never_more_pool_dice_than_are_left() -> None:
    """"Once dice are drawn from the pool, those dice are no longer available for use until
    the pool refreshes at the beginning of the next Combat Turn."""
    table = Table()
    table.run("gm", sr3.StartCombat)
    first = draw(table, "sam", kind="combat", skill="pistols", pools={"combat": 5})
    assert first.pools_left is not None
    assert first.pools_left["combat"] == 2
    refusal = refused(table, "sam", kind="dodge", pools={"combat": 3})
    assert_quotes(refusal, "left", "combat")
    assert "only 2 Combat Pool dice left" in refusal.message
    dodge = draw(table, "sam", kind="dodge", pools={"combat": 2})
    assert dodge.pools_left is not None
    assert dodge.pools_left["combat"] == 0
    assert table.game.combat is not None
    assert table.game.combat.combatants["sam"].pools_left["combat"] == 0


def test_a_character_without_the_pool_cannot_draw_on_it() -> None:
    """No initiate grade, no Astral Pool; no encephalon, no Task Pool: the refusal says why."""
    table = Table()
    assert_quotes(refused(table, "sam", kind="perception", attribute="intelligence",
                          astral=True, pools={"astral": 1}), "astral_none", "astral")
    assert_quotes(refused(table, "sam", skill="electronics", pools={"task": 1}), "task_none",
                  "task")
    assert mage().initiate_grade == 2
