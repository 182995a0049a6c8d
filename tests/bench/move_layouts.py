"""What a journal move costs on a large log, and what a layout of ``events`` without the
``(campaign, seq)`` index would cost instead: raw ``sqlite3`` on copies of a prefilled log.

::

    python tests/bench/move_layouts.py                        # the 2M-event committer log
    python tests/bench/move_layouts.py --prefill 500000 --rounds 2

Why: on a log of two million events over 1,000 campaigns, the journal's moves are about a
third of the group committer's writer thread (``append_rate.py --prefill 2000000``; skipping
them in a scratch run gave 1.53x). A move rewrites, for each campaign, the last leaves of
``events``' ``(campaign, seq)`` index, however few rows the campaign brings. This measures
that cost, and a layout that would not pay it, to decide the next change of the log.

The log is ``append_rate.py``'s committer log of ``--prefill`` events (built once and kept in
``--cache``); every part works on a copy of it, opened as the store's writer opens its file
(WAL, the writer's page cache, no secure delete; moves at ``synchronous=NORMAL`` as the store
makes them). The journal is filled as the committer fills it: one event a campaign in turn,
500 a commit. Three parts:

1. **Move sizes** (the store's layout, its own :func:`events.journal.move`): moves of 16,384,
   32,768 and 65,536 rows in turn, ``--rounds`` times: milliseconds, µs an event and WAL
   bytes an event.
2. **Layouts**, alternately, a move of 16,384 rows each, ``--rounds`` times:
   - ``store``: the store's layout;
   - ``block``: ``events`` without the ``(campaign, seq)`` index, with an index on
     ``((position >> 14), campaign, seq)`` instead (a move's entries land at its right edge,
     in blocks of 16,384 positions) and a table ``event_runs``, one row a campaign a block
     (its first and last seq), which says where a campaign's events are.
3. **Reads** of one campaign's events (its last 50, 500 in the middle, all of them) on both
   copies, ``--reads`` random campaigns each: medians and p95. The block layout reads run by
   run (one statement for the runs, then one a block, each seeking the block index), because
   SQLite does not seek an expression index from a join: the plan it makes of the one-statement
   join is printed too (it scans the whole index).

Figures are printed, never asserted; the machine is shared, so compare figures of one run.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from append_rate import AT, ROLL, _remove, cached_log  # noqa: E402

from events import journal  # noqa: E402
from events.store import WRITER_CACHE_KIB  # noqa: E402

COMMIT_ROWS = 500
"""Rows a commit while the journal fills (the committer's mean batch at 1,000 submitters)."""
BLOCK_SHIFT = 14
"""A block of the block layout is 2**14 = 16,384 positions, a move's worth."""

_RUNS = ("CREATE TABLE event_runs (campaign TEXT NOT NULL, first_seq INTEGER NOT NULL,"
         " last_seq INTEGER NOT NULL, block INTEGER NOT NULL, PRIMARY KEY (campaign, first_seq))"
         " WITHOUT ROWID")
_RUNS_OF = ("INSERT INTO event_runs SELECT campaign, min(seq), max(seq), position >> {shift}"
            " FROM {table} GROUP BY campaign, position >> {shift}")
_STORE_READ = ("SELECT seq, payload, hash FROM events WHERE campaign = ?1 AND seq BETWEEN ?2"
               " AND ?3 ORDER BY seq")
_RUNS_READ = ("SELECT block, max(first_seq, ?2), min(last_seq, ?3) FROM event_runs"
              " WHERE campaign = ?1 AND last_seq >= ?2 AND first_seq <= ?3 ORDER BY first_seq")
"""A campaign's runs that overlap ``?2``..``?3``, each with its part of that span (a block can
hold two runs of a campaign: the end of one move and the start of the next)."""
_BLOCK_READ = (f"SELECT seq, payload, hash FROM events WHERE (position >> {BLOCK_SHIFT}) = ?4"
               " AND campaign = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY seq")
_JOINED_READ = ("SELECT e.seq FROM event_runs r JOIN events e"
                f" ON (e.position >> {BLOCK_SHIFT}) = r.block AND e.campaign = r.campaign"
                " AND e.seq BETWEEN ?2 AND ?3"
                " WHERE r.campaign = ?1 AND r.last_seq >= ?2 AND r.first_seq <= ?3")


class LogCopy:
    """A copy of the prefilled log, opened as the store's writer opens its file, with the
    campaigns' heads and the next position, so that it takes a journal's rows as the
    committer would write them."""

    def __init__(self, source: Path, path: Path, layout: str) -> None:
        self.path, self.layout = path, layout
        _remove(path)
        shutil.copy2(source, path)
        self.db = sqlite3.connect(path, isolation_level=None)
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "secure_delete=OFF",
                       f"cache_size=-{WRITER_CACHE_KIB}"):
            self.db.execute(f"PRAGMA {pragma}")
        journal.settle(self.db)
        self.heads = dict(self.db.execute(
            "SELECT campaign, max(seq) FROM events GROUP BY campaign").fetchall())
        self.campaigns = sorted(self.heads)
        (last,) = self.db.execute("SELECT max(position) FROM events").fetchone()
        self.position = int(last) + 1
        if layout == "block":
            started = time.perf_counter()
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DROP INDEX IF EXISTS idx_events_campaign_seq")
            self.db.execute(f"CREATE INDEX events_block ON events ((position >> {BLOCK_SHIFT}),"
                            " campaign, seq)")
            self.db.execute(_RUNS)
            self.db.execute(_RUNS_OF.format(shift=BLOCK_SHIFT, table="events"))
            self.db.execute("COMMIT")
            print(f"  (the block layout built on {len(self.heads):,} campaigns' events in"
                  f" {time.perf_counter() - started:.1f} s)", flush=True)
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def fill(self, rows: int) -> None:
        """``rows`` journal rows, one a campaign in turn, ``COMMIT_ROWS`` a commit."""
        batch: list[tuple[object, ...]] = []
        payload = ROLL.payload.decode()
        for k in range(rows):
            campaign = self.campaigns[k % len(self.campaigns)]
            seq = self.heads[campaign] = self.heads[campaign] + 1
            batch.append((self.position, campaign, seq, ROLL.type, ROLL.version, payload, AT,
                          "gm", f"c{self.position}", "0" * 64))
            self.position += 1
            if len(batch) == COMMIT_ROWS or k == rows - 1:
                self.db.execute("BEGIN")
                self.db.executemany(f"{journal.INSERT} VALUES ({', '.join('?' * 10)})", batch)
                self.db.execute("COMMIT")
                batch.clear()

    def move(self) -> tuple[float, int]:
        """Move the journal into ``events`` as this layout would: seconds and WAL bytes."""
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        wal = Path(str(self.path) + "-wal")
        started = time.perf_counter()
        if self.layout == "store":
            journal.move(self.db)
        else:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(_RUNS_OF.format(shift=BLOCK_SHIFT, table="journal"))
            self.db.execute(f"INSERT INTO events ({journal.COLUMNS}) SELECT {journal.COLUMNS}"
                            " FROM journal ORDER BY position")
            self.db.execute("DROP TABLE journal")
            journal.create(self.db)
            self.db.execute("COMMIT")
        elapsed = time.perf_counter() - started
        written = wal.stat().st_size if wal.exists() else 0
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return elapsed, written

    def read(self, campaign: str, first: int, last: int) -> list[tuple[object, ...]]:
        """A campaign's events ``first`` to ``last``, as this layout would read them."""
        if self.layout == "store":
            return self.db.execute(_STORE_READ, [campaign, first, last]).fetchall()
        rows: list[tuple[object, ...]] = []
        for block, low, high in self.db.execute(_RUNS_READ, [campaign, first, last]).fetchall():
            rows += self.db.execute(_BLOCK_READ, [campaign, low, high, block]).fetchall()
        return rows

    def close(self) -> None:
        self.db.close()
        _remove(self.path)


