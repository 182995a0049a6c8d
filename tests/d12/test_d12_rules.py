"""Every rule of d12-dice.tex and of the d12 decisions in rules/README.md, one test each."""

from __future__ import annotations

import msgspec
import pytest

from poolhall.events import d12
from poolhall.events.errors import Rejected
from poolhall.events.messages import CLIENT_DECODER
from tests.d12.d12_support import FixedDice, Table
from tests.typed import of_type


def _basic(table: Table, faces: list[int], dt: int) -> d12.ThresholdDiceRolled:
    """The GM rolls len(faces) d12s at ``dt`` with the faces given."""
    table.rng = FixedDice(faces)
    events = table.run("gm", d12.RollBasicTest, dice=len(faces), dt=dt, character="han")
    rolled = events[-1]
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert rolled.faces == tuple(faces)
    return rolled


def test_rule_dt_is_a_value_between_1_and_12() -> None:
    """Rule: "The DT is a value between 1 and 12"."""
    table = Table()
    for dt in (1, 12):
        assert of_type(d12.ThresholdTestStarted, table.run(
            "gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=dt)[0]
        ).threshold.dt == dt
    for dt in (0, 13):
        fields = {"type": "call_threshold_test", "id": "x", "character": "han",
                  "stats": ["STR"], "dt": dt}
        with pytest.raises(msgspec.ValidationError, match=r"\$\.dt"):
            CLIENT_DECODER.decode(msgspec.json.encode(fields))
        with pytest.raises(msgspec.ValidationError):
            msgspec.convert({"dt": dt}, d12.Threshold)


def test_rule_dt_is_set_by_the_gm() -> None:
    """Rule: "the DT is either set by the GR" - the GM's number, recorded as set by the GM."""
    table = Table()
    started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=9)[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    assert started.threshold == d12.Threshold(dt=9, source="gm")
    with pytest.raises(Rejected) as refused:
        table.decide("han-player", d12.CallThresholdTest, character="han", stats=("STR",), dt=2)
    assert (refused.value.code, refused.value.path) == ("forbidden", "$.type")


def test_rule_dt_is_computed_from_the_opponents_stats() -> None:
    """Rule: "or is computed from the opponent's stats" - the rating, clamped into 1-12."""
    table = Table()
    started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",),
                        opponent="vader", opponent_stat="STR")[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    assert started.threshold == d12.Threshold(dt=8, source="opponent", opponent="vader",
                                              opponent_stat="STR", opponent_rating=8)
    clamped = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",),
                        opponent="vader", opponent_stat="WIL")[0]
    assert isinstance(clamped, d12.ThresholdTestStarted)
    assert (clamped.threshold.dt, clamped.threshold.opponent_rating) == (12, 15)
    table.set_rating("leia", "WIT", 0)
    low = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",),
                    opponent="leia", opponent_stat="WIT")[0]
    assert isinstance(low, d12.ThresholdTestStarted)
    assert low.threshold.dt == 1


def test_rule_results_greater_than_the_dt_are_successes_the_rest_failures() -> None:
    """Rule: "Rolls with results greater than the DT are counted as successes and the remaining
    rolls are failures"."""
    table = Table()
    rolled = _basic(table, [2, 6, 7, 8, 11], dt=7)
    assert rolled.values == (-1, -1, -1, 1, 1)
    assert (rolled.successes, rolled.failures) == (2, 3)


def test_rule_rolling_12_gives_two_successes() -> None:
    """Rule: "rolling 12 gives two successes" - whatever the DT, even DT 12."""
    table = Table()
    for dt in range(1, 13):
        rolled = _basic(table, [12], dt=dt)
        assert (rolled.values, rolled.successes, rolled.failures) == ((2,), 2, 0)


def test_rule_rolling_1_gives_two_failures() -> None:
    """Rule: "Rolling 1 gives two failures" - whatever the DT, even DT 1."""
    table = Table()
    for dt in range(1, 13):
        rolled = _basic(table, [1], dt=dt)
        assert (rolled.values, rolled.successes, rolled.failures) == ((-2,), 0, 2)


def test_rule_margin_of_success_is_successes_minus_failures() -> None:
    """Rule: "The difference between the number of successes and the number of failures on a
    roll is the Margin of Success"."""
    table = Table()
    rolled = _basic(table, [12, 12, 9, 1, 4, 5], dt=6)
    assert (rolled.successes, rolled.failures) == (5, 4)
    assert rolled.margin == 1
    rolled = _basic(table, [1, 1, 12], dt=3)
    assert (rolled.successes, rolled.failures, rolled.margin) == (2, 4, -2)


