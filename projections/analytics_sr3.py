"""The post-game report's walk over Shadowrun 3 events: tests, Karma rerolls, Combat Turns.

What a test and a reroll are judged by is in :mod:`poolhall.projections.analytics`'s docstring.
Beside the judging, this folds:

- **Rule of One** (rules: every die of a test showing 1 is a disastrous failure): counted at
  every roll the table showed as one, the test's roll and each Karma reroll, against the exact
  chance ``6**-dice`` of each roll of all of a test's dice (a reroll of some of them, the
  failures beside a success, cannot be a disaster and is no trial). **Decision**: whether a
  disaster is rerolled is the player's choice, not the dice's, so the rolls are what has an
  exact expectation; the tests that *ended* a disastrous failure after their rerolls (what the
  table's Latest tests show) are counted too, with no expectation.
- **Rule of Six**: the longest chain of sixes on one die, a reroll's dice included.
- **Pool dice of each Combat Turn**: each character's pools when the turn started and the dice
  they drew, one row per turn shown whole in every section the turn was played in (a turn may
  run across a game session's end). A character not in the combat draws from pools that do not
  deplete there (docs/reference/sr3.md), so it has no row.
- **Time from declaring a test to rolling it**: at the roll of the declared test itself.
"""

from __future__ import annotations

from typing import Any

from poolhall.events import sr3 as sr3_events
from poolhall.events.base import Recorded
from poolhall.events.plural import plural
from poolhall.projections import analytics_odds as odds
from poolhall.projections.analytics_fold import FoldBase, remember
from poolhall.projections.analytics_model import ChainRecord
from poolhall.projections.analytics_tally import Scope
from poolhall.projections.sr3_odds import p_die_at_least

__all__ = ["Sr3Fold"]

_POOL_SOURCES = frozenset(sr3_events.POOLS)
_ASTRAL_POOLS = frozenset({"astral_combat", "astral"})
"""Pools usable only on the astral plane (rules: sr3-dice-pools.md, Astral Combat Pool and
Astral Pool)."""
_SAME_TEST = ("kind", "skill", "attribute", "opposes", "surprised", "rigged", "astral", "magic",
              "elemental", "base_dice")
"""What makes a roll the declared test (the server's own rule, but for the target number,
which a wound may raise between the two): not its reason, typed afresh."""


class _Test:
    """A test rolled lately, as its Karma rerolls need it: its target number (None: open), its
    result so far, its dice, whether it stands a disastrous failure, and the sections it was
    rolled in (a reroll that changes its end changes theirs)."""

    __slots__ = ("dice", "disastrous", "result", "scopes", "tn")

    def __init__(self, tn: int | None, result: int, dice: int, disastrous: bool,
                 scopes: list[Scope]) -> None:
        self.tn, self.result, self.dice = tn, result, dice
        self.disastrous, self.scopes = disastrous, scopes


def _declared_as(event: Any) -> tuple[object, ...]:
    return tuple(getattr(event, name) for name in _SAME_TEST)


