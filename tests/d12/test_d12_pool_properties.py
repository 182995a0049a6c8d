"""Hypothesis properties of the d12 pool algebra: counting, margins, and an extended pool's size."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from poolhall.events import d12
from tests.d12.d12_support import FixedDice, Table

faces_st = st.lists(st.integers(1, 12), min_size=1, max_size=30)
dt_st = st.integers(1, 12)


def _pair_off(faces: list[int], dt: int) -> int:
    """The rules' note, done as with real dice: pair a success die with a failure die and set
    both aside (a 12 or a 1 takes two of the opposite), then count what is left."""
    weight = {12: 2, 1: 2}
    successes = [weight.get(f, 1) for f in faces if f == 12 or (f != 1 and f > dt)]
    failures = [weight.get(f, 1) for f in faces if f == 1 or (f != 12 and f <= dt)]
    while successes and failures:
        s, f = successes.pop(), failures.pop()
        if s > f:
            successes.append(s - f)
        elif f > s:
            failures.append(f - s)
    return sum(successes) - sum(failures)


@given(faces_st, dt_st)
def test_rule_margin_by_pairing_success_and_failure_dice_matches(faces: list[int],
                                                                   dt: int) -> None:
    """Rule (Note): "the margin can be determined by pairing success and failure dice and
    setting them aside (for 1 and 12, remove two of the opposite dice), and counting the
    remaining dice" - it gives the margin the server records."""
    table = Table()
    table.rng = FixedDice(faces)
    rolled = table.run("gm", d12.RollBasicTest, dice=len(faces), dt=dt)[-1]
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert rolled.margin == _pair_off(faces, dt)


@given(faces_st, dt_st)
def test_counts_add_up(faces: list[int], dt: int) -> None:
    """Every die counts once: successes and failures are the sums of the per-die values,
    each die is worth 1 or 2, and the margin is their difference."""
    table = Table()
    table.rng = FixedDice(faces)
    rolled = table.run("gm", d12.RollBasicTest, dice=len(faces), dt=dt)[-1]
    assert isinstance(rolled, d12.ThresholdDiceRolled)
    assert rolled.values == tuple(d12.die_value(f, dt) for f in faces)
    assert rolled.successes == sum(v for v in rolled.values if v > 0)
    assert rolled.failures == -sum(v for v in rolled.values if v < 0)
    assert len(faces) <= rolled.successes + rolled.failures <= 2 * len(faces)
    assert rolled.margin == rolled.successes - rolled.failures
    assert rolled.succeeded == (rolled.margin > 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 20), st.integers(0, 20), dt_st, st.integers(0, 2**32),
       st.integers(1, 8))
def test_extended_pool_shrinks_by_its_failed_dice_and_grows_by_con(
        strength: int, con: int, dt: int, seed: int, rounds: int) -> None:
    """After each round the pool is the dice that did not fail plus CON (at most 100); it
    ends, and only then, when no die is left; the projection agrees with the events."""
    table = Table()
    table.set_rating("han", "STR", strength)
    table.set_rating("han", "CON", con)
    started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=dt,
                        extended=True, refresh="CON")[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    test = started.test
    table.rng = random.Random(seed)
    pool = strength
    for _ in range(rounds):
        events = table.run("han-player", d12.RollThresholdTest, test=test)
        rolled, removed = events[0], events[1]
        assert isinstance(rolled, d12.ThresholdDiceRolled)
        assert isinstance(removed, d12.FailedDiceRemoved)
        assert len(rolled.faces) == pool
        failed = tuple(i for i, f in enumerate(rolled.faces) if f == 1 or (f != 12 and f <= dt))
        assert removed.dice == failed
        assert removed.count == len(failed)
        left = pool - len(failed)
        assert removed.pool == left
        if left == 0:
            assert isinstance(events[2], d12.ThresholdTestEnded)
            assert not table.game.tests[test].open
            break
        added = events[2]
        assert isinstance(added, d12.RefreshDiceAdded)
        pool = min(left + con, d12.MAX_POOL)
        assert (added.count, added.pool) == (pool - left, pool)
        assert table.game.tests[test].pool == pool