def test_rule_basic_test_succeeds_when_the_margin_is_positive() -> None:
    """Rule: "the size of the margin does not matter, as long as it is positive"."""
    table = Table()
    assert _basic(table, [8], dt=7).succeeded
    assert _basic(table, [12, 12, 12, 2], dt=7).succeeded
    assert not _basic(table, [8, 3], dt=7).succeeded  # margin 0 is no success
    assert not _basic(table, [1, 12], dt=7).succeeded


def test_rule_basic_test_steps_gm_names_stats_player_assembles_gm_sets_dt_player_rolls() -> None:
    """Rule (Basic Test): GR specifies stats, player assembles the pool, GR sets the DT, player
    rolls and determines the margin, GR interprets the result."""
    table = Table()
    started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR", "DEX"),
                        dt=6, label="jump the chasm")[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    assert started.kind == "basic"
    assert started.stats == (d12.StatUsed(stat="STR", rating=3), d12.StatUsed(stat="DEX",
                                                                              rating=4))
    assert started.pool == 7
    table.rng = FixedDice([7, 7, 7, 2, 2, 12, 1])
    (rolled,) = table.run("han-player", d12.RollThresholdTest, test=started.test)
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert (rolled.successes, rolled.failures, rolled.margin) == (5, 4, 1)
    assert not table.game.tests[started.test].open
    (said,) = table.run("gm", d12.InterpretThresholdResult, test=started.test,
                        text="Han lands, barely")
    assert isinstance(said, d12.ThresholdResultInterpreted)
    assert said.round == 1
    assert table.game.tests[started.test].rounds[0].notes == ["Han lands, barely"]
    with pytest.raises(Rejected) as refused:
        table.decide("han-player", d12.InterpretThresholdResult, test=1, text="I win")
    assert refused.value.code == "forbidden"


def _extended(table: Table, refresh: str = "CON") -> int:
    started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR", "CON"),
                        dt=7, extended=True, refresh=refresh, label="bar fight")[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    assert (started.kind, started.pool, started.refresh) == ("extended", 5, refresh)
    return started.test


def test_rule_extended_test_removes_the_dice_that_came_up_failures() -> None:
    """Rule: "after every roll, failures are removed" - "Player removes all dice that came up
    failures from the pool" (a 1 is one die, though it counts two failures)."""
    table = Table()
    test = _extended(table)
    table.rng = FixedDice([1, 3, 9, 12, 8])
    rolled, removed, _ = table.run("han-player", d12.RollThresholdTest, test=test)
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert isinstance(removed, d12.FailedDiceRemoved)
    assert rolled.failures == 3
    assert (removed.dice, removed.count, removed.pool) == ((0, 1), 2, 3)


def test_rule_extended_test_adds_con_or_cha_dice() -> None:
    """Rule: "new dice are added based on the relevant stat -- either CON or CHA"."""
    for refresh, rating in (("CON", 2), ("CHA", 1)):
        table = Table()
        test = _extended(table, refresh)
        table.rng = FixedDice([1, 3, 9, 12, 8])
        _, _, added = table.run("han-player", d12.RollThresholdTest, test=test)
        assert isinstance(added, d12.RefreshDiceAdded)
        assert (added.stat, added.rating, added.count, added.pool) == (refresh, rating,
                                                                       rating, 3 + rating)
        assert table.game.tests[test].pool == 3 + rating


def test_rule_extended_test_repeats_from_setting_the_dt() -> None:
    """Rule: "Repeat from [GR sets or determines the DT]" - each round may have its own DT."""
    table = Table()
    test = _extended(table)
    table.rng = FixedDice([9, 9, 9, 9, 9])
    table.run("han-player", d12.RollThresholdTest, test=test)
    (dt_set,) = table.run("gm", d12.SetDifficultyThreshold, test=test, opponent="vader",
                          opponent_stat="STR")
    assert isinstance(dt_set, d12.DifficultyThresholdSet)
    assert dt_set.threshold.dt == 8
    table.rng = FixedDice([9] * 7)
    rolled = table.run("han-player", d12.RollThresholdTest, test=test)[0]
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert (rolled.round, rolled.dt, rolled.margin) == (2, 8, 7)
    table.run("gm", d12.SetDifficultyThreshold, test=test, dt=10)
    table.rng = FixedDice([9] * 9)
    rolled = table.run("han-player", d12.RollThresholdTest, test=test)[0]
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert (rolled.round, rolled.dt, rolled.margin) == (3, 10, -9)
    assert table.game.tests[test].margins == [5, 7, -9]


def test_rule_extended_test_goes_on_until_the_gm_ends_it() -> None:
    """Decision: "An extended test goes on round after round until the GM ends it"."""
    table = Table()
    test = _extended(table)
    for _ in range(3):
        table.rng = FixedDice([10] * table.game.tests[test].pool)
        table.run("han-player", d12.RollThresholdTest, test=test)
    assert table.game.tests[test].open
    assert len(table.game.tests[test].rounds) == 3
    with pytest.raises(Rejected) as refused:
        table.decide("han-player", d12.EndThresholdTest, test=test)
    assert refused.value.code == "forbidden"
    (ended,) = table.run("gm", d12.EndThresholdTest, test=test, reason="they flee")
    assert isinstance(ended, d12.ThresholdTestEnded)
    assert (ended.why, ended.rounds, ended.pool) == ("gm", 3, 11)
    with pytest.raises(Rejected) as refused:
        table.decide("han-player", d12.RollThresholdTest, test=test)
    assert (refused.value.code, refused.value.path) == ("conflict", "$.test")


def test_rule_extended_test_ends_when_the_pool_is_empty() -> None:
    """Decision: "... or the pool is empty" - every die failed, so none is left to add to."""
    table = Table()
    test = _extended(table)
    table.rng = FixedDice([2, 3, 4, 5, 1])
    events = table.run("han-player", d12.RollThresholdTest, test=test)
    assert [type(e) for e in events] == [d12.ThresholdDiceRolled, d12.FailedDiceRemoved,
                                         d12.ThresholdTestEnded]
    assert isinstance(events[1], d12.FailedDiceRemoved)
    assert isinstance(events[2], d12.ThresholdTestEnded)
    assert (events[1].pool, events[2].why, events[2].rounds) == (0, "pool_empty", 1)
    assert not table.game.tests[test].open


def test_rule_each_round_records_its_roll_margin_dice_removed_and_dice_added() -> None:
    """Decision: "each round records its roll, its margin, the dice removed and the dice
    added" - even when no die failed."""
    table = Table()
    test = _extended(table)
    table.rng = FixedDice([8, 9, 10, 11, 12])
    rolled, removed, added = table.run("han-player", d12.RollThresholdTest, test=test)
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert isinstance(removed, d12.FailedDiceRemoved)
    assert isinstance(added, d12.RefreshDiceAdded)
    assert (rolled.margin, removed.count, added.count, added.pool) == (6, 0, 2, 7)
    record = table.game.tests[test].rounds[0]
    assert (record.margin, record.removed, record.added, record.pool_after) == (6, 0, 2, 7)


def test_refresh_dice_stop_at_the_pool_limit() -> None:
    """Decision: a pool holds at most 100 dice; refresh dice past that do not join."""
    table = Table()
    table.set_rating("han", "STR", 20)
    for stat in ("DEX", "CON"):
        table.set_rating("han", stat, 20)
    table.set_rating("han", "CHA", 20)
    started = table.run("gm", d12.CallThresholdTest, character="han",
                        stats=("STR", "DEX", "CON", "CHA"), dt=1, extended=True,
                        refresh="CON")[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    test = started.test
    table.rng = FixedDice([11] * 80)
    added = table.run("han-player", d12.RollThresholdTest, test=test)[-1]
    assert isinstance(added, d12.RefreshDiceAdded)
    assert (added.rating, added.count, added.pool) == (20, 20, 100)
    table.rng = FixedDice([11] * 99 + [1])
    added = table.run("han-player", d12.RollThresholdTest, test=test)[-1]
    assert isinstance(added, d12.RefreshDiceAdded)
    assert (added.count, added.pool) == (1, 100)


def test_refresh_uses_the_rating_the_character_has_now() -> None:
    """A CON raised mid-fight brings its new rating of dice at the next round."""
    table = Table()
    test = _extended(table)
    table.set_rating("han", "CON", 5)
    table.rng = FixedDice([9] * 5)
    added = table.run("han-player", d12.RollThresholdTest, test=test)[-1]
    assert isinstance(added, d12.RefreshDiceAdded)
    assert (added.rating, added.count, added.pool) == (5, 5, 10)


def test_rule_extended_test_steps_roll_interpret_remove_add_repeat() -> None:
    """Rule (Extended Test): the player rolls, the GR interprets the result, failures are
    removed, CON/CHA dice are added, and it repeats - each reading belongs to its round."""
    table = Table()
    test = _extended(table)
    for round_no, faces in enumerate(([12, 9, 2, 3, 8], [10, 10, 10, 1, 2]), start=1):
        table.rng = FixedDice(faces)
        events = table.run("han-player", d12.RollThresholdTest, test=test)
        assert [type(e) for e in events] == [d12.ThresholdDiceRolled, d12.FailedDiceRemoved,
                                             d12.RefreshDiceAdded]
        (said,) = table.run("gm", d12.InterpretThresholdResult, test=test,
                            text=f"reading {round_no}")
        assert isinstance(said, d12.ThresholdResultInterpreted)
        assert said.round == round_no
    rounds = table.game.tests[test].rounds
    assert [r.notes for r in rounds] == [["reading 1"], ["reading 2"]]
    assert [(r.pool, r.removed, r.added, r.pool_after) for r in rounds] == [
        (5, 2, 2, 5), (5, 2, 2, 5)]