def move_sizes(copy: LogCopy, rounds: int) -> None:
    print("1. moves of the store's layout, by size (ms; µs an event; WAL bytes an event):",
          flush=True)
    for _ in range(rounds):
        figures = []
        for rows in (16_384, 32_768, 65_536):
            copy.fill(rows)
            elapsed, written = copy.move()
            figures.append(f"{rows:,} rows {elapsed * 1e3:.0f} ms, {elapsed / rows * 1e6:.2f} µs,"
                           f" {written / rows:,.0f} B")
        print("   " + "; ".join(figures), flush=True)


def layouts(copies: dict[str, LogCopy], rounds: int) -> None:
    print(f"2. a move of {journal.JOURNAL_LIMIT:,} rows, the layouts alternately:", flush=True)
    times: dict[str, list[float]] = {name: [] for name in copies}
    for _ in range(rounds):
        for name, copy in copies.items():
            copy.fill(journal.JOURNAL_LIMIT)
            elapsed, written = copy.move()
            times[name].append(elapsed)
            print(f"   {name:<6} {elapsed * 1e3:6.1f} ms, {written / 2**20:.1f} MiB of WAL",
                  flush=True)
    store, block = (statistics.median(times[name]) for name in ("store", "block"))
    print(f"   medians: block {block * 1e3:.1f} ms against store {store * 1e3:.1f} ms ="
          f" {block / store:.2f}x", flush=True)


