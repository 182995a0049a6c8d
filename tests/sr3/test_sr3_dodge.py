"""Dodge: the target rolls Combat Pool dice alone; beating the attacker's successes is a miss.

Also the Dodge's other rules (one per attack, none when surprised, only against a test with a
target number) and the refusal in words of a target number past the log's limit of 100."""

from __future__ import annotations

import pytest

from poolhall.events import core, sr3
from poolhall.events.errors import Rejected
from poolhall.projections.sr3 import describe
from poolhall.server.rules.sr3_limits import QUOTES
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
    assert dodge.outcome == sr3.OpposedOutcome(test=1, theirs=2, ours=3, net=1, missed=True,
                                            pool_successes=3)
    assert "test #1 is a complete miss" in describe(table.log[-1], table.state)
    assert dodge.pools_left is not None
    assert dodge.pools_left["combat"] == 6 - 4


def test_a_dodge_that_only_ties_the_attack_does_not_make_it_miss() -> None:
    """Equal successes are not "more successes": the attack still hits."""
    table, dodge = attack_then_dodge((5, 1, 1, 1, 1, 4, 1), (4, 5, 1, 1), 4)
    assert dodge.outcome == sr3.OpposedOutcome(test=1, theirs=2, ours=2, net=0, missed=False,
                                            pool_successes=2)
    assert "test #1 still hits, 2 to 2" in describe(table.log[-1], table.state)


def test_a_dodge_rolls_no_skill_or_attribute_dice() -> None:
    """A Dodge Test with a skill or an attribute is refused, quoting "Combat Pool dice alone"."""
    table = Table()
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
                     attribute="quickness", pools={"combat": 1})
    assert (refused.value.code, refused.value.path) == ("rule", "$.attribute")
    assert "Combat Pool dice alone" in refused.value.message


def attack(table: Table, *faces: int) -> None:
    """Test #1: Sam's Pistols 5 at TN 4 with ``faces`` (5, 1, 1, 1, 1 is one success)."""
    table.dice(*faces)
    table.run("sam-player", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
              tn=4)


def test_rule_karma_dice_never_decide_a_dodges_complete_miss() -> None:
    """"... generates more successes with his Combat Pool dice alone than the attacker
    generates successes, the attack is considered a complete miss": a Karma die's success is
    counted in the Dodge's successes and net, never toward the miss."""
    table = Table()
    attack(table, 5, 1, 1, 1, 1)  # 1 success
    table.dice(4, 5)  # the Combat Pool die and the Karma die both succeed
    (dodge,) = table.run("deck-player", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
                         pools={"combat": 1}, karma_dice=1, opposes=1)
    assert isinstance(dodge, sr3.PoolTestRolled)
    assert [d.source for d in dodge.dice] == ["combat", "karma"]
    assert dodge.outcome == sr3.OpposedOutcome(test=1, theirs=1, ours=2, net=1, missed=False,
                                               pool_successes=1)
    assert describe(table.log[-1], table.state).endswith(
        "2 successes; test #1 still hits, 1 to 1 with Combat Pool dice alone (2 with all dice)"
        "; karma pool 1 spent, 10 left")
    # the Combat Pool dice alone beating the attack is a miss, Karma die or not
    table = Table()
    attack(table, 5, 1, 1, 1, 1)
    table.dice(4, 5, 2)
    (dodge,) = table.run("deck-player", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
                         pools={"combat": 2}, karma_dice=1, opposes=1)
    assert isinstance(dodge, sr3.PoolTestRolled)
    assert dodge.outcome == sr3.OpposedOutcome(test=1, theirs=1, ours=2, net=1, missed=True,
                                               pool_successes=2)
    assert "test #1 is a complete miss" in describe(table.log[-1], table.state)


def test_a_karma_reroll_of_a_dodge_that_still_hits_is_described() -> None:
    """The log line of a Karma reroll of a Dodge that still misses nothing says so (it raised
    AttributeError: the reroll event has no ``kind``), and a miss won by the reroll too."""
    table = Table()
    attack(table, 5, 5, 1, 1, 1)  # 2 successes
    table.dice(4, 1, 1)
    table.run("deck-player", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
              pools={"combat": 3}, opposes=1)
    table.dice(2, 2)
    table.run("deck-player", sr3.RerollWithKarma, test=2, character="deck")
    assert "test #1 still hits, 2 to 1 (karma pool left 10)" in describe(table.log[-1],
                                                                         table.state)
    table.dice(5, 6, 1)
    table.run("deck-player", sr3.RerollWithKarma, test=2, character="deck")
    assert "test #1 is a complete miss" in describe(table.log[-1], table.state)


def test_rule_a_surprised_character_cannot_dodge_even_with_karma_dice() -> None:
    """"Surprised characters may not use Combat Pool dice to defend themselves": a Dodge is
    rolled with Combat Pool dice, so a surprised character has none, and Karma dice bought
    instead do not make one (they were a way round the rule)."""
    table = Table()
    attack(table, 5, 1, 1, 1, 1)
    for command, extra in ((sr3.RollPoolTest, {"karma_dice": 2}),
                           (sr3.RollPoolTest, {"pools": {"combat": 1}, "karma_dice": 1}),
                           (sr3.DeclarePoolTest, {})):
        refusal = table.refused("deck-player", command, character="deck", kind="dodge", tn=2,
                                surprised=True, opposes=1, **extra)
        assert (refusal.code, refusal.path) == ("rule", "$.surprised")
        assert "a surprised character cannot Dodge" in refusal.message
        assert QUOTES["surprised"] in refusal.message


