"""What may answer a test (``opposes``): a Dodge and damage resistance take the situation of
the attack they answer, no one answers their own test, and a test that cannot answer another
does not take its roller's Karma Pool reroll away (sr3law D1, D2)."""

from __future__ import annotations

from typing import Any

from poolhall.events import sr3
from poolhall.projections.sr3 import describe
from poolhall.server.rules.sr3_limits import QUOTES
from tests.sr3.sr3_support import Table


def rolled(table: Table, member: str, **fields: Any) -> sr3.PoolTestRolled:
    """A test rolled and folded."""
    (event,) = table.run(member, sr3.RollPoolTest, **fields)
    assert isinstance(event, sr3.PoolTestRolled)
    return event


def test_rule_combat_pool_neither_dodges_nor_resists_a_spell_that_is_not_elemental() -> None:
    """"A player can only use Combat Pool dice to augment or resist magic-related tests in the
    case of elemental manipulation spells." The mage's Stunbolt (test #1) is no attack a Dodge
    answers: Deck's "+2cp dodge vs 1" was accepted, since only flags typed on the Dodge counted.
    His damage resistance against it takes the spell's situation (about magic), so Combat Pool
    dice are refused there too; Body alone is rolled."""
    table = Table()
    table.run("gm", sr3.StartCombat)
    rolled(table, "mage-player", character="mage", kind="spell", skill="sorcery", tn=4)
    for command in (sr3.RollPoolTest, sr3.DeclarePoolTest):
        extra = {"pools": {"combat": 2}} if command is sr3.RollPoolTest else {}
        refusal = table.refused("deck-player", command, character="deck", kind="dodge",
                                tn=4, opposes=1, **extra)
        assert (refusal.code, refusal.path) == ("rule", "$.opposes")
        assert refusal.message.startswith(
            "test #1, mage's sorcery test (spell), is not an elemental manipulation spell: a "
            "Dodge answers only such spells")
        assert QUOTES["combat_magic"] in refusal.message
    refusal = table.refused("deck-player", sr3.RollPoolTest, character="deck",
                            kind="damage_resistance", tn=4, opposes=1, pools={"combat": 2})
    assert (refusal.path, refusal.message) == ("$.pools.combat", f'"{QUOTES["combat_magic"]}"')
    resisted = rolled(table, "deck-player", character="deck", kind="damage_resistance", tn=4,
                      opposes=1)
    assert (resisted.magic, resisted.elemental) == (True, False)
    assert table.game.combat is not None
    assert table.game.combat.combatants["deck"].pools_left["combat"] == 6


def test_rule_an_elemental_manipulation_spell_is_dodged_with_combat_pool() -> None:
    """"The player uses these dice to dodge or resist damage from such spells in the same
    manner as normal Ranged Combat Tests": a Dodge of the mage's elemental spell draws Combat
    Pool dice, and records the spell's situation (magic, elemental)."""
    table = Table()
    rolled(table, "mage-player", character="mage", kind="spell", skill="sorcery", tn=4,
           elemental=True)
    dodge = rolled(table, "deck-player", character="deck", kind="dodge", tn=4, opposes=1,
                   pools={"combat": 3})
    assert (dodge.magic, dodge.elemental, dodge.astral) == (True, True, False)
    assert "deck test #2 Combat Pool (dodge, elemental) tn 4" in describe(table.log[-1],
                                                                           table.state)


def test_decision_a_dodge_is_on_the_plane_of_the_attack_it_answers() -> None:
    """The reference's decision, "the Combat Pool is not used on the astral plane": a Dodge of
    an astral attack (test #1) is an astral Dodge without the word typed, so Deck's Combat Pool
    dice are refused and the mage's Astral Combat Pool dice drawn; a Dodge "on the astral
    plane" of a physical shot (test #3) is refused at the flag (the mage drew Astral Combat Pool
    dice against a pistol shot)."""
    table = Table()
    rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=4,
           astral=True)
    refusal = table.refused("deck-player", sr3.RollPoolTest, character="deck", kind="dodge",
                            tn=4, opposes=1, pools={"combat": 1})
    assert (refusal.path, refusal.message) == ("$.pools.combat",
                                               f'"{QUOTES["combat_astral"]}"')
    dodge = rolled(table, "mage-player", character="mage", kind="dodge", tn=4, opposes=1,
                   pools={"astral_combat": 2})
    assert dodge.astral
    # named by the pool it rolls (it read "Combat Pool (dodge, astral)")
    assert "mage test #2 Astral Combat Pool (dodge, astral) tn 4: acp " in describe(
        table.log[-1], table.state)
    rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=4)
    refusal = table.refused("mage-player", sr3.RollPoolTest, character="mage", kind="dodge",
                            tn=4, opposes=3, astral=True, pools={"astral_combat": 2})
    assert (refusal.code, refusal.path) == ("rule", "$.astral")
    assert refusal.message.startswith(
        "test #3, sam's pistols test (combat), was not made on the astral plane, so a Dodge "
        "against it is not either")
    for flag in ("magic", "elemental"):
        refusal = table.refused("deck-player", sr3.DeclarePoolTest, character="deck",
                                kind="damage_resistance", tn=4, opposes=3, **{flag: True})
        assert (refusal.code, refusal.path) == ("rule", f"$.{flag}")