def reads(copies: dict[str, LogCopy], count: int) -> None:
    print(f"3. reads of one campaign's events ({count} random campaigns; median / p95 ms):",
          flush=True)
    store = copies["store"]
    shortest = min(store.heads.values())
    spans: dict[str, Callable[[int], tuple[int, int]]] = {
        "the last 50": lambda head: (head - 49, head),
        "500 in the middle": lambda head: (head // 2 - 250, head // 2 + 249),
        "all of them": lambda head: (1, head),
    }
    if shortest < 500:
        del spans["500 in the middle"]
    for label, span in spans.items():
        chosen = random.Random(label).sample(store.campaigns, min(count, len(store.campaigns)))
        line = []
        for name, copy in copies.items():
            times = []
            for campaign in chosen:
                first, last = span(copy.heads[campaign])
                started = time.perf_counter()
                rows = copy.read(campaign, first, last)
                times.append(time.perf_counter() - started)
                if [row[0] for row in rows] != list(range(first, last + 1)):
                    raise SystemExit(f"{name}: {campaign} {first}-{last} read wrong rows")
            times.sort()
            line.append(f"{name} {statistics.median(times) * 1e3:.3f} /"
                        f" {times[int(len(times) * 0.95)] * 1e3:.3f}")
        print(f"   {label + ':':<19} " + ", ".join(line), flush=True)
    plan = copies["block"].db.execute("EXPLAIN QUERY PLAN " + _JOINED_READ,
                                      [store.campaigns[0], 1, 2]).fetchall()
    print("   the block layout's reads as one statement (a join) would be planned as: "
          + "; ".join(str(step[3]) for step in plan), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefill", type=int, default=2_000_000, metavar="EVENTS",
                        help="the committer log to copy (append_rate.py --prefill EVENTS)")
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--dir", type=Path, default=None, help="where the copies are made")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir())
                        / "poolhall-bench-logs")
    args = parser.parse_args()
    source = cached_log(args.cache, args.prefill, args.campaigns, committer=True)
    work = Path(tempfile.mkdtemp(prefix="move-layouts-", dir=args.dir))
    copies: dict[str, LogCopy] = {}
    try:
        print(f"on copies of {source} ({os.path.getsize(source) / 2**20:,.0f} MiB)", flush=True)
        copies["store"] = LogCopy(source, work / "store.db", "store")
        move_sizes(copies["store"], args.rounds)
        copies["block"] = LogCopy(source, work / "block.db", "block")
        layouts(copies, args.rounds)
        reads(copies, args.reads)
    finally:
        for copy in copies.values():
            copy.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
