"""The post-game report: a pure fold over a campaign's recorded events.

``report(events) -> Report`` judges every roll against the exact odds of the very pool it came
from (:mod:`projections.analytics_odds`), and sums, per player, per character, per game session
and for the campaign, the figures of :mod:`projections.analytics_model`. It reads only what the
events record - faces, pools, results, times - and never re-rolls or asks today's rules what a
roll should have been, so the report of an old log is the report of what happened. No I/O, no
clock (times are the events' own), no randomness: the same log gives the same report.

``roll_rows(events)`` gives the judged rolls themselves, one row each (``poolhall export``).

What a roll is judged by (its *value*):

- narrative check or pool: net successes (Force dice play no part);
- Shadowrun test with a target number: successes; an open test: the highest total; a Karma
  Pool reroll: the successes (the highest total) the rerolled dice added;
- d12 roll: the margin;
- free ``XdN`` roll: the total of its dice (the constant aside).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from events import core
from events import d12 as d12_events
from events import narrative as narrative_events
from events import sr3 as sr3_events
from events.base import Recorded
from projections import analytics_odds as odds
from projections.analytics_model import (
    ChainRecord,
    DestinyFlip,
    DestinyPoint,
    ExtendedTest,
    Report,
    RollRow,
)
from projections.analytics_tally import Fact, Scope, Sums
from projections.narrative_dice import cancel_text
from projections.sr3_odds import p_die_at_least

__all__ = ["report", "roll_rows"]

_POOL_SOURCES = frozenset(sr3_events.POOLS)


def _seconds(at: str) -> float | None:
    """An event's recorded time as seconds since the epoch (None if unreadable)."""
    try:
        return datetime.fromisoformat(at).timestamp()
    except ValueError:
        return None


def _unique(*sums: Sums) -> list[Sums]:
    """The sums, each once (a roll with no character adds to the table's once)."""
    out: list[Sums] = []
    for s in sums:
        if all(s is not o for o in out):
            out.append(s)
    return out


