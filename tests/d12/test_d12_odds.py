"""Exact d12 odds checked against brute-force enumeration of every roll on small pools."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolhall.projections.d12_odds import (
    ALMOST_CERTAIN,
    expected_margin,
    margin_distribution,
    odds_summary,
    pool_distribution,
    success_probability,
    survival,
    survival_float,
)

FACES = range(1, 13)


def _value(face: int, dt: int) -> int:
    """The rules, written out again on purpose: 12 is +2, 1 is -2, above the DT +1, else -1."""
    if face == 12:
        return 2
    if face == 1:
        return -2
    return 1 if face > dt else -1


def _brute_margins(dice: int, dt: int) -> dict[int, Fraction]:
    counts = Counter(sum(_value(f, dt) for f in roll)
                     for roll in itertools.product(FACES, repeat=dice))
    return {m: Fraction(c, 12**dice) for m, c in sorted(counts.items())}


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
@pytest.mark.parametrize("dt", list(range(1, 13)))
def test_margin_distribution_matches_brute_force(dice: int, dt: int) -> None:
    """Every margin's probability equals the count of the 12**n rolls that give it."""
    brute = _brute_margins(dice, dt)
    assert margin_distribution(dice, dt) == brute
    assert success_probability(dice, dt) == sum(p for m, p in brute.items() if m > 0)
    assert expected_margin(dice, dt) == sum(m * p for m, p in brute.items())


def test_known_values() -> None:
    """One die at DT 7 succeeds on 8-12 (5 of 12 faces); at DT 12 only on a 12."""
    assert success_probability(1, 7) == Fraction(5, 12)
    assert success_probability(1, 12) == Fraction(1, 12)
    assert success_probability(1, 1) == Fraction(11, 12)
    assert margin_distribution(1, 12) == {-2: Fraction(1, 12), -1: Fraction(10, 12),
                                          2: Fraction(1, 12)}


@cache
def _brute_pool(pool: int, dt: int, add: int, rounds: int, cap: int) -> dict[int, Fraction]:
    """Enumerate every face of every round: the distribution of the pool size after
    ``rounds`` rounds (0: emptied), with no Markov chain."""
    if rounds == 0 or pool == 0:
        return {pool: Fraction(1)}
    out: defaultdict[int, Fraction] = defaultdict(Fraction)  # a Counter's values are ints
    for roll in itertools.product(FACES, repeat=pool):
        kept = sum(1 for f in roll if _value(f, dt) > 0)
        nxt = 0 if kept == 0 else min(kept + add, cap)
        for size, p in _brute_pool(nxt, dt, add, rounds - 1, cap).items():
            out[size] += p / 12**pool
    return dict(out)


@pytest.mark.parametrize(("pool", "dt", "add", "rounds", "cap"), [
    (1, 7, 0, 3, 100), (2, 7, 1, 2, 100), (2, 11, 1, 2, 100), (2, 2, 2, 2, 3),
    (3, 9, 0, 2, 100), (1, 12, 2, 2, 100), (2, 5, 3, 1, 4),
])
def test_pool_survival_matches_enumeration_of_every_roll(pool: int, dt: int, add: int,
                                                          rounds: int, cap: int) -> None:
    """The Markov chain over pool sizes equals enumerating every face of every round."""
    brute = _brute_pool(pool, dt, add, rounds, cap)
    assert pool_distribution(pool, dt, add, rounds, cap) == brute
    assert survival(pool, dt, add, rounds, cap) == 1 - brute.get(0, Fraction(0))


def _binary_pool(pool: int, q: Fraction, add: int, rounds: int, cap: int) -> Fraction:
    """Survival by enumerating which dice fail each round (2**n patterns, weighted)."""
    if pool == 0:
        return Fraction(0)
    if rounds == 0:
        return Fraction(1)
    total = Fraction(0)
    for pattern in itertools.product((True, False), repeat=pool):
        fails = sum(pattern)
        weight = q**fails * (1 - q) ** (pool - fails)
        kept = pool - fails
        total += weight * _binary_pool(0 if kept == 0 else min(kept + add, cap), q, add,
                                       rounds - 1, cap)
    return total


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(1, 12), st.integers(0, 3), st.integers(1, 3),
       st.integers(4, 6))
def test_survival_matches_enumeration_of_failure_patterns(pool: int, dt: int, add: int,
                                                          rounds: int, cap: int) -> None:
    """For larger chains, enumerating which dice fail each round gives the same survival."""
    q = Fraction(sum(1 for f in FACES if _value(f, dt) < 0), 12)
    assert survival(pool, dt, add, rounds, cap) == _binary_pool(pool, q, add, rounds, cap)


def test_survival_properties() -> None:
    """Survival starts at 1, never rises with more rounds, and floats agree with fractions."""
    assert survival(5, 7, 2, 0) == 1
    exact = [survival(5, 7, 2, k) for k in range(1, 8)]
    assert all(a >= b for a, b in itertools.pairwise(exact))
    assert survival_float(5, 7, 2, 7) == pytest.approx([float(p) for p in exact], rel=1e-12)
    assert sum(pool_distribution(30, 6, 3, 6).values()) == 1
    assert survival(1, 12, 0, 1) == Fraction(1, 12)


def test_odds_summary_is_what_the_table_sees() -> None:
    """The view's summary: P(success), mean margin, margins, and survival for extended tests."""
    summary = odds_summary(3, 7, add=2, rounds=3)
    assert summary["success"] == pytest.approx(float(success_probability(3, 7)))
    assert summary["survival"] == pytest.approx([float(survival(3, 7, 2, k))
                                                 for k in (1, 2, 3)])
    assert sum(summary["distribution"].values()) == pytest.approx(1.0)
    assert "survival" not in odds_summary(3, 7)


def test_the_views_floats_never_read_certain() -> None:
    """20 dice at DT 1 are all lost with chance 12**-20: the float of surviving was 1.0 and
    the page read "100.00%"; it stays below 1, as every survival and success does."""
    assert survival(20, 1, 2, 1) < 1
    summary = odds_summary(20, 1, add=2, rounds=5)
    assert all(0 < p < 1 for p in summary["survival"])
    assert summary["survival"][0] == ALMOST_CERTAIN
    for dice, dt in ((100, 1), (1, 12), (100, 12)):
        assert 0 < odds_summary(dice, dt, add=20)["success"] < 1
        assert all(0 < p < 1 for p in odds_summary(dice, dt, add=20)["survival"])


def test_chain_limits() -> None:
    """Pools beyond 100 dice, negative additions and empty caps are refused."""
    with pytest.raises(ValueError, match="a pool holds 0 to 100 dice"):
        margin_distribution(101, 7)
    with pytest.raises(ValueError, match="dice added and rounds are not negative"):
        survival(5, 7, -1, 2)
    with pytest.raises(ValueError, match="the pool holds 0 to 4 dice"):
        survival(5, 7, 1, 2, cap=4)
