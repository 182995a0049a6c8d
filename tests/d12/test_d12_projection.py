"""The d12 projection: open tests with their pool, rounds, margins and story; replay; views."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from poolhall.events import core, d12
from poolhall.events.base import Recorded
from poolhall.events.codec import decode_event, encode_event
from poolhall.projections import d12 as projection
from poolhall.projections.campaign import fold
from poolhall.projections.d12_odds import success_probability, survival
from poolhall.server.rules.d12 import about_test, views
from poolhall.server.views import computed
from tests.d12.d12_support import FixedDice, Table
from tests.typed import of_type


def _fight(table: Table) -> int:
    """An extended test of Han (STR 3 + CON 2, refresh CON 2) over two rounds."""
    started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR", "CON"),
                        dt=7, extended=True, refresh="CON", label="bar fight")[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    test = started.test
    table.rng = FixedDice([12, 9, 4, 1, 8])
    table.run("han-player", d12.RollThresholdTest, test=test)
    table.run("gm", d12.InterpretThresholdResult, test=test, text="Han lands a punch")
    table.run("gm", d12.SetDifficultyThreshold, test=test, opponent="vader",
              opponent_stat="STR")
    table.rng = FixedDice([3, 10, 11, 2, 9])
    table.run("han-player", d12.RollThresholdTest, test=test)
    return test


def test_open_tests_show_pool_rounds_margins_and_story() -> None:
    """The projection of an open extended test: the pool now, its rounds, margins, story."""
    table = Table()
    test = _fight(table)
    (state,) = projection.open_tests(table.game)
    assert (state.test, state.character, state.pool, state.threshold.dt) == (test, "han", 5, 8)
    assert state.margins == [1, 1]
    assert [(r.pool, r.removed, r.added, r.pool_after) for r in state.rounds] == [
        (5, 2, 2, 5), (5, 2, 2, 5)]
    assert state.rounds[0].notes == ["Han lands a punch"]
    assert state.story == [
        ("extended test (bar fight): STR 3 + CON 2 = 5 dice at DT 7 set by the GM; "
        "CON dice join after each round"),
        "round 1: [12 9 4 1 8] at DT 7: 4 successes, 3 failures, margin +1 (success)",
        "2 failed dice left the pool: 3 dice remain",
        "CON 2: 2 joined: 5 dice in the pool",
        "GM: Han lands a punch",
        "next round at DT 8 from vader's STR 8",
        "round 2: [3 10 11 2 9] at DT 8: 3 successes, 2 failures, margin +1 (success)",
        "2 failed dice left the pool: 3 dice remain",
        "CON 2: 2 joined: 5 dice in the pool",
    ]
    table.run("gm", d12.EndThresholdTest, test=test, reason="Vader walks off")
    assert projection.open_tests(table.game) == []
    assert table.game.tests[test].story[-1] == ("test over after 2 rounds: ended by the GM "
                                                "(Vader walks off)")


def test_replay_folds_the_same_state_from_the_log() -> None:
    """Folding the recorded events again - decoded from JSON - rebuilds the same state,
    without re-rolling anything."""
    table = Table()
    _fight(table)
    table.rng = random.Random(3)
    table.run("gm", d12.RollBasicTest, dice=4, dt=3, character="leia")
    stored = [(r, encode_event(r.event)) for r in table.log]
    replayed = fold(msgspec.structs.replace(r, event=decode_event(payload))
                    for r, payload in stored)
    assert msgspec.to_builtins(replayed.game) == msgspec.to_builtins(table.game)
    assert isinstance(replayed.game, projection.GameState)
    assert len(replayed.game.tests) == 2
    assert not replayed.game.tests[2].open
    assert replayed.game.tests[2].story[0] == "basic test: 4 dice at DT 3 set by the GM"


def test_describe_says_which_test_and_whose() -> None:
    """``poolhall watch`` shows one line per event naming the test and the character."""
    table = Table()
    events = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=7)
    line = projection.describe(Recorded(seq=99, at="", actor="gm", command="x",
                                        event=events[0]), table.state)
    assert line == "test 1 (Han): basic test: STR 3 = 3 dice at DT 7 set by the GM"
    table.rng = FixedDice([1, 1, 1])
    rolled = table.run("han-player", d12.RollThresholdTest, test=1)[0]
    line = projection.describe(Recorded(seq=100, at="", actor="han-player", command="y",
                                        event=rolled), table.state)
    assert line == ("test 1 (Han): round 1: [1 1 1] at DT 7: 0 successes, 6 failures, "
                    "margin -6 (no success)")


def test_views_give_the_odds_of_the_tests_a_command_touched() -> None:
    """After a d12 event the table gets the exact odds of that test as floats, and a view
    saying it is over once it ends; a character update refreshes their extended tests."""
    table = Table()
    test = _fight(table)
    basic = table.run("gm", d12.CallThresholdTest, character="leia", stats=("WIT",), dt=5)
    (check,) = computed(views(table.state, basic))
    assert isinstance(basic[0], d12.ThresholdTestStarted)
    assert check.about == about_test(basic[0].test) == "test:2"
    assert isinstance(check.data, d12.D12TestOdds)
    assert check.data.odds is not None
    assert check.data.odds.survival is None
    assert check.data.odds.dice == 4
    assert check.data.odds.success == pytest.approx(float(success_probability(4, 5)))
    table.set_rating("han", "CON", 4)
    (fight,) = computed(views(table.state, [table.log[-1].event]))
    assert fight.about == about_test(test)
    data = fight.data
    assert isinstance(data, d12.D12TestOdds)
    assert data.odds is not None
    assert (data.test, data.round, data.margins, data.odds.dice) == (test, 3, [1, 1], 5)
    assert data.odds.success == pytest.approx(float(success_probability(5, 8)))
    assert data.odds.survival == pytest.approx([float(survival(5, 8, 4, k))
                                                for k in range(1, 6)])
    ended = table.run("gm", d12.EndThresholdTest, test=test)
    (over,) = computed(views(table.state, ended))
    assert isinstance(over.data, d12.D12TestOdds)
    assert over.data.open is False
    assert over.data.odds is None
    assert views(table.state, [core.GameSessionStarted(session=1)]) == []


def test_a_long_extended_test_keeps_its_last_rounds_and_counts_them_all() -> None:
    """A fight of many rounds: the state keeps the last ROUNDS_KEPT rounds, STORY_KEPT story
    lines and NOTES_KEPT readings of a round (it travels in every ``table`` message), counts
    every round, and the rules number the next round, the GM's reading and the end from that
    count; the view's margins say which round they start at."""
    table = Table()
    test = _fight(table)
    rounds = projection.ROUNDS_KEPT + 7
    for _ in range(rounds - 2):
        table.rng = FixedDice([9, 9, 9, 2, 2])  # margin +1, pool stays 5
        rolled = table.run("han-player", d12.RollThresholdTest, test=test)[0]
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert rolled.round == rounds
    for n in range(projection.NOTES_KEPT + 3):
        (said,) = table.run("gm", d12.InterpretThresholdResult, test=test, text=f"blow {n}")
        assert isinstance(said, d12.ThresholdResultInterpreted)
        assert said.round == rounds
    state = table.game.tests[test]
    assert (state.rounds_rolled, state.start_pool) == (rounds, 5)
    assert [r.round for r in state.rounds] == list(range(8, rounds + 1))
    assert state.margins == [1] * projection.ROUNDS_KEPT
    assert state.rounds[-1].notes == [f"blow {n}" for n in range(3, projection.NOTES_KEPT + 3)]
    assert len(state.story) == projection.STORY_KEPT
    assert state.story[-1] == f"GM: blow {projection.NOTES_KEPT + 2}"
    (view,) = computed(views(table.state, [table.log[-1].event]))
    assert isinstance(view.data, d12.D12TestOdds)
    assert (view.data.first_round, view.data.round) == (8, rounds + 1)
    assert view.data.margins == state.margins
    table.rng = FixedDice([9, 9, 9, 2, 2])  # margin +1, pool stays 5
    assert of_type(d12.ThresholdDiceRolled,
                   table.run("han-player", d12.RollThresholdTest, test=test)[0]
                   ).round == rounds + 1
    (ended,) = table.run("gm", d12.EndThresholdTest, test=test, reason="he yields")
    assert isinstance(ended, d12.ThresholdTestEnded)
    assert ended.rounds == rounds + 1
    replayed = fold(msgspec.structs.replace(r, event=decode_event(encode_event(r.event)))
                    for r in table.log)
    assert msgspec.to_builtins(replayed.game) == msgspec.to_builtins(table.game)


@pytest.mark.parametrize(("event", "line"), [
    (d12.FailedDiceRemoved(test=1, round=1, dice=tuple(range(6)), count=6, pool=1),
     "6 failed dice left the pool: 1 die remains"),
    (d12.FailedDiceRemoved(test=1, round=1, dice=(0,), count=1, pool=3),
     "1 failed die left the pool: 3 dice remain"),
    (d12.ThresholdTestEnded(test=1, why="gm", rounds=1, pool=2),
     "test over after 1 round: ended by the GM"),
])
def test_story_lines_count_in_the_right_number(event: Any, line: str) -> None:
    """One die remains, not "1 remain" (the game-night trial's line), in every count."""
    assert projection.event_line(event) == line
