"""What the command index's housekeeping costs the writer (:mod:`events.command_keys`).

::

    python tests/bench/index_merge.py                        # 1,048,576 commands, twice
    python tests/bench/index_merge.py --commands 262144 --repeat 1
    python tests/bench/index_merge.py --against ../before    # that checkout too, alternately

Each run appends ``--commands`` one-event commands with ``append_batch`` (random ids like a
client's, over 1,000 campaigns, 1,000 a batch) and, after each batch, does the index's pending
housekeeping as the group committer does between two commits, timing only those steps. Journal
moves are put off for the run (its limit raised), so every step timed is the index's: the tail
written as a generation, generations merged, merged-away ones removed. Prints, per million
commands, the writer thread's CPU seconds in those steps and the bytes they wrote (the WAL's
frames: ``wchar`` of ``/proc/self/io``), and the generations left.

Every run is a child process on a fresh file; ``--against CHECKOUT`` runs that checkout's
``events`` the same way, alternately with this one's, and prints the ratio of the medians (the
machine is shared: compare runs made together). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CAMPAIGNS = 1_000
BATCH = 1_000


def _written() -> int:
    """Bytes this process has handed to ``write``-family calls so far."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise SystemExit("no wchar in /proc/self/io: this benchmark needs Linux")


def child(root: Path, commands: int, work: Path) -> dict[str, float]:
    """One run, with ``root``'s ``events`` package: the index's CPU seconds and bytes."""
    sys.path.insert(0, str(root))
    from events import core, journal
    from events.dice import RolledTerm
    from events.log import AppendRequest, prepare
    from events.store import SqliteLog

    if hasattr(journal, "JOURNAL_LIMIT"):  # a checkout from before the block layout
        journal.JOURNAL_LIMIT = 1 << 40  # no move: every housekeeping step is the index's
    event = prepare(core.DiceRolled(expression="2d6", terms=(RolledTerm(sides=6, faces=(3, 5)),),
                                    total=8))
    log = SqliteLog(work / "index.db")
    heads = [0] * CAMPAIGNS
    cpu = written = 0.0
    for start in range(0, commands, BATCH):
        ids = secrets.token_hex(8 * BATCH)
        batch = []
        for n in range(start, min(start + BATCH, commands)):
            k = n % CAMPAIGNS
            batch.append(AppendRequest(
                campaign=f"s{k}", expected_head=heads[k], events=(event,), actor="gm",
                command_id=f"c-{ids[(n - start) * 16:(n - start + 1) * 16]}",
                at="2026-11-26T12:00:00.000Z", id_looked_up=True))
            heads[k] += 1
        for result in log.append_batch(batch):
            if isinstance(result, Exception):
                raise result
        while log.has_housework:
            before_cpu, before_written = time.thread_time(), _written()
            log.housekeeping()
            cpu += time.thread_time() - before_cpu
            written += _written() - before_written
        if start % 65_536 < BATCH:
            log.checkpoint()  # keep the WAL short, outside what is timed
    generations = log._keys.generations  # noqa: SLF001 (a benchmark's look inside)
    return {"cpu_s": cpu, "bytes": written, "generations": generations}


def run(root: Path, commands: int) -> dict[str, float]:
    """A child process running :func:`child` for ``root``, on a fresh file."""
    with tempfile.TemporaryDirectory(prefix="index-merge-") as work:
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(root), "--commands", str(commands),
             "--dir", work], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the run for {root} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--against", type=Path, default=None, metavar="CHECKOUT",
                        help="also run this checkout's events package, alternately")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.commands, args.dir)))
        return
    roots = {"now": ROOT} if args.against is None else {
        "before": args.against.resolve(), "now": ROOT}
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in roots}
    per_million = 1e6 / args.commands
    for _ in range(args.repeat):  # alternately, so both see the same load
        for label, root in roots.items():
            result = run(root, args.commands)
            runs[label].append(result)
            print(f"{label:>6}: {args.commands:,} commands: index housekeeping"
                  f" {result['cpu_s'] * per_million:.2f} CPU-s and"
                  f" {result['bytes'] * per_million / 2**20:,.0f} MiB written a million"
                  f" commands; {result['generations']:.0f} generations left", flush=True)
    if args.against is not None:
        cpu = {label: statistics.median(r["cpu_s"] for r in runs[label]) for label in runs}
        written = {label: statistics.median(r["bytes"] for r in runs[label]) for label in runs}
        print(f"now / before: CPU {cpu['now'] / cpu['before']:.2f}x,"
              f" bytes written {written['now'] / written['before']:.2f}x", flush=True)


if __name__ == "__main__":
    main()