class Sr3Fold(FoldBase):
    """The walk, with the Shadowrun 3 events' handlers."""

    def __init__(self, keep_rows: bool) -> None:
        super().__init__(keep_rows)
        self.declared: dict[str, tuple[float, tuple[object, ...]]] = {}
        """Character -> when its declared test was declared, and what test it is."""
        self.sr3_tests: dict[int, _Test] = {}
        self.encounter = 0
        self.turn: int | None = None
        self.turn_rows: dict[str, list[int]] = {}
        """This Combat Turn's participants: [pool dice, drawn], one list every section shares."""
        self.astral_pools: dict[str, int] = {}
        """Astral pool dice of each character this Combat Turn, not yet counted as theirs."""
        self.handlers.update({
            sr3_events.PoolTestDeclared: self.test_declared,
            sr3_events.PoolTestRolled: self.sr3_test,
            sr3_events.PoolTestRerolled: self.sr3_reroll,
            sr3_events.CombatEncounterStarted: self.encounter_started,
            sr3_events.CombatTurnStarted: self.turn_started,
            sr3_events.CombatTurnEnded: self.turn_over,
            sr3_events.CombatEncounterEnded: self.turn_over,
        })

    def session_started(self, scope: Scope) -> None:
        """A Combat Turn running when a session starts is played in it too."""
        if self.turn is not None:
            for character, row in self.turn_rows.items():
                scope.combat_turn((self.encounter, self.turn, character), row)

    def test_declared(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        if seconds is not None:
            self.declared[event.character] = (seconds, _declared_as(event))

    def encounter_started(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        self.encounter += 1

    def turn_started(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        """Each character's pools at the start of a Combat Turn. The Astral Combat Pool and
        the Astral Pool serve only tests on the astral plane: they count as dice the
        character had only once they make an astral test in the turn."""
        self.turn = event.turn
        self.astral_pools = {}
        self.turn_rows = {}
        for character, sizes in event.pools.items():
            astral = sum(n for pool, n in sizes.items() if pool in _ASTRAL_POOLS)
            if astral:
                self.astral_pools[character] = astral
            row = self.turn_rows[character] = [sum(sizes.values()) - astral, 0]
            for scope in self.scopes:
                scope.combat_turn((self.encounter, event.turn, character), row)

    def turn_over(self, rec: Recorded, event: Any, seconds: float | None) -> None:
        self.turn = None
        self.turn_rows = {}

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
        remember(self.sr3_tests, event.test, _Test(
            event.tn, event.highest if event.tn is None else event.successes or 0, n,
            event.disastrous, list(self.scopes)))
        self.add("sr3", event.character, (
            float(event.successes or 0), dist.mean if event.tn is not None else 0.0,
            float(event.disastrous), 6.0**-n, 0.0, 0.0))
        for scope in self.scopes:
            scope.die_faces("sr3 d6", 6, (die.faces[0] for die in event.dice))
            scope.rule_of_one(n, event.disastrous)
            if event.disastrous:
                scope.disastrous_test(event.character, 1)
            if event.karma_spent:
                scope.karma_spent(event.character, event.karma_spent)
        self.longest_chain(rec, event.character, event.test,
                           max((die.faces for die in event.dice), key=len))
        self.pools_drawn(event)
        self.timed(event, seconds)

    def pools_drawn(self, event: sr3_events.PoolTestRolled) -> None:
        """A test's pool dice, counted in its Combat Turn's row (an astral test's first also
        makes the character's astral pools dice they had). A character not in the combat has
        no row: its pools do not deplete there."""
        row = self.turn_rows.get(event.character) if self.turn is not None else None
        if row is None:
            return
        row[0] += self.astral_pools.pop(event.character, 0) if event.astral else 0
        row[1] += sum(1 for die in event.dice if die.source in _POOL_SOURCES)

    def timed(self, event: sr3_events.PoolTestRolled, seconds: float | None) -> None:
        """The time from declaring a test to rolling it, at the roll of that very test. A
        private roll of another test leaves the declaration waiting (``leaves_declared``); any
        other roll withdraws it, as at the table, and is timed only if it is the declared test
        (a Dodge the GM called for meanwhile is not)."""
        if event.leaves_declared:
            return
        declared = self.declared.pop(event.character, None)
        if declared is None or seconds is None or declared[1] != _declared_as(event):
            return
        for scope in self.scopes:
            scope.check_timed(seconds - declared[0])

    def longest_chain(self, rec: Recorded, character: str, test: int,
                      chain: tuple[int, ...]) -> None:
        """A die's chain of faces (only sixes roll on), the longest so far if it has the most
        sixes."""
        sixes = chain.count(6)
        if not sixes:
            return
        for scope in self.scopes:
            if scope.chain is None or sixes > scope.chain.sixes:
                scope.six_chain(ChainRecord(sixes=sixes, faces=list(chain),
                                            character=character, seq=rec.seq, test=test))

    def sr3_reroll(self, rec: Recorded, event: sr3_events.PoolTestRerolled,
                   seconds: float | None) -> None:
        for scope in self.scopes:
            scope.karma_spent(event.character, event.cost)
            scope.die_faces("sr3 d6", 6, (chain[0] for chain in event.faces))
        self.longest_chain(rec, event.character, event.test, max(event.faces, key=len))
        rolled = self.sr3_tests.get(event.test)
        r = len(event.indices)
        if rolled is None:  # the test is not in this log (a partial one): nothing to compare
            return
        self.rule_of_one(rolled, event)
        if rolled.tn is not None:
            tn = rolled.tn
            gained = (event.successes or 0) - rolled.result
            dist = odds.sr3_successes(r, tn)
            self.judge(rec, event.character, "sr3", "karma reroll", lambda: f"{r}d6 tn{tn}",
                       lambda: f"+{plural('success', gained)}", gained, dist, dist.p_at_least(1),
                       event.test)
            self.add_one("sr3", event.character, "karma", gained, dist.mean)
            self.add_one("sr3", event.character, "successes", gained, dist.mean)
            rolled.result = event.successes or 0
        else:
            dist = odds.sr3_open(r)
            highest = event.highest
            self.judge(rec, event.character, "sr3", "karma reroll", lambda: f"{r}d6 open",
                       lambda: f"highest {highest}", min(highest, odds.OPEN_CAP), dist, None,
                       event.test)
            rolled.result = highest
        remember(self.sr3_tests, event.test, rolled)

    def rule_of_one(self, rolled: _Test, event: sr3_events.PoolTestRerolled) -> None:
        """A reroll of all the test's dice is a roll that may come up all ones (6**-dice); the
        test's end changes in the sections it was rolled in if the reroll made or undid a
        disastrous failure."""
        if len(event.indices) == rolled.dice or event.disastrous:
            self.add_one("sr3", event.character, "disasters", float(event.disastrous),
                         6.0**-rolled.dice)
            for scope in self.scopes:
                scope.rule_of_one(rolled.dice, event.disastrous)
        if event.disastrous != rolled.disastrous:
            for scope in rolled.scopes:
                scope.disastrous_test(event.character, 1 if event.disastrous else -1)
            rolled.disastrous = event.disastrous
