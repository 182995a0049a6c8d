"""Chaos trial: ``kill -9`` a writer in the middle of its housekeeping: is every append there?

::

    python tests/chaos/kill9_housekeeping.py            # 12 kills
    python tests/chaos/kill9_housekeeping.py --quick    # 3 kills

``kill9.py`` kills a whole server under a load too light to reach the log's housekeeping. Here
a child process plays the group committer's writer against :class:`~events.store.SqliteLog`
directly, as fast as it can, with the limits made small so that its housekeeping runs many
times a second: the command index writes a generation every 256 commands and merges four into one (a
table each, the merged-away ones dropped), and the WAL is started over each time it passes
256 KiB, by a checkpointing thread asking the writer
(:meth:`~events.store.SqliteLog.checkpoint`) as the server's does. After each append it
prints the campaigns' heads, which it has from the log's answer (acknowledged: committed with
``synchronous=FULL``). After a random 0.3-2.5 s it gets SIGKILL: in an append, a move, a step
of the index, a restart of the WAL, a checkpoint, or the commit that opens a block of the log
and writes its first runs (:mod:`events.event_blocks`: one every 16,384 events, about one a
second here). The next round reopens the same file.

Checks: every acknowledged event is in the log after each kill; every command the file holds
is found by the index, by a reader of the killed file and by the writer that reopens it (which
drops the tables of generations the kill left unlisted); the runs of each killed file lead
reads to every event it holds; every hash chain verifies at the end. Prints a line per round, the
verdicts and a ``CHAOS-RESULT`` JSON line; exit 0 only if all hold.
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

from events import command_keys, event_blocks  # noqa: E402
from events.sqlite_backend import SqliteLog, SqliteReader  # noqa: E402

CAMPAIGNS = 20
WRITER = """
import sys, threading, time
from events import command_keys, event_blocks, store
from events.sqlite_backend import SqliteLog
from tests.events.store_contract import opened, request, rolled
store.JOURNAL_SIZE_LIMIT = 256 * 1024
command_keys.TAIL_LIMIT = 256
command_keys.STEP_ROWS = 64
log = SqliteLog(sys.argv[1])
print("stray", len(event_blocks.stray_runs(log.db.conn)), flush=True)
tables = log.db.execute("SELECT count(*) FROM sqlite_master WHERE name GLOB 'command_keys_*'")
print("index", log._keys.generations, tables.fetchone()[0], flush=True)
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
"""


def round_(db: Path, delay: float) -> dict[str, Any]:
    """Start the writer on ``db``, kill it after ``delay`` seconds, compare what it was told
    with what the file holds."""
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(CAMPAIGNS)],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(child.stdout.read().splitlines()))
    reader.start()  # read as it writes: a full pipe would stop the writer, not the kill
    time.sleep(delay)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    reader.join()
    stray = next((line for line in lines if line.startswith("stray ")), "stray -1")
    index = next((line for line in lines if line.startswith("index ")), "index -1 -2").split()
    heads = [line for line in lines if "=" in line]
    acked = {c: int(h) for c, h in (kv.split("=") for kv in heads[-1].split())} if heads else {}
    log = SqliteReader(db)
    lost = {c: [h, log.head(c)] for c, h in acked.items() if log.head(c) < h}
    with sqlite3.connect(db) as connection:
        left = len(event_blocks.stray_runs(connection))
        (last,) = connection.execute("SELECT max(position) FROM events").fetchone()
        tables = connection.execute("SELECT count(*) FROM sqlite_master"
                                    " WHERE name GLOB 'command_keys_*'").fetchone()[0]
        listed = connection.execute("SELECT count(*) FROM command_generations").fetchone()[0]
    wal = Path(f"{db}-wal")
    return {"killed after": round(delay, 2), "appends": len(heads),
            "events acknowledged": sum(acked.values()), "lost": lost,
            "commands unfound by a reader": _unfound(log.command_records, db),
            "stray runs at open": int(stray.split()[1]), "stray runs at the kill": left,
            "block at the kill": (last or 0) >> event_blocks.BLOCK_BITS,
            "generations at open": int(index[1]), "tables at open": int(index[2]),
            "tables at the kill": tables, "unlisted at the kill": tables - listed,
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
    parser.add_argument("--quick", action="store_true", help="3 rounds")
    parser.add_argument("--seed", type=int, default=7, help="when each kill falls")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else args.rounds
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="poolhall-kill9-housekeeping-"))
    db = work / "log.db"
    results = []
    try:
        for n in range(rounds):
            result = round_(db, rng.uniform(0.3, 2.5))
            results.append(result)
            print(f"round {n + 1}: killed after {result['killed after']} s, "
                  f"{result['appends']} appends, {result['events acknowledged']:,} events "
                  f"acknowledged in all, {len(result['lost'])} campaigns short; block "
                  f"{result['block at the kill']} at the kill, stray runs "
                  f"{result['stray runs at open']} at open, {result['stray runs at the kill']}"
                  f" at the kill; index {result['generations at open']} generations at open"
                  f" ({result['tables at open']} tables), {result['tables at the kill']}"
                  f" tables at the kill ({result['unlisted at the kill']} unlisted),"
                  f" {result['commands unfound by a reader']} commands"
                  f" unfound; WAL {result['wal at the kill'] // 1024} KiB", flush=True)
        command_keys.TAIL_LIMIT, command_keys.STEP_ROWS = 256, 64  # as the writer had them
        log = SqliteLog(db)  # the last kill's file, reopened
        try:
            stray = len(event_blocks.stray_runs(log.db.conn))
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
        ("every command is found by the index after each kill, by a reader and by the"
         " writer that reopens the file",
         all(r["commands unfound by a reader"] == 0 for r in results) and unfound == 0),
        ("every reopened writer dropped the tables of unlisted generations",
         all(r["generations at open"] == r["tables at open"] for r in results)),
        ("the index wrote generations during the trial",
         any(r["tables at the kill"] > 0 for r in results)),
        ("the runs of every killed and every reopened file lead to all its events",
         all(r["stray runs at open"] == 0 and r["stray runs at the kill"] == 0
             for r in results) and stray == 0),
        ("the writer crossed into new blocks during the trial",
         results[-1]["block at the kill"] >= 1 if results else False),
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
