"""Benchmark of the sr3 system: exact odds, the declared-test view, and deciding a test.

Run ``python tests/bench/sr3_odds.py``; it prints figures and asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import random
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from poolhall.events import sr3  # noqa: E402
from poolhall.projections.sr3_odds import odds_table, open_distribution, success_distribution  # noqa: E402
from tests.sr3.sr3_support import Table  # noqa: E402


def per_call(statement: object, number: int) -> float:
    """Best of five runs, in milliseconds per call."""
    return min(timeit.repeat(statement, number=number, repeat=5)) / number * 1000  # type: ignore[arg-type]


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help
    print("exact success distribution (Fractions), ms per call")
    for dice in (5, 10, 20, 50):
        cells = [f"TN {tn}: {per_call(lambda d=dice, t=tn: success_distribution(d, t), 20):7.3f}"
                 for tn in (4, 8, 13)]
        print(f"  {dice:3d} dice  " + "  ".join(cells))
    print("open-test distribution of the highest total (to 18), ms per call")
    for dice in (5, 10, 20, 50):
        print(f"  {dice:3d} dice  {per_call(lambda d=dice: open_distribution(d), 20):7.3f}")
    print("declared-test odds view (base + every pool-dice choice), ms per call")
    for base, extra in ((5, 5), (10, 10), (20, 20)):
        ms = per_call(lambda b=base, e=extra: odds_table(b, 6, e, beat=2), 10)
        print(f"  {base} base + 0..{extra} pool dice at TN 6: {ms:7.3f}")
    table = Table()
    table.run("gm", sr3.StartCombat)
    table.rng = random.Random(1)
    command = sr3.RollPoolTest(id="b", character="sam", kind="dodge", tn=4,
                               pools={"combat": 1})

    def decide() -> None:
        table.decide("gm", sr3.RollPoolTest, **{f: getattr(command, f) for f in
                                                ("character", "kind", "tn", "pools")})

    print(f"decide a Dodge test with pool dice (no append): {per_call(decide, 2000):.4f} ms")


if __name__ == "__main__":
    main()
