"""Exact odds of Shadowrun 3 tests: successes at a target number, the open-test highest total.

With the Rule of Six a die's value is 6k + f after k sixes and a final face f in 1..5, with
probability (1/6)^k x 1/6; so for TN = 6q + r (r in 1..6)

    P(die >= TN) = (1/6)^q x (7 - r) / 6

which is (7 - TN) / 6 for TN <= 6 and, e.g., 1/6 for TN 7, 1/36 for TN 12. Dice are
independent, so the number of successes of n dice is binomial. An open test's result is the
highest of n die values: P(highest <= t) = P(die <= t)^n. Everything is an exact
:class:`fractions.Fraction`; :func:`as_floats` turns a table into floats for display.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

__all__ = [
    "SIXTH",
    "p_die_at_least",
    "p_die_at_most",
    "success_distribution",
    "success_counts",
    "at_least",
    "rule_of_one",
    "open_distribution",
    "mean",
    "odds_table",
    "as_floats",
]

SIXTH = Fraction(1, 6)


def p_die_at_least(tn: int) -> Fraction:
    """P(one die's value, sixes rerolled and added, reaches ``tn``)."""
    if tn <= 1:
        return Fraction(1)
    q, r = divmod(tn - 1, 6)
    return SIXTH**q * Fraction(6 - r, 6)


def p_die_at_most(total: int) -> Fraction:
    """P(one die's value is at most ``total``)."""
    return 1 - p_die_at_least(total + 1)


def _success_weights(dice: int, tn: int) -> tuple[list[int], int]:
    """Integer numerators of P(successes = k) over one common denominator (fast, exact)."""
    p = p_die_at_least(tn)
    a, b = p.numerator, p.denominator
    return [comb(dice, k) * a**k * (b - a) ** (dice - k) for k in range(dice + 1)], b**dice


def success_counts(dice: int, tn: int) -> tuple[list[int], int]:
    """``([ways to get k successes for k in 0..dice], total ways)``: exact integers over one
    common denominator, for a reader that sums many of them (the post-game report)."""
    return _success_weights(dice, tn)


def success_distribution(dice: int, tn: int) -> list[Fraction]:
    """``[P(successes = k) for k in 0..dice]`` for ``dice`` d6 against ``tn``."""
    weights, denominator = _success_weights(dice, tn)
    return [Fraction(w, denominator) for w in weights]


def at_least(distribution: list[Fraction]) -> list[Fraction]:
    """``[P(X >= k)]`` from ``[P(X = k)]``."""
    out: list[Fraction] = []
    running = Fraction(0)
    for p in reversed(distribution):
        running += p
        out.append(running)
    return out[::-1]


def rule_of_one(dice: int) -> Fraction:
    """P(every die shows 1): the disastrous failure of the Rule of One."""
    return SIXTH**dice


def open_distribution(dice: int, upto: int | None = None) -> tuple[list[Fraction], Fraction]:
    """``([P(highest = t) for t in 0..upto], P(highest > upto))`` for an open test.

    ``upto`` defaults to 18 (three sixes and a 0); index 0 is always 0. Multiples of 6 are
    never a die's final value, so their probability is 0.
    """
    upto = 18 if upto is None else upto
    cdf = [p_die_at_most(t) ** dice for t in range(upto + 1)]
    exact = [Fraction(0)] + [cdf[t] - cdf[t - 1] for t in range(1, upto + 1)]
    return exact, 1 - cdf[upto]


def mean(distribution: list[Fraction]) -> Fraction:
    """The expected value of ``[P(X = k)]``."""
    return sum((k * p for k, p in enumerate(distribution)), Fraction(0))


def odds_table(base: int, tn: int | None, extra_max: int, beat: int | None = None
              ) -> list[dict[str, Any]]:
    """The odds for ``base`` dice plus 0..``extra_max`` pool dice, one row per choice.

    With a TN: P(at least 1 success), the expected successes, P(successes >= k) for each k,
    P(more than ``beat`` successes) when the test must beat another (a Dodge), and the Rule of
    One. Open (``tn`` None): P(highest = t) up to 18 and P(highest above 18).
    """
    rows: list[dict[str, Any]] = []
    for extra in range(extra_max + 1):
        dice = base + extra
        if dice <= 0:
            continue
        row: dict[str, Any] = {"pool_dice": extra, "dice": dice,
                               "rule_of_one": float(rule_of_one(dice))}
        if tn is None:
            exact, tail = open_distribution(dice)
            row["highest"] = {str(t): float(p) for t, p in enumerate(exact) if p}
            row["highest_above_18"] = float(tail)
        else:
            weights, denominator = _success_weights(dice, tn)
            cumulative, running = [], 0
            for w in reversed(weights):  # integer sums, one division each: exact then rounded
                running += w
                cumulative.append(running / denominator)
            cumulative.reverse()
            row["success"] = cumulative[1]
            row["mean_successes"] = dice * float(p_die_at_least(tn))
            row["at_least"] = cumulative
            if beat is not None:
                row["beats"] = cumulative[beat + 1] if beat + 1 <= dice else 0.0
        rows.append(row)
    return rows


def as_floats(values: list[Fraction]) -> list[float]:
    """Exact fractions as floats for display."""
    return [float(v) for v in values]