def test_rule_no_one_dodges_or_answers_their_own_test() -> None:
    """"Whenever a character takes damage from a ranged or melee attack, he or she can allocate
    dice to either dodge the attack or 'soak up' the damage", and "Opposed test: both sides
    roll": Sam dodged his own shot with Combat Pool dice; now neither that nor any other test
    of his answers it."""
    table = Table()
    rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=4)
    for kind, extra in (("dodge", {"pools": {"combat": 1}}), ("damage_resistance", {}),
                        ("other", {"skill": "etiquette"})):
        refusal = table.refused("sam-player", sr3.RollPoolTest, character="sam", kind=kind,
                                tn=4, opposes=1, **extra)
        assert (refusal.code, refusal.path) == ("rule", "$.opposes")
        assert refusal.message.startswith("test #1 is sam's own: a test answers an opponent's")


def test_rule_a_dodge_answers_an_attack_not_a_knowledge_test() -> None:
    """"Whenever a character takes damage from a ranged or melee attack, he or she can allocate
    dice to either dodge the attack": Deck's Physics test is no attack, so no Dodge or damage
    resistance answers it; his Computer test against it, an opposed test, may."""
    table = Table()
    rolled(table, "deck-player", character="deck", skill="physics", tn=4)
    for kind in ("dodge", "damage_resistance"):
        refusal = table.refused("sam-player", sr3.RollPoolTest, character="sam", kind=kind,
                                tn=4, opposes=1, pools={"combat": 1})
        assert (refusal.code, refusal.path) == ("rule", "$.opposes")
        assert refusal.message.startswith(
            "test #1, deck's physics test (other), is not an attack:")
    rolled(table, "sam-player", character="sam", skill="electronics", tn=4, opposes=1)


def test_rule_only_a_test_that_answers_an_attack_settles_its_karma_reroll() -> None:
    """"Karma pool may be used to reroll tests": a teammate's Physics test "against" Sam's
    Pistols shot took the reroll away ("test #1 was answered by test #2; its result stands").
    An attack is answered by a Dodge, damage resistance or (melee) a combat test, so the
    Physics test, a Drain test and a spell resistance test are refused, and Sam rerolls."""
    table = Table()
    table.dice(1, 1, 1, 1, 1)
    rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=6)
    for member, fields in (
            ("deck-player", {"character": "deck", "skill": "physics", "tn": 4}),
            ("mage-player", {"character": "mage", "kind": "drain", "tn": 4}),
            ("mage-player", {"character": "mage", "kind": "spell_resistance",
                             "attribute": "willpower", "tn": 4})):
        refusal = table.refused(member, sr3.RollPoolTest, opposes=1, **fields)
        assert (refusal.code, refusal.path) == ("rule", "$.opposes")
    assert table.game.tests[1].opposed_by == []
    (reroll,) = table.run("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    assert isinstance(reroll, sr3.PoolTestRerolled)
    # a Dodge does answer it: then its result stands
    rolled(table, "deck-player", character="deck", kind="dodge", tn=4, opposes=1,
           pools={"combat": 1})
    refusal = table.refused("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    assert "test #1 was answered by test #2; its result stands" in refusal.message


def test_decision_a_test_of_a_scene_that_is_over_is_answered_by_none() -> None:
    """A scene the GM ended is settled: a Dodge of its attack, rolled a scene later (it locked
    the old test against Karma as well), is refused naming both scenes."""
    table = Table()
    rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=4)
    table.run("gm", sr3.EndScene)
    refusal = table.refused("deck-player", sr3.RollPoolTest, character="deck", kind="dodge",
                            tn=4, opposes=1, pools={"combat": 1})
    assert (refusal.code, refusal.path) == ("rule", "$.opposes")
    assert refusal.message == "test #1 was rolled in scene 1, which is over: no test answers " \
                              "it in scene 2"


def test_rule_a_test_that_resists_something_is_answered_by_none() -> None:
    """A Drain Resistance test, a Dodge, damage resistance, spell resistance and spell defense
    answer something; nothing answers them. A teammate's Physics test "against" the mage's
    Drain test was accepted ("net +1 against test #1") and took its Karma reroll away ("test #1
    was answered by test #2; its result stands"), as did the attacker's next shot against
    Deck's Dodge, whose refusal of a second Dodge names the Karma reroll as the way to try
    again."""
    table = Table()
    table.dice(*[1] * 60)
    rolled(table, "mage-player", character="mage", kind="drain", tn=6)  # 1
    rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=4)  # 2
    rolled(table, "deck-player", character="deck", kind="dodge", tn=4, opposes=2,
           pools={"combat": 1})  # 3
    rolled(table, "mage-player", character="mage", kind="spell", skill="sorcery", tn=4)  # 4
    rolled(table, "sam-player", character="sam", kind="damage_resistance", tn=4,
           opposes=4)  # 5
    rolled(table, "deck-player", character="deck", kind="spell_resistance",
           attribute="willpower", tn=4, opposes=4)  # 6
    rolled(table, "sam-player", character="sam", kind="spell_defense", dice=3, tn=4,
           opposes=4)  # 7
    for test, words in ((1, "mage's dice test (drain), resists the drain of its magician's "
                            "own spell"),
                        (3, "deck's dice test (dodge), resists an attack"),
                        (5, "sam's dice test (damage resistance), resists an attack's damage"),
                        (6, "deck's willpower test (spell resistance), resists a spell"),
                        (7, "sam's dice test (spell defense), resists a spell")):
        for member, fields in (
                ("deck-player", {"character": "deck", "skill": "physics"}),
                ("sam-player", {"character": "sam", "kind": "combat", "skill": "pistols"}),
                ("mage-player", {"character": "mage", "kind": "combat", "skill": "unarmed"})):
            if table.game.tests[test].character == fields["character"]:
                continue
            refusal = table.refused(member, sr3.RollPoolTest, tn=4, opposes=test, **fields)
            assert (refusal.code, refusal.path) == ("rule", "$.opposes")
            assert refusal.message.startswith(f"test #{test}, {words}: it answers a test, and "
                                              "no test answers it"), refusal.message
        assert table.game.tests[test].opposed_by == []
    (reroll,) = table.run("mage-player", sr3.RerollWithKarma, test=1, character="mage")
    assert isinstance(reroll, sr3.PoolTestRerolled)
    (reroll,) = table.run("deck-player", sr3.RerollWithKarma, test=3, character="deck")
    assert isinstance(reroll, sr3.PoolTestRerolled)


