"""Roll to ack with no one else at the table, this code beside another revision, alternately.

``log_scale.py`` times 50 rolls right after its 200 joins and five catch-ups, at a table of a
hundred members whose broadcasts share the benchmark's one client process; its roll-to-ack
differences are of tenths of a millisecond, less than its rounds vary. This times the same
command alone: each server serves a copy of its own 10,000-event one-campaign log (the ones
``log_scale.py`` builds and caches), one member rolls ``1d6`` one roll after another, and the
median of each round is printed, on each directory given (``--dirs /tmp /dev/shm``: on
``/dev/shm`` no ``fsync`` waits, so what is left there is CPU).

    python tests/bench/roll_to_ack.py --against 34f704b --dirs /tmp /dev/shm
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

import log_scale  # noqa: E402
from _log_build import ADMIN, member_token  # noqa: E402
from _servers import checkout, ratio_line, revision_name  # noqa: E402

EVENTS = 10_000
SKIPPED = 20
"""Rolls of each round not counted: the first commits the epoch's seed."""


async def _rolls(port: int, count: int) -> float:
    """The median ms from sending a roll to its ack, one after another
    (:func:`log_scale.command_ms`), after :data:`SKIPPED` rolls not counted."""
    connection, _, _ = await log_scale.joined(f"ws://127.0.0.1:{port}",
                                              member_token("c-0", 0), "c-0")
    try:
        await log_scale.command_ms(connection, SKIPPED)
        return await log_scale.command_ms(connection, count)
    finally:
        await connection.close()


def _round(code: Path, log: Path, directory: Path, count: int) -> float:
    """One server of ``code`` on a copy of ``log`` in ``directory``: its rolls' median."""
    with tempfile.TemporaryDirectory(dir=directory, prefix="poolhall-ack-") as work:
        db = Path(work) / "log.db"
        shutil.copy(log, db)
        settings = log_scale.settings_for(code)
        if "    campaign_rate:" in (code / "server" / "settings.py").read_text():
            settings.update(campaign_rate=100_000.0, campaign_burst=100_000)  # one table
        child = subprocess.Popen([sys.executable, "-c", log_scale.CHILD, str(db), ADMIN,
                                  json.dumps(settings)], cwd=code, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True,
                                 env={**os.environ, "PYTHONPATH": str(code)})
        try:
            assert child.stdout is not None
            _, port, _ = child.stdout.readline().split()
            log_scale.wait_healthy(int(port))
            return asyncio.run(_rolls(int(port), count))
        finally:
            assert child.stdin is not None
            child.stdin.close()
            child.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="the revision to compare with")
    parser.add_argument("--dirs", nargs="+", type=Path, default=[Path(tempfile.gettempdir())],
                        help="directories the logs are served from (default: the temp dir)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rolls", type=int, default=300)
    args = parser.parse_args()
    print(f"roll to ack, alone at the table: load average {os.getloadavg()[0]:.2f}")
    with ExitStack() as stack:
        before = stack.enter_context(checkout(args.against))
        codes = {"this": ROOT, "before": before}
        logs = {name: log_scale.log_of(code, EVENTS, 1, fresh=False)[0]
                for name, code in codes.items()}
        print(f"this: {revision_name()}; before: {args.against}")
        for directory in args.dirs:
            medians: dict[str, list[float]] = {"this": [], "before": []}
            for k in range(args.rounds):
                for name in ("this", "before") if k % 2 == 0 else ("before", "this"):
                    medians[name].append(_round(codes[name], logs[name], directory,
                                                args.rolls))
            rounds = {name: ", ".join(f"{ms:.2f}" for ms in values)
                      for name, values in medians.items()}
            print(f"{directory}: rounds' medians, this {rounds['this']} ms;"
                  f" before {rounds['before']} ms")
            print(ratio_line("roll to ack p50", medians["this"], medians["before"], " ms", 2,
                             ceiling=1.10)[0])


if __name__ == "__main__":
    main()
