"""How fast ``poolhall verify`` recomputes fair rolls: dice a second (target >= 200,000).

Builds one campaign's log in memory (an epoch of free rolls of mixed dice, stamped the way
the server stamps them, then its reveal) and times
:func:`poolhall.projections.fair_verify.check_campaign` over it: the recomputation itself, apart
from reading the file (which the hash-chain check measures). Run: ``python
tests/bench/verify_rolls.py [--rolls N]``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from poolhall.events import core  # noqa: E402
from poolhall.events.base import Recorded  # noqa: E402
from poolhall.events.dice import RolledTerm  # noqa: E402
from poolhall.events.fair import (  # noqa: E402
    DieStream,
    FairStamp,
    SeedCommitted,
    SeedRevealed,
    client_seeds_digest,
    commitment,
)
from poolhall.projections.fair_verify import check_campaign  # noqa: E402

SIDES = (4, 6, 8, 10, 12, 20, 100)


def build(rolls: int, per_roll: int) -> list[Recorded]:
    """A log: commit, ``rolls`` free rolls of ``per_roll`` dice each, reveal."""
    seed = hashlib.sha256(b"bench").digest()
    digest = client_seeds_digest({})  # no client seed set in this log
    events: list[object] = [SeedCommitted(epoch=1, commitment=commitment(seed))]
    for nonce in range(rolls):
        sides = SIDES[nonce % len(SIDES)]
        stream = DieStream(seed, "bench", 1, digest, nonce)
        faces = tuple(stream.face(sides) for _ in range(per_roll))
        events.append(core.DiceRolled(
            expression=f"{per_roll}d{sides}", terms=(RolledTerm(sides=sides, sign=1,
                                                                faces=faces),),
            total=sum(faces), fair=FairStamp(epoch=1, nonce=nonce, seeds=digest.hex())))
    events.append(SeedRevealed(epoch=1, seed=seed.hex(), rolls=rolls))
    return [Recorded(seq=n, at="", actor="gm", command=f"c{n}", event=e)  # type: ignore[arg-type]
            for n, e in enumerate(events, start=1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rolls", type=int, default=20_000)
    parser.add_argument("--dice", type=int, default=10, help="dice per roll")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    log = build(args.rolls, args.dice)
    best = cpu = float("inf")
    for _ in range(args.repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        counts = check_campaign("bench", log)
        best = min(best, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
        assert not counts.problems
        assert counts.dice_checked == args.rolls * args.dice
    dice = args.rolls * args.dice
    sys.stdout.write(f"verify recomputed {dice} dice of {args.rolls} rolls in {best:.3f} s "
                     f"({cpu:.3f} s of CPU): {dice / best:,.0f} dice/s wall, "
                     f"{dice / cpu:,.0f} dice/s of CPU (target >= 200,000)\n")


if __name__ == "__main__":
    main()
