"""Chaos trial: ``kill -9`` a writer in the middle of its housekeeping: is every append there?

::

    python tests/chaos/kill9_housekeeping.py            # 12 kills, each 0.3-2.5 s in
    python tests/chaos/kill9_housekeeping.py --quick    # 3 kills, each 0.3-0.8 s in

``kill9.py`` kills a whole server under a load too light to reach the log's housekeeping. Here
a child process plays the group committer's writer against
:class:`~poolhall.events.sqlite_backend.SqliteLog` directly, as fast as it can, with the WAL's limit
made small so that it is started over each time it passes 256 KiB, by a checkpointing thread asking
the writer (:meth:`~poolhall.events.sqlite_backend.SqliteLog.checkpoint`) as the server's does.
After each append it prints the campaigns' heads, which it has from the log's answer (acknowledged:
committed with ``synchronous=FULL``). After a random 0.3-2.5 s of appending it gets SIGKILL:
in an append, a restart of the WAL or a checkpoint. The next round reopens the same file.
(The WAL starts over about a hundred times a second, so a kill lands in an append, a restart
or a checkpoint with the same odds whenever it comes: the quick run, for the suite, kills
within 0.8 s, where its writer would otherwise keep a core busy for seconds more.)

Checks: every acknowledged event is in the log after each kill; every command the file holds
is found, by a reader of the killed file and by the writer that reopens it; every hash chain
verifies at the end. Prints a line per round, the verdicts and a ``CHAOS-RESULT`` JSON line;
exit 0 only if all hold.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from poolhall.events.sqlite_backend import SqliteLog, SqliteReader  # noqa: E402

CAMPAIGNS = 20
LONGEST = 2.5
"""The latest a round's kill comes, in seconds of appending (from 0.3)."""
QUICK_LONGEST = 0.8
"""The same for ``--quick``: a few dozen WAL restarts before the kill, as many kill points."""
WRITER = """
import sys, threading, time
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.events.sqlite_backend import log as store
from tests.events.store_contract import opened, request, rolled
store.JOURNAL_SIZE_LIMIT = 256 * 1024
log = SqliteLog(sys.argv[1])
restarts = 0
heads = {f"c{k}": log.head(f"c{k}") for k in range(int(sys.argv[2]))}

def checkpoints():
    while True:
        log.checkpoint()
        time.sleep(0.005)

threading.Thread(target=checkpoints, daemon=True).start()
n = 0
while True:
    n += 1
    requests = [request(c, h, *((opened(c),) if h == 0 else ()),
                        *[rolled(k % 6 + 1) for k in range(4)], command=f"{c}-{h}-{n}")
                for c, h in heads.items()]
    for (campaign, _), result in zip(list(heads.items()), log.append_batch(requests)):
        if isinstance(result, list):
            heads[campaign] = result[-1]
    print(" ".join(f"{c}={h}" for c, h in heads.items()), flush=True)
    while log.has_housework:
        log.housekeeping()
        restarts += 1
        print("restarts", restarts, flush=True)
"""


def round_(db: Path, delay: float) -> dict[str, Any]:
    """Start the writer on ``db``, kill it after ``delay`` seconds, compare what it was told
    with what the file holds."""
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(CAMPAIGNS)],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    stdout = child.stdout
    assert stdout is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(stdout))
    reader.start()  # line by line as it writes: a full pipe would stop the writer, not the kill
    deadline = time.monotonic() + 30  # its start-up first (under load, up to a second)
    while not any("=" in line for line in lines) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(delay)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    reader.join()
    # the kill may cut the last line short ("restarts " with no number, a head without its
    # number): only lines written whole were said, and an ack is a whole line
    lines = [line.removesuffix("\n") for line in lines if line.endswith("\n")]
    restarts = [int(line.split()[1]) for line in lines if line.startswith("restarts ")]
    heads = [line for line in lines if "=" in line]
    acked = {c: int(h) for c, h in (kv.split("=") for kv in heads[-1].split())} if heads else {}
    log = SqliteReader(db)
    lost = {c: [h, log.head(c)] for c, h in acked.items() if log.head(c) < h}
    wal = Path(f"{db}-wal")
    unfound = _unfound(log.command_records, db)
    log.close()
    return {"killed after": round(delay, 2), "appends": len(heads),
            "events acknowledged": sum(acked.values()), "lost": lost,
            "commands unfound by a reader": unfound,
            "wal restarts": restarts[-1] if restarts else 0,
            "wal at the kill": wal.stat().st_size if wal.exists() else 0}


def _unfound(command_records: Any, db: Path) -> int:
    """How many of the commands the file holds a lookup does not find."""
    with sqlite3.connect(db) as connection:
        by_campaign: dict[str, list[str]] = {}
        for campaign, command_id in connection.execute(
                "SELECT campaign, command_id FROM commands"):
            by_campaign.setdefault(campaign, []).append(command_id)
    return sum(len(ids) - len(command_records(campaign, ids))
               for campaign, ids in by_campaign.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--quick", action="store_true",
                        help=f"3 rounds, each killed within {QUICK_LONGEST:g} s")
    parser.add_argument("--seed", type=int, default=7, help="when each kill falls")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else args.rounds
    longest = QUICK_LONGEST if args.quick else LONGEST
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="poolhall-kill9-housekeeping-"))
    db = work / "log.db"
    results = []
    try:
        for n in range(rounds):
            result = round_(db, rng.uniform(0.3, longest))
            results.append(result)
            print(f"round {n + 1}: killed after {result['killed after']} s, "
                  f"{result['appends']} appends, {result['events acknowledged']:,} events "
                  f"acknowledged in all, {len(result['lost'])} campaigns short,"
                  f" {result['commands unfound by a reader']} commands unfound;"
                  f" {result['wal restarts']} WAL restarts,"
                  f" WAL {result['wal at the kill'] // 1024} KiB at the kill", flush=True)
        log = SqliteLog(db)  # the last kill's file, reopened
        try:
            unfound = _unfound(log.command_records, db)
            checked, problems = log.verify()
        finally:
            log.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    checks = [
        ("every acknowledged event is in the log after each kill",
         all(not r["lost"] for r in results)),
        ("the writer got acknowledgements before every kill",
         all(r["appends"] > 0 for r in results)),
        ("every command is found after each kill, by a reader and by the writer that"
         " reopens the file",
         all(r["commands unfound by a reader"] == 0 for r in results) and unfound == 0),
        ("the writer started the WAL over during the trial",
         any(r["wal restarts"] > 0 for r in results)),
        (f"every hash chain verifies ({checked:,} events)", not problems),
    ]
    print()
    for name, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  [correctness] {name}")
    print("CHAOS-RESULT " + json.dumps({
        "trial": "kill-9-housekeeping", "ok": all(ok for _, ok in checks),
        "checks": [{"name": name, "ok": ok, "kind": "correctness"} for name, ok in checks],
        "figures": {"rounds": results, "verified": checked}}))
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
