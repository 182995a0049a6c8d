"""The post-game report: a pure fold over a campaign's recorded events.

``report(events) -> Report`` judges every roll against the exact odds of the very pool it came
from (:mod:`poolhall.projections.analytics_odds`), and sums, per player, per character, per game
session and for the campaign, the figures of :mod:`poolhall.projections.analytics_model`. It reads
only what the events record - faces, pools, results, times - and never re-rolls or asks today's
rules what a roll should have been, so the report of an old log is the report of what happened. No
I/O, no clock (times are the events' own), no randomness: the same log gives the same report.

``roll_rows(events)`` gives the judged rolls themselves, one row each (``poolhall export``).

What a roll is judged by (its *value*):

- narrative check or pool: net successes (Force dice play no part);
- Force dice rolled for a power: the light side pips of a player's roll, the dark side pips
  of a GM's (:func:`_force_side`);
- Shadowrun test with a target number: successes; an open test: the highest total; a Karma
  Pool reroll: the successes (the highest total) the rerolled dice added;
- d12 roll: the margin;
- free ``XdN+C`` roll: its total, the constant included (``3d6+2`` showing 3, 3, 2: 10).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import msgspec

from poolhall.events import core
from poolhall.events import d12 as d12_events
from poolhall.events import narrative as narrative_events
from poolhall.events import sr3 as sr3_events
from poolhall.events.base import Recorded
from poolhall.events.plural import plural
from poolhall.projections import analytics_odds as odds
from poolhall.projections.analytics_model import (
    ChainRecord,
    DestinyFlip,
    DestinyPoint,
    ExtendedTest,
    Report,
    RollRow,
)
from poolhall.projections.analytics_tally import Fact, Scope
from poolhall.projections.narrative_dice import FACES, cancel_text
from poolhall.projections.sr3_odds import p_die_at_least

__all__ = ["for_session", "report", "roll_rows"]

_POOL_SOURCES = frozenset(sr3_events.POOLS)
_ASTRAL_POOLS = frozenset({"astral_combat", "astral"})
"""Pools usable only on the astral plane (rules: sr3-dice-pools.md, Astral Combat Pool and
Astral Pool)."""
OPEN_KEPT = 4096
"""Tests and checks still open that the fold remembers, at most (the oldest forgotten first):
a reroll or a roll refers to one opened lately, and the fold's memory must not grow with the
log. One forgotten is judged as a test of a partial log is (its reroll is not compared)."""


def _remember(open_ones: dict[Any, Any], key: object, value: object) -> None:
    """``open_ones[key] = value``, forgetting the oldest past :data:`OPEN_KEPT`."""
    open_ones[key] = value
    if len(open_ones) > OPEN_KEPT:
        del open_ones[next(iter(open_ones))]


def _force_side(by_gm: bool) -> str:
    """The side whose pips a power's Force dice are judged by: a player's by light, a GM's
    by dark.

    **Decision**: the rules say what each face shows, not which pips a roll wants, and the
    log does not record a character's side of the Force. poolhall reads it as the destiny
    pool does (the players spend light side points, the GM dark side ones): a player's
    character draws on the light side, the GM's NPCs on the dark. A GM rolling for a light
    side NPC is judged by dark pips all the same; the GM's rows stand apart from the
    players' in the report."""
    return "dark" if by_gm else "light"


def _seconds(at: str) -> float | None:
    """An event's recorded time as seconds since the epoch (None if unreadable)."""
    try:
        return datetime.fromisoformat(at).timestamp()
    except ValueError:
        return None


