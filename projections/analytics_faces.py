"""The dice themselves tested: each kind of die's faces against a fair die, and the rare
results (triumphs, despairs, Rule of One, 12s) against their exact distributions.

**Faces.** ``n`` dice of ``k`` equally likely faces came up with counts ``c_1 .. c_k``. The
statistic is Pearson's chi-square ``X2 = k/n * sum(c_i**2) - n``; the p-value is P(a fair die
gives an ``X2`` at least as large). How it is computed depends on the counts:

- **exact** when ``n <= EXACT_DICE``: every way the ``n`` dice can fall is counted, by the
  partitions of ``n`` into at most ``k`` parts (the statistic depends only on the multiset of
  counts), each weighted by its number of outcomes ``n! / prod(c_i!) * k! / (prod m_j! (k -
  parts)!)`` out of ``k**n``: integers throughout, one division at the end. d12 once: 1.0;
  d4 x4 all one face: 4 / 256 = 0.016; one d20 face twice: 20 / 400 = 0.05.
- **asymptotic** when every face expects at least :data:`ASYMPTOTIC_EXPECTED` (Cochran's
  rule): the chi-square distribution with ``k - 1`` degrees of freedom.
- **Monte Carlo** between the two (many dice of many faces, few per face): the statistic of
  :data:`MONTE_CARLO_DRAWS` fair samples of the same size drawn by numpy from a generator
  seeded by ``(n, k)`` - the same log always gives the same p-value - with its standard error
  ``sqrt(p (1 - p) / draws)`` stated beside it.

A test **has power** only if fair dice can give a p-value of :data:`ALPHA` or less at that
size at all (the smallest attainable is P(every die on one face) = ``k**(1 - n)`` in the
exact range); one that has none shows no p-value and joins no family of tests.

**Counts.** Triumphs (face 12 of each Proficiency die), despairs (face 12 of each Challenge
die) and 12s (each d12) are binomial; Rule-of-One disasters are a sum of Bernoulli trials with
a different chance per roll of a test's dice (``6**-dice``), whose exact distribution is built
by convolution.
The two-sided p-value is P(a result no more likely than the one seen) - the sum of the
probabilities of every count at most as probable as the observed one.

Pure functions of counts: no I/O, no clock; the one generator is seeded by its input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from math import comb, exp, factorial, lgamma, log, log1p
from typing import Any

from poolhall.projections.analytics_stats import chi_square, chi_square_p

__all__ = [
    "ALPHA",
    "ASYMPTOTIC_EXPECTED",
    "EXACT_DICE",
    "MONTE_CARLO_DRAWS",
    "FaceResult",
    "binomial_p",
    "bernoulli_sum_p",
    "face_test",
    "smallest_p",
]

ALPHA = 0.05
"""The level at which a verdict is given (after the family's correction)."""
EXACT_DICE = 30
"""Up to this many dice a face test is exact (the partitions of 30: 5,604)."""
ASYMPTOTIC_EXPECTED = 5.0
"""Every face expecting at least this many: the chi-square distribution is used."""
MONTE_CARLO_DRAWS = 20_000
"""Fair samples of the Monte Carlo test (standard error at most 0.0035)."""

FaceResult = tuple[float, str, float | None, bool]
"""``(p-value, method, Monte Carlo standard error or None, has power)``."""


def _partitions(n: int, most: int, parts: int) -> list[tuple[int, ...]]:
    """The partitions of ``n`` into at most ``parts`` parts, each at most ``most``."""
    if n == 0:
        return [()]
    if parts == 0:
        return []
    out = []
    for first in range(min(n, most), 0, -1):
        for rest in _partitions(n - first, first, parts - 1):
            out.append((first, *rest))
    return out


@lru_cache(maxsize=128)
def _exact(n: int, k: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The exact distribution of ``sum(c_i**2)`` for ``n`` fair ``k``-sided dice: the sums of
    squares in increasing order, the outcomes giving each at least that sum, and ``k**n``."""
    ways: dict[int, int] = {}
    n_factorial, k_factorial = factorial(n), factorial(k)
    for counts in _partitions(n, n, k):
        arrangements = n_factorial
        for c in counts:
            arrangements //= factorial(c)
        multiplicity = 1
        for c in set(counts):
            multiplicity *= factorial(counts.count(c))
        faces = k_factorial // (multiplicity * factorial(k - len(counts)))
        squares = sum(c * c for c in counts)
        ways[squares] = ways.get(squares, 0) + arrangements * faces
    values = sorted(ways)
    tail: list[int] = []
    running = 0
    for v in reversed(values):
        running += ways[v]
        tail.append(running)
    return tuple(values), tuple(reversed(tail)), k**n


@lru_cache(maxsize=16)
def _simulated(n: int, k: int) -> Any:
    """``sum(c_i**2)`` of :data:`MONTE_CARLO_DRAWS` fair samples of ``n`` ``k``-sided dice,
    sorted, as one numpy array (160 KB; a few kept: the fold's memory stays flat); the
    generator seeded by ``(n, k)``."""
    import numpy

    generator = numpy.random.default_rng([n, k, 2026])
    draws = generator.multinomial(n, [1.0 / k] * k, size=MONTE_CARLO_DRAWS)
    return numpy.sort((draws * draws).sum(axis=1))


def smallest_p(n: int, k: int) -> float:
    """The smallest p-value fair dice can give ``n`` dice of ``k`` faces (exact range), or 0
    where the test is not exact (it can get as small as it needs to)."""
    if n > EXACT_DICE or n / k >= ASYMPTOTIC_EXPECTED:
        return 0.0
    values, tail, total = _exact(n, k)
    return tail[-1] / total


def face_test(counts: Sequence[int]) -> FaceResult:
    """The goodness-of-fit of face counts to a fair die (module docstring)."""
    k, n = len(counts), sum(counts)
    if k < 2 or n == 0:
        return 1.0, "no dice", None, False
    squares = sum(c * c for c in counts)
    if n / k >= ASYMPTOTIC_EXPECTED:
        return chi_square_p(chi_square(counts), k - 1), "asymptotic", None, True
    if n <= EXACT_DICE:
        values, tail, total = _exact(n, k)
        at = next(i for i, v in enumerate(values) if v >= squares)
        p = tail[at] / total
        return p, "exact", None, tail[-1] / total <= ALPHA
    sums = _simulated(n, k)
    at_least = len(sums) - int(sums.searchsorted(squares, side="left"))
    p = at_least / len(sums)
    error = (p * (1 - p) / len(sums)) ** 0.5
    return p, "Monte Carlo", round(error, 6), True


def _two_sided(probabilities: Sequence[Fraction | float], x: int) -> float:
    """P(a count no more likely than ``x``), with a relative tolerance for float ties."""
    seen = probabilities[x]
    limit = float(seen) * (1 + 1e-9)
    return min(1.0, float(sum(p for p in probabilities if float(p) <= limit)))


def binomial_p(trials: int, p: Fraction, x: int) -> float:
    """Two-sided exact p-value of ``x`` successes in ``trials`` with chance ``p`` each.

    Exact in rationals up to :data:`EXACT_DICE` trials (checked against enumeration); past
    that each probability is computed in floating point from log-gamma (relative error
    ~1e-13, far below any figure shown)."""
    if trials == 0:
        return 1.0
    if trials <= EXACT_DICE:
        exact = [comb(trials, i) * p**i * (1 - p) ** (trials - i) for i in range(trials + 1)]
        return _two_sided(exact, x)
    q = float(p)
    log_q, log_r = log(q), log1p(-q)
    base = lgamma(trials + 1)
    probabilities = [exp(base - lgamma(i + 1) - lgamma(trials - i + 1) + i * log_q
                         + (trials - i) * log_r) for i in range(trials + 1)]
    return _two_sided(probabilities, x)


def _add_trials(distribution: Sequence[float], q: float, trials: int, keep: int) -> list[float]:
    """The distribution of a count after ``trials`` more trials of chance ``q`` each, cut at
    the top where the chance is below 1e-15 but never to fewer than ``keep`` counts.

    One trial at a time, as written by hand: count ``i`` after a trial has chance ``w[i] * (1
    - q) + w[i - 1] * q``. numpy does each trial's products and sums over the whole array at
    once - the same float operations on the same numbers, so the same bits as a Python loop
    over the counts - because a campaign's Rule-of-One test adds ~100,000 trials to a
    distribution of ~200 counts: 1.7 s of a 100,000-event report as a loop, 0.13 s so. The
    array is longer than the distribution and zero past it (a count cut off is zeroed), so
    each trial is three whole-array operations on views made once; it lives for this call."""
    import numpy

    n, stay = len(distribution), 1 - q
    counts = numpy.zeros(2 * n + 2)
    counts[:n] = distribution
    carry = numpy.empty(len(counts))
    above, carried = counts[1:], carry[:-1]
    for _ in range(trials):
        if n == len(counts):  # no zero left past the distribution: twice the room
            counts = numpy.concatenate((counts, numpy.zeros(n)))
            carry = numpy.empty(len(counts))
            above, carried = counts[1:], carry[:-1]
        numpy.multiply(counts, q, out=carry)  # the chance that moves up a count ...
        numpy.multiply(counts, stay, out=counts)  # ... and the chance that stays
        numpy.add(above, carried, out=above)
        n += 1
        while n > keep and counts[n - 1] < 1e-15:
            n -= 1
            counts[n] = 0.0
    result: list[float] = counts[:n].tolist()
    return result


def bernoulli_sum_p(chances: Mapping[int, int], p_of: Mapping[int, float], x: int) -> float:
    """Two-sided exact p-value of ``x`` events among independent trials: ``chances[key]``
    trials of chance ``p_of[key]`` each (a Poisson-binomial, built by convolution and cut
    where the tail is below 1e-15: counts past it are never more likely than ``x``)."""
    distribution = [1.0]
    for key, trials in sorted(chances.items()):
        distribution = _add_trials(distribution, p_of[key], trials, max(x + 2, 2))
    if x >= len(distribution):
        return 0.0
    return _two_sided(distribution, x)
