"""The statistics of the post-game report: mid-percentiles, their test, and chi-square.

**Luck.** A roll's result ``x`` is a draw of a discrete random variable ``X`` whose exact
distribution the odds engines give. Its *percentile* is the mid-percentile

    u = P(X < x) + P(X = x) / 2

(one minus the mid-p value ``P(X > x) + P(X = x) / 2``). Ties make the plain percentile
``P(X <= x)`` average more than one half; the mid-percentile averages exactly 1/2 under fair
dice whatever the distribution, with the exact variance

    Var(u) = (1 - sum_i p_i**3) / 12

(the variance of a uniform, shrunk by the ties; 1/12 when there are none). The mean of ``n``
independent percentiles therefore has mean 1/2 and variance ``sum(Var(u_i)) / n**2`` exactly;
its p-value is read from the normal distribution (the central limit theorem: an
**approximation**, good from a few dozen rolls; with fewer the report says so).

**Faces.** Free rolls' faces per die size are compared with uniform by Pearson's chi-square
with ``sides - 1`` degrees of freedom; its p-value is the regularized upper incomplete gamma
function, computed here (series and continued fraction, as in *Numerical Recipes*).

Pure functions of numbers: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import erfc, exp, lgamma, log, sqrt

from poolhall.projections.analytics_model import Luck

__all__ = [
    "FEW_ROLLS",
    "Percentile",
    "chi_square",
    "chi_square_p",
    "luck_of",
    "mean_test",
    "normal_two_sided",
    "percentile_variance",
]

FEW_ROLLS = 30
"""Below this many rolls the normal approximation of a mean is rough: the verdict says so."""

Percentile = tuple[float, float, float]
"""``(P(X >= x), mid-percentile, Var(mid-percentile))`` of one roll."""


def percentile_variance(probabilities: Sequence[float]) -> float:
    """Var(mid-percentile) of a discrete distribution: ``(1 - sum p**3) / 12``."""
    return (1.0 - sum(p * p * p for p in probabilities)) / 12.0


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return erfc(abs(z) / sqrt(2.0))


def mean_test(n: int, total: float, variances: float) -> tuple[float, float, float, float]:
    """``(mean, z, p-value, half-width of the 95% interval for fair dice)`` of ``n``
    percentiles summing to ``total``, whose variances under fair dice sum to ``variances``.

    Under fair dice the mean is 1/2 with standard deviation ``sqrt(variances) / n``; ``z`` is
    how many of those the mean is from 1/2, the p-value two-sided.
    """
    if n == 0:
        return 0.5, 0.0, 1.0, 0.0
    mean = total / n
    sd = sqrt(variances) / n
    if sd == 0.0:  # every roll certain: nothing to learn from it
        return mean, 0.0, 1.0, 0.0
    z = (mean - 0.5) / sd
    return mean, z, normal_two_sided(z), 1.959963984540054 * sd


def chi_square(observed: Sequence[int]) -> float:
    """Pearson's chi-square of face counts against a uniform die."""
    n = sum(observed)
    if n == 0:
        return 0.0
    expected = n / len(observed)
    return sum((o - expected) ** 2 for o in observed) / expected


def _lower_series(a: float, x: float) -> float:
    """The regularized lower incomplete gamma P(a, x) by its series (x < a + 1)."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(10_000):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * exp(-x + a * log(x) - lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """The regularized upper incomplete gamma Q(a, x) by its continued fraction (x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return exp(-x + a * log(x) - lgamma(a)) * h


def chi_square_p(statistic: float, degrees: int) -> float:
    """P(a chi-square variable with ``degrees`` degrees of freedom >= ``statistic``)."""
    if degrees < 1:
        raise ValueError("a chi-square needs at least one degree of freedom")
    if statistic <= 0.0:
        return 1.0
    a, x = degrees / 2.0, statistic / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return _upper_fraction(a, x)


def luck_of(n: int, total: float, variances: float) -> Luck:
    """The luck of ``n`` rolls whose percentiles sum to ``total`` (their variances under fair
    dice to ``variances``): mean, its 95% band for fair dice, z, p-value, a verdict."""
    mean, z, p_value, half = mean_test(n, total, variances)
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
