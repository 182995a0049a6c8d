"""Decisions of the ``d12`` game system: threshold tests, basic and extended.

Who does what, as the rules' steps say: the GM names the stats that apply and sets or derives
the DT (:class:`~poolhall.events.d12.CallThresholdTest`,
:class:`~poolhall.events.d12.SetDifficultyThreshold`), the player of the character rolls
(:class:`~poolhall.events.d12.RollThresholdTest`), the GM interprets the result and ends an extended
test. Dice come only from ``ctx.rng``.

An extended round is decided as one list of events, so the log never holds half a round:
the roll, the failed dice leaving, then either the refresh dice joining or - when no die is
left - the end of the test.
"""

from __future__ import annotations

from typing import Any

import msgspec

from poolhall.events import core, d12
from poolhall.events.base import Event
from poolhall.events.errors import Rejected
from poolhall.events.messages import View
from poolhall.projections.campaign import CampaignState
from poolhall.projections.d12 import GameState, TestState, open_tests
from poolhall.projections.d12_odds import odds_summary
from poolhall.server.rules.base import Decision, no_such
from poolhall.server.rules.contract import Rules
from poolhall.server.rules.privacy import hidden_from
from poolhall.server.views import Compute, ViewResult, ViewSpec

__all__ = ["RULES",
    "COMMANDS",
    "ODDS_ROUNDS",
    "clamp_dt",
    "decide",
    "about_test",
    "pool_odds",
    "roll_pool",
    "standing_views",
    "views",
]

COMMANDS = frozenset(d12.COMMANDS)
ODDS_ROUNDS = 5
MAX_ROUNDS = 10_000


def clamp_dt(rating: int) -> int:
    """**Decision**: a DT derived from an opponent's stat is its rating, clamped into 1-12."""
    return min(12, max(1, rating))


def _ratings(ctx: Decision, character: str, path: str) -> dict[str, int]:
    return dict(ctx.stats(character, d12.D12Stats, path).ratings)


def _threshold(ctx: Decision, command: Any, character: str | None) -> d12.Threshold:
    """The DT the GM set, or the one derived from the opponent's stat; exactly one of them.

    The opponent is someone other than ``character``, the one tested: the rule derives the DT
    from "the opponent's stats", and the page's list leaves the tested character out.
    """
    by_opponent = command.opponent is not None or command.opponent_stat is not None
    if command.dt is not None and by_opponent:
        raise Rejected("invalid", "set the DT or name an opponent's stat, not both", "$.dt")
    if command.dt is not None:
        return d12.Threshold(dt=command.dt, source="gm")
    if not by_opponent:
        raise Rejected("invalid", "set the DT (1-12), or choose an opponent and the stat of "
                       "theirs that sets it", "$.dt")
    if command.opponent is None:
        raise Rejected("invalid", "name the opponent whose stat sets the DT", "$.opponent")
    if command.opponent_stat is None:
        raise Rejected("invalid", "name the opponent's stat that sets the DT", "$.opponent_stat")
    if command.opponent == character:
        raise Rejected("rule", f"{ctx.name_of(command.opponent)} is the one tested, not their own "
                       "opponent: choose someone else", "$.opponent")
    ratings = _ratings(ctx, command.opponent, "$.opponent")
    if command.opponent_stat not in ratings:
        raise Rejected("not_found", f"{command.opponent!r} has no stat "
                       f"{command.opponent_stat}", "$.opponent_stat")
    rating = ratings[command.opponent_stat]
    return d12.Threshold(dt=clamp_dt(rating), source="opponent", opponent=command.opponent,
                         opponent_stat=command.opponent_stat, opponent_rating=rating)


def _open_test(ctx: Decision, number: int) -> TestState:
    test = ctx.game(GameState).tests.get(number)
    if test is None:
        raise no_such("test", number, "$.test")
    if not test.open:
        raise Rejected("conflict", f"test {number} is over", "$.test")
    return test


def _require_room(ctx: Decision) -> None:
    if len(open_tests(ctx.game(GameState))) >= d12.MAX_OPEN_TESTS:
        raise Rejected("conflict", f"{d12.MAX_OPEN_TESTS} tests are open: end some first",
                       "$.type")


