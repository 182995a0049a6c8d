"""Exact odds of a narrative pool, checked against brute-force enumeration of the faces."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from poolhall.events.narrative import Pool
from poolhall.projections.narrative_dice import FACE_VECTORS, FACES
from poolhall.projections.narrative_odds import distribution, summary

KINDS = ("proficiency", "ability", "difficulty", "challenge", "boost", "setback")


def brute_force(pool: Pool) -> Counter[tuple[int, int, int, int]]:
    """Every combination of faces, counted by (net success, net advantage, tr, de)."""
    dice = [kind for kind in KINDS for _ in range(pool.count(kind))]
    out: Counter[tuple[int, int, int, int]] = Counter()
    for faces in itertools.product(*(FACE_VECTORS[kind] for kind in dice)):
        s = sum(f[0] for f in faces)
        a = sum(f[1] for f in faces)
        out[(s, a, sum(f[2] for f in faces), sum(f[3] for f in faces))] += 1
    return out


def test_single_dice_match_their_faces() -> None:
    """One die's distribution is its face table, face by face."""
    for kind in KINDS:
        expected = Counter(FACE_VECTORS[kind])
        assert Counter(distribution(Pool(**{kind: 1})).joint()) == expected
        assert distribution(Pool(**{kind: 1})).total == len(FACES[kind])


def test_empty_pool_never_succeeds() -> None:
    """No dice: one outcome, nothing on it, a failure."""
    dist = distribution(Pool())
    assert dist.joint() == {(0, 0, 0, 0): 1}
    assert dist.p_success() == 0


def test_mixed_pools_match_brute_force_enumeration() -> None:
    """Hand-picked pools of every kind agree with itertools.product over the faces."""
    for pool in (Pool(proficiency=1, ability=1, difficulty=1, challenge=1),
                 Pool(proficiency=2, challenge=2),
                 Pool(boost=2, setback=2, ability=1),
                 Pool(proficiency=1, ability=1, difficulty=1, challenge=1, boost=1, setback=1)):
        assert Counter(distribution(pool).joint()) == brute_force(pool), pool


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=0, max_size=4))
def test_property_odds_equal_brute_force_on_small_pools(dice: list[str]) -> None:
    """Any pool of up to four dice: the exact distribution is the enumeration's."""
    pool = Pool(**Counter(dice))
    dist = distribution(pool)
    enumerated = brute_force(pool)
    assert Counter(dist.joint()) == enumerated
    assert dist.total == sum(enumerated.values())
    wins = sum(c for (s, _, _, _), c in enumerated.items() if s > 0)
    assert dist.p_success() == Fraction(wins, dist.total)
    for k in (-1, 0, 1, 2):
        hits = sum(c for (_, a, _, _), c in enumerated.items() if a >= k)
        assert dist.p_advantage_at_least(k) == Fraction(hits, dist.total)
    triumphs = sum(c for (_, _, t, _), c in enumerated.items() if t)
    despairs = sum(c for (_, _, _, d), c in enumerated.items() if d)
    assert dist.p_triumph() == Fraction(triumphs, dist.total)
    assert dist.p_despair() == Fraction(despairs, dist.total)
    mean_s = Fraction(sum(s * c for (s, _, _, _), c in enumerated.items()), dist.total)
    assert dist.means()[0] == mean_s


def test_probabilities_are_exact_and_sum_to_one() -> None:
    """The target pool's probabilities are Fractions summing to exactly 1."""
    pool = Pool(proficiency=3, ability=2, difficulty=3, challenge=2, boost=2, setback=2)
    probabilities = distribution(pool).probabilities()
    assert all(isinstance(p, Fraction) for p in probabilities.values())
    assert sum(probabilities.values()) == 1
    assert distribution(pool).total == 12 ** 5 * 8 ** 5 * 6 ** 4


def test_means_add_up_die_by_die() -> None:
    """Expectation is linear: a big pool's means are the sums of each die's means."""
    pool = Pool(proficiency=4, ability=3, difficulty=3, challenge=4, boost=2, setback=3)
    expected = [Fraction(0)] * 4
    for kind in KINDS:
        for i in range(4):
            expected[i] += pool.count(kind) * Fraction(
                sum(v[i] for v in FACE_VECTORS[kind]), len(FACE_VECTORS[kind]))
    assert list(distribution(pool).means()) == expected


def test_large_pools_need_wide_counts_and_stay_exact() -> None:
    """Past 2**64 outcomes the counts still add up to the total (wide slots)."""
    pool = Pool(proficiency=10, challenge=10)
    dist = distribution(pool)
    assert dist.total > 2 ** 64
    assert sum(dist.joint().values()) == dist.total
    assert sum(dist.success_counts().values()) == dist.total
    assert dist.p_triumph() == 1 - Fraction(11, 12) ** 10


def test_summary_gives_floats_and_exact_text() -> None:
    """The summary the table sees: floats to display, exact fractions as text."""
    odds = summary(Pool(ability=1))
    assert odds.p_success_exact == "1/2"
    assert odds.p_success == 0.5
    assert odds.p_advantage[1] == 0.5
    assert odds.p_triumph == 0
    assert odds.net_successes == {0: 0.5, 1: 0.375, 2: 0.125}
    assert summary(Pool(force=3)).mean_light == 3 * 8 / 12
