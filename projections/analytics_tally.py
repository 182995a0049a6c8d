"""The running sums behind one section of the report (a game session, or the whole campaign).

:class:`Scope` is fed by the fold of :mod:`poolhall.projections.analytics` (one call per roll, flip,
test or pause) and turned into the frozen :class:`poolhall.projections.analytics_model.Section` at
the end. It is mutable for speed (a 100,000-event log adds to a few dozen sums instead of copying
them) but lives only inside one call of :func:`poolhall.projections.analytics.report`.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import Any

from poolhall.projections.analytics_counts import count_tests, face_tests
from poolhall.projections.analytics_counts import digits as _digits
from poolhall.projections.analytics_family import control
from poolhall.projections.analytics_model import (
    ChainRecord,
    CombatTurnPools,
    CurvePoint,
    D12Figures,
    D12Tally,
    DestinyFlip,
    DestinyPoint,
    DieFaces,
    ExtendedTest,
    FreeFigures,
    Luck,
    Moment,
    NarrativeFigures,
    NarrativeTally,
    Pause,
    RollRow,
    Section,
    Sr3Figures,
    Sr3Tally,
    Tally,
    Timeline,
)
from poolhall.projections.analytics_odds import BINS, Discrete
from poolhall.projections.analytics_stats import (
    Percentile,
    chi_square,
    chi_square_p,
    luck_of,
)

__all__ = ["SYSTEM_SUMS", "Fact", "Scope", "Sums"]


class Fact:
    """A judged roll: who, its percentile and tails, the distribution it was judged against,
    and its row, built only when asked for (most rolls are never shown one by one)."""

    __slots__ = ("actor", "character", "system", "percentile", "variance", "p_at_least",
                 "p_at_most", "dist", "_make", "_row")

    def __init__(self, actor: str, character: str | None, system: str, figures: Percentile,
                 p_at_most: float, dist: Discrete, make: Callable[[], RollRow]) -> None:
        self.actor, self.character, self.system = actor, character, system
        self.p_at_least, self.percentile, self.variance = figures
        self.p_at_most, self.dist = p_at_most, dist
        self._make = make
        self._row: RollRow | None = None

    def row(self) -> RollRow:
        """The roll's row (built once)."""
        if self._row is None:
            self._row = self._make()
        return self._row


class Sums:
    """Actual and expected sums of a fixed list of figures, and how many rolls fed them."""

    __slots__ = ("names", "rolls", "values")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.rolls = 0
        self.values = [0.0] * (2 * len(names))

    def add(self, pairs: tuple[float, ...]) -> None:
        """Add actual, expected, actual, expected ... of every figure, in order."""
        self.values = [a + b for a, b in zip(self.values, pairs, strict=True)]

    def add_one(self, name: str, actual: float, expected: float) -> None:
        """Add to one figure."""
        i = 2 * self.names.index(name)
        self.values[i] += actual
        self.values[i + 1] += expected

    def tally(self, name: str) -> Tally:
        """One figure to 9 significant digits (float sums would print 17, noise included)."""
        i = 2 * self.names.index(name)
        return Tally(actual=_digits(self.values[i]), expected=_digits(self.values[i + 1]))


class _Luck:
    """Running sums of percentiles: all the luck figures need."""

    __slots__ = ("n", "total", "variances")

    def __init__(self) -> None:
        self.n, self.total, self.variances = 0, 0.0, 0.0

    def add(self, fact: Fact) -> None:
        self.n += 1
        self.total += fact.percentile
        self.variances += fact.variance

    def done(self) -> Luck:
        return luck_of(self.n, self.total, self.variances)


RAREST = 5
"""The rarest results a section lists."""
GOOD_OR_BAD = 0.5
"""A roll is the roll of the night only if fair dice do at least as well less often than
this, the worst luck only if they do that badly or worse less often
(:meth:`Scope._best_and_worst`)."""
CURVE_POINTS = 100
"""Points of a session's running luck curve, at most (thinned by halves past it): enough
for its chart, and a long campaign of many sessions folds in memory that stays flat."""

