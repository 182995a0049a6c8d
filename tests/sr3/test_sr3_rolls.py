"""Tests against a target number, open tests, opposed tests: Rule of Six and Rule of One."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolhall.events import sr3
from poolhall.events.errors import Rejected
from poolhall.events.messages import CLIENT_DECODER
from poolhall.events.sr3 import MAX_CHAIN
from poolhall.projections.sr3 import GameState
from tests.sr3.sr3_support import Table


def roll(table: Table, member: str = "gm", **fields: object) -> sr3.PoolTestRolled:
    (event,) = table.run(member, sr3.RollPoolTest, **fields)
    assert isinstance(event, sr3.PoolTestRolled)
    return event


def test_rule_success_is_a_die_reaching_the_target_number() -> None:
    """"Each die that reaches the TN is a success."""
    table = Table()
    table.dice(4, 3, 5, 1)
    event = roll(table, character="sam", dice=4, tn=4)
    assert [d.faces for d in event.dice] == [(4,), (3,), (5,), (1,)]
    assert event.successes == 2
    assert not event.disastrous


def test_rule_of_six_rerolls_sixes_and_adds_them() -> None:
    """"Rule of Six: a die showing 6 is rolled again and the new result added, as often as
    sixes come up, so target numbers above 6 can be reached."""
    table = Table()
    table.dice(6, 6, 3, 2, 6, 1)
    event = roll(table, character="sam", dice=3, tn=13)
    assert [d.faces for d in event.dice] == [(6, 6, 3), (2,), (6, 1)]
    assert event.successes == 1  # 15 reaches 13; 2 and 7 do not
    assert event.highest == 15


def test_rule_of_six_chain_is_bounded() -> None:
    """Decision: a chain stops after MAX_CHAIN faces so that an event stays bounded."""
    table = Table()
    table.dice(*([6] * (MAX_CHAIN + 5)))
    event = roll(table, character="sam", dice=1, tn=4)
    assert event.dice[0].faces == (6,) * MAX_CHAIN


def test_rule_of_one_every_die_showing_one_is_a_disastrous_failure() -> None:
    """"Rule of One: if every die shows 1, the test is a disastrous failure."""
    table = Table()
    table.dice(1, 1, 1)
    assert roll(table, character="sam", dice=3, tn=2).disastrous
    table.dice(1, 1, 6, 1)
    event = roll(table, character="sam", dice=3, tn=8)
    assert event.successes == 0
    assert not event.disastrous  # a 6+1 die does not show 1
    table.dice(1, 1)
    assert roll(table, character="sam", dice=2, open=True).disastrous


def test_rule_target_number_is_at_least_two() -> None:
    """"A test rolls d6s against a target number (TN, at least 2)": TN 1 is refused at $.tn."""
    frame = (b'{"type":"roll_pool_test","id":"a","character":"sam","dice":3,"tn":1}')
    with pytest.raises(msgspec.ValidationError, match=r"\$\.tn"):
        CLIENT_DECODER.decode(frame)
    with pytest.raises(Rejected) as refused:
        Table().decide("gm", sr3.RollPoolTest, character="sam", dice=3)
    assert (refused.value.code, refused.value.path) == ("invalid", "$.tn")


def test_rule_open_test_result_is_the_highest_total() -> None:
    """"Open test: no TN; the result is the highest single die total (with the Rule of Six)."""
    table = Table()
    table.dice(6, 4, 5, 2)
    event = roll(table, character="sam", dice=3, open=True)
    assert event.tn is None
    assert event.successes is None
    assert event.highest == 10


def test_rule_open_test_highest_becomes_the_opponents_target_number() -> None:
    """"... the highest single die total ..., which becomes the opponent's TN."""
    table = Table()
    table.dice(6, 3, 2)
    roll(table, character="rig", dice=2, open=True)  # highest 9
    table.dice(6, 5, 6, 2, 4)
    event = roll(table, character="sam", dice=3, opposes=1)
    assert event.tn == 9
    assert event.successes == 1  # 11 reaches 9; 8 and 4 do not
    assert event.outcome == sr3.OpposedOutcome(test=1, theirs=9, ours=1, net=1)