class _Fold:
    """The walk over the log: what the report needs to remember between events."""

    def __init__(self, keep_rows: bool) -> None:
        self.campaign = ""
        self.name = ""
        self.system = ""
        self.head = 0
        self.players: dict[str, str] = {}
        self.gms: set[str] = {"gm"}
        """The GMs: invited as such (and ``gm``, the member a campaign's GM is created as)."""
        self.characters: dict[str, str] = {}
        self.whole = Scope(None)
        self.sessions: list[Scope] = []
        self.current: Scope | None = None
        self.scopes: list[Scope] = [self.whole]
        self.keep_rows = keep_rows
        self.rows: list[RollRow] = []
        self.opened: dict[str, float] = {}           # narrative check -> opened at
        self.declared: dict[str, float] = {}         # sr3 character -> test declared at
        self.sr3_tests: dict[int, tuple[int | None, int | None]] = {}  # test -> (tn, result)
        self.encounter = 0
        self.turn: int | None = None
        self.astral_pools: dict[str, int] = {}
        """Astral pool dice of each character this Combat Turn, not yet counted as theirs."""
        self.d12_tests: dict[int, tuple[str | None, str, float | None, int]] = {}
        self.handlers: dict[type[Any], Callable[[Recorded, Any, float | None], None]] = {
            core.CampaignCreated: self.campaign_created,
            core.MemberInvited: self.member_invited,
            core.CharacterCreated: self.character_named,
            core.CharacterUpdated: self.character_named,
            core.DiceRolled: self.free_roll,
            narrative_events.CheckOpened: self.check_opened,
            narrative_events.CheckRolled: self.narrative_roll,
            narrative_events.PoolRolled: self.narrative_roll,
            narrative_events.ForceDiceRolled: self.force_roll,
            narrative_events.DestinyPoolRolled: self.destiny,
            narrative_events.DestinyPoolSet: self.destiny,
            narrative_events.DestinyFlipped: self.destiny_flipped,
            sr3_events.PoolTestDeclared: self.test_declared,
            sr3_events.PoolTestRolled: self.sr3_test,
            sr3_events.PoolTestRerolled: self.sr3_reroll,
            sr3_events.CombatEncounterStarted: self.encounter_started,
            sr3_events.CombatTurnStarted: self.turn_started,
            sr3_events.CombatTurnEnded: self.turn_over,
            sr3_events.CombatEncounterEnded: self.turn_over,
            d12_events.ThresholdTestStarted: self.d12_started,
            d12_events.ThresholdDiceRolled: self.d12_roll,
            d12_events.ThresholdTestEnded: self.d12_ended,
        }

    # ---- plumbing -------------------------------------------------------------------------

    def judge(self, rec: Recorded, character: str | None, system: str, kind: str,
              pool: Callable[[], str], result: Callable[[], str], x: int, dist: odds.Discrete,
              p_success: float | None, test: int | None = None) -> None:
        """Judge one roll's value ``x`` against its distribution. The row (and the words of
        its pool and result) is made only if it is kept or shown; ``test`` is the number the
        table gives the test (SR3's), for the report to name it as the table does."""
        figures = dist.figures(x)
        p_at_most = dist.p_at_most(x)
        session = self.current.session if self.current else None

        def make() -> RollRow:
            return RollRow(
                campaign=self.campaign, session=session, seq=rec.seq, time=rec.at,
                actor=rec.actor, character=character, system=system, kind=kind, pool=pool(),
                result=result(), value=x, expected=round(dist.mean, 6), p_success=p_success,
                p_at_least=figures[0], p_at_most=p_at_most, percentile=figures[1], test=test)

        fact = Fact(rec.actor, character, system, figures, p_at_most, dist, make)
        if self.keep_rows:
            self.rows.append(fact.row())
        if len(dist.values) < 2:  # a certain result tells nothing about the dice
            return
        for scope in self.scopes:
            scope.roll(fact)

    def add(self, system: str, character: str | None, pairs: tuple[float, ...]) -> None:
        """One roll's actual, expected, actual, expected ... of the system's figures
        (:data:`poolhall.projections.analytics_tally.SYSTEM_SUMS`), for the table and the
        character."""
        for scope in self.scopes:
            table, mine = scope.sums(system, character)
            table.rolls += 1
            table.add(pairs)
            if mine is not table:
                mine.rolls += 1
                mine.add(pairs)

    def add_one(self, system: str, character: str | None, name: str, actual: float,
                expected: float) -> None:
        """Add to one figure, not a roll of its own (the Karma Pool dice of a test)."""
        for scope in self.scopes:
            table, mine = scope.sums(system, character)
            table.add_one(name, actual, expected)
            if mine is not table:
                mine.add_one(name, actual, expected)

    # ---- the walk -------------------------------------------------------------------------

    def step(self, rec: Recorded) -> None:
        self.head = max(self.head, rec.seq)
        event: Any = rec.event
        kind = type(event)
        if kind is core.GameSessionStarted:
            self.current = Scope(event.session, event.title)
            self.sessions.append(self.current)
            self.scopes = [self.whole, self.current]
        seconds = _seconds(rec.at)
        if seconds is not None:
            for scope in self.scopes:
                scope.event(seconds, rec.at, rec.seq)
        handler = self.handlers.get(kind)
        if handler is not None:
            handler(rec, event, seconds)
        if kind is core.GameSessionEnded:
            self.current = None
            self.scopes = [self.whole]

    def campaign_created(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        self.campaign, self.name, self.system = event.campaign, event.name, event.system

    def member_invited(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        self.players[event.member] = event.name
        if event.role == "gm":
            self.gms.add(event.member)

    def character_named(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        if event.name is not None:
            self.characters[event.character] = event.name

    # ---- each system ----------------------------------------------------------------------

    def free_roll(self, rec: Recorded, event: core.DiceRolled, seconds: float | None) -> None:
        key = tuple((len(t.faces), t.sides, t.sign) for t in event.terms)
        self.judge(rec, event.character, "free", "free", lambda: event.expression,
                   lambda: str(event.total), event.total,
                   odds.free_total(key, event.constant), None)
        for scope in self.scopes:
            scope.free_rolls += 1
            for term in event.terms:
                scope.free(term.sides, term.faces)

    def check_opened(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        if seconds is not None:
            _remember(self.opened, event.check, seconds)

    def narrative_roll(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        dist, adv, triumphs, despairs, p_success = odds.narrative_successes(event.pool)
        result: narrative_events.NarrativeResult = event.result
        kind = "check" if type(event) is narrative_events.CheckRolled else "pool"
        for scope in self.scopes:
            for die in event.dice:
                scope.die_faces(die.kind, len(FACES[die.kind]), (die.face,))
        self.judge(rec, event.character, "narrative", kind, event.pool.notation,
                   lambda: cancel_text(result), result.successes, dist, p_success)
        self.add("narrative", event.character, (
            float(result.succeeded), p_success, result.successes, dist.mean,
            result.advantages, adv, result.triumphs, triumphs, result.despairs, despairs))
        if kind == "check":
            opened = self.opened.pop(event.check, None)
            if opened is not None and seconds is not None:
                for scope in self.scopes:
                    scope.check_timed(seconds - opened)

    def force_roll(self, rec: Recorded, event: narrative_events.ForceDiceRolled,
                   seconds: float | None) -> None:
        """Force dice rolled for a power: each face counted with the Force die's (as the
        destiny pool's are), and the roll judged by the pips of the roller's side against
        the exact odds of that many Force dice (:func:`_force_side`)."""
        for scope in self.scopes:
            scope.die_faces("force", len(FACES["force"]), (die.face for die in event.dice))
        side = _force_side(rec.actor in self.gms)
        dice = len(event.dice)
        pips = event.light if side == "light" else event.dark
        self.judge(rec, event.character, "narrative", f"force {side}",
                   narrative_events.Pool(force=dice).notation,
                   lambda: f"{event.light} light, {event.dark} dark", pips,
                   odds.force_pips(dice, side), None)

    def destiny(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        if type(event) is narrative_events.DestinyPoolRolled:
            for scope in self.scopes:
                scope.die_faces("force", len(FACES["force"]), (d.face for d in event.dice))
        point = DestinyPoint(seq=rec.seq, time=rec.at, light=event.light, dark=event.dark)
        for scope in self.scopes:
            scope.destiny_pool(point)

    def destiny_flipped(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        flip = DestinyFlip(seq=rec.seq, time=rec.at, actor=rec.actor, side=event.side,
                           effect=event.effect, check=event.check)
        for scope in self.scopes:
            scope.flip(flip)
        self.destiny(rec, event, seconds)

    def test_declared(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        if seconds is not None:
            self.declared[event.character] = seconds

    def encounter_started(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        self.encounter += 1

    def turn_started(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        """Each character's pools at the start of a Combat Turn. The Astral Combat Pool and
        the Astral Pool serve only tests on the astral plane: they count as dice the
        character had only once they make an astral test in the turn."""
        self.turn = event.turn
        self.astral_pools = {}
        for character, sizes in event.pools.items():
            astral = sum(n for pool, n in sizes.items() if pool in _ASTRAL_POOLS)
            if astral:
                self.astral_pools[character] = astral
            for scope in self.scopes:
                scope.turn_pools((self.encounter, event.turn, character),
                                 sum(sizes.values()) - astral, 0)

    def turn_over(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        self.turn = None

    def sr3_test(self, rec: Recorded, event: sr3_events.PoolTestRolled,
                 seconds: float | None) -> None:
        n = len(event.dice)
        disastrous = f" (Rule of One: {n} ones)" if event.disastrous else ""
        if event.tn is not None:
            tn = event.tn
            dist = odds.sr3_successes(n, tn)
            x = event.successes or 0
            self.judge(rec, event.character, "sr3", "test", lambda: f"{n}d6 tn{tn}",
                       lambda: f"{plural('success', x)}{disastrous}", x, dist, dist.p_at_least(1),
                       event.test)
            _remember(self.sr3_tests, event.test, (tn, x))
            karma = [d for d in event.dice if d.source == "karma"]
            if karma:
                won = sum(1 for d in karma if sum(d.faces) >= tn)
                self.add_one("sr3", event.character, "karma", won,
                             len(karma) * float(p_die_at_least(tn)))
        else:
            dist = odds.sr3_open(n)
            highest = event.highest
            self.judge(rec, event.character, "sr3", "open test", lambda: f"{n}d6 open",
                       lambda: f"highest {highest}{disastrous}", min(highest, odds.OPEN_CAP),
                       dist, None, event.test)
            _remember(self.sr3_tests, event.test, (None, highest))
        self.add("sr3", event.character, (
            float(event.successes or 0), dist.mean if event.tn is not None else 0.0,
            float(event.disastrous), 6.0**-n, 0.0, 0.0))
        drawn = sum(1 for die in event.dice if die.source in _POOL_SOURCES)
        first_faces = [die.faces[0] for die in event.dice]
        for scope in self.scopes:
            scope.die_faces("sr3 d6", 6, first_faces)
            scope.rule_of_one(n, event.disastrous)
        astral = self.astral_pools.pop(event.character, 0) if event.astral else 0
        chain = max(event.dice, key=lambda die: len(die.faces))  # only sixes roll on
        sixes = chain.faces.count(6)
        for scope in self.scopes:
            if event.karma_spent:
                scope.karma_spent(event.character, event.karma_spent)
            if sixes and (scope.chain is None or sixes > scope.chain.sixes):
                scope.six_chain(ChainRecord(sixes=sixes, faces=list(chain.faces),
                                            character=event.character, seq=rec.seq,
                                            test=event.test))
            if self.turn is not None and (drawn or astral):
                scope.turn_pools((self.encounter, self.turn, event.character), astral, drawn)
        declared = self.declared.pop(event.character, None)
        if declared is not None and seconds is not None:
            for scope in self.scopes:
                scope.check_timed(seconds - declared)

    def sr3_reroll(self, rec: Recorded, event: sr3_events.PoolTestRerolled,
                   seconds: float | None) -> None:
        for scope in self.scopes:
            scope.karma_spent(event.character, event.cost)
        for scope in self.scopes:
            scope.die_faces("sr3 d6", 6, (chain[0] for chain in event.faces))
        tn, before = self.sr3_tests.get(event.test, (None, None))
        r = len(event.indices)
        if before is None:  # the test is not in this log (a partial one): nothing to compare
            return
        if tn is not None:
            gained = (event.successes or 0) - before
            dist = odds.sr3_successes(r, tn)
            self.judge(rec, event.character, "sr3", "karma reroll", lambda: f"{r}d6 tn{tn}",
                       lambda: f"+{plural('success', gained)}", gained, dist, dist.p_at_least(1),
                       event.test)
            self.add_one("sr3", event.character, "karma", gained, dist.mean)
            self.add_one("sr3", event.character, "successes", gained, dist.mean)
            self.sr3_tests[event.test] = (tn, event.successes or 0)
        else:
            dist = odds.sr3_open(r)
            highest = event.highest
            self.judge(rec, event.character, "sr3", "karma reroll", lambda: f"{r}d6 open",
                       lambda: f"highest {highest}", min(highest, odds.OPEN_CAP), dist, None,
                       event.test)
            _remember(self.sr3_tests, event.test, (None, highest))

    def d12_started(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        _remember(self.d12_tests, event.test, (event.character, event.kind, seconds, 0))
        if event.kind == "extended":
            self.extended(event.test, event.character, 0, "open")

    def d12_roll(self, rec: Recorded, event: d12_events.ThresholdDiceRolled,
                 seconds: float | None) -> None:
        character, kind, started, rounds = self.d12_tests.get(
            event.test, (None, "basic", None, 0))
        n, dt, margin = len(event.faces), event.dt, event.margin
        for scope in self.scopes:
            scope.die_faces("d12", 12, event.faces)
        dist = odds.d12_margin(n, dt)
        p_success = dist.p_at_least(1)
        self.judge(rec, character, "d12", kind, lambda: f"{n}d12 dt{dt}",
                   lambda: f"margin {margin:+d}", margin, dist, p_success)
        self.add("d12", character, (float(event.succeeded), p_success, margin, dist.mean,
                                    event.faces.count(1), n / 12, event.faces.count(12),
                                    n / 12))
        if rounds == 0 and started is not None and seconds is not None:
            for scope in self.scopes:
                scope.check_timed(seconds - started)
        _remember(self.d12_tests, event.test, (character, kind, started, rounds + 1))
        if kind == "extended":
            self.extended(event.test, character, rounds + 1, "open")

    def d12_ended(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        whose, kind, _, _ = self.d12_tests.get(event.test, (None, "basic", None, 0))
        if kind == "extended":
            self.extended(event.test, whose, event.rounds, event.why)

    def extended(self, test: int, character: str | None, rounds: int, ended: str) -> None:
        record = ExtendedTest(test=test, character=character, rounds=rounds, ended=ended)
        for scope in self.scopes:
            scope.extended_test(record)

    def report(self) -> Report:
        return Report(campaign=self.campaign, name=self.name, system=self.system,
                      head=self.head, players=dict(sorted(self.players.items())),
                      characters=told_apart(dict(sorted(self.characters.items()))),
                      campaign_figures=self.whole.section(frozenset(self.gms)),
                      sessions=[scope.section(frozenset(self.gms)) for scope in self.sessions])


def told_apart(names: dict[str, str]) -> dict[str, str]:
    """Character id to the name the report shows: a name two characters share (one retired
    and its file imported again as ``leia-2``) is followed by each one's id, "Leia (leia)" and
    "Leia (leia-2)"; the rows of both read "Leia (character)" with different figures."""
    shared = {name for name, count in Counter(names.values()).items() if count > 1}
    return {character: f"{name} ({character})" if name in shared else name
            for character, name in names.items()}


def report(events: Iterable[Recorded]) -> Report:
    """The post-game report of a campaign from its recorded events, in order."""
    fold = _Fold(keep_rows=False)
    for recorded in events:
        fold.step(recorded)
    return fold.report()


def for_session(full: Report, session: int | None) -> Report:
    """The report with only game session ``session`` among its sessions (all if None)."""
    if session is None:
        return full
    return msgspec.structs.replace(
        full, sessions=[s for s in full.sessions if s.session == session])


def roll_rows(events: Iterable[Recorded]) -> list[RollRow]:
    """Every roll of the log judged against its pool's exact odds, one row each, in order."""
    fold = _Fold(keep_rows=True)
    for recorded in events:
        fold.step(recorded)
    return fold.rows
