"""Karma Pool: rerolls at rising cost, dice bought, points back at the end of the scene."""

from __future__ import annotations

import pytest

from poolhall.events import sr3
from poolhall.events.errors import Rejected
from poolhall.projections.sr3_views import sheets_view
from poolhall.server.rules.sr3_tests import KARMA_QUOTES
from tests.sr3.sr3_support import Table
from tests.typed import of_type


def karma_left(table: Table, character: str) -> int:
    left: int = sheets_view(table.state)[character]["karma"]["left"]
    return left


def test_rule_karma_reroll_on_a_test_with_a_tn_rerolls_the_failures() -> None:
    """"If the test has a target number, reroll as normal": the dice that failed are rolled
    again, the successes stay."""
    table = Table()
    table.dice(5, 2, 6, 1, 3)  # TN 5: 5 and 6+1 succeed; 2 and 3 fail
    (rolled,) = table.run("sam-player", sr3.RollPoolTest, character="sam", dice=4, tn=5)
    assert isinstance(rolled, sr3.PoolTestRolled)
    assert rolled.successes == 2
    table.dice(5, 1)
    (reroll,) = table.run("sam-player", sr3.RerollWithKarma, test=rolled.test, character="sam")
    assert isinstance(reroll, sr3.PoolTestRerolled)
    assert (reroll.indices, reroll.faces) == ((1, 3), ((5,), (1,)))
    assert (reroll.reroll, reroll.cost, reroll.successes) == (1, 1, 3)
    assert [d.faces for d in table.game.tests[1].dice] == [(5,), (5,), (6, 1), (1,)]
    assert reroll.karma_left == karma_left(table, "sam") == 3  # Karma Pool 4 (40 karma)


def test_rule_karma_reroll_on_an_open_test_rerolls_all_dice_and_loses_the_earlier_result(
) -> None:
    """"If it is an open test, you re-roll all the dice from the test; any previous results
    are lost."""
    table = Table()
    table.dice(6, 4, 3)
    (rolled,) = table.run("gm", sr3.RollPoolTest, character="deck", dice=2, open=True)
    assert isinstance(rolled, sr3.PoolTestRolled)
    assert rolled.highest == 10
    table.dice(2, 3)
    (reroll,) = table.run("gm", sr3.RerollWithKarma, test=1, character="deck")
    assert isinstance(reroll, sr3.PoolTestRerolled)
    assert reroll.indices == (0, 1)
    assert reroll.highest == 3
    assert table.game.tests[1].highest == 3


def test_rule_karma_rerolls_cost_one_then_two_then_three() -> None:
    """"The first reroll costs 1 KP, the second, 2 KP, the third, 3 KP, and so on."""
    table = Table()  # deck: 120 karma -> Karma Pool 11
    table.dice(*[1] * 15)  # every die fails every time
    table.run("deck-player", sr3.RollPoolTest, character="deck", dice=3, tn=6)
    costs = [of_type(sr3.PoolTestRerolled,
                     table.run("deck-player", sr3.RerollWithKarma, test=1, character="deck")[0]
                     ).cost for _ in range(4)]
    assert costs == [1, 2, 3, 4]
    assert karma_left(table, "deck") == 11 - 10
    with pytest.raises(Rejected) as refused:
        table.decide("deck-player", sr3.RerollWithKarma, test=1, character="deck")
    assert (refused.value.code, refused.value.path) == ("rule", "$.test")
    assert KARMA_QUOTES["reroll"] in refused.value.message


def test_rule_karma_buys_extra_dice_one_then_two_then_three_points() -> None:
    """"Other karma pool expenditures use the book rule of one KP point for the first extra
    die, two more KP points for the second extra die, and so forth."""
    table = Table()
    (event,) = table.run("deck-player", sr3.RollPoolTest, character="deck", skill="computer",
                         kind="matrix", tn=4, karma_dice=3)
    assert isinstance(event, sr3.PoolTestRolled)
    assert sum(1 for d in event.dice if d.source == "karma") == 3
    assert (event.karma_spent, event.karma_left) == (6, 5)
    (dodge,) = table.run("deck-player", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
                         pools={"combat": 1}, karma_dice=2)
    assert isinstance(dodge, sr3.PoolTestRolled)
    assert dodge.karma_spent == 3  # dodging is done by book rules


def test_rule_karma_dice_cost_one_point_each_on_damage_and_spell_resistance_tests() -> None:
    """"Karma pool may be used to purchase additional dice at a ratio of one karma pool point
    per die on damage resistance and spell resistance tests only."""
    table = Table()
    (soak,) = table.run("gm", sr3.RollPoolTest, character="deck", kind="damage_resistance",
                        tn=6, karma_dice=4)
    assert isinstance(soak, sr3.PoolTestRolled)
    (resist,) = table.run("gm", sr3.RollPoolTest, character="deck", kind="spell_resistance",
                          attribute="willpower", tn=6, karma_dice=3)
    assert isinstance(resist, sr3.PoolTestRolled)
    assert (soak.karma_spent, resist.karma_spent) == (4, 3)
    assert karma_left(table, "deck") == 11 - 7


def test_karma_dice_beyond_the_pool_are_refused() -> None:
    """Sam has a Karma Pool of 4: three extra dice would cost 6."""
    table = Table()
    with pytest.raises(Rejected) as refused:
        table.decide("sam-player", sr3.RollPoolTest, character="sam", dice=2, tn=4,
                     karma_dice=3)
    assert (refused.value.code, refused.value.path) == ("rule", "$.karma_dice")
    assert "cost 6 Karma Pool points, 4 left" in refused.value.message


