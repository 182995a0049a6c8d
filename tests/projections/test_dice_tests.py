"""The dice tested face by face, and the family of a page's tests: exact p-values checked
against brute-force enumeration, fair pages quiet, loaded dice caught (issue 30)."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from poolhall.events import core
from poolhall.events.dice import RolledTerm
from poolhall.projections.analytics import report
from poolhall.projections.analytics_faces import (
    EXACT_DICE,
    MONTE_CARLO_DRAWS,
    bernoulli_sum_p,
    binomial_p,
    face_test,
)
from poolhall.projections.analytics_family import holm
from tests.projections.analytics_logs import (
    LogBuilder,
    d12_session,
    free_session,
    narrative_session,
    sr3_session,
)


def _enumerated_p(counts: list[int]) -> float:
    """P(sum of squared counts >= observed) over every sequence of faces: brute force."""
    k, n = len(counts), sum(counts)
    observed = sum(c * c for c in counts)
    at_least = 0
    for faces in product(range(k), repeat=n):
        seen = Counter(faces)
        at_least += sum(c * c for c in seen.values()) >= observed
    sequences: int = k**n  # int ** int is typed Any (a negative power is a float)
    return at_least / sequences


@pytest.mark.parametrize(("counts", "by_hand"), [
    ([1] + [0] * 11, 1.0),            # d12 rolled once: nothing to learn
    ([4, 0, 0, 0], 4 / 256),          # d4 x4 all one face: 0.016 (the asymptotic said 0.0074)
    ([2] + [0] * 19, 20 / 400),       # one d20 face twice: 0.05 (the asymptotic said 0.006)
])
def test_the_issues_small_samples_have_their_exact_p_values(counts: list[int],
                                                            by_hand: float) -> None:
    """The three cases of the issue, worked by hand: exact, not the chi-square's asymptote."""
    p, method, error, _ = face_test(counts)
    assert method == "exact"
    assert error is None
    assert p == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.parametrize("counts", [
    [2, 1, 0, 0], [3, 0, 1, 0], [1, 1, 1, 1, 0, 0], [3, 1, 0, 0, 0, 0], [2, 2, 0, 1, 0, 0],
    [0, 0, 0, 5, 0, 1], [1, 0, 2, 0, 0, 0, 0, 0], [2, 2, 2, 0], [1, 1, 1, 0, 0, 0, 0, 0, 0, 1],
])
def test_exact_face_tests_agree_with_enumerating_every_roll(counts: list[int]) -> None:
    """The partition count against every sequence of faces, one by one."""
    p, method, _, _ = face_test(counts)
    assert method == "exact"
    assert p == pytest.approx(_enumerated_p(counts), rel=1e-12)


def test_a_test_without_power_shows_no_p_value_and_joins_no_family() -> None:
    """d12 once cannot look unfair: no power. d4 x4 can (4/256 < 0.05)."""
    assert face_test([1] + [0] * 11)[3] is False
    assert face_test([1, 1, 1, 1])[3] is True
    log = LogBuilder()
    log.add(core.DiceRolled(expression="1d12", terms=(RolledTerm(sides=12, faces=(7,)),),
                            total=7))
    [test] = report(log.events).campaign_figures.faces
    assert (test.die, test.powered, test.adjusted) == ("free d12", False, None)
    assert test.verdict == "too few dice to tell"


def test_monte_carlo_between_exact_and_asymptotic_states_its_error_and_is_repeatable() -> None:
    """40 d20 (2 per face): a Monte Carlo p-value with a fixed seed, the same each time,
    within a few standard errors of the exact answer for a fair sample's statistic."""
    counts = [2] * 20
    p, method, error, powered = face_test(counts)
    assert method == "Monte Carlo"
    assert powered
    assert error is not None
    assert face_test(counts) == (p, method, error, powered)
    assert p > 0.99
    assert error <= (0.25 / MONTE_CARLO_DRAWS) ** 0.5  # the most even sample
    assert sum(counts) > EXACT_DICE


def test_binomial_and_rule_of_one_p_values_against_enumeration() -> None:
    """Triumphs among 3 Proficiency dice, and Rule-of-One disasters over tests of 1 and 2
    dice, against every outcome enumerated by hand."""
    twelfth = Fraction(1, 12)
    probabilities = [Fraction(3 if k in (1, 2) else 1) * twelfth**k * (1 - twelfth)**(3 - k)
                     for k in range(4)]
    for x in range(4):
        by_hand: Fraction | float = sum(p for p in probabilities if p <= probabilities[x])
        assert binomial_p(3, twelfth, x) == pytest.approx(float(by_hand), rel=1e-12)
    # two tests of one die (1/6 each) and one of two dice (1/36): enumerate the 6*6*36 rolls
    ways: Counter[int] = Counter()
    for a, b, c in product(range(6), range(6), range(36)):
        ways[(a == 0) + (b == 0) + (c == 0)] += 1
    total = 6 * 6 * 36
    for x in range(4):
        by_hand = sum(w for w in ways.values() if w <= ways[x]) / total
        assert bernoulli_sum_p({1: 2, 2: 1}, {1: 1 / 6, 2: 1 / 36}, x) == \
            pytest.approx(by_hand, rel=1e-9)