def _require_roller(ctx: Decision, test: TestState) -> None:
    """The player of the character rolls; the GM may roll for anyone, and alone for no one."""
    if test.character is None:
        ctx.require_gm("roll a test that is no character's")
    else:
        ctx.require_acts_for(test.character, "$.test")


def _call(ctx: Decision, command: d12.CallThresholdTest) -> list[Event]:
    ctx.require_gm("call for a test (the GM names the stats and sets the DT)")
    ratings = _ratings(ctx, command.character, "$.character")
    used: list[d12.StatUsed] = []
    for i, stat in enumerate(command.stats):
        if stat in command.stats[:i]:
            raise Rejected("invalid", f"{stat} is named twice", f"$.stats[{i}]")
        if stat not in ratings:
            raise Rejected("not_found", f"{ctx.name_of(command.character)} has no stat {stat}",
                           f"$.stats[{i}]")
        used.append(d12.StatUsed(stat=stat, rating=ratings[stat]))
    pool = sum(s.rating for s in used)
    if pool < 1:
        raise Rejected("rule", "the player assembles the pool from the stats named: these "
                       "give no dice", "$.stats")
    if pool > d12.MAX_POOL:
        raise Rejected("rule", f"a pool holds at most {d12.MAX_POOL} dice; these stats give "
                       f"{pool}", "$.stats")
    if command.extended and command.refresh is None:
        raise Rejected("invalid", "an extended test adds CON or CHA dice after each round: "
                       "say which of them", "$.refresh")
    if not command.extended and command.refresh is not None:
        raise Rejected("invalid", "a basic test is one roll: no dice join it", "$.refresh")
    threshold = _threshold(ctx, command, command.character)
    _require_room(ctx)
    return [d12.ThresholdTestStarted(
        test=ctx.game(GameState).next_test, kind="extended" if command.extended else "basic",
        character=command.character, stats=tuple(used), pool=pool, threshold=threshold,
        refresh=command.refresh, label=command.label,
    )]


def _set_dt(ctx: Decision, command: d12.SetDifficultyThreshold) -> list[Event]:
    ctx.require_gm("set the DT")
    test = _open_test(ctx, command.test)
    if test.kind != "extended":
        raise Rejected("rule", "a basic test has one roll: its DT is set when it is called",
                       "$.test")
    return [d12.DifficultyThresholdSet(test=test.test,
                                       threshold=_threshold(ctx, command, test.character))]


def roll_pool(ctx: Decision, test: int, round_no: int, dice: int, dt: int
              ) -> d12.ThresholdDiceRolled:
    """Roll ``dice`` d12s against ``dt`` and count them as the rules say."""
    faces = tuple(ctx.rng.randint(1, 12) for _ in range(dice))
    values = tuple(d12.die_value(face, dt) for face in faces)
    successes = sum(v for v in values if v > 0)
    failures = -sum(v for v in values if v < 0)
    margin = successes - failures
    return d12.ThresholdDiceRolled(
        test=test, round=round_no, dt=dt, faces=faces, values=values, successes=successes,
        failures=failures, margin=margin, succeeded=margin > 0,
    )


def _round(ctx: Decision, test: TestState) -> list[Event]:
    """One roll; for an extended test, the failures leave and CON/CHA dice join (or it ends)."""
    round_no = test.rounds_rolled + 1
    if round_no > MAX_ROUNDS:
        raise Rejected("rule", f"a test lasts at most {MAX_ROUNDS} rounds", "$.test")
    rolled = roll_pool(ctx, test.test, round_no, test.pool, test.threshold.dt)
    events: list[Event] = [rolled]
    if test.kind != "extended":
        return events
    failed = tuple(i for i, v in enumerate(rolled.values) if v < 0)
    remaining = test.pool - len(failed)
    events.append(d12.FailedDiceRemoved(test=test.test, round=round_no, dice=failed,
                                        count=len(failed), pool=remaining))
    if remaining == 0:
        events.append(d12.ThresholdTestEnded(test=test.test, why="pool_empty",
                                             rounds=round_no, pool=0))
        return events
    assert test.character is not None
    assert test.refresh is not None
    rating = _ratings(ctx, test.character, "$.test").get(test.refresh, 0)
    joined = min(rating, d12.MAX_POOL - remaining)
    events.append(d12.RefreshDiceAdded(test=test.test, round=round_no, stat=test.refresh,
                                       rating=rating, count=joined, pool=remaining + joined))
    return events


