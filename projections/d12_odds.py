"""Exact odds of d12 threshold pools: the margin of one roll, and an extended test's survival.

One die counts +2 (a 12), +1 (a face above the DT), -1 (any other face) or -2 (a 1), so the
margin of n dice is an n-fold convolution of a four-point distribution over 12 faces: integer
face counts, exact, no enumeration of the 12**n rolls.

An extended test's pool is a Markov chain over pool sizes. Each round every die of the pool
independently comes up a failure with probability ``q = failure faces / 12`` (faces at or
below the DT, but never a 12); the failed dice leave. **Decision**: the pool is *empty* when
the failed dice have left and none remain - then the test ends and no dice join; otherwise
the refresh stat's dice join, up to :data:`poolhall.events.d12_dice.MAX_POOL`. "The pool survives k
rounds" means it was not emptied in any of the first k rounds (empty is absorbing).

Exact results are :class:`fractions.Fraction`; the chain is carried in integers over a common
denominator (``12**cap`` per round) so it stays exact and fast, with one reduction at the end.
Floats are for display.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, nextafter
from typing import Any

from poolhall.events.d12_dice import MAX_POOL, die_value

__all__ = [
    "ALMOST_CERTAIN",
    "expected_margin",
    "failure_faces",
    "margin_counts",
    "margin_distribution",
    "odds_summary",
    "pool_distribution",
    "success_probability",
    "survival",
    "survival_float",
    "value_counts",
]


def value_counts(dt: int) -> dict[int, int]:
    """How many of the 12 faces count +2, +1, -1 and -2 at this DT."""
    counts = {2: 0, 1: 0, -1: 0, -2: 0}
    for face in range(1, 13):
        counts[die_value(face, dt)] += 1
    return counts


def failure_faces(dt: int) -> int:
    """How many of the 12 faces are failure dice at this DT (they leave an extended pool)."""
    return sum(1 for face in range(1, 13) if die_value(face, dt) < 0)


def margin_counts(dice: int, dt: int) -> dict[int, int]:
    """For each margin, how many of the ``12**dice`` equally likely rolls give it.

    The n-fold convolution is the n-th power of the polynomial ``sum(count * x**(value+2))``,
    computed as one big-integer power by Kronecker substitution (x = 2**bits, with bits wide
    enough that no coefficient - at most ``12**dice`` - spills into the next): exact, and a
    pool of 100 dice takes well under a millisecond.
    """
    if not 0 <= dice <= MAX_POOL:
        raise ValueError(f"a pool holds 0 to {MAX_POOL} dice")
    width = (12**dice).bit_length() // 8 + 1  # bytes per coefficient
    bits = 8 * width
    base = sum(count << (bits * (value + 2)) for value, count in value_counts(dt).items())
    packed = (base**dice).to_bytes(width * (4 * dice + 1), "little")
    counts: dict[int, int] = {}
    for exponent in range(4 * dice + 1):
        ways = int.from_bytes(packed[width * exponent: width * (exponent + 1)], "little")
        if ways:
            counts[exponent - 2 * dice] = ways
    return counts


def margin_distribution(dice: int, dt: int) -> dict[int, Fraction]:
    """P(margin = m) for every reachable m, exact."""
    total = 12**dice
    return {margin: Fraction(ways, total) for margin, ways in margin_counts(dice, dt).items()}


def success_probability(dice: int, dt: int) -> Fraction:
    """P(margin > 0): the chance a basic test succeeds."""
    counts = margin_counts(dice, dt)
    return Fraction(sum(w for m, w in counts.items() if m > 0), 12**dice)


def expected_margin(dice: int, dt: int) -> Fraction:
    """The mean margin: ``dice`` times the mean value of one die."""
    return Fraction(dice * sum(v * c for v, c in value_counts(dt).items()), 12)


def _check_chain(pool: int, add: int, rounds: int, cap: int) -> None:
    if not 1 <= cap <= MAX_POOL:
        raise ValueError(f"the cap is 1 to {MAX_POOL} dice")
    if not 0 <= pool <= cap:
        raise ValueError(f"the pool holds 0 to {cap} dice")
    if add < 0 or rounds < 0:
        raise ValueError("dice added and rounds are not negative")


def _chain(pool: int, dt: int, add: int, rounds: int, cap: int) -> tuple[list[int], int]:
    """Integer weights over pool sizes 0..cap after ``rounds`` rounds, and their denominator."""
    _check_chain(pool, add, rounds, cap)
    fail = failure_faces(dt)
    keep = 12 - fail
    # rows[n][m]: ways (out of 12**n) that n dice leave m dice after failures leave.
    fail_pow = [fail**i for i in range(cap + 1)]
    keep_pow = [keep**i for i in range(cap + 1)]
    weights = [0] * (cap + 1)
    weights[pool] = 1
    denominator = 1
    for _ in range(rounds):
        nxt = [0] * (cap + 1)
        nxt[0] = weights[0] * 12**cap
        for n in range(1, cap + 1):
            w = weights[n]
            if not w:
                continue
            scale = w * 12 ** (cap - n)
            for kept in range(n + 1):
                ways = comb(n, kept) * keep_pow[kept] * fail_pow[n - kept]
                target = 0 if kept == 0 else min(kept + add, cap)
                nxt[target] += scale * ways
        weights = nxt
        denominator *= 12**cap
    return weights, denominator


def pool_distribution(pool: int, dt: int, add: int, rounds: int,
                      cap: int = MAX_POOL) -> dict[int, Fraction]:
    """P(pool size = m) after ``rounds`` rounds (m = 0: emptied at some round), exact."""
    weights, denominator = _chain(pool, dt, add, rounds, cap)
    return {m: Fraction(w, denominator) for m, w in enumerate(weights) if w}


def survival(pool: int, dt: int, add: int, rounds: int, cap: int = MAX_POOL) -> Fraction:
    """P(the pool is not emptied in any of the first ``rounds`` rounds), exact."""
    weights, denominator = _chain(pool, dt, add, rounds, cap)
    return Fraction(denominator - weights[0], denominator)


NEGLIGIBLE = 1e-18
"""Display odds skip outcomes less likely than this (they cannot change a shown figure)."""


def _binomial_row(n: int, p: float) -> list[tuple[int, float]]:
    """(k, P(exactly k of n dice do not fail)) for every k that is not negligible."""
    q = 1.0 - p
    term = q**n
    row: list[tuple[int, float]] = []
    for k in range(n + 1):
        if term > NEGLIGIBLE or k == 0:
            row.append((k, term))
        term = term * (n - k) / (k + 1) * p / q
    return row


ALMOST_CERTAIN = nextafter(1.0, 0.0)
"""The float just below 1: a chance that is not certain is never shown as 1.0."""


def survival_float(pool: int, dt: int, add: int, rounds: int,
                   cap: int = MAX_POOL) -> list[float]:
    """P(survive 1 round), P(survive 2 rounds), ... in floats: fast, for display.

    Surviving is never certain (every die of a pool can come up a 1), but 20 dice at DT 1 are
    all lost with chance 12**-20, and ``1.0 - that`` is 1.0 in floats: the table then read
    "100.00%". So a chance is at most :data:`ALMOST_CERTAIN`, and reads "> 99.99%".
    """
    _check_chain(pool, add, rounds, cap)
    p = 1.0 - failure_faces(dt) / 12  # 0 < p < 1: a 12 never fails, a 1 always does
    rows: dict[int, list[tuple[int, float]]] = {}
    dist = {pool: 1.0}
    out: list[float] = []
    for _ in range(rounds):
        nxt: dict[int, float] = {0: dist.get(0, 0.0)}
        for n, weight in dist.items():
            if n == 0 or weight == 0.0:
                continue
            row = rows.get(n) or rows.setdefault(n, _binomial_row(n, p))
            for kept, prob in row:
                target = 0 if kept == 0 else min(kept + add, cap)
                nxt[target] = nxt.get(target, 0.0) + weight * prob
        dist = nxt
        out.append(min(1.0 - dist[0], ALMOST_CERTAIN))
    return out


def odds_summary(dice: int, dt: int, add: int | None = None, rounds: int = 5) -> dict[str, Any]:
    """What the table sees before a roll: P(success), mean margin, the margin distribution,
    and for an extended test (``add`` given) the chance the pool survives 1..``rounds`` rounds."""
    counts = margin_counts(dice, dt)
    total = 12**dice
    summary: dict[str, Any] = {
        "dice": dice,
        "dt": dt,
        "success": min(sum(w for m, w in counts.items() if m > 0) / total, ALMOST_CERTAIN),
        "expected_margin": float(expected_margin(dice, dt)),
        "distribution": {str(m): w / total for m, w in counts.items()},
    }
    if add is not None:
        summary["add"] = add
        summary["survival"] = survival_float(dice, dt, add, rounds)
    return summary