def test_rule_opposed_test_net_successes_decide() -> None:
    """"Opposed test: both sides roll; net successes decide."""
    table = Table()
    table.dice(5, 5, 5, 1)
    roll(table, character="sam", skill="etiquette", tn=4, dice=None)  # 2 dice: 2 successes
    table.dice(5, 5, 5, 2)
    event = roll(table, character="deck", attribute="charisma", tn=4, opposes=1)
    assert event.successes == 3
    assert event.outcome == sr3.OpposedOutcome(test=1, theirs=2, ours=3, net=1)
    assert table.game.tests[1].opposed_by == [2]


def test_an_open_test_opposes_only_an_open_test() -> None:
    """An open test has no successes to net against a test with a TN."""
    table = Table()
    roll(table, character="sam", dice=2, tn=4)
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RollPoolTest, character="deck", dice=2, open=True, opposes=1)
    assert refused.value.path == "$.opposes"


def test_each_roll_event_holds_every_dice_chain_and_source() -> None:
    """The event records each die's source and chain, and the fold keeps them as rolled."""
    table = Table()
    table.dice(6, 2, 3, 6, 6, 1)
    event = roll(table, "sam-player", character="sam", kind="combat", skill="pistols", tn=4,
                 pools={"combat": 1}, dice=None)
    assert [(d.source, d.faces) for d in event.dice][:3] == [("base", (6, 2)), ("base", (3,)),
                                                           ("base", (6, 6, 1))]
    assert event.dice[-1].source == "combat"
    assert len(event.dice) == 6
    replayed = table.replay().game
    assert isinstance(replayed, GameState)
    assert replayed.tests[1].dice == list(event.dice)


def test_base_dice_come_from_the_skill_the_attribute_or_dice() -> None:
    """Skill rating, attribute rating or a given number; never two at once."""
    table = Table()
    assert roll(table, character="sam", skill="pistols", tn=4).base_dice == 5
    assert roll(table, character="sam", attribute="body", tn=4).base_dice == 6
    assert roll(table, character="sam", attribute="reaction", tn=4).base_dice == 9
    assert roll(table, character="sam", kind="damage_resistance", tn=4).base_dice == 6
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RollPoolTest, character="sam", skill="pistols", dice=3, tn=4)
    assert (refused.value.code, refused.value.path) == ("invalid", "$.dice")
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RollPoolTest, character="sam", skill="sorcery", tn=4)
    assert (refused.value.code, refused.value.path) == ("not_found", "$.skill")


def test_a_test_needs_at_least_one_die() -> None:
    """Zero dice is not a test; the refusal appends nothing."""
    table = Table()
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.RollPoolTest, character="sam", dice=0, tn=4)
    assert (refused.value.code, refused.value.path) == ("invalid", "$.dice")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=12),
       st.integers(min_value=2, max_value=20))
def test_result_always_agrees_with_the_recorded_faces(seed: int, dice: int, tn: int) -> None:
    """Successes, highest and the Rule of One are exactly what the recorded chains say."""
    table = Table(seed=seed)
    event = roll(table, character="sam", dice=dice, tn=tn)
    totals = [sum(d.faces) for d in event.dice]
    assert event.successes == sum(t >= tn for t in totals)
    assert event.highest == max(totals)
    assert event.disastrous == all(t == 1 for t in totals)
    for die in event.dice:
        assert all(face == 6 for face in die.faces[:-1])
        assert die.faces[-1] != 6 or len(die.faces) == MAX_CHAIN


def test_rule_pool_dice_add_directly_to_the_dice_of_the_test() -> None:
    """"If a character would normally roll 4 dice for a test, but takes 3 more dice from the
    appropriate pool to augment the test, she now rolls a total of 7 dice."""
    table = Table()
    event = roll(table, character="deck", kind="matrix", attribute="willpower", tn=4,
                 pools={"hacking": 3})
    assert event.base_dice == 4
    assert len(event.dice) == 7
    assert [d.source for d in event.dice] == ["base"] * 4 + ["hacking"] * 3


def test_a_test_with_no_dice_names_the_dice_field() -> None:
    """No base dice, no skill, no pool: refused at ``$.dice``, the field to fill in."""
    table = Table()
    with pytest.raises(Rejected) as refused:
        table.decide("sam-player", sr3.RollPoolTest, character="sam", dice=0, tn=4)
    assert (refused.value.code, refused.value.path) == ("invalid", "$.dice")