def _roll(ctx: Decision, command: d12.RollThresholdTest) -> list[Event]:
    ctx.require_participant("roll")
    test = _open_test(ctx, command.test)
    _require_roller(ctx, test)
    return _round(ctx, test)


def _roll_basic(ctx: Decision, command: d12.RollBasicTest) -> list[Event]:
    """The GM's "5d12 dt7" starts and rolls a basic test (its reason the test's label); a
    player's rolls the one called, for the character named or else the one they play (as an
    SR3 test from ``poolhall roll`` is).

    The GM's test ends with its roll, in the same command: it never adds to the open tests,
    so the cap on them does not refuse it (with 50 open, "3d12 dt5" was refused while "3d6"
    rolled)."""
    ctx.require_participant("roll")
    if command.character is not None:
        ctx.character(command.character)
    if ctx.is_gm:
        number = ctx.game(GameState).next_test
        started = d12.ThresholdTestStarted(
            test=number, kind="basic", character=command.character, pool=command.dice,
            threshold=d12.Threshold(dt=command.dt, source="gm"), label=command.reason,
        )
        return [started, roll_pool(ctx, number, 1, command.dice, command.dt)]
    if command.reason:
        raise Rejected("invalid", "the GM's call names this test: a roll of it keeps no "
                       "reason", "$.reason")
    character = command.character or ctx.only_character()
    if character is None:
        raise Rejected("invalid", f"say which of your characters rolls{ctx.whose()}",
                       "$.character")
    ctx.require_acts_for(character)
    called = [t for t in open_tests(ctx.game(GameState))  # not the GM's secret ones
              if t.character == character and not hidden_from(ctx, f"test:{t.test}")]
    basic = [t for t in called if t.kind == "basic"]
    for test in basic:
        if test.pool == command.dice and test.threshold.dt == command.dt:
            return _round(ctx, test)
    if not called:
        raise Rejected("forbidden", "the GM sets or determines the DT: ask the GM to call for "
                       "a test", "$.dt")
    extended = [t for t in called if t.kind == "extended"]
    same = [t for t in extended if t.pool == command.dice and t.threshold.dt == command.dt]
    if same or not basic:
        raise _roll_by_number(ctx, (same or extended)[0])
    test = basic[0]
    path = "$.dice" if test.pool != command.dice else "$.dt"
    raise Rejected("rule", f"the GM called test {test.test}: {test.pool}d12 at DT "
                   f"{test.threshold.dt}", path)


def _roll_by_number(ctx: Decision, test: TestState) -> Rejected:
    """The refusal of a player's "9d12 dt12" when the test called for them is extended.

    **Decision**: the notation is a basic test's; an extended test's round is rolled by the
    test's number, whose pool changes after every round (a pool typed from an earlier round
    would roll no test). The refusal names the test and how to roll it, not "ask the GM to
    call for a test", which the GM has done.
    """
    return Rejected("rule", f"the GM called extended test {test.test} ({test.pool}d12 at DT "
                    f"{test.threshold.dt}): roll its next round by its number, with its "
                    f"Roll button or poolhall d12 roll {ctx.state.campaign} {test.test}",
                    "$.dice")


def _interpret(ctx: Decision, command: d12.InterpretThresholdResult) -> list[Event]:
    ctx.require_gm("interpret the result")
    test = ctx.game(GameState).tests.get(command.test)
    if test is None:
        raise no_such("test", command.test, "$.test")
    if not test.rounds:
        raise Rejected("rule", f"test {command.test} has not been rolled yet", "$.test")
    return [d12.ThresholdResultInterpreted(test=test.test, round=test.rounds_rolled,
                                           text=command.text)]


