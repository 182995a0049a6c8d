"""Exact distributions of the figure each kind of roll is judged by, for the post-game report.

Each is the distribution of one integer (net successes of a narrative pool, the pips of one side
of Force dice rolled for a power, successes or the highest total of a Shadowrun test, the margin
of a d12 roll, the total of a free roll) as outcome
counts over a common denominator, from the odds engines (:mod:`poolhall.projections.narrative_odds`,
:mod:`poolhall.projections.sr3_odds`, :mod:`poolhall.projections.d12_odds`); the free roll's is
computed here the same way (a packed polynomial power). Never simulated.

A :class:`Discrete` answers, for a result, P(doing at least that well) and the mid-percentile
(:mod:`poolhall.projections.analytics_stats`). They are cached by the pool: a campaign rolls the
same few pools again and again, and each is a pure function of its arguments.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from functools import lru_cache

from poolhall.events.narrative import Pool
from poolhall.projections import d12_odds, narrative_odds, sr3_odds
from poolhall.projections.analytics_stats import Percentile, percentile_variance
from poolhall.projections.narrative_dice import FACES, SIDES

__all__ = [
    "BINS",
    "OPEN_CAP",
    "Discrete",
    "d12_margin",
    "force_pips",
    "free_total",
    "narrative_successes",
    "sr3_open",
    "sr3_successes",
]

BINS = 10
"""Bins of the percentile histogram."""
OPEN_CAP = 61
"""An open test's highest total above 60 (ten sixes in a row) is counted as 61: the
distribution is carried up to there, the rest of it lumped (under 6**-10 per die)."""


class Discrete:
    """A distribution over integers as exact outcome counts, read as percentiles.

    ``counts[v]`` of ``total`` equally likely outcomes give the value ``v``.
    """

    __slots__ = ("values", "counts", "tail", "total", "mean", "variance", "_bins")

    def __init__(self, counts: Mapping[int, int], total: int) -> None:
        self.values = sorted(v for v, c in counts.items() if c)
        self.counts = {v: counts[v] for v in self.values}
        self.total = total
        tail: list[int] = []
        running = 0
        for v in reversed(self.values):  # P(X >= v) as integers, summed from the top: exact
            running += self.counts[v]
            tail.append(running)
        self.tail = tail[::-1]
        self.mean = sum(v * c for v, c in self.counts.items()) / total
        self.variance = percentile_variance([c / total for c in self.counts.values()])
        self._bins: tuple[float, ...] | None = None

    def bins(self, n: int = BINS) -> tuple[float, ...]:
        """P(the mid-percentile falls in each of ``n`` equal bins) under fair dice: what a
        histogram of percentiles should look like (not flat: a discrete result's
        percentiles take few values)."""
        if self._bins is None or len(self._bins) != n:
            out = [0.0] * n
            for v in self.values:
                _, percentile, _ = self.figures(v)
                out[min(n - 1, int(percentile * n))] += self.counts[v] / self.total
            self._bins = tuple(out)
        return self._bins

    def at_least(self, x: int) -> int:
        """Outcomes giving ``x`` or more."""
        i = bisect_left(self.values, x)
        return self.tail[i] if i < len(self.tail) else 0

    def figures(self, x: int) -> Percentile:
        """``(P(X >= x), mid-percentile, Var(mid-percentile))`` of the result ``x``."""
        at_least = self.at_least(x)
        below = self.total - at_least
        at = self.counts.get(x, 0)
        return at_least / self.total, (2 * below + at) / (2 * self.total), self.variance

    def p_at_most(self, x: int) -> float:
        """P(X <= x) as a float (from the integer counts above it: exact until the division)."""
        return (self.total - self.at_least(x + 1)) / self.total

    def p_at_least(self, x: int) -> float:
        """P(X >= x) as a float."""
        return self.at_least(x) / self.total


@lru_cache(maxsize=512)
def _narrative(key: tuple[int, int, int, int, int, int]) -> tuple[Discrete, float, float,
                                                                   float, float]:
    pool = Pool(proficiency=key[0], ability=key[1], difficulty=key[2], challenge=key[3],
                boost=key[4], setback=key[5])
    dist = narrative_odds.distribution(pool)
    means = dist.means()
    return (Discrete(dist.success_counts(), dist.total), float(means[1]), float(means[2]),
            float(means[3]), float(dist.p_success()))


def narrative_successes(pool: Pool) -> tuple[Discrete, float, float, float, float]:
    """``(net successes, mean advantage, mean triumphs, mean despairs, P(success))`` of a pool
    (Force dice play no part in success and are left out)."""
    return _narrative((pool.proficiency, pool.ability, pool.difficulty, pool.challenge,
                       pool.boost, pool.setback))


@lru_cache(maxsize=64)
def force_pips(dice: int, side: str) -> Discrete:
    """The ``side`` (``light`` or ``dark``) pips of ``dice`` Force dice, from the Force die's
    twelve faces as the rules give them (:data:`poolhall.projections.narrative_dice.FACES`):
    light 0, 1 or 2 pips on 7, 2 and 3 faces; dark on 5, 6 and 1. Each die's counts are
    multiplied in (``12**dice`` outcomes), never sampled."""
    one: dict[int, int] = {}
    for face in FACES["force"]:
        pips = face.count(side)
        one[pips] = one.get(pips, 0) + 1
    counts = {0: 1}
    for _ in range(dice):
        counts = _times(counts, one)
    return Discrete(counts, SIDES["force"] ** dice)


def _times(a: Mapping[int, int], b: Mapping[int, int]) -> dict[int, int]:
    """The outcome counts of the sum of two independent values (their convolution)."""
    out: dict[int, int] = {}
    for x, m in a.items():
        for y, k in b.items():
            out[x + y] = out.get(x + y, 0) + m * k
    return out


@lru_cache(maxsize=1024)
def sr3_successes(dice: int, tn: int) -> Discrete:
    """Successes of ``dice`` d6 against a target number (Rule of Six included)."""
    weights, total = sr3_odds.success_counts(dice, tn)
    return Discrete(dict(enumerate(weights)), total)


@lru_cache(maxsize=256)
def sr3_open(dice: int) -> Discrete:
    """The highest total of an open test of ``dice`` d6, up to :data:`OPEN_CAP` (lumped)."""
    denominator = 6 ** (11 * dice)  # every P(highest <= t), t <= 60, is k / 6**(11 dice)
    counts: dict[int, int] = {}
    previous = 0
    for t in range(1, OPEN_CAP):
        cdf = sr3_odds.p_die_at_most(t) ** dice
        ways = cdf.numerator * (denominator // cdf.denominator)
        counts[t] = ways - previous
        previous = ways
    counts[OPEN_CAP] = denominator - previous
    return Discrete(counts, denominator)


@lru_cache(maxsize=1024)
def d12_margin(dice: int, dt: int) -> Discrete:
    """The margin of ``dice`` d12 at a Difficulty Threshold."""
    return Discrete(d12_odds.margin_counts(dice, dt), 12**dice)


@lru_cache(maxsize=512)
def free_total(terms: tuple[tuple[int, int, int], ...], constant: int = 0) -> Discrete:
    """The total of a free roll, ``terms`` as ``(count, sides, sign)``, plus ``constant``
    (``3d6+2``: 5 to 20, the total the table saw).

    Every die, added or subtracted, is ``1 + x + ... + x**(sides - 1)`` once its lowest value
    is shifted to 0; the total is their product, one packed big-integer power per term
    (Kronecker substitution, each coefficient in a slot wide enough for the largest count).
    """
    lowest = constant + sum(count * (1 if sign > 0 else -sides) for count, sides, sign in terms)
    total = 1
    for count, sides, _ in terms:
        total *= sides**count
    width = total.bit_length() // 8 + 1  # bytes per coefficient: no count spills over
    bits = 8 * width
    product = 1
    for count, sides, _ in terms:
        die = sum(1 << (bits * e) for e in range(sides))
        product *= die**count
    slots = 1 + sum(count * (sides - 1) for count, sides, _ in terms)
    packed = product.to_bytes(width * slots, "little")
    counts = {lowest + e: int.from_bytes(packed[width * e: width * (e + 1)], "little")
              for e in range(slots)}
    return Discrete(counts, total)
