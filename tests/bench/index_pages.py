"""What the ``(campaign, seq)`` index costs a commit when a thousand campaigns grow at once,
and what a small journal moved in bulk would save: raw ``sqlite3``, second by second.

::

    python tests/bench/index_pages.py                      # 1,000 campaigns, 10 s a run
    python tests/bench/index_pages.py --campaigns 10       # the same rows, ten campaigns

Why: the group committer's rate fell as a run went on (``append_rate.py`` prints it second by
second) while appends went straight into ``events``, and raw SQLite's in that shape falls with
it. Each commit of N campaigns' events
adds an entry to the ``(campaign, seq)`` index for each; once a campaign's entries fill a page
of their own, every commit rewrites one index page per campaign in it (about 5 KB written an
event at 1,000 campaigns, against 0.7 KB at ten). No Python of the store's can change that;
only writing fewer index pages per event can.

Two layouts, run alternately (the machine is shared), each on a fresh file as the store opens
one (WAL, ``synchronous=FULL``) with a thread checkpointing it every 0.1 s as the server does:

- ``direct``: the store's layout until 2026-11-26: each commit inserts its events into
  ``events`` (unique index on ``(campaign, seq)``) and its ``commands`` rows;
- ``journal``: each commit inserts its events into a small ``journal`` table of the same
  columns and index instead (its index stays a few pages, shared by every campaign); every
  ``--journal`` events, one transaction moves them into ``events`` in position order and
  deletes them from the journal, so each campaign's index page is written once per move rather
  than once per commit (the store's layout from then until the layout by block,
  :mod:`events.event_blocks`, which writes each event once under an index keyed by block
  first; here without the store's Python, and only the writes).

Prints each run's events/s for each whole second, its mean over the second half (the steady
state), CPU-µs an event (the committing thread) and bytes written an event (every write of the
process, WAL and checkpoint, from ``/proc/self/io``), then the ratio of the steady states.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from append_rate import AT, ROLL, _random_ids, _raw_events_table, _remove  # noqa: E402
from events.command_keys import COMMANDS_TABLE  # noqa: E402

from events.sqlite_backend.bulk_insert import insert_rows  # noqa: E402

COLUMNS = "position, campaign, seq, type, version, payload, recorded_at, actor, command_id, hash"
JOURNAL_TABLE = (
    "CREATE TABLE journal (position INTEGER PRIMARY KEY, campaign TEXT NOT NULL, seq INTEGER"
    " NOT NULL, type TEXT NOT NULL, version INTEGER NOT NULL, payload TEXT NOT NULL,"
    " recorded_at TEXT NOT NULL, actor TEXT NOT NULL, command_id TEXT NOT NULL, hash TEXT NOT"
    " NULL, UNIQUE (campaign, seq))")
"""The events table's columns and unique index (``append_rate._raw_events_table``)."""
CHECKPOINT_SECONDS = 0.1


def _written_bytes() -> int:
    """Bytes this process has passed to write calls so far (``wchar`` of ``/proc/self/io``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    return 0


def _checkpoint_every(path: Path, stop: threading.Event) -> None:
    """Keep the WAL short from a connection of its own, as the server's checkpointer does."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        while not stop.wait(CHECKPOINT_SECONDS):
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    finally:
        connection.close()


def run(work: Path, layout: str, campaigns: int, rows: int, seconds: float, journal: int
        ) -> tuple[list[float], float, float]:
    """One run: events/s of each whole second, CPU seconds and bytes written an event."""
    path = work / f"{layout}.db"
    _remove(path)
    connection = _raw_events_table(path)
    connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.execute("PRAGMA cache_size=-16384")  # the store's writer cache
    connection.execute(COMMANDS_TABLE.format(name="commands"))
    connection.execute(JOURNAL_TABLE)
    stop = threading.Event()
    checkpointer = threading.Thread(target=_checkpoint_every, args=(path, stop), daemon=True)
    checkpointer.start()
    table = "journal" if layout == "journal" else "events"
    payload, digest, ids = ROLL.payload.decode(), "0" * 64, _random_ids()
    seqs, position, moved, command, campaign = [0] * campaigns, 0, 0, 0, 0
    by_second = [0.0] * int(seconds)
    written, cpu = _written_bytes(), time.thread_time()
    begun = time.perf_counter()
    while time.perf_counter() < begun + seconds:
        events = []
        for _ in range(rows):
            seqs[campaign] += 1
            position += 1
            events.append((position, f"s{campaign}", seqs[campaign], ROLL.type, 1, payload, AT,
                           "gm", next(ids), digest))
            campaign = (campaign + 1) % campaigns
        commands = [(command + k, row[1], row[8], "gm", row[2], row[2])
                    for k, row in enumerate(events, start=1)]
        command += rows
        connection.execute("BEGIN")
        insert_rows(connection, f"INSERT INTO {table} ({COLUMNS})", events)
        insert_rows(connection, "INSERT INTO commands", commands)
        connection.execute("COMMIT")
        if layout == "journal" and position - moved >= journal:
            connection.execute("BEGIN")
            connection.execute(f"INSERT INTO events ({COLUMNS}) SELECT {COLUMNS} FROM journal"
                               " ORDER BY position")
            connection.execute("DELETE FROM journal")
            connection.execute("COMMIT")
            moved = position
        if (second := int(time.perf_counter() - begun)) < len(by_second):
            by_second[second] += rows
    cpu, written = time.thread_time() - cpu, _written_bytes() - written
    stop.set()
    checkpointer.join()
    connection.close()
    _remove(path)
    return by_second, cpu / position, written / position


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=500,
                        help="events a commit (the committer's mean batch at 1,000 submitters)")
    parser.add_argument("--seconds", type=float, default=10.0, help="per run")
    parser.add_argument("--journal", type=int, default=16_384,
                        help="events moved from the journal at a time")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None, help="where the runs write")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="index-pages-", dir=args.dir))
    steady: dict[str, list[float]] = {"direct": [], "journal": []}
    try:
        for _ in range(args.repeat):
            for layout in steady:  # alternately, so both see the same load
                by_second, cpu, written = run(work, layout, args.campaigns, args.rows,
                                              args.seconds, args.journal)
                half = by_second[len(by_second) // 2:] or by_second
                steady[layout].append(statistics.mean(half))
                print(f"{layout:<8} {args.campaigns:>5} campaigns: steady"
                      f" {steady[layout][-1]:>9,.0f} events/s  ({cpu * 1e6:.1f} CPU-µs and"
                      f" {written:,.0f} B written an event)\n  second by second: "
                      + " ".join(f"{rate / 1000:.0f}k" for rate in by_second), flush=True)
        print(f"journal / direct, steady state: "
              f"{statistics.median(steady['journal']) / statistics.median(steady['direct']):.2f}x")
    finally:
        for path in work.iterdir():
            path.unlink()
        work.rmdir()


if __name__ == "__main__":
    main()