def test_decision_a_melee_combat_test_is_on_the_plane_of_the_attack_it_answers() -> None:
    """A defender's own combat test answering an astral melee attack is an astral one too, as a
    Dodge is: mundane Sam answered the mage's astral Unarmed attack with 3 Combat Pool dice
    (his Dodge of it was refused). Now those dice are refused, he has no Astral Combat Pool,
    his base dice alone are rolled as an astral test, and an "astral" answer to a physical
    attack is refused at the flag."""
    table = Table()
    rolled(table, "mage-player", character="mage", kind="combat", skill="unarmed", tn=4,
           astral=True, pools={"astral_combat": 2})
    refusal = table.refused("sam-player", sr3.RollPoolTest, character="sam", kind="combat",
                            skill="pistols", tn=4, opposes=1, pools={"combat": 3})
    assert (refusal.code, refusal.path) == ("rule", "$.pools.combat")
    assert refusal.message == f'"{QUOTES["combat_astral"]}"'
    refusal = table.refused("sam-player", sr3.RollPoolTest, character="sam", kind="combat",
                            skill="pistols", tn=4, opposes=1, pools={"astral_combat": 1})
    assert (refusal.code, refusal.path) == ("rule", "$.pools.astral_combat")
    answer = rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=4,
                    opposes=1)
    assert answer.astral
    rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=4)  # 3
    refusal = table.refused("mage-player", sr3.RollPoolTest, character="mage", kind="combat",
                            skill="unarmed", tn=4, opposes=3, astral=True)
    assert (refusal.code, refusal.path) == ("rule", "$.astral")
    assert refusal.message.startswith(
        "test #3, sam's pistols test (combat), was not made on the astral plane, so a combat "
        "test against it is not either")


def test_decision_a_test_of_a_scene_that_is_over_is_not_rerolled() -> None:
    """A scene that is over is settled: Sam's shot of scene 1 was rerolled with Karma in scene
    2, paid from the pool the GM's EndScene had refreshed. It is refused naming the scene."""
    table = Table()
    table.dice(1, 1, 1, 1, 1)
    rolled(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=6)
    table.run("gm", sr3.EndScene)
    refusal = table.refused("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    assert (refusal.code, refusal.path) == ("rule", "$.test")
    assert refusal.message.startswith("test #1 was rolled in scene 1, which is over")
    assert table.game.tests[1].rerolls == 0