SYSTEM_SUMS: dict[str, tuple[str, ...]] = {
    "narrative": ("succeeded", "successes", "advantages", "triumphs", "despairs"),
    "sr3": ("successes", "disasters", "karma"),
    "d12": ("succeeded", "margin", "ones", "twelves"),
}
"""The figures each system sums, in the order :meth:`Sums.add` takes them."""


class Scope:
    """Everything one section of the report counts, as the fold meets it."""

    def __init__(self, session: int | None, title: str = "") -> None:
        self.session = session
        self.title = title
        self.table = _Luck()
        self.players: dict[str, _Luck] = {}
        self.characters: dict[str, _Luck] = {}
        self.luckiest: tuple[float, RollRow] | None = None
        self.unluckiest: tuple[float, RollRow] | None = None
        self.bins = [0] * BINS
        self.dists: dict[int, list[Any]] = {}  # id -> [distribution, rolls judged by it]
        self.by_system: dict[str, dict[str, Sums]] = {}
        self.events = 0
        self.first: tuple[float, str] | None = None
        self.last: tuple[float, str, int] | None = None
        self.per_minute: list[int] = []
        self.pause: Pause | None = None
        self.checks_timed = 0
        self.check_total = 0.0
        self.systems: set[str] = set()
        self.flips: list[DestinyFlip] = []
        self.flips_by: dict[str, int] = {}
        self.destiny: list[DestinyPoint] = []
        self.karma: dict[str, int] = {}
        self.chain: ChainRecord | None = None
        self.turns: dict[tuple[int, int, str], list[int]] = {}
        self.extended: dict[int, ExtendedTest] = {}
        self.free_rolls = 0
        self.faces: dict[int, list[int]] = {}
        self.dice: dict[str, list[int]] = {}
        """Face counts of each kind of die (``ability``, ``sr3 d6``, ``d12`` ...)."""
        self.one_tests: dict[int, int] = {}
        """Rolls of all of a Shadowrun test's dice (its own, its Karma rerolls of every die) by
        their number of dice (Rule of One: P = 6**-dice)."""
        self.disasters = 0
        self.disastrous: dict[str, int] = {}
        """Tests that ended a disastrous failure, after their Karma rerolls: the table's
        (``""``) and each character's."""
        self.rarest: list[tuple[float, int, Moment]] = []
        """A heap of the rarest results so far, the least rare on top (at most RAREST)."""
        self.curve: list[CurvePoint] = []
        self.curve_step = 1
        self.rolled_for: dict[str, set[str | None]] = {}
        self.rolled_by: dict[str, set[str]] = {}

    # ---- what the fold tells it ---------------------------------------------------------

    def event(self, seconds: float, time: str, seq: int) -> None:
        """An event happened at ``seconds`` (since the epoch; for the timeline). Counted as it
        comes, never kept: the report of a long log folds in memory that does not grow with
        it (a session's events per minute grow with its minutes, not its events)."""
        self.events += 1
        if self.first is None:
            self.first = (seconds, time)
        elif self.last is not None:
            gap = round(seconds - self.last[0], 3)
            if self.pause is None or gap > self.pause.seconds:
                self.pause = Pause(after_seq=self.last[2], seconds=gap)
        self.last = (seconds, time, seq)
        if self.session is not None:  # a campaign's minutes between game nights: months
            minute = max(0, int((seconds - self.first[0]) // 60))
            if minute >= len(self.per_minute):
                self.per_minute.extend([0] * (minute + 1 - len(self.per_minute)))
            self.per_minute[minute] += 1

    def _moment(self, fact: Fact) -> None:
        """Keep the roll if it is among the RAREST rarest so far."""
        lucky = fact.p_at_least <= fact.p_at_most
        p = min(fact.p_at_least, fact.p_at_most)
        if p >= 0.5 or (len(self.rarest) >= RAREST and p >= -self.rarest[0][0]):
            return
        seq = fact.row().seq
        heapq.heappush(self.rarest, (-p, -seq, Moment(row=fact.row(), p=p, lucky=lucky)))
        if len(self.rarest) > RAREST:
            heapq.heappop(self.rarest)

    def die_faces(self, die: str, sides: int, faces: Iterable[int]) -> None:
        """Faces that came up on dice of one kind (each 1..sides)."""
        counts = self.dice.get(die)
        if counts is None:
            counts = self.dice[die] = [0] * sides
        for face in faces:
            counts[face - 1] += 1

    def rule_of_one(self, dice: int, disastrous: bool) -> None:
        """A roll of all of a Shadowrun test's ``dice`` dice (its own, or a Karma reroll's),
        all ones or not."""
        self.one_tests[dice] = self.one_tests.get(dice, 0) + 1
        self.disasters += disastrous

    def roll(self, fact: Fact) -> None:
        """A roll judged against its odds."""
        self.rolled_for.setdefault(fact.actor, set()).add(fact.character)
        if fact.character is not None:
            self.rolled_by.setdefault(fact.character, set()).add(fact.actor)
        self.table.add(fact)
        self._moment(fact)
        if self.session is not None and self.table.n % self.curve_step == 0:
            n, variances = self.table.n, self.table.variances
            self.curve.append(CurvePoint(rolls=n, mean=round(self.table.total / n, 6),
                                         half=round(1.959963984540054 * variances**0.5 / n, 6)))
            if len(self.curve) > CURVE_POINTS:  # thinned: memory bounded, whatever the night
                self.curve = self.curve[1::2]
                self.curve_step *= 2
        luck = self.players.get(fact.actor)
        if luck is None:
            luck = self.players[fact.actor] = _Luck()
        luck.add(fact)
        if fact.character is not None:
            luck = self.characters.get(fact.character)
            if luck is None:
                luck = self.characters[fact.character] = _Luck()
            luck.add(fact)
        self.bins[min(BINS - 1, int(fact.percentile * BINS))] += 1
        seen = self.dists.get(id(fact.dist))
        if seen is None:
            self.dists[id(fact.dist)] = [fact.dist, 1]
        else:
            seen[1] += 1
        self._best_and_worst(fact)
        self.systems.add(fact.system)

    def _best_and_worst(self, fact: Fact) -> None:
        """Keep the roll as the roll of the night if it is the rarest good one so far, or as
        the worst luck if the rarest bad one.

        A roll is *good* when fair dice do at least as well less than half the time
        (P(at least) < 1/2: above the pool's median) and *bad* when they do that badly or
        worse less than half the time (P(at most) < 1/2: below it). The two chances add up to
        1 + P(exactly that), so no roll is both: a double six is never the worst luck, nor
        a failure the pool was likely to roll the roll of the night (both were, when each
        was only the smallest of its chance, whichever way the roll went). A roll on the
        median is neither, and a night with no good (or no bad) roll names none, as the
        rarest results leave out any chance of one half or more (:meth:`_moment`)."""
        if fact.p_at_least < GOOD_OR_BAD and (
                self.luckiest is None or fact.p_at_least < self.luckiest[0]):
            self.luckiest = (fact.p_at_least, fact.row())
        if fact.p_at_most < GOOD_OR_BAD and (
                self.unluckiest is None or fact.p_at_most < self.unluckiest[0]):
            self.unluckiest = (fact.p_at_most, fact.row())

    def sums(self, system: str, character: str | None) -> tuple[Sums, Sums]:
        """The table's and the character's sums for a system (the same one if no character)."""
        by = self.by_system.get(system)
        if by is None:
            by = self.by_system[system] = {}
            self.systems.add(system)
        table = by.get("")
        if table is None:
            table = by[""] = Sums(SYSTEM_SUMS[system])
        if not character:
            return table, table
        mine = by.get(character)
        if mine is None:
            mine = by[character] = Sums(SYSTEM_SUMS[system])
        return table, mine

    def check_timed(self, seconds: float) -> None:
        """A check (test) was rolled ``seconds`` after it was opened (declared, called)."""
        self.checks_timed += 1
        self.check_total += seconds

    def flip(self, flip: DestinyFlip) -> None:
        """A destiny point flipped: counted by whom; listed in a session's figures only."""
        self.systems.add("narrative")
        self.flips_by[flip.actor] = self.flips_by.get(flip.actor, 0) + 1
        if self.session is not None:
            self.flips.append(flip)

    def destiny_pool(self, point: DestinyPoint) -> None:
        """The destiny pool after an event (for a session's chart)."""
        self.systems.add("narrative")
        if self.session is not None:
            self.destiny.append(point)

    def karma_spent(self, character: str, points: int) -> None:
        self.systems.add("sr3")
        self.karma[character] = self.karma.get(character, 0) + points

    def six_chain(self, record: ChainRecord) -> None:
        if self.chain is None or record.sixes > self.chain.sixes:
            self.chain = record

    def combat_turn(self, key: tuple[int, int, str], row: list[int]) -> None:
        """A character's row of a Combat Turn played in this section: [pool dice, drawn], the
        one list every section the turn runs in shares, so a turn that runs across a game
        session's end reads the same, whole, in each."""
        self.systems.add("sr3")
        self.turns[key] = row

    def disastrous_test(self, character: str, change: int) -> None:
        """A test ended a disastrous failure (``change`` 1), or a Karma reroll undid one (-1)."""
        self.systems.add("sr3")
        self.disastrous[""] = self.disastrous.get("", 0) + change
        self.disastrous[character] = self.disastrous.get(character, 0) + change

    def extended_test(self, test: ExtendedTest) -> None:
        self.systems.add("d12")
        self.extended[test.test] = test

    def free(self, sides: int, faces: tuple[int, ...]) -> None:
        """The faces of the free-rolled dice of one size."""
        counts = self.faces.setdefault(sides, [0] * sides)
        for face in faces:
            counts[face - 1] += 1

    # ---- the section ----------------------------------------------------------------------

    def section(self, gms: frozenset[str] = frozenset()) -> Section:
        """The frozen figures, the page's tests corrected together (``gms``: the members who
        are the campaign's GMs)."""
        return control(self._section(gms))

    def _merged(self) -> dict[str, str]:
        merged = {}
        for member, characters in self.rolled_for.items():
            if len(characters) == 1:
                (character,) = characters
                if character is not None and self.rolled_by.get(character) == {member}:
                    merged[member] = character
        return dict(sorted(merged.items()))

    def _section(self, gms: frozenset[str]) -> Section:
        """The frozen figures, before the family's correction."""
        best = self.luckiest[1] if self.luckiest else None
        worst = self.unluckiest[1] if self.unluckiest else None
        improbable = best if worst is None else worst if best is None else (
            best if best.p_at_least <= worst.p_at_most else worst)
        expected = [0.0] * BINS
        for dist, rolls in self.dists.values():
            for i, p in enumerate(dist.bins(BINS)):
                expected[i] += rolls * p
        return Section(
            session=self.session, title=self.title, timeline=self._timeline(),
            luck=self.table.done(),
            players={k: v.done() for k, v in sorted(self.players.items())},
            characters={k: v.done() for k, v in sorted(self.characters.items())},
            luckiest=best, unluckiest=worst, most_improbable=improbable,
            percentiles=self.bins, percentiles_expected=[_digits(p) for p in expected],
            narrative=self._narrative() if "narrative" in self.systems else None,
            sr3=self._sr3() if "sr3" in self.systems else None,
            d12=self._d12() if "d12" in self.systems else None,
            free=self._free() if self.free_rolls else None,
            faces=face_tests(self.dice, self.faces), merged=self._merged(),
            counts=count_tests(self.dice, self.one_tests, self.disasters),
            rarest=[m for _, _, m in sorted(self.rarest, key=lambda e: (-e[0], -e[1]))],
            curve=list(self.curve),
            gms=sorted(m for m in self.rolled_for if m in gms),
            npcs=sorted(c for c, by in self.rolled_by.items() if by <= gms))

    def _sums(self, system: str) -> Sums:
        return self.by_system.get(system, {}).get("") or Sums(SYSTEM_SUMS[system])

    def _timeline(self) -> Timeline:
        if self.first is None or self.last is None:
            return Timeline(events=0, first=None, last=None, minutes=0.0, per_minute=[],
                            checks_timed=0, seconds_per_check=None, longest_pause=None)
        timed = self.checks_timed
        return Timeline(
            events=self.events, first=self.first[1], last=self.last[1],
            minutes=round((self.last[0] - self.first[0]) / 60, 3),
            per_minute=list(self.per_minute), checks_timed=timed,
            seconds_per_check=round(self.check_total / timed, 3) if timed else None,
            longest_pause=self.pause)

    def _narrative(self) -> NarrativeFigures:
        def tally(s: Sums) -> NarrativeTally:
            return NarrativeTally(rolls=s.rolls, succeeded=s.tally("succeeded"),
                                  successes=s.tally("successes"),
                                  advantages=s.tally("advantages"),
                                  triumphs=s.tally("triumphs"), despairs=s.tally("despairs"))
        return NarrativeFigures(
            table=tally(self._sums("narrative")),
            characters={k: tally(v) for k, v in sorted(self.by_system.get("narrative", {}).items())
                        if k},
            flips=self.flips, flips_by=dict(sorted(self.flips_by.items())),
            destiny=self.destiny)

    def _sr3(self) -> Sr3Figures:
        def tally(s: Sums, karma: int, ended: int) -> Sr3Tally:
            return Sr3Tally(tests=s.rolls, successes=s.tally("successes"),
                            disasters=s.tally("disasters"), karma_spent=karma,
                            karma_successes=s.tally("karma"), disastrous_tests=ended)
        sums = self.by_system.get("sr3", {})
        names = sorted({k for k in sums if k} | set(self.karma))
        turns = [CombatTurnPools(encounter=e, turn=t, character=c, full=full, drawn=drawn,
                                 unused=max(0, full - drawn))
                 for (e, t, c), (full, drawn) in sorted(self.turns.items())]
        return Sr3Figures(
            table=tally(self._sums("sr3"), sum(self.karma.values()), self.disastrous.get("", 0)),
            characters={k: tally(sums.get(k) or Sums(SYSTEM_SUMS["sr3"]), self.karma.get(k, 0),
                                 self.disastrous.get(k, 0))
                        for k in names},
            longest_chain=self.chain, combat_turns=turns)

    def _d12(self) -> D12Figures:
        def tally(s: Sums) -> D12Tally:
            return D12Tally(rolls=s.rolls, succeeded=s.tally("succeeded"),
                            margin=s.tally("margin"), ones=s.tally("ones"),
                            twelves=s.tally("twelves"))
        return D12Figures(table=tally(self._sums("d12")),
                          characters={k: tally(v) for k, v
                                      in sorted(self.by_system.get("d12", {}).items()) if k},
                          extended=[self.extended[k] for k in sorted(self.extended)])

    def _free(self) -> FreeFigures:
        dice: list[DieFaces] = []
        for sides, counts in sorted(self.faces.items()):
            statistic = chi_square(counts)
            dice.append(DieFaces(sides=sides, dice=sum(counts), faces=counts,
                                 chi_square=round(statistic, 4), degrees=sides - 1,
                                 p_value=float(f"{chi_square_p(statistic, sides - 1):.6g}")))
        return FreeFigures(rolls=self.free_rolls, dice=dice)