def test_rule_a_dodge_needs_a_combat_pool_die() -> None:
    """"... more successes with his Combat Pool dice alone ...": a Dodge of Karma dice alone
    (or of no die) is refused in words; on the astral plane an Astral Combat Pool die will do."""
    table = Table()
    attack(table, 5, 1, 1, 1, 1)
    for extra in ({"karma_dice": 2}, {}):
        refusal = table.refused("deck-player", sr3.RollPoolTest, character="deck", kind="dodge",
                                tn=2, opposes=1, **extra)
        assert (refusal.code, refusal.path) == ("rule", "$.pools.combat")
        assert "a Dodge needs at least one Combat Pool die" in refusal.message
        assert "Combat Pool dice alone" in refusal.message
    (astral,) = table.run("mage-player", sr3.RollPoolTest, character="mage", kind="dodge", tn=4,
                          astral=True, pools={"astral_combat": 1}, karma_dice=1)
    assert isinstance(astral, sr3.PoolTestRolled)
    assert [d.source for d in astral.dice] == ["astral_combat", "karma"]


def test_rule_one_dodge_per_character_per_attack() -> None:
    """"Whenever a character takes damage from a ranged or melee attack, he or she can allocate
    dice to either dodge the attack or 'soak up' the damage": one Dodge of an attack, not one
    roll after another until it misses. Nothing is appended; another character may dodge."""
    table = Table()
    attack(table, 5, 1, 1, 1, 1)
    table.dice(1)
    table.run("deck-player", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
              pools={"combat": 1}, opposes=1)
    for command, extra in ((sr3.RollPoolTest, {"pools": {"combat": 2}}),
                           (sr3.DeclarePoolTest, {})):
        refusal = table.refused("gm", command, character="deck", kind="dodge", tn=4,
                                opposes=1, **extra)
        assert (refusal.code, refusal.path) == ("rule", "$.opposes")
        assert "deck already dodged test #1 with test #2: one Dodge per attack" in \
            refusal.message
    assert table.game.tests[1].opposed_by == [2]
    (other,) = table.run("mage-player", sr3.RollPoolTest, character="mage", kind="dodge", tn=4,
                         pools={"combat": 1}, opposes=1)
    assert isinstance(other, sr3.PoolTestRolled)


def test_a_dodge_answers_only_a_test_with_a_target_number() -> None:
    """An open test's result is its highest total, not a count of successes: a Dodge against it
    (which compared that total with successes: "still hits, 4 to 1") is refused in words."""
    table = Table()
    table.dice(4, 2)
    table.run("sam-player", sr3.RollPoolTest, character="sam", dice=2, open=True)
    for extra in ({"tn": 4}, {}):
        refusal = table.refused("deck-player", sr3.RollPoolTest, character="deck",
                                kind="dodge", pools={"combat": 3}, opposes=1, **extra)
        assert (refusal.code, refusal.path) == ("rule", "$.opposes")
        assert "test #1 is an open test: a Dodge answers a test with a target number" in \
            refusal.message


def test_a_target_number_past_100_with_wounds_is_refused_in_words() -> None:
    """TN 99 is valid, but Sam's wounds (+3) make it 102, past what the log holds: refused in
    words naming both numbers, declared or rolled (it read "the result would break a limit of
    the log: expected int <= 100 - at $.tn in pool_test_rolled")."""
    table = Table()
    table.run("gm", core.SetCondition, character="sam", condition="physical", value=10)
    for command in (sr3.RollPoolTest, sr3.DeclarePoolTest):
        refusal = table.refused("sam-player", command, character="sam", dice=1, tn=99)
        assert (refusal.code, refusal.path) == ("invalid", "$.tn")
        assert refusal.message == "TN 99 + 3 for wounds is past the limit of 100 for a target " \
                                  "number"
    table.dice(1)
    (rolled,) = table.run("sam-player", sr3.RollPoolTest, character="sam", dice=1, tn=97)
    assert isinstance(rolled, sr3.PoolTestRolled)
    assert rolled.tn == 100


def test_an_open_tests_highest_total_past_100_as_a_tn_is_refused_in_words() -> None:
    """An open test's highest total becomes the opposing test's TN; a Rule of Six chain can
    pass 100 (17 sixes and a 1: 103), which the log cannot hold: refused naming the test."""
    table = Table()
    table.dice(*[6] * 17, 1)
    (open_test,) = table.run("sam-player", sr3.RollPoolTest, character="sam", dice=1, open=True)
    assert isinstance(open_test, sr3.PoolTestRolled)
    assert open_test.highest == 103
    refusal = table.refused("deck-player", sr3.RollPoolTest, character="deck", dice=3,
                            opposes=1)
    assert (refusal.code, refusal.path) == ("invalid", "$.opposes")
    assert refusal.message == "test #1's highest total, 103, is this test's TN, which is past " \
                              "the limit of 100 for a target number"
