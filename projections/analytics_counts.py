"""A section's dice tested, from its counts: each kind of die's faces against a fair die, and
the rare results (triumphs, despairs, Rule of One, 12s) against their exact distributions.

How each p-value is computed, and when a test has power, is in
:mod:`poolhall.projections.analytics_faces`; this module builds the section's rows of them
(:class:`poolhall.projections.analytics_model.FaceTest` and ``CountTest``), which
:mod:`poolhall.projections.analytics_family` then corrects together.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from poolhall.projections.analytics_faces import ALPHA, bernoulli_sum_p, binomial_p, face_test
from poolhall.projections.analytics_model import CountTest, FaceTest
from poolhall.projections.analytics_stats import chi_square

__all__ = ["count_tests", "digits", "face_tests"]


def digits(value: float) -> float:
    """A figure to 9 significant digits (float sums would print 17, noise included)."""
    return float(f"{value:.9g}")


def _poisson_binomial_powered(tests: Mapping[int, int], chances: Mapping[int, float]) -> bool:
    """Whether a count of rare results says anything: fair dice give one or more at least
    one time in twenty (the same rule as the binomial counts')."""
    none = 1.0
    for dice, count in tests.items():
        none *= (1 - chances[dice]) ** count
    return 1 - none >= ALPHA


def face_tests(dice: Mapping[str, list[int]], free: Mapping[int, list[int]]) -> list[FaceTest]:
    """Each kind of die's faces (``dice``: by kind; ``free``: free dice by their sides)."""
    kinds = [*dice.items(), *((f"free d{s}", c) for s, c in sorted(free.items()))]
    tests = []
    for die, counts in kinds:
        n = sum(counts)
        if not n:
            continue
        p, method, error, powered = face_test(counts)
        tests.append(FaceTest(
            die=die, dice=n, faces=list(counts), expected=digits(n / len(counts)),
            chi_square=round(chi_square(counts), 4), method=method,
            p_value=float(f"{p:.6g}"), error=error, powered=powered))
    return tests


def count_tests(dice: Mapping[str, list[int]], one_tests: Mapping[int, int],
                disasters: int) -> list[CountTest]:
    """Triumphs, despairs and 12s among the faces of their dice, and Rule-of-One disasters
    among the rolls of all of a Shadowrun test's dice (``one_tests``: how many rolls of each
    number of dice; each all ones 6**-dice of the time), rerolls included."""
    tests = []
    for what, die in (("triumphs", "proficiency"), ("despairs", "challenge"), ("12s", "d12")):
        counts = dice.get(die)
        if counts:
            n = sum(counts)
            tests.append(CountTest(
                what=what, actual=counts[11], expected=digits(n / 12), trials=n,
                p_value=float(f"{binomial_p(n, Fraction(1, 12), counts[11]):.6g}"),
                powered=1 - (11 / 12) ** n >= ALPHA))
    if one_tests:
        chances = {d: 6.0**-d for d in one_tests}
        expected = sum(t * chances[d] for d, t in one_tests.items())
        p = bernoulli_sum_p(one_tests, chances, disasters)
        tests.append(CountTest(
            what="Rule of One (Karma rerolls included)", actual=disasters,
            expected=digits(expected), trials=sum(one_tests.values()),
            p_value=float(f"{p:.6g}"), powered=_poisson_binomial_powered(one_tests, chances)))
    return tests
