"""The ``d12`` projection: every threshold test of the campaign, open or ended, round by round.

For each test it keeps the pool now, the DT and where it came from, its rounds (faces, what
each die counted, margin, dice that left and joined) and the running story, one line per event,
as the table told it. :func:`open_tests` lists the tests still going on.

An extended test may go on for thousands of rounds, and the whole state travels in every
``table`` message: so a test keeps only its last :data:`ROUNDS_KEPT` rounds (and story lines,
and GM readings per round), with the count of every round rolled; the older ones are in the
log, where a replay or ``history`` finds them.

A basic test ends with its one roll; an extended test when the GM ends it or its pool is
empty (:class:`poolhall.events.d12.ThresholdTestEnded`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from poolhall.events import d12
from poolhall.events.base import Event, Recorded, Visibility
from poolhall.events.plural import plural
from poolhall.projections.contract import Projection, TableView

__all__ = [
    "PROJECTION",
    "GameState",
    "RoundRecord",
    "ENDED_KEPT",
    "NOTES_KEPT",
    "ROUNDS_KEPT",
    "STORY_KEPT",
    "TABLE_RECENT",
    "D12Table",
    "Table",
    "TestState",
    "describe",
    "event_line",
    "evolve",
    "initial_state",
    "open_tests",
    "replay_start",
    "table_of",
]


class RoundRecord(msgspec.Struct, kw_only=True, gc=False):
    """One roll of a test and what became of its pool."""

    round: int
    dt: int
    pool: int
    faces: tuple[int, ...]
    values: tuple[int, ...]
    successes: int
    failures: int
    margin: int
    succeeded: bool
    removed: int = 0
    added: int = 0
    refresh_rating: int | None = None
    """The refresh stat's rating when its dice joined (none joined: ``None``): more than
    ``added`` when the pool reached its 100 dice, so the table can say why fewer joined."""
    pool_after: int | None = None
    notes: list[str] = msgspec.field(default_factory=list)


ROUNDS_KEPT = 20
"""Rounds a test keeps, the latest: older ones are in the log (:attr:`TestState.rounds_rolled`
counts them all)."""
STORY_KEPT = 60
"""Story lines a test keeps, the latest (three or four per round)."""
NOTES_KEPT = 10
"""GM readings a round keeps, the latest."""


class TestState(msgspec.Struct, kw_only=True):
    """A test as it stands: who, which stats, the pool now, the DT, its latest rounds and
    story lines (see :data:`ROUNDS_KEPT`), how many rounds it has had."""

    test: int
    kind: str
    character: str | None
    stats: tuple[d12.StatUsed, ...]
    label: str
    refresh: str | None
    pool: int
    threshold: d12.Threshold
    started_seq: int
    start_pool: int = 0
    """The pool the test was called with (the first round's, once rolled)."""
    rounds_rolled: int = 0
    """Every round rolled so far, kept or not: the next round's number is one more."""
    rounds: list[RoundRecord] = msgspec.field(default_factory=list)
    open: bool = True
    ended: str | None = None
    ended_seq: int | None = None
    """The seq of the event that ended it (its roll, for a basic test): the state keeps, and
    the table shows, the tests ended last. A test called early and rolled after twenty later
    ones had ended (the GM's one-shot rolls end at once), kept by test number, left the state
    at its own roll, its result never shown."""
    end_reason: str = ""
    story: list[str] = msgspec.field(default_factory=list)
    visibility: Visibility = "public"
    """Who saw it before its epoch's seed was revealed: ``gm`` for the GM's secret test, which
    the GM's card and ``poolhall d12 tests`` mark (players never hold it until then)."""

    @property
    def margins(self) -> list[int]:
        """The margin of each round kept (the last :data:`ROUNDS_KEPT`), oldest first."""
        return [r.margin for r in self.rounds]


class GameState(msgspec.Struct, kw_only=True):
    """Every test of the campaign by number, and the number the next one gets."""

    tests: dict[int, TestState] = msgspec.field(default_factory=dict)
    next_test: int = 1


def initial_state() -> GameState:
    """No test yet."""
    return GameState()


ENDED_KEPT = 20
"""Ended tests the state keeps besides the open ones (the latest ended): the table shows
:data:`TABLE_RECENT` of them; older ones are in the log."""


def _ended_last(state: GameState) -> list[int]:
    """The ended tests, the one ended last first (by :attr:`TestState.ended_seq`, which the
    log gives: the order the state keeps and :func:`table_of` cuts by)."""
    ended = [number for number, test in state.tests.items() if not test.open]
    return sorted(ended, key=lambda number: state.tests[number].ended_seq or 0, reverse=True)


def _drop_old_ended(state: GameState) -> None:
    """Keep every open test and the :data:`ENDED_KEPT` ended last: the bound holds after
    every event. By ending order, not test number: a test called before twenty others that
    ended first was dropped by the very roll that ended it."""
    for number in _ended_last(state)[ENDED_KEPT:]:
        del state.tests[number]


def replay_start(state: GameState) -> GameState:
    """The d12 table a replay starts from: the next test's number and every extended test
    still going on, as it stands (its pool, its DT, how many rounds it has had), without the
    rounds rolled or the story told before the replay; no basic test and no ended one.

    An extended test runs round after round, often across game sessions, as an sr3 combat
    does: without it, a session's replay showed no test while its own log rolled round 4 of
    it (and its rounds, folded onto no test, were lost). A basic test called before and
    rolled in the replay is, like a narrative check opened before, in the log alone."""
    return GameState(next_test=state.next_test, tests={
        number: msgspec.structs.replace(test, rounds=[], story=[])
        for number, test in state.tests.items() if test.open and test.kind == "extended"})


def open_tests(state: GameState) -> list[TestState]:
    """The tests still going on, oldest first."""
    return [t for t in state.tests.values() if t.open]


TABLE_RECENT = 10
"""Ended tests a snapshot keeps besides the open ones; older ones come from the log."""


class D12Table(msgspec.Struct, kw_only=True, tag_field="system", tag="d12"):
    """The d12 table as a snapshot carries it: the state, bounded (see :func:`table_of`).

    A client folds later events onto ``game`` with :func:`evolve`, exactly as the server does.
    """

    game: GameState


Table = D12Table
"""This system's table, as the snapshot module finds it."""


def table_of(state: GameState) -> D12Table:
    """Every open test and the :data:`TABLE_RECENT` ended last (an ended test never changes
    again, so folding later events onto this keeps it equal to the same cut of the full
    state)."""
    kept = set(_ended_last(state)[:TABLE_RECENT])
    return D12Table(game=GameState(
        tests={number: test for number, test in state.tests.items()
               if test.open or number in kept},
        next_test=state.next_test))


def _threshold_text(threshold: d12.Threshold) -> str:
    if threshold.source == "opponent":
        return (f"DT {threshold.dt} from {threshold.opponent}'s {threshold.opponent_stat} "
                f"{threshold.opponent_rating}")
    return f"DT {threshold.dt} set by the GM"


def event_line(event: Any) -> str:
    """The story line of one d12 event, from the event alone (replay needs nothing else)."""
    match event:
        case d12.ThresholdTestStarted():
            stats = " + ".join(f"{s.stat} {s.rating}" for s in event.stats)
            pool = f"{stats} = " * bool(stats) + plural("die", event.pool, "dice")
            refresh = f"; {event.refresh} dice join after each round" if event.refresh else ""
            label = f" ({event.label})" if event.label else ""
            return (f"{event.kind} test{label}: {pool} at {_threshold_text(event.threshold)}"
                    f"{refresh}")
        case d12.DifficultyThresholdSet():
            return f"next round at {_threshold_text(event.threshold)}"
        case d12.ThresholdDiceRolled():
            outcome = "success" if event.succeeded else "no success"
            return (f"round {event.round}: [{' '.join(str(f) for f in event.faces)}] at DT "
                    f"{event.dt}: {plural('success', event.successes)}, "
                    f"{plural('failure', event.failures)}, margin {event.margin:+d} "
                    f"({outcome})")
        case d12.FailedDiceRemoved():
            return (f"{plural('failed die', event.count, 'failed dice')} left the pool: "
                    f"{plural('die remains', event.pool, 'dice remain')}")
        case d12.RefreshDiceAdded():
            return (f"{event.stat} {event.rating}: {event.count} joined: "
                    f"{plural('die', event.pool, 'dice')} in the pool")
        case d12.ThresholdResultInterpreted():
            return f"GM: {event.text}"
        case d12.ThresholdTestEnded():
            why = "the pool is empty" if event.why == "pool_empty" else "ended by the GM"
            reason = f" ({event.reason})" if event.reason else ""
            return f"test over after {plural('round', event.rounds)}: {why}{reason}"
    return type(event).__name__


def _started(state: GameState, rec: Recorded, event: d12.ThresholdTestStarted) -> None:
    state.tests[event.test] = TestState(
        test=event.test, kind=event.kind, character=event.character, stats=event.stats,
        label=event.label, refresh=event.refresh, pool=event.pool, threshold=event.threshold,
        started_seq=rec.seq, start_pool=event.pool, visibility=event.visibility,
    )
    state.next_test = max(state.next_test, event.test + 1)


def _rolled(test: TestState, event: d12.ThresholdDiceRolled) -> None:
    test.rounds.append(RoundRecord(
        round=event.round, dt=event.dt, pool=len(event.faces), faces=event.faces,
        values=event.values, successes=event.successes, failures=event.failures,
        margin=event.margin, succeeded=event.succeeded,
    ))
    test.rounds_rolled += 1
    _keep_last(test.rounds, ROUNDS_KEPT)
    if test.kind == "basic":
        test.open = False
        test.ended = "rolled"


def _keep_last(items: list[Any], kept: int) -> None:
    """Drop the oldest of ``items`` past the last ``kept`` (one at a time, as they come)."""
    if len(items) > kept:
        del items[:len(items) - kept]


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """Fold one d12 event into the tests (in place; see :mod:`poolhall.projections.campaign`)."""
    event = recorded.event
    if isinstance(event, d12.ThresholdTestStarted):
        _started(state, recorded, event)
    test = state.tests.get(getattr(event, "test", 0))
    if test is None:
        return state
    was_open = test.open
    _fold(test, event)
    if was_open and not test.open:
        test.ended_seq = recorded.seq
    test.story.append(event_line(event))
    _keep_last(test.story, STORY_KEPT)
    if not test.open:
        _drop_old_ended(state)
    return state


def _fold(test: TestState, event: Event) -> None:
    """What one event of a test changes in it (besides its story line, which every event
    adds)."""
    match event:
        case d12.DifficultyThresholdSet():
            test.threshold = event.threshold
        case d12.ThresholdDiceRolled():
            _rolled(test, event)
        case d12.FailedDiceRemoved():
            test.pool = event.pool
            test.rounds[-1].removed = event.count
            test.rounds[-1].pool_after = event.pool
        case d12.RefreshDiceAdded():
            test.pool = event.pool
            test.rounds[-1].added = event.count
            test.rounds[-1].refresh_rating = event.rating
            test.rounds[-1].pool_after = event.pool
        case d12.ThresholdResultInterpreted():
            if test.rounds:
                test.rounds[-1].notes.append(event.text)
                _keep_last(test.rounds[-1].notes, NOTES_KEPT)
        case d12.ThresholdTestEnded():
            test.open = False
            test.ended = event.why
            test.end_reason = event.reason
            test.pool = event.pool


def describe(recorded: Recorded, campaign: TableView) -> str:
    """One line for ``poolhall watch``: the test, whose it is, and what happened."""
    event = recorded.event
    character = getattr(event, "character", None)
    if character is None and isinstance(campaign.game, GameState):
        test = campaign.game.tests.get(getattr(event, "test", 0))
        character = test.character if test is not None else None
    who = ""
    if character is not None:
        known = campaign.characters.get(character)
        who = f" ({known.name if known is not None else character})"
    return f"test {getattr(event, 'test', '?')}{who}: {event_line(event)}"


def unfinished(state: GameState, key: str) -> bool:
    """Whether the private subject ``key`` is a test still going on."""
    kind, _, name = key.partition(":")
    test = state.tests.get(int(name)) if kind == "test" and name.isdigit() else None
    return test is not None and test.open


def holding(state: GameState, character: str) -> str | None:
    """The open test of ``character``, or whose DT comes from its stat (the opponent), if
    there is one: it may not retire before it ends
    (:attr:`poolhall.projections.contract.Projection.holding`); an extended test's next DT
    may be derived from the opponent again."""
    for test in open_tests(state):
        if character in (test.character, test.threshold.opponent):
            return f"is in the open test #{test.test}: end it first"
    return None


PROJECTION: Projection[GameState] = Projection(
    system=d12.SYSTEM_ID, state=GameState, initial_state=initial_state, evolve=evolve,
    describe=describe, table=Table, snapshot=table_of, replay_start=replay_start,
    unfinished=unfinished, holding=holding)
"""This system's part of the projections (see :mod:`poolhall.projections.contract`)."""
