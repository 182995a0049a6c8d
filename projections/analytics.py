"""The post-game report: a pure fold over a campaign's recorded events.

``report(events) -> Report`` judges every roll against the exact odds of the very pool it came
from (:mod:`poolhall.projections.analytics_odds`), and sums, per player, per character, per game
session and for the campaign, the figures of :mod:`poolhall.projections.analytics_model`. It reads
only what the events record - faces, pools, results, times - and never re-rolls or asks today's
rules what a roll should have been, so the report of an old log is the report of what happened. No
I/O, no clock (times are the events' own), no randomness: the same log gives the same report.

``roll_rows(events)`` gives the judged rolls themselves, one row each (``poolhall export``).

The walk's plumbing is :mod:`poolhall.projections.analytics_fold`, its Shadowrun handlers (and
how Rule of One, Rule of Six and pools per Combat Turn are counted)
:mod:`poolhall.projections.analytics_sr3`, the sums of each section
:mod:`poolhall.projections.analytics_tally`.

What a roll is judged by (its *value*):

- narrative check or pool: net successes (Force dice play no part);
- Force dice rolled for a power: the light side pips of a player's roll, the dark side pips
  of a GM's, the admin token's included: it acts as GM (:func:`_force_side`);
- Shadowrun test with a target number: successes; an open test: the highest total; a Karma
  Pool reroll: the successes (the highest total) the rerolled dice added;
- d12 roll: the margin;
- free ``XdN+C`` roll: its total, the constant included (``3d6+2`` showing 3, 3, 2: 10).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import msgspec

from poolhall.events import core
from poolhall.events import d12 as d12_events
from poolhall.events import narrative as narrative_events
from poolhall.events.base import Recorded
from poolhall.projections import analytics_odds as odds
from poolhall.projections.analytics_fold import remember
from poolhall.projections.analytics_model import (
    DestinyFlip,
    DestinyPoint,
    ExtendedTest,
    Report,
    RollRow,
)
from poolhall.projections.analytics_sr3 import Sr3Fold
from poolhall.projections.narrative_dice import FACES, cancel_text

__all__ = ["for_session", "report", "roll_rows"]


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


class _Fold(Sr3Fold):
    """The walk over the log, with every system's handlers (Shadowrun's: :class:`Sr3Fold`)."""

    def __init__(self, keep_rows: bool) -> None:
        super().__init__(keep_rows)
        self.opened: dict[str, float] = {}           # narrative check -> opened at
        self.d12_tests: dict[int, tuple[str | None, str, float | None, int]] = {}
        self.handlers.update({
            core.DiceRolled: self.free_roll,
            narrative_events.CheckOpened: self.check_opened,
            narrative_events.CheckRolled: self.narrative_roll,
            narrative_events.PoolRolled: self.narrative_roll,
            narrative_events.ForceDiceRolled: self.force_roll,
            narrative_events.DestinyPoolRolled: self.destiny,
            narrative_events.DestinyPoolSet: self.destiny,
            narrative_events.DestinyFlipped: self.destiny_flipped,
            d12_events.ThresholdTestStarted: self.d12_started,
            d12_events.ThresholdDiceRolled: self.d12_roll,
            d12_events.ThresholdTestEnded: self.d12_ended,
        })

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
            remember(self.opened, event.check, seconds)

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

    def d12_started(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        remember(self.d12_tests, event.test, (event.character, event.kind, seconds, 0))
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
        remember(self.d12_tests, event.test, (character, kind, started, rounds + 1))
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
                      head=self.head, players=self.named(),
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
