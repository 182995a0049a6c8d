"""Exact odds of tests, checked against brute-force enumeration of Rule of Six chains."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolhall.events import sr3
from poolhall.projections.sr3_odds import (
    at_least,
    mean,
    odds_table,
    open_distribution,
    p_die_at_least,
    rule_of_one,
    success_distribution,
)
from poolhall.projections.sr3_views import odds_view
from tests.sr3.sr3_support import Table

SIXES = 3  # chains enumerated up to three sixes: exact for totals up to 18


def chains(sixes: int = SIXES) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every chain of faces with fewer than ``sixes`` sixes, and the cut-off chain of sixes."""
    out = []
    for k in range(sixes):
        for last in range(1, 6):
            out.append(((6,) * k + (last,), Fraction(1, 6) ** (k + 1)))
    out.append(((6,) * sixes + (1,), Fraction(1, 6) ** sixes))  # at least 6 x sixes + 1
    return out


def brute_successes(dice: int, tn: int) -> list[Fraction]:
    dist = [Fraction(0)] * (dice + 1)
    for combo in itertools.product(chains(), repeat=dice):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        dist[sum(sum(faces) >= tn for faces, _ in combo)] += p
    return dist


def brute_highest(dice: int) -> dict[int, Fraction]:
    dist: dict[int, Fraction] = {}
    for combo in itertools.product(chains(), repeat=dice):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        top = max(sum(faces) for faces, _ in combo)
        dist[top] = dist.get(top, Fraction(0)) + p
    return dist


def test_rule_of_six_single_die_odds() -> None:
    """TN up to 6: (7 - TN) / 6; above 6 a 6 must come up and the reroll add enough."""
    assert [p_die_at_least(tn) for tn in range(2, 8)] == [Fraction(7 - tn, 6)
                                                         for tn in range(2, 7)] + [Fraction(1, 6)]
    assert p_die_at_least(12) == Fraction(1, 36)
    assert p_die_at_least(13) == Fraction(1, 36)
    assert p_die_at_least(14) == Fraction(5, 216)


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
@pytest.mark.parametrize("tn", [2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 17, 18, 19])
def test_success_distribution_matches_brute_force(dice: int, tn: int) -> None:
    """P(successes = k) equals the enumeration of every chain of faces of every die."""
    assert success_distribution(dice, tn) == brute_successes(dice, tn)


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
def test_open_distribution_matches_brute_force(dice: int) -> None:
    """P(highest = t) of an open test equals the enumeration, for every t up to 18."""
    exact, tail = open_distribution(dice, upto=6 * SIXES)
    brute = brute_highest(dice)
    for total in range(1, 6 * SIXES + 1):
        assert exact[total] == brute.get(total, Fraction(0)), total
    assert tail == sum(p for t, p in brute.items() if t > 6 * SIXES)
    assert sum(exact) + tail == 1
    assert exact[6] == exact[12] == 0  # a die never stops on a six


def test_rule_of_one_odds() -> None:
    """Every die showing 1 has probability (1/6)^n."""
    assert rule_of_one(3) == Fraction(1, 216)


@given(st.integers(min_value=1, max_value=30), st.integers(min_value=2, max_value=40))
def test_success_distribution_is_a_distribution_with_binomial_mean(dice: int, tn: int) -> None:
    """The probabilities sum to 1 and the mean is dice x P(one die succeeds)."""
    dist = success_distribution(dice, tn)
    assert sum(dist) == 1
    assert mean(dist) == dice * p_die_at_least(tn)
    assert at_least(dist)[0] == 1


def test_odds_table_rows_for_each_number_of_pool_dice() -> None:
    """One row per choice of pool dice, more dice never worse."""
    rows = odds_table(base=3, tn=5, extra_max=4, beat=1)
    assert [row["dice"] for row in rows] == [3, 4, 5, 6, 7]
    assert rows[0]["success"] == pytest.approx(float(1 - Fraction(4, 6) ** 3))
    assert all(a["success"] < b["success"] for a, b in zip(rows, rows[1:], strict=False))
    assert rows[0]["beats"] == pytest.approx(float(at_least(success_distribution(3, 5))[2]))
    open_rows = odds_table(base=2, tn=None, extra_max=1)
    assert open_rows[0]["highest"]["1"] == pytest.approx(1 / 36)


def test_declared_test_shows_the_odds_for_each_number_of_pool_dice() -> None:
    """Declaring a Pistols test shows the odds with 0..5 Combat Pool dice (the skill rating)."""
    table = Table()
    (declared,) = table.run("sam-player", sr3.DeclarePoolTest, character="sam", kind="combat",
                            skill="pistols", tn=6)
    assert isinstance(declared, sr3.PoolTestDeclared)
    assert declared.base_dice == 5
    assert declared.limits == {"combat": 5}
    view = odds_view(declared, table.state)
    assert [row["pool_dice"] for row in view["rows"]] == [0, 1, 2, 3, 4, 5]
    expected = float(at_least(success_distribution(8, 6))[1])
    assert view["rows"][3]["success"] == pytest.approx(expected)
    assert table.game.declared["sam"] == declared
    table.run("sam-player", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
              tn=6, pools={"combat": 3})
    assert "sam" not in table.game.declared


def test_declared_dodge_shows_the_chance_of_a_complete_miss() -> None:
    """A dodge declared against a known attack shows P(more successes than the attack)."""
    table = Table()
    table.dice(5, 5, 1, 1, 1)
    table.run("gm", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols", tn=4)
    (declared,) = table.run("deck-player", sr3.DeclarePoolTest, character="deck", kind="dodge",
                            tn=4, opposes=1)
    assert isinstance(declared, sr3.PoolTestDeclared)
    view = odds_view(declared, table.state)
    assert view["beat"] == 2
    assert view["rows"][0]["pool_dice"] == 1  # a dodge has no dice without the pool
    assert view["rows"][2]["beats"] == pytest.approx(float(at_least(success_distribution(3, 4))[3]))
