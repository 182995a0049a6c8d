"""The running sums behind one section of the report (a game session, or the whole campaign).

:class:`Scope` is fed by the fold of :mod:`projections.analytics` (one call per roll, flip,
test or pause) and turned into the frozen :class:`projections.analytics_model.Section` at the
end. It is mutable for speed (a 100,000-event log adds to a few dozen sums instead of copying
them) but lives only inside one call of :func:`projections.analytics.report`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from projections.analytics_model import (
    ChainRecord,
    CombatTurnPools,
    D12Figures,
    D12Tally,
    DestinyFlip,
    DestinyPoint,
    DieFaces,
    ExtendedTest,
    FreeFigures,
    Luck,
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
from projections.analytics_odds import BINS
from projections.analytics_stats import FEW_ROLLS, chi_square, chi_square_p, mean_test

__all__ = ["Fact", "Scope", "Sums", "luck_of"]



@dataclass(frozen=True, slots=True)
class Fact:
    """A judged roll: its row and the variance of its percentile under fair dice."""

    row: RollRow
    variance: float
    bins: tuple[float, ...]
    """Where its percentile would fall under fair dice, bin by bin (sums to 1)."""


class Sums:
    """Actual and expected sums of named figures, and how many rolls fed them."""

    __slots__ = ("rolls", "actual", "expected")

    def __init__(self) -> None:
        self.rolls = 0
        self.actual: dict[str, float] = {}
        self.expected: dict[str, float] = {}

    def add(self, **pairs: tuple[float, float]) -> None:
        """Add ``name=(actual, expected)`` for each figure."""
        for name, (actual, expected) in pairs.items():
            self.actual[name] = self.actual.get(name, 0.0) + actual
            self.expected[name] = self.expected.get(name, 0.0) + expected

    def tally(self, name: str) -> Tally:
        """One figure to 9 significant digits (float sums would print 17, noise included)."""
        return Tally(actual=_digits(self.actual.get(name, 0.0)),
                     expected=_digits(self.expected.get(name, 0.0)))


def _digits(value: float) -> float:
    return float(f"{value:.9g}")


def luck_of(percentiles: list[float], variances: list[float]) -> Luck:
    """The luck of some rolls: mean mid-percentile, its 95% band for fair dice, z, p-value."""
    mean, z, p_value, half = mean_test(percentiles, variances)
    n = len(percentiles)
    if n == 0:
        verdict = "no rolls"
    elif p_value >= 0.05:
        verdict = "as fair dice go"
    else:
        word = "lucky" if mean > 0.5 else "unlucky"
        verdict = f"very {word}: fair dice rarely do this" if p_value < 0.001 else word
    return Luck(rolls=n, mean_percentile=round(mean, 6), low=round(0.5 - half, 6),
                high=round(0.5 + half, 6), z=round(z, 4), p_value=float(f"{p_value:.6g}"),
                verdict=verdict, rough=0 < n < FEW_ROLLS)


@dataclass
class _Luck:
    percentiles: list[float] = field(default_factory=list)
    variances: list[float] = field(default_factory=list)

    def add(self, fact: Fact) -> None:
        self.percentiles.append(fact.row.percentile)
        self.variances.append(fact.variance)

    def done(self) -> Luck:
        return luck_of(self.percentiles, self.variances)


class Scope:
    """Everything one section of the report counts, as the fold meets it."""

    def __init__(self, session: int | None, title: str = "") -> None:
        self.session = session
        self.title = title
        self.table = _Luck()
        self.players: dict[str, _Luck] = {}
        self.characters: dict[str, _Luck] = {}
        self.luckiest: Fact | None = None
        self.unluckiest: Fact | None = None
        self.bins = [0] * BINS
        self.expected_bins = [0.0] * BINS
        self.times: list[tuple[float, str, int]] = []
        self.check_seconds: list[float] = []
        self.systems: set[str] = set()
        self.narrative: dict[str, Sums] = {}
        self.flips: list[DestinyFlip] = []
        self.destiny: list[DestinyPoint] = []
        self.sr3: dict[str, Sums] = {}
        self.karma: dict[str, int] = {}
        self.chain: ChainRecord | None = None
        self.turns: dict[tuple[int, int, str], list[int]] = {}
        self.d12: dict[str, Sums] = {}
        self.extended: dict[int, ExtendedTest] = {}
        self.free_rolls = 0
        self.faces: dict[int, list[int]] = {}

    # ---- what the fold tells it ---------------------------------------------------------

    def event(self, seconds: float, time: str, seq: int) -> None:
        """An event happened at ``seconds`` (since the epoch; for the timeline)."""
        self.times.append((seconds, time, seq))

    def roll(self, fact: Fact) -> None:
        """A roll judged against its odds."""
        row = fact.row
        self.table.add(fact)
        self.players.setdefault(row.actor, _Luck()).add(fact)
        if row.character is not None:
            self.characters.setdefault(row.character, _Luck()).add(fact)
        self.bins[min(BINS - 1, int(row.percentile * BINS))] += 1
        for i, p in enumerate(fact.bins):
            self.expected_bins[i] += p
        if self.luckiest is None or row.p_at_least < self.luckiest.row.p_at_least:
            self.luckiest = fact
        if self.unluckiest is None or row.p_at_most < self.unluckiest.row.p_at_most:
            self.unluckiest = fact
        self.systems.add(row.system)

    def sums(self, system: str, character: str | None) -> tuple[Sums, Sums]:
        """The table's and the character's sums for a system (the table's twice if none)."""
        self.systems.add(system)
        by = {"narrative": self.narrative, "sr3": self.sr3, "d12": self.d12}[system]
        table = by.setdefault("", Sums())
        return table, by.setdefault(character, Sums()) if character else table

    def check_timed(self, seconds: float) -> None:
        """A check (test) was rolled ``seconds`` after it was opened (declared, called)."""
        self.check_seconds.append(seconds)

    def flip(self, flip: DestinyFlip) -> None:
        self.systems.add("narrative")
        self.flips.append(flip)

    def destiny_pool(self, point: DestinyPoint) -> None:
        self.systems.add("narrative")
        self.destiny.append(point)

    def karma_spent(self, character: str, points: int) -> None:
        self.systems.add("sr3")
        self.karma[character] = self.karma.get(character, 0) + points

    def six_chain(self, record: ChainRecord) -> None:
        if self.chain is None or record.sixes > self.chain.sixes:
            self.chain = record

    def turn_pools(self, key: tuple[int, int, str], full: int, drawn: int) -> None:
        """Pool dice a character had at the start of a Combat Turn (``full``) or drew."""
        self.systems.add("sr3")
        entry = self.turns.setdefault(key, [0, 0])
        entry[0] += full
        entry[1] += drawn

    def extended_test(self, test: ExtendedTest) -> None:
        self.systems.add("d12")
        self.extended[test.test] = test

    def free(self, sides: int, faces: tuple[int, ...]) -> None:
        """The faces of the free-rolled dice of one size."""
        counts = self.faces.setdefault(sides, [0] * sides)
        for face in faces:
            counts[face - 1] += 1

    # ---- the section ----------------------------------------------------------------------

    def section(self) -> Section:
        """The frozen figures."""
        best, worst = self.luckiest, self.unluckiest
        improbable = None
        if best is not None and worst is not None:
            improbable = best if best.row.p_at_least <= worst.row.p_at_most else worst
        return Section(
            session=self.session, title=self.title, timeline=self._timeline(),
            luck=self.table.done(),
            players={k: v.done() for k, v in sorted(self.players.items())},
            characters={k: v.done() for k, v in sorted(self.characters.items())},
            luckiest=best.row if best else None, unluckiest=worst.row if worst else None,
            most_improbable=improbable.row if improbable else None, percentiles=self.bins,
            percentiles_expected=[_digits(p) for p in self.expected_bins],
            narrative=self._narrative() if "narrative" in self.systems else None,
            sr3=self._sr3() if "sr3" in self.systems else None,
            d12=self._d12() if "d12" in self.systems else None,
            free=self._free() if self.free_rolls else None)

    def _timeline(self) -> Timeline:
        if not self.times:
            return Timeline(events=0, first=None, last=None, minutes=0.0, per_minute=[],
                            checks_timed=0, seconds_per_check=None, longest_pause=None)
        start = self.times[0][0]
        # per session only: over a whole campaign the minutes between game nights are months
        minutes = int((self.times[-1][0] - start) // 60) + 1 if self.session is not None else 0
        per_minute = [0] * minutes
        pause: Pause | None = None
        previous: tuple[float, str, int] | None = None
        for entry in self.times:
            if minutes:
                per_minute[int((entry[0] - start) // 60)] += 1
            if previous is not None:
                gap = round(entry[0] - previous[0], 3)
                if pause is None or gap > pause.seconds:
                    pause = Pause(after_seq=previous[2], seconds=gap)
            previous = entry
        timed = self.check_seconds
        return Timeline(
            events=len(self.times), first=self.times[0][1], last=self.times[-1][1],
            minutes=round((self.times[-1][0] - start) / 60, 3), per_minute=per_minute,
            checks_timed=len(timed),
            seconds_per_check=round(sum(timed) / len(timed), 3) if timed else None,
            longest_pause=pause)

    def _narrative(self) -> NarrativeFigures:
        def tally(s: Sums) -> NarrativeTally:
            return NarrativeTally(rolls=s.rolls, succeeded=s.tally("succeeded"),
                                  successes=s.tally("successes"),
                                  advantages=s.tally("advantages"),
                                  triumphs=s.tally("triumphs"), despairs=s.tally("despairs"))
        by: dict[str, int] = {}
        for flip in self.flips:
            by[flip.actor] = by.get(flip.actor, 0) + 1
        return NarrativeFigures(
            table=tally(self.narrative.get("", Sums())),
            characters={k: tally(v) for k, v in sorted(self.narrative.items()) if k},
            flips=self.flips, flips_by=dict(sorted(by.items())), destiny=self.destiny)

    def _sr3(self) -> Sr3Figures:
        def tally(s: Sums, karma: int) -> Sr3Tally:
            return Sr3Tally(tests=s.rolls, successes=s.tally("successes"),
                            disasters=s.tally("disasters"), karma_spent=karma,
                            karma_successes=s.tally("karma"))
        names = sorted({k for k in self.sr3 if k} | set(self.karma))
        turns = [CombatTurnPools(encounter=e, turn=t, character=c, full=full, drawn=drawn,
                                 unused=max(0, full - drawn))
                 for (e, t, c), (full, drawn) in sorted(self.turns.items())]
        return Sr3Figures(
            table=tally(self.sr3.get("", Sums()), sum(self.karma.values())),
            characters={k: tally(self.sr3.get(k, Sums()), self.karma.get(k, 0))
                        for k in names},
            longest_chain=self.chain, combat_turns=turns)

    def _d12(self) -> D12Figures:
        def tally(s: Sums) -> D12Tally:
            return D12Tally(rolls=s.rolls, succeeded=s.tally("succeeded"),
                            margin=s.tally("margin"), ones=s.tally("ones"),
                            twelves=s.tally("twelves"))
        return D12Figures(table=tally(self.d12.get("", Sums())),
                          characters={k: tally(v) for k, v in sorted(self.d12.items()) if k},
                          extended=[self.extended[k] for k in sorted(self.extended)])

    def _free(self) -> FreeFigures:
        dice: list[DieFaces] = []
        for sides, counts in sorted(self.faces.items()):
            statistic = chi_square(counts)
            dice.append(DieFaces(sides=sides, dice=sum(counts), faces=counts,
                                 chi_square=round(statistic, 4), degrees=sides - 1,
                                 p_value=float(f"{chi_square_p(statistic, sides - 1):.6g}")))
        return FreeFigures(rolls=self.free_rolls, dice=dice)