def _end(ctx: Decision, command: d12.EndThresholdTest) -> list[Event]:
    ctx.require_gm("end a test")
    test = _open_test(ctx, command.test)
    return [d12.ThresholdTestEnded(test=test.test, why="gm", rounds=test.rounds_rolled,
                                   pool=test.pool, reason=command.reason)]


def decide(ctx: Decision, command: Any) -> list[Event]:
    """Decide one d12 command, or refuse it with a code, a message and the field at fault."""
    match command:
        case d12.CallThresholdTest():
            return _call(ctx, command)
        case d12.SetDifficultyThreshold():
            return _set_dt(ctx, command)
        case d12.RollThresholdTest():
            return _roll(ctx, command)
        case d12.RollBasicTest():
            return _roll_basic(ctx, command)
        case d12.InterpretThresholdResult():
            return _interpret(ctx, command)
        case d12.EndThresholdTest():
            return _end(ctx, command)
    raise Rejected("unknown_type", f"unknown command {type(command).__name__}", "$.type")


def _refresh_rating(state: CampaignState, test: TestState) -> int | None:
    if test.kind != "extended" or test.character is None or test.refresh is None:
        return None
    character = state.characters.get(test.character)
    stats = character.stats if character is not None else None
    if not isinstance(stats, d12.D12Stats):
        return 0
    return stats.ratings.get(test.refresh, 0)


def _touched(state: GameState, events: list[Event]) -> list[int]:
    """The tests whose odds these events may change, in order."""
    touched: dict[int, None] = {}
    for event in events:
        if type(event) in d12.EVENTS:
            touched[event.test] = None  # type: ignore[attr-defined]
        elif isinstance(event, core.CharacterUpdated):
            for test in open_tests(state):
                if test.character == event.character and test.kind == "extended":
                    touched[test.test] = None
    return list(touched)


def about_test(test: int) -> str:
    """What a test's view is about: ``test:<number>``."""
    return f"test:{test}"


def views(state: CampaignState, events: list[Event]) -> list[ViewSpec]:
    """The odds of each test these events touched, as the table sees them before a roll:
    P(success), mean margin, the margin distribution, and for an extended test the chance its
    pool survives each of the next rounds. An ended test's view says it is over.

    Only touched tests are computed (a pool of 100 dice takes some milliseconds, in a worker
    process), so one command costs one test's odds however many tests are open; a character
    update touches that character's extended tests, whose refresh dice it may change.
    """
    if not isinstance(state.game, GameState):
        return []
    tests = (state.game.tests.get(number) for number in _touched(state.game, events))
    return [_test_view(state, test) for test in tests if test is not None]


def standing_views(state: CampaignState) -> list[ViewSpec]:
    """The odds view of every open test, for a member who joins while tests go on."""
    if not isinstance(state.game, GameState):
        return []
    return [_test_view(state, test) for test in open_tests(state.game)]


def pool_odds(odds_input: tuple[int, int, int | None]) -> ViewResult:
    """The costly part of a test's view, computed in a worker: pool dice, DT, refresh dice."""
    dice, dt, add = odds_input
    return {"odds": msgspec.convert(odds_summary(dice, dt, add, ODDS_ROUNDS), d12.D12PoolOdds)}


def _test_view(state: CampaignState, test: TestState) -> ViewSpec:
    data = d12.D12TestOdds(test=test.test, open=test.open, kind=test.kind,
                           character=test.character, margins=test.margins,
                           first_round=test.rounds_rolled - len(test.rounds) + 1)
    if not test.open:
        return View(about=about_test(test.test), data=data)
    data = msgspec.structs.replace(data, round=test.rounds_rolled + 1)
    return Compute(about=about_test(test.test), data=data, function=pool_odds,
                   input=(test.pool, test.threshold.dt, _refresh_rating(state, test)))


RULES = Rules(system=d12.SYSTEM_ID, commands=COMMANDS, decide=decide, views=views,
              standing_views=standing_views)
"""This system's rules (see :mod:`poolhall.server.rules.contract`)."""