def test_rule_spent_karma_comes_back_at_the_end_of_the_scene() -> None:
    """"When spending Karma Pool, the spent dice refresh at the end of the scene"."""
    table = Table()
    table.run("gm", sr3.RollPoolTest, character="deck", dice=1, tn=2, karma_dice=2)
    table.dice(1, 1)
    table.run("gm", sr3.RollPoolTest, character="sam", dice=1, tn=6)
    table.run("gm", sr3.RerollWithKarma, test=2, character="sam")
    assert (karma_left(table, "deck"), karma_left(table, "sam")) == (8, 3)
    (ended,) = table.run("gm", sr3.EndScene)
    assert ended == sr3.SceneEnded(refreshed={"deck": 3, "sam": 1})
    assert (karma_left(table, "deck"), karma_left(table, "sam")) == (11, 4)
    with pytest.raises(Rejected):
        table.decide("sam-player", sr3.EndScene)


def test_rule_karma_pool_only_for_the_characters_own_dice() -> None:
    """"If they are not "your character's" dice, then you may not use your character's karma
    pool to reroll them."""
    table = Table()
    table.dice(1, 1)
    table.run("deck-player", sr3.RollPoolTest, character="deck", dice=2, tn=5)
    with pytest.raises(Rejected) as refused:
        table.decide("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    assert (refused.value.code, refused.value.path) == ("rule", "$.character")
    assert KARMA_QUOTES["own"] in refused.value.message
    with pytest.raises(Rejected) as refused:
        table.decide("sam-player", sr3.RerollWithKarma, test=1, character="deck")
    assert refused.value.code == "forbidden"
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RerollWithKarma, test=9, character="deck")
    assert (refused.value.code, refused.value.path) == ("not_found", "$.test")


def test_karma_reroll_needs_a_failed_die() -> None:
    """With a TN, only failures are rerolled: when every die succeeded there is nothing to do."""
    table = Table()
    table.dice(5, 6, 2)
    table.run("gm", sr3.RollPoolTest, character="deck", dice=2, tn=3)
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RerollWithKarma, test=1, character="deck")
    assert "no failed dice" in refused.value.message


def test_decision_an_answered_test_is_settled_but_the_answer_may_be_rerolled() -> None:
    """Decision: once another test opposes a test, its result stands; the dodger's own reroll
    updates the outcome (a miss when the dodge now beats the attack)."""
    table = Table()
    table.dice(5, 5, 1, 1, 1)
    table.run("sam-player", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
              tn=4)  # 2 successes
    table.dice(4, 4, 1)
    (dodge,) = table.run("deck-player", sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
                         pools={"combat": 3}, opposes=1)
    assert isinstance(dodge, sr3.PoolTestRolled)
    assert dodge.outcome == sr3.OpposedOutcome(test=1, theirs=2, ours=2, net=0, missed=False,
                                            pool_successes=2)
    with pytest.raises(Rejected) as refused:
        table.decide("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    assert "answered by test #2" in refused.value.message
    table.dice(6, 2)
    (reroll,) = table.run("deck-player", sr3.RerollWithKarma, test=2, character="deck")
    assert isinstance(reroll, sr3.PoolTestRerolled)
    assert reroll.outcome == sr3.OpposedOutcome(test=1, theirs=2, ours=3, net=1, missed=True,
                                             pool_successes=3)
    assert table.game.tests[2].outcome is not None
    assert table.game.tests[2].outcome.missed


def test_rule_karma_rerolls_every_failed_die_even_those_from_pools() -> None:
    """"If only a portion of the dice come from something external ... and the rest come from
    you, you may use karma to reroll all of them": pool dice that failed are rerolled too."""
    table = Table()
    table.dice(5, 1, 1, 1, 1, 2, 6, 3, 5)  # Pistols 5 + 3 Combat Pool dice at TN 5
    (rolled,) = table.run("sam-player", sr3.RollPoolTest, character="sam", kind="combat",
                          skill="pistols", tn=5, pools={"combat": 3})
    assert isinstance(rolled, sr3.PoolTestRolled)
    table.dice(*[2] * 6)
    (reroll,) = table.run("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    assert isinstance(reroll, sr3.PoolTestRerolled)
    assert reroll.indices == (1, 2, 3, 4, 5)
    assert {rolled.dice[i].source for i in reroll.indices} == {"base", "combat"}
    assert reroll.successes == 3  # the 5, the 6+3 and the pool's 5 stay


def test_rule_karma_pool_may_be_spent_on_any_roll() -> None:
    """"If you are allowed to spend karma pool on a roll by the book, you may spend it, no
    matter how trivial the roll": a plain attribute test can be rerolled too."""
    table = Table()
    table.dice(1, 1)
    table.run("sam-player", sr3.RollPoolTest, character="sam", attribute="charisma", tn=3)
    (reroll,) = table.run("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    assert isinstance(reroll, sr3.PoolTestRerolled)
    assert reroll.cost == 1


def test_a_test_is_rerolled_at_most_max_rerolls_times() -> None:
    """**Decision**: the reroll after the hundredth is refused, however much Karma is left
    (all in the test's scene: a test of a scene that is over is not rerolled at all, so the
    1 + 2 + ... + 100 points are one scene's pool, more than a sheet's 100,000 karma gives:
    the sheet here is built, not decoded, so the cap still has a test)."""
    from tests.sr3.sr3_support import FixedDice, stats

    table = Table(characters={"sam": stats(karma_earned=101_000)})
    table.rng = FixedDice([1] * 5_000)  # every die fails every time: always one to reroll
    table.run("sam-player", sr3.RollPoolTest, character="sam", dice=1, tn=6)
    for _ in range(sr3.MAX_REROLLS):
        table.run("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    with pytest.raises(Rejected) as refused:
        table.decide("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    assert (refused.value.code, refused.value.path) == ("rule", "$.test")
    assert f"rerolled {sr3.MAX_REROLLS} times" in refused.value.message