class _Fold:
    """The walk over the log: what the report needs to remember between events."""

    def __init__(self, keep_rows: bool) -> None:
        self.campaign = ""
        self.name = ""
        self.system = ""
        self.head = 0
        self.players: dict[str, str] = {}
        self.characters: dict[str, str] = {}
        self.whole = Scope(None)
        self.sessions: list[Scope] = []
        self.current: Scope | None = None
        self.keep_rows = keep_rows
        self.rows: list[RollRow] = []
        self.opened: dict[str, float] = {}           # narrative check -> opened at
        self.declared: dict[str, float] = {}         # sr3 character -> test declared at
        self.sr3_tests: dict[int, tuple[int | None, int | None]] = {}  # test -> (tn, result)
        self.encounter = 0
        self.turn: int | None = None
        self.d12_tests: dict[int, tuple[str | None, str, float | None, int]] = {}

    # ---- plumbing -------------------------------------------------------------------------

    def scopes(self) -> list[Scope]:
        return [self.whole] if self.current is None else [self.whole, self.current]

    def judge(self, rec: Recorded, character: str | None, system: str, kind: str, pool: str,
              result: str, x: int, dist: odds.Discrete, p_success: float | None) -> None:
        """Judge one roll's value ``x`` against its distribution; record the row."""
        p_at_least, percentile, variance = dist.figures(x)
        row = RollRow(
            campaign=self.campaign, session=self.current.session if self.current else None,
            seq=rec.seq, time=rec.at, actor=rec.actor, character=character, system=system,
            kind=kind, pool=pool, result=result, value=x, expected=round(dist.mean, 6),
            p_success=p_success, p_at_least=p_at_least, p_at_most=dist.p_at_most(x),
            percentile=percentile)
        if self.keep_rows:
            self.rows.append(row)
        if len(dist.values) < 2:  # a certain result tells nothing about the dice
            return
        fact = Fact(row=row, variance=variance, bins=dist.bins())
        for scope in self.scopes():
            scope.roll(fact)

    def add(self, system: str, character: str | None, **pairs: tuple[float, float]) -> None:
        """Add actual/expected pairs to the table's and the character's sums, one roll."""
        for scope in self.scopes():
            for sums in _unique(*scope.sums(system, character)):
                sums.rolls += 1
                sums.add(**pairs)

    def add_only(self, system: str, character: str | None,
                 **pairs: tuple[float, float]) -> None:
        """Like :meth:`add` but not a roll of its own (karma bought for a test)."""
        for scope in self.scopes():
            for sums in _unique(*scope.sums(system, character)):
                sums.add(**pairs)

    # ---- the walk -------------------------------------------------------------------------

    def step(self, rec: Recorded) -> None:
        self.head = max(self.head, rec.seq)
        event: Any = rec.event
        if isinstance(event, core.GameSessionStarted):
            self.current = Scope(event.session, event.title)
            self.sessions.append(self.current)
        seconds = _seconds(rec.at)
        if seconds is not None:
            for scope in self.scopes():
                scope.event(seconds, rec.at, rec.seq)
        self.dispatch(rec, event, seconds)
        if isinstance(event, core.GameSessionEnded):
            self.current = None

    def dispatch(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        match event:
            case core.CampaignCreated():
                self.campaign, self.name, self.system = event.campaign, event.name, event.system
            case core.MemberInvited():
                self.players[event.member] = event.name
            case core.CharacterCreated():
                self.characters[event.character] = event.name
            case core.CharacterUpdated() if event.name is not None:
                self.characters[event.character] = event.name
            case core.DiceRolled():
                self.free_roll(rec, event)
            case narrative_events.CheckOpened() if seconds is not None:
                self.opened[event.check] = seconds
            case narrative_events.CheckRolled() | narrative_events.PoolRolled():
                self.narrative_roll(rec, event, seconds)
            case narrative_events.DestinyPoolRolled() | narrative_events.DestinyPoolSet():
                self.destiny(rec, event.light, event.dark)
            case narrative_events.DestinyFlipped():
                flip = DestinyFlip(seq=rec.seq, time=rec.at, actor=rec.actor, side=event.side,
                                   effect=event.effect, check=event.check)
                for scope in self.scopes():
                    scope.flip(flip)
                self.destiny(rec, event.light, event.dark)
            case sr3_events.PoolTestDeclared() if seconds is not None:
                self.declared[event.character] = seconds
            case sr3_events.PoolTestRolled():
                self.sr3_test(rec, event, seconds)
            case sr3_events.PoolTestRerolled():
                self.sr3_reroll(rec, event)
            case sr3_events.CombatEncounterStarted():
                self.encounter += 1
            case sr3_events.CombatTurnStarted():
                self.turn = event.turn
                for character, sizes in event.pools.items():
                    for scope in self.scopes():
                        scope.turn_pools((self.encounter, event.turn, character),
                                         sum(sizes.values()), 0)
            case sr3_events.CombatTurnEnded() | sr3_events.CombatEncounterEnded():
                self.turn = None
            case d12_events.ThresholdTestStarted():
                self.d12_tests[event.test] = (event.character, event.kind, seconds, 0)
                if event.kind == "extended":
                    self.extended(event.test, event.character, 0, "open")
            case d12_events.ThresholdDiceRolled():
                self.d12_roll(rec, event, seconds)
            case d12_events.ThresholdTestEnded():
                whose, kind, _, _ = self.d12_tests.get(event.test, (None, "basic", None, 0))
                if kind == "extended":
                    self.extended(event.test, whose, event.rounds, event.why)

    # ---- each system ----------------------------------------------------------------------

    def free_roll(self, rec: Recorded, event: core.DiceRolled) -> None:
        key = tuple((len(t.faces), t.sides, t.sign) for t in event.terms)
        value = event.total - event.constant
        self.judge(rec, event.character, "free", "free", event.expression, str(event.total),
                   value, odds.free_total(key), None)
        for scope in self.scopes():
            scope.free_rolls += 1
            for term in event.terms:
                scope.free(term.sides, term.faces)

    def narrative_roll(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        dist, adv, triumphs, despairs, p_success = odds.narrative_successes(event.pool)
        result: narrative_events.NarrativeResult = event.result
        kind = "check" if isinstance(event, narrative_events.CheckRolled) else "pool"
        self.judge(rec, event.character, "narrative", kind, event.pool.notation(),
                   cancel_text(result),
                   result.successes, dist, p_success)
        self.add("narrative", event.character,
                 succeeded=(float(result.succeeded), p_success),
                 successes=(result.successes, dist.mean), advantages=(result.advantages, adv),
                 triumphs=(result.triumphs, triumphs), despairs=(result.despairs, despairs))
        if kind == "check":
            opened = self.opened.pop(event.check, None)
            if opened is not None and seconds is not None:
                for scope in self.scopes():
                    scope.check_timed(seconds - opened)

    def destiny(self, rec: Recorded, light: int, dark: int) -> None:
        point = DestinyPoint(seq=rec.seq, time=rec.at, light=light, dark=dark)
        for scope in self.scopes():
            scope.destiny_pool(point)

    def sr3_test(self, rec: Recorded, event: sr3_events.PoolTestRolled,
                 seconds: float | None) -> None:
        n = len(event.dice)
        disastrous = f" (Rule of One: {n} ones)" if event.disastrous else ""
        if event.tn is not None:
            dist = odds.sr3_successes(n, event.tn)
            x = event.successes or 0
            self.judge(rec, event.character, "sr3", "test", f"{n}d6 tn{event.tn}",
                       f"{x} successes{disastrous}", x, dist, dist.p_at_least(1))
            self.sr3_tests[event.test] = (event.tn, x)
            p = float(p_die_at_least(event.tn))
            karma = [d for d in event.dice if d.source == "karma"]
            if karma:
                won = sum(1 for d in karma if sum(d.faces) >= event.tn)
                self.add_only("sr3", event.character, karma=(won, len(karma) * p))
        else:
            dist = odds.sr3_open(n)
            x = min(event.highest, odds.OPEN_CAP)
            self.judge(rec, event.character, "sr3", "open test", f"{n}d6 open",
                       f"highest {event.highest}{disastrous}", x, dist, None)
            self.sr3_tests[event.test] = (None, event.highest)
        self.add("sr3", event.character, successes=(float(event.successes or 0),
                                                    dist.mean if event.tn is not None else 0.0),
                 disasters=(float(event.disastrous), 6.0**-n))
        for scope in self.scopes():
            if event.karma_spent:
                scope.karma_spent(event.character, event.karma_spent)
            for die in event.dice:
                sixes = sum(1 for face in die.faces if face == 6)
                if sixes:
                    scope.six_chain(ChainRecord(sixes=sixes, faces=list(die.faces),
                                                character=event.character, seq=rec.seq))
            drawn = sum(1 for die in event.dice if die.source in _POOL_SOURCES)
            if self.turn is not None and drawn:
                scope.turn_pools((self.encounter, self.turn, event.character), 0, drawn)
        declared = self.declared.pop(event.character, None)
        if declared is not None and seconds is not None:
            for scope in self.scopes():
                scope.check_timed(seconds - declared)

    def sr3_reroll(self, rec: Recorded, event: sr3_events.PoolTestRerolled) -> None:
        for scope in self.scopes():
            scope.karma_spent(event.character, event.cost)
        tn, before = self.sr3_tests.get(event.test, (None, None))
        r = len(event.indices)
        if before is None:  # the test is not in this log (a partial one): nothing to compare
            return
        if tn is not None:
            gained = (event.successes or 0) - before
            dist = odds.sr3_successes(r, tn)
            self.judge(rec, event.character, "sr3", "karma reroll", f"{r}d6 tn{tn}",
                       f"+{gained} successes", gained, dist, dist.p_at_least(1))
            self.add_only("sr3", event.character, karma=(gained, dist.mean),
                          successes=(gained, dist.mean))
            self.sr3_tests[event.test] = (tn, event.successes or 0)
        else:
            dist = odds.sr3_open(r)
            self.judge(rec, event.character, "sr3", "karma reroll", f"{r}d6 open",
                       f"highest {event.highest}", min(event.highest, odds.OPEN_CAP), dist,
                       None)
            self.sr3_tests[event.test] = (None, event.highest)

    def d12_roll(self, rec: Recorded, event: d12_events.ThresholdDiceRolled,
                 seconds: float | None) -> None:
        character, kind, started, rounds = self.d12_tests.get(
            event.test, (None, "basic", None, 0))
        n = len(event.faces)
        dist = odds.d12_margin(n, event.dt)
        p_success = dist.p_at_least(1)
        self.judge(rec, character, "d12", kind, f"{n}d12 dt{event.dt}",
                   f"margin {event.margin:+d}", event.margin, dist, p_success)
        self.add("d12", character, succeeded=(float(event.succeeded), p_success),
                 margin=(event.margin, dist.mean),
                 ones=(event.faces.count(1), n / 12), twelves=(event.faces.count(12), n / 12))
        if rounds == 0 and started is not None and seconds is not None:
            for scope in self.scopes():
                scope.check_timed(seconds - started)
        self.d12_tests[event.test] = (character, kind, started, rounds + 1)
        if kind == "extended":
            self.extended(event.test, character, rounds + 1, "open")

    def extended(self, test: int, character: str | None, rounds: int, ended: str) -> None:
        record = ExtendedTest(test=test, character=character, rounds=rounds, ended=ended)
        for scope in self.scopes():
            scope.extended_test(record)

    def report(self) -> Report:
        return Report(campaign=self.campaign, name=self.name, system=self.system,
                      head=self.head, players=dict(sorted(self.players.items())),
                      characters=dict(sorted(self.characters.items())),
                      campaign_figures=self.whole.section(),
                      sessions=[scope.section() for scope in self.sessions])


def report(events: Iterable[Recorded]) -> Report:
    """The post-game report of a campaign from its recorded events, in order."""
    fold = _Fold(keep_rows=False)
    for recorded in events:
        fold.step(recorded)
    return fold.report()


def roll_rows(events: Iterable[Recorded]) -> list[RollRow]:
    """Every roll of the log judged against its pool's exact odds, one row each, in order."""
    fold = _Fold(keep_rows=True)
    for recorded in events:
        fold.step(recorded)
    return fold.rows