def _convolved_by_hand(chances: dict[int, int], p_of: dict[int, float], x: int) -> float:
    """The Rule-of-One p-value as first written: a Python loop over the counts, trial by trial,
    cut at the top below 1e-15 (never to fewer than x + 2 counts)."""
    distribution = [1.0]
    for key, trials in sorted(chances.items()):
        q = p_of[key]
        for _ in range(trials):
            step = [0.0] * (len(distribution) + 1)
            for i, w in enumerate(distribution):
                step[i] += w * (1 - q)
                step[i + 1] += w * q
            while len(step) > max(x + 2, 2) and step[-1] < 1e-15:
                step.pop()
            distribution = step
    if x >= len(distribution):
        return 0.0
    seen = distribution[x] * (1 + 1e-9)
    return min(1.0, sum(p for p in distribution if p <= seen))


@pytest.mark.parametrize("chances", [
    {1: 40, 3: 1500, 4: 1500, 5: 1500, 6: 1500},  # a long campaign: the array grows, is cut
    {2: 3, 3: 7},                                  # a short night: a few counts, no cut
    {4: 0, 7: 12},                                 # a size with no tests
])
def test_rule_of_one_p_value_is_the_hand_loops_to_the_bit(chances: dict[int, int]) -> None:
    """The Rule-of-One p-value, its convolution done by numpy a trial at a time, is the very
    float the loop over the counts gives, for counts seen, unseen and past the cut."""
    p_of = {d: 6.0**-d for d in chances}
    expected = sum(t * p_of[d] for d, t in chances.items())
    for x in sorted({0, 1, 2, int(expected), int(expected) + 5, 3 * int(expected) + 40, 400}):
        assert bernoulli_sum_p(chances, p_of, x) == _convolved_by_hand(chances, p_of, x), x


def test_holm_adjusts_step_down() -> None:
    """Holm on (0.01, 0.04, 0.03, 0.5): sorted 0.01 x 4 = 0.04, 0.03 x 3 = 0.09, 0.04 x 2 =
    0.08 raised to 0.09 (never below the one before), 0.5 x 1 - worked by hand."""
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])


def _page_has_a_verdict(section: object) -> bool:
    from poolhall.projections.analytics_model import Section

    assert isinstance(section, Section)
    rows = [section.luck, *section.players.values(), *section.characters.values()]
    return (any(r.verdict not in ("as fair dice go", "no rolls") for r in rows)
            or any(t.verdict.startswith("unlike") for t in section.faces)
            or any(t.verdict.endswith("fair dice give") for t in section.counts))


PLAY = {"narrative": narrative_session, "sr3": sr3_session, "d12": d12_session}


def test_fair_nights_give_a_page_with_no_verdict_19_times_in_20() -> None:
    """60 fair campaigns (the bench runs 1,000): at most 5 pages of 60 show any verdict
    (95% would allow 3; the margin covers the sampling error of 60 pages)."""
    flagged = 0
    for seed in range(60):
        system = ("narrative", "sr3", "d12")[seed % 3]
        log = LogBuilder(system=system)
        PLAY[system](log, random.Random(seed), 120)
        free_session(log, random.Random(1000 + seed), 20)
        flagged += _page_has_a_verdict(report(log.events).campaign_figures)
    assert flagged <= 5, flagged


@pytest.mark.parametrize(("system", "die"), [
    ("narrative", "ability"), ("sr3", "sr3 d6"), ("d12", "d12"), ("free", "free d6")])
def test_a_die_loaded_on_one_face_is_flagged_by_its_face_test(system: str, die: str) -> None:
    """One face twice as likely, over as many rolls as the power table gives >= 90% power
    for: the face test flags it (a verdict naming the face), the page says so."""
    log = LogBuilder(system="narrative" if system == "free" else system)
    if system == "free":
        free_session(log, random.Random(4), 400, loaded=True)  # 1,200 d6
    else:
        PLAY[system](log, random.Random(4), 600, loaded=True)
    figures = report(log.events).campaign_figures
    [test] = [t for t in figures.faces if t.die == die]
    assert test.adjusted is not None, test
    assert test.adjusted < 0.05, test
    assert test.verdict.startswith("unlike fair dice: face")
    assert "Holm" in figures.family
