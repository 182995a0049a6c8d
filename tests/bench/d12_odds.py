"""Benchmark of the d12 odds and decisions: ``python tests/bench/d12_odds.py``.

Prints how long the exact margin distribution, the exact and float survival chains, the view
of one open test, and deciding + folding one extended round take, for pools up to 100 dice.
"""

from __future__ import annotations

import argparse
import random
import sys
import timeit
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from poolhall.events import d12  # noqa: E402
from poolhall.projections.d12_odds import (  # noqa: E402
    margin_counts,
    odds_summary,
    success_probability,
    survival,
    survival_float,
)
from tests.d12.d12_support import Table  # noqa: E402


def _ms(fn: Any, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=3)) / number * 1000


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help
    print("d12 odds (ms per call, best of 3)")
    print(f"{'dice':>5} {'margins':>9} {'P(success)':>11} {'survival5 exact':>16} "
          f"{'survival5 float':>16} {'view':>8}")
    for dice in (5, 10, 20, 50, 100):
        print(f"{dice:>5} "
              f"{_ms(lambda n=dice: margin_counts(n, 7), 20):>9.3f} "
              f"{_ms(lambda n=dice: success_probability(n, 7), 20):>11.3f} "
              f"{_ms(lambda n=dice: survival(n, 7, 3, 5), 3):>16.3f} "
              f"{_ms(lambda n=dice: survival_float(n, 7, 3, 5), 10):>16.3f} "
              f"{_ms(lambda n=dice: odds_summary(n, 7, 3, 5), 10):>8.3f}")
    long_chain = _ms(lambda: survival(100, 7, 3, 20), 1)
    print(f"exact survival, 100 dice, 20 rounds: {long_chain:.1f} ms")

    table = Table()
    table.set_rating("han", "STR", 20)
    table.set_rating("han", "CON", 10)
    table.rng = random.Random(1)
    rounds = 0
    test = 0

    def one_round() -> None:
        nonlocal rounds, test
        if rounds % 50 == 0:
            started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",),
                                dt=4, extended=True, refresh="CON")[0]
            assert isinstance(started, d12.ThresholdTestStarted)
            test = started.test
        table.run("han-player", d12.RollThresholdTest, test=test)
        if not table.game.tests[test].open:
            rounds = -1
        elif rounds % 50 == 49:
            table.run("gm", d12.EndThresholdTest, test=test)
        rounds += 1

    per_round = _ms(one_round, 2000)
    print(f"decide + fold one extended round (20-30 dice): {per_round * 1000:.0f} us")


if __name__ == "__main__":
    main()
