"""Benchmark of the narrative exact odds: ``python tests/bench/narrative_odds.py``.

Prints, for pools of 5, 10, 14 and 20 dice, how long the exact joint distribution of (net
success, net advantage, triumphs, despairs) takes from scratch (the cache bypassed), how long
turning it into a plain ``{(s, a, tr, de): count}`` dict takes, and the whole odds summary the
table is sent. The 14-dice pool is the issue's target: 3 Proficiency, 2 Ability, 3 Difficulty,
2 Challenge, 2 Boost, 2 Setback, under 10 ms.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from poolhall.events.narrative import Pool  # noqa: E402
from poolhall.projections import narrative_odds  # noqa: E402

POOLS = (
    Pool(proficiency=1, ability=2, difficulty=2),
    Pool(proficiency=2, ability=2, difficulty=2, challenge=1, boost=2, setback=1),
    Pool(proficiency=3, ability=2, difficulty=3, challenge=2, boost=2, setback=2),
    Pool(proficiency=5, ability=5, difficulty=5, challenge=5),
)


def _ms(fn: Any, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1000


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help
    compute = narrative_odds._compute.__wrapped__  # the uncached computation

    def fresh(pool: Pool) -> narrative_odds.Distribution:
        return compute((pool.proficiency, pool.ability, pool.difficulty, pool.challenge,
                        pool.boost, pool.setback))

    def summary(pool: Pool) -> None:
        narrative_odds._compute.cache_clear()
        narrative_odds.summary(pool)

    print("narrative exact odds (ms per call, best of 5, no cache)")
    print(f"{'dice':>5} {'pool':<16} {'outcomes':>22} {'distribution':>13} {'as dict':>9} "
          f"{'summary':>9} {'P(success)':>11}")
    for pool in POOLS:
        number = 20 if pool.total < 20 else 3
        dist = fresh(pool)
        print(f"{pool.total:>5} {pool.notation():<16} {dist.total:>22} "
              f"{_ms(lambda p=pool: fresh(p), number):>13.3f} "
              f"{_ms(lambda d=dist: d.joint(), number):>9.3f} "
              f"{_ms(lambda p=pool: summary(p), number):>9.3f} "
              f"{float(dist.p_success()):>11.4f}")
    target = POOLS[2]
    full = _ms(lambda: fresh(target).joint(), 20)
    verdict = "met" if full < 10 else "MISSED"
    print(f"target {target.notation()} (14 dice): full joint distribution as a dict in "
          f"{full:.2f} ms (target < 10 ms: {verdict})")


if __name__ == "__main__":
    main()
