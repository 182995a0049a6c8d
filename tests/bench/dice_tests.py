"""The report's dice tests simulated: false alarms on fair nights, and the power table.

::

    python tests/bench/dice_tests.py --fair 1000     # fair campaigns: pages with a verdict
    python tests/bench/dice_tests.py --power         # docs/explanation/dice-tests.md

``--fair N`` plays N fair campaigns with a seeded generator (narrative, Shadowrun and d12 in
turn; two game sessions of 60 rolls each and free ``3d6+1`` rolls; the builders of
``tests/projections/analytics_logs.py``), makes their report, and counts the pages - the
campaign's and each session's - that show any verdict at all (a luck row lucky or unlucky, a
die unlike fair dice, a rare result more or fewer than fair dice give). The target is at most
5%: the family of each page is corrected by Holm.

``--power`` draws, with a seeded numpy generator, ``n`` dice of ``k`` faces with one face twice
as likely as each other, and prints the share of samples the face test of
:mod:`poolhall.projections.analytics_faces` gives p < 0.05 (the test alone) and p < 0.005 (what Holm
asks of the smallest of a page of ten tests), for each ``k`` and ``n``.

Figures are printed, never asserted (the suite has small versions in
``tests/projections/test_dice_tests.py``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from poolhall.projections.analytics import report  # noqa: E402
from poolhall.projections.analytics_faces import face_test  # noqa: E402
from poolhall.projections.analytics_model import Section  # noqa: E402
from tests.projections.analytics_logs import (  # noqa: E402
    LogBuilder,
    d12_session,
    free_session,
    narrative_session,
    sr3_session,
)

PLAY = {"narrative": narrative_session, "sr3": sr3_session, "d12": d12_session}
SIDES = (4, 6, 8, 10, 12, 20, 100)
DICE = (25, 50, 100, 200, 400, 800, 1600, 3200)


def has_verdict(section: Section) -> bool:
    """Whether a page shows any verdict at all."""
    rows = [section.luck, *section.players.values(), *section.characters.values()]
    return (any(r.verdict not in ("as fair dice go", "no rolls") for r in rows)
            or any(t.verdict.startswith("unlike") for t in section.faces)
            or any(t.verdict.endswith("fair dice give") for t in section.counts))


def fair(campaigns: int) -> None:
    started = time.perf_counter()
    pages = flagged = campaign_flagged = 0
    for seed in range(campaigns):
        system = ("narrative", "sr3", "d12")[seed % 3]
        log = LogBuilder(system=system)
        rng = random.Random(seed)
        for session in (1, 2):
            PLAY[system](log, rng, 60, session=session)
            free_session(log, rng, 10)
        result = report(log.events)
        for i, section in enumerate([result.campaign_figures, *result.sessions]):
            pages += 1
            verdict = has_verdict(section)
            flagged += verdict
            campaign_flagged += verdict and i == 0
    print(f"{campaigns:,} fair campaigns, {pages:,} pages in {time.perf_counter() - started:.0f} s:"
          f" {flagged:,} pages with a verdict ({flagged / pages:.1%}; target at most 5%); "
          f"campaign pages {campaign_flagged / campaigns:.1%}")


def power(trials: int) -> None:
    import numpy

    generator = numpy.random.default_rng(2026)
    print(f"power of the face test, one face twice as likely ({trials} samples per cell; "
          "p < 0.05 alone / p < 0.005 as the first of ten tests under Holm)")
    print("faces | " + " | ".join(f"{n:>11}" for n in DICE))
    for k in SIDES:
        weights = numpy.ones(k)
        weights[-1] = 2.0
        weights /= weights.sum()
        cells = []
        for n in DICE:
            samples = generator.multinomial(n, weights, size=trials)
            ps = [face_test([int(c) for c in sample])[0] for sample in samples]
            alone = sum(p < 0.05 for p in ps) / trials
            holm = sum(p < 0.005 for p in ps) / trials
            cells.append(f"{alone:>5.0%}/{holm:>4.0%}")
        print(f"d{k:<4} | " + " | ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fair", type=int, metavar="N", help="simulate N fair campaigns")
    parser.add_argument("--power", action="store_true", help="print the power table")
    parser.add_argument("--trials", type=int, default=400, help="samples per power cell")
    args = parser.parse_args()
    if args.fair:
        fair(args.fair)
    if args.power:
        power(args.trials)
    if not args.fair and not args.power:
        parser.error("say --fair N, --power or both")


if __name__ == "__main__":
    main()
