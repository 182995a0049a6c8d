"""What settling the write journal costs the log's open and close (:mod:`events.journal`).

::

    python tests/bench/journal_settle.py                    # 16,384 rows, 1,000 campaigns
    python tests/bench/journal_settle.py --rows 8192 --campaigns 10

Why: the log moves every journal row into ``events`` at :meth:`SqliteLog.close` and at open
(a writer that died leaves up to about :data:`~events.journal.JOURNAL_LIMIT` rows in it), so a
log at rest reads as one table. Each run appends ``--rows`` one-event commands over
``--campaigns`` campaigns with no housekeeping, so they all wait in the journal, then times:

- ``close``: :meth:`SqliteLog.close` settling them (and, for scale, a close with an empty
  journal);
- ``open``: a new :class:`SqliteLog` on a copy of the file and its WAL taken while the writer
  held them (what a crash leaves on the disk), settling them at open, against an open of the
  settled file.

Prints the median of ``--repeat`` runs each, in milliseconds. Figures are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from events.log import AppendRequest, prepare  # noqa: E402
from events.store import SqliteLog  # noqa: E402
from tests.events.store_contract import rolled  # noqa: E402


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _filled(path: Path, rows: int, campaigns: int) -> SqliteLog:
    """A log whose journal holds ``rows`` rows (no housekeeping ran)."""
    log = SqliteLog(path)
    event = prepare(rolled(3))
    heads = [0] * campaigns
    batch: list[AppendRequest] = []
    for n in range(rows):
        k = n % campaigns
        batch.append(AppendRequest(campaign=f"c{k}", expected_head=heads[k], events=(event,),
                                   actor="gm", command_id=f"id-{n}",
                                   at="2026-11-26T12:00:00.000Z", id_looked_up=True))
        heads[k] += 1
        if len(batch) == 500 or n == rows - 1:
            for result in log.append_batch(batch):
                if isinstance(result, Exception):
                    raise result
            batch.clear()
    return log


def _timed_close(log: SqliteLog) -> float:
    started = time.perf_counter()
    log.close()
    return (time.perf_counter() - started) * 1000


def _timed_open(path: Path) -> float:
    started = time.perf_counter()
    log = SqliteLog(path)
    elapsed = (time.perf_counter() - started) * 1000
    log.close()
    return elapsed


def run(work: Path, rows: int, campaigns: int) -> dict[str, float]:
    """One of each measure, on fresh files."""
    path, crashed = work / "log.db", work / "crashed.db"
    for each in (path, crashed):
        _remove(each)
    log = _filled(path, rows, campaigns)
    for suffix in ("", "-wal"):  # the files as a crash would leave them
        shutil.copyfile(str(path) + suffix, str(crashed) + suffix)
        os.chmod(str(crashed) + suffix, 0o600)  # as the log keeps its files
    found = {"close, journal full": _timed_close(log)}
    found["open, journal full"] = _timed_open(crashed)
    found["open, journal empty"] = _timed_open(path)
    log = SqliteLog(path)
    found["close, journal empty"] = _timed_close(log)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=16_384)
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="journal-settle-"))
    runs: list[dict[str, float]] = []
    try:
        for _ in range(args.repeat):
            runs.append(run(work, args.rows, args.campaigns))
    finally:
        shutil.rmtree(work)
    print(f"{args.rows:,} journal rows over {args.campaigns:,} campaigns, median of"
          f" {args.repeat}:")
    for name in runs[0]:
        values = [found[name] for found in runs]
        print(f"  {name:<22} {statistics.median(values):8.1f} ms  (runs: "
              + ", ".join(f"{v:.1f}" for v in values) + ")")


if __name__ == "__main__":
    main()
