"""Who may do what in a d12 test, and bad commands refused with a stable code and the path."""

from __future__ import annotations

from typing import Any

import pytest

from poolhall.events import d12
from poolhall.events.errors import Rejected
from tests.d12.d12_support import FixedDice, Table


def _refused(table: Table, member: str, command: type[Any], **fields: Any) -> Rejected:
    with pytest.raises(Rejected) as refused:
        table.decide(member, command, **fields)
    return refused.value


def _call(table: Table, **fields: Any) -> int:
    base: dict[str, Any] = {"character": "han", "stats": ("STR",), "dt": 7}
    started = table.run("gm", d12.CallThresholdTest, **(base | fields))[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    return started.test


def test_a_player_rolls_only_their_own_characters_tests() -> None:
    """Leia's player may not roll Han's test; Han's player and the GM may."""
    table = Table()
    test = _call(table)
    refusal = _refused(table, "leia-player", d12.RollThresholdTest, test=test)
    assert (refusal.code, refusal.path) == ("forbidden", "$.test")
    assert table.decide("han-player", d12.RollThresholdTest, test=test)
    assert table.decide("gm", d12.RollThresholdTest, test=test)


def test_a_spectator_does_nothing() -> None:
    """A spectator neither calls, rolls, interprets nor ends a test."""
    table = Table()
    test = _call(table)
    for command, fields in (
        (d12.CallThresholdTest, {"character": "han", "stats": ("STR",), "dt": 7}),
        (d12.RollThresholdTest, {"test": test}),
        (d12.RollBasicTest, {"dice": 3, "dt": 7, "character": "han"}),
        (d12.SetDifficultyThreshold, {"test": test, "dt": 3}),
        (d12.InterpretThresholdResult, {"test": test, "text": "no"}),
        (d12.EndThresholdTest, {"test": test}),
    ):
        assert _refused(table, "watcher", command, **fields).code == "forbidden"


def test_only_the_gm_names_stats_sets_dt_and_ends() -> None:
    """Calling a test, setting the DT and ending a test are the GM's."""
    table = Table()
    test = _call(table, extended=True, refresh="CON")
    for command, fields in (
        (d12.CallThresholdTest, {"character": "han", "stats": ("STR",), "dt": 2}),
        (d12.SetDifficultyThreshold, {"test": test, "dt": 2}),
        (d12.EndThresholdTest, {"test": test}),
    ):
        assert _refused(table, "han-player", command, **fields).code == "forbidden"


def test_a_test_of_no_character_is_rolled_by_the_gm_only() -> None:
    """The GM's "5d12 dt7" for no one is theirs alone to roll."""
    table = Table()
    events = table.run("gm", d12.RollBasicTest, dice=5, dt=7)
    assert isinstance(events[0], d12.ThresholdTestStarted)
    assert isinstance(events[1], d12.ThresholdDiceRolled)
    assert events[0].character is None
    assert len(events[1].faces) == 5


@pytest.mark.parametrize(("fields", "code", "path"), [
    ({"stats": ("STR", "WIT")}, "not_found", "$.stats[1]"),
    ({"stats": ("STR", "STR")}, "invalid", "$.stats[1]"),
    ({"character": "lando"}, "not_found", "$.character"),
    ({"dt": None}, "invalid", "$.dt"),
    ({"opponent": "vader", "opponent_stat": "STR"}, "invalid", "$.dt"),
    ({"dt": None, "opponent": "vader"}, "invalid", "$.opponent_stat"),
    ({"dt": None, "opponent_stat": "STR"}, "invalid", "$.opponent"),
    ({"dt": None, "opponent": "boba", "opponent_stat": "STR"}, "not_found", "$.opponent"),
    ({"dt": None, "opponent": "vader", "opponent_stat": "DEX"}, "not_found",
     "$.opponent_stat"),
    ({"extended": True}, "invalid", "$.refresh"),
    ({"refresh": "CON"}, "invalid", "$.refresh"),
])
def test_bad_calls_are_refused_with_the_field_at_fault(fields: dict[str, Any], code: str,
                                                       path: str) -> None:
    """Unknown or repeated stats, no DT or two, an extended test without refresh: refused."""
    table = Table()
    base: dict[str, Any] = {"character": "han", "stats": ("STR",), "dt": 7}
    refusal = _refused(table, "gm", d12.CallThresholdTest, **(base | fields))
    assert (refusal.code, refusal.path) == (code, path)


def test_a_pool_of_no_dice_is_refused() -> None:
    """Stats rated 0 give no pool to roll."""
    table = Table()
    table.set_rating("han", "STR", 0)
    refusal = _refused(table, "gm", d12.CallThresholdTest, character="han", stats=("STR",),
                       dt=7)
    assert (refusal.code, refusal.path) == ("rule", "$.stats")
    assert "assembles the pool" in refusal.message


def test_tests_that_do_not_exist_or_are_over_are_refused() -> None:
    """Unknown tests are not found; ended tests are over; unrolled tests have no result."""
    table = Table()
    assert _refused(table, "gm", d12.RollThresholdTest, test=9).code == "not_found"
    assert _refused(table, "gm", d12.InterpretThresholdResult, test=9, text="x").code == \
        "not_found"
    test = _call(table)
    refusal = _refused(table, "gm", d12.InterpretThresholdResult, test=test, text="x")
    assert (refusal.code, refusal.path) == ("rule", "$.test")
    refusal = _refused(table, "gm", d12.SetDifficultyThreshold, test=test, dt=3)
    assert refusal.code == "rule"
    assert "basic" in refusal.message
    table.run("gm", d12.RollThresholdTest, test=test)
    assert _refused(table, "gm", d12.RollThresholdTest, test=test).code == "conflict"
    assert _refused(table, "gm", d12.EndThresholdTest, test=test).code == "conflict"


def test_a_player_notation_roll_rolls_the_test_the_gm_called() -> None:
    """A player's "5d12 dt7" rolls the basic test the GM called with that pool and DT, for
    the character named or else the one they play."""
    table = Table()
    table.set_rating("han", "STR", 5)
    refusal = _refused(table, "han-player", d12.RollBasicTest, dice=5, dt=7, character="han")
    assert (refusal.code, refusal.path) == ("forbidden", "$.dt")
    assert "the GM sets or determines the DT" in refusal.message
    test = _call(table)
    refusal = _refused(table, "han-player", d12.RollBasicTest, dice=5, dt=6, character="han")
    assert (refusal.code, refusal.path) == ("rule", "$.dt")
    refusal = _refused(table, "han-player", d12.RollBasicTest, dice=4, dt=7, character="han")
    assert (refusal.code, refusal.path) == ("rule", "$.dice")
    refusal = _refused(table, "leia-player", d12.RollBasicTest, dice=5, dt=7, character="han")
    assert refusal.code == "forbidden"
    table.rng = FixedDice([12, 8, 8, 2, 3])
    # naming no character, a player rolls for the one they play (as an SR3 test is)
    (rolled,) = table.run("han-player", d12.RollBasicTest, dice=5, dt=7)
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert (rolled.test, rolled.margin, rolled.succeeded) == (test, 2, True)
    assert not table.game.tests[test].open


def test_open_tests_are_limited() -> None:
    """At most MAX_OPEN_TESTS tests stay open at once, so the state stays bounded; the GM's
    "3d12 dt5" starts and ends in one command, never open, so it still rolls (it was refused
    "50 tests are open" while "3d6" rolled)."""
    table = Table()
    for _ in range(d12.MAX_OPEN_TESTS):
        _call(table)
    assert _refused(table, "gm", d12.CallThresholdTest, character="han", stats=("STR",),
                    dt=7).code == "conflict"
    started, rolled = table.run("gm", d12.RollBasicTest, dice=3, dt=5)
    assert isinstance(started, d12.ThresholdTestStarted)
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert not table.game.tests[started.test].open
    assert len([t for t in table.game.tests.values() if t.open]) == d12.MAX_OPEN_TESTS


def test_a_player_typing_an_extended_tests_pool_is_pointed_to_it() -> None:
    """Han's player types the pool and DT of the extended test the GM called for Han: told to
    roll it by its number, not to "ask the GM to call for a test" (the GM did)."""
    table = Table()
    test = _call(table, stats=("STR", "DEX"), extended=True, refresh="CON")
    head = table.seq
    refusal = _refused(table, "han-player", d12.RollBasicTest, dice=7, dt=7)
    assert (refusal.code, refusal.path) == ("rule", "$.dice")
    assert refusal.message == (f"the GM called extended test {test} (7d12 at DT 7): roll its "
                               f"next round by its number, with its Roll button or poolhall "
                               f"d12 roll c {test}")
    assert _refused(table, "han-player", d12.RollBasicTest, dice=3, dt=2).message.startswith(
        f"the GM called extended test {test} ")
    basic = _call(table, dt=4)  # a basic test called too: a pool that fits neither names it
    refusal = _refused(table, "han-player", d12.RollBasicTest, dice=3, dt=2)
    assert refusal.message == f"the GM called test {basic}: 3d12 at DT 4"
    assert _refused(table, "han-player", d12.RollBasicTest, dice=7, dt=7).message.startswith(
        f"the GM called extended test {test} ")
    assert table.seq == head + 1  # the basic call only


def test_a_character_is_not_their_own_opponent() -> None:
    """The rule derives the DT from "the opponent's stats": Han against Han's own STR is
    refused naming the field, in a call and in an extended test's new DT (the page never
    offered it; the server took it)."""
    table = Table()
    refusal = _refused(table, "gm", d12.CallThresholdTest, character="han", stats=("DEX",),
                       opponent="han", opponent_stat="STR")
    assert (refusal.code, refusal.path) == ("rule", "$.opponent")
    assert refusal.message == ("Han is the one tested, not their own opponent: choose someone "
                               "else")
    test = _call(table, extended=True, refresh="CON")
    refusal = _refused(table, "gm", d12.SetDifficultyThreshold, test=test, opponent="han",
                       opponent_stat="STR")
    assert (refusal.code, refusal.path) == ("rule", "$.opponent")
    assert table.decide("gm", d12.SetDifficultyThreshold, test=test, opponent="vader",
                        opponent_stat="STR")


def test_a_player_s_basic_test_is_refused_naming_the_gm_and_the_dt() -> None:
    """The basic test form's refusals write GM and DT as the table does (the trial showed
    "the gm called test 2: 8d12 at dt 3")."""
    table = Table()
    refusal = _refused(table, "han-player", d12.RollBasicTest, dice=5, dt=7, character="han")
    assert refusal.message == "the GM sets or determines the DT: ask the GM to call for a test"
    test = _call(table, dt=3)
    refusal = _refused(table, "han-player", d12.RollBasicTest, dice=8, dt=3, character="han")
    assert refusal.message == f"the GM called test {test}: 3d12 at DT 3"
    assert refusal.path == "$.dice"


def test_a_dt_left_unset_is_asked_for_as_the_form_says_it() -> None:
    """Set the DT with nothing filled in: the DT field or an opponent's stat, in the form's
    words, not the command's fields ("give dt, or opponent and opponent_stat")."""
    table = Table()
    refusal = _refused(table, "gm", d12.CallThresholdTest, character="han", stats=("STR",))
    assert refusal.message == ("set the DT (1-12), or choose an opponent and the stat of "
                               "theirs that sets it")
    assert refusal.path == "$.dt"
    test = _call(table, extended=True, refresh="CON")
    refusal = _refused(table, "gm", d12.SetDifficultyThreshold, test=test)
    assert refusal.message.startswith("set the DT (1-12), or choose an opponent")
    assert "opponent_stat" not in refusal.message
    refusal = _refused(table, "gm", d12.CallThresholdTest, character="han", stats=("STR",),
                       dt=7, extended=True)
    assert refusal.message == ("an extended test adds CON or CHA dice after each round: say "
                               "which of them")
    assert refusal.path == "$.refresh"
