"""Part 1 of ``append_rate.py``: raw ``sqlite3``, the bound the store works under.

The events table's columns and unique index written with plain ``sqlite3`` and no Python of
the store's (:func:`raw_rate`), and N campaigns' rows committed a transaction at a time in the
store's shape (:func:`commit_bound`): the most N submitters can get from any committer. A
module of its own because none of it is the code under measure: it is the floor the other
parts are read against.
"""

from __future__ import annotations

import argparse
import secrets
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from _append_common import AT, ROLL, random_ids, remove_db, seconds_line

from poolhall.events.sqlite_backend.bulk_insert import insert_rows

__all__ = ["COMMANDS_TABLE", "best", "commit_bound", "raw_rate", "run_raw"]

COMMANDS_TABLE = ("CREATE TABLE commands (campaign TEXT NOT NULL, command_id TEXT NOT NULL,"
                  " actor TEXT NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,"
                  " PRIMARY KEY (campaign, command_id))")
"""The plain schema's ``commands`` (:mod:`poolhall.events.sqlite_backend.schema`), for the raw
bound."""


def best(repeat: int, run: Callable[[], float]) -> float:
    """The best of ``repeat`` rates: the machine is shared, and noise only ever slows a run."""
    return max(run() for _ in range(repeat))


def raw_events_table(path: Path) -> sqlite3.Connection:
    """A raw ``sqlite3`` file as the store opens one (WAL, ``synchronous=FULL``) with the
    events table's columns and unique index, no Python of the store's."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute(
        "CREATE TABLE events (position INTEGER PRIMARY KEY, campaign TEXT NOT NULL, seq INTEGER"
        " NOT NULL, type TEXT NOT NULL, version INTEGER NOT NULL, payload TEXT NOT NULL,"
        " recorded_at TEXT NOT NULL, actor TEXT NOT NULL, command_id TEXT NOT NULL,"
        " hash TEXT NOT NULL)")
    connection.execute("CREATE UNIQUE INDEX events_seq ON events (campaign, seq)")
    return connection


def raw_rate(work: Path, events: int, *, store_shape: bool = False, keyed: bool = True
             ) -> float:
    """Raw sqlite3, the store's columns and index, a commit per 100 tuples: events/s.

    ``store_shape`` writes what ``append_batch`` writes, without its Python: the ``commands``
    row of each event too (random ids), the events spread over 10 campaigns; otherwise one
    campaign and no command rows, the cheapest shape there is. ``keyed`` gives ``commands``
    the old key on ``(campaign, command_id)``.
    """
    path = work / "raw.db"
    connection = raw_events_table(path)
    connection.execute("CREATE TABLE commands (campaign TEXT, command_id TEXT, actor TEXT NOT"
                       " NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL"
                       + (", PRIMARY KEY (campaign, command_id))" if keyed else ")"))
    payload = ROLL.payload.decode()
    digest = "0" * 64
    campaigns = 10 if store_shape else 1
    batches = []
    for first in range(0, events, 100):
        batches.append([(f"c{n % campaigns}", n // campaigns + 1, ROLL.type, 1, payload, AT,
                         "gm", f"c-{secrets.token_hex(8)}", digest)
                        for n in range(first, first + 100)])
    started = time.perf_counter()
    for rows in batches:
        connection.execute("BEGIN")
        connection.executemany("INSERT INTO events (campaign, seq, type, version, payload,"
                               " recorded_at, actor, command_id, hash)"
                               " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        if store_shape:
            connection.executemany("INSERT INTO commands VALUES (?, ?, ?, ?, ?)",
                                   [(r[0], r[7], r[6], r[1], r[1]) for r in rows])
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - started
    connection.close()
    remove_db(path)
    return events / elapsed


def commit_bound(work: Path, rows: int, seconds: float
                 ) -> tuple[float, float, float, list[float]]:
    """The physical bound of N submitters: raw ``sqlite3`` committing ``rows`` rows a
    transaction in the committer's shape (one event and one ``commands`` row for each of
    ``rows`` campaigns, inserted as the store inserts them, WAL, ``synchronous=FULL``), for
    ``seconds``: the median seconds a commit took, the CPU seconds and the bytes of WAL per
    event (the WAL is never checkpointed meanwhile), and the events committed in each whole
    second (they fall as each campaign's entries of the ``(campaign, seq)`` index come to
    fill pages of their own: a commit then writes a page for every campaign in it).

    N submitters that each await their own append have at most N events in any commit, and
    commits go one at a time, so no committer can beat ``N / latency``: this is that bound,
    with nothing of Python's but the rows' tuples built beforehand.
    """
    path = work / "bound.db"
    remove_db(path)
    connection = raw_events_table(path)
    connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.execute(COMMANDS_TABLE)
    payload, digest, ids = ROLL.payload.decode(), "0" * 64, random_ids()
    latencies: list[float] = []
    begun = time.perf_counter()
    command, cpu, ends = 0, time.thread_time(), begun + seconds
    by_second = [0.0] * int(seconds)
    while time.perf_counter() < ends:
        seq = len(latencies) + 1
        events = [(f"s{k}", seq, ROLL.type, 1, payload, AT, "gm", next(ids), digest)
                  for k in range(rows)]
        commands = [(row[0], row[7], "gm", seq, seq) for row in events]
        command += rows
        started = time.perf_counter()
        connection.execute("BEGIN")
        insert_rows(connection, "INSERT INTO events (campaign, seq, type, version, payload,"
                    " recorded_at, actor, command_id, hash)", events)
        insert_rows(connection, "INSERT INTO commands", commands)
        connection.execute("COMMIT")
        finished = time.perf_counter()
        latencies.append(finished - started)
        if (second := int(finished - begun)) < len(by_second):
            by_second[second] += rows
    cpu, appended = time.thread_time() - cpu, len(latencies) * rows
    wal = Path(str(path) + "-wal").stat().st_size
    connection.close()
    remove_db(path)
    return statistics.median(latencies), cpu / appended, wal / appended, by_second


def run_raw(args: argparse.Namespace, work: Path) -> None:
    """Plain sqlite3 writes shaped like the log's: the ceiling the store works under."""
    rate = best(args.repeat, lambda: raw_rate(work, args.events))
    print(f"raw sqlite3, batches of 100:            {rate:>10,.0f} events/s", flush=True)
    rate = best(args.repeat, lambda: raw_rate(work, args.events, store_shape=True))
    print(f"raw sqlite3, the same, commands keyed:  {rate:>10,.0f} events/s", flush=True)
    rate = best(args.repeat, lambda: raw_rate(work, args.events, store_shape=True,
                                              keyed=False))
    print(f"raw sqlite3, the same, commands in order:{rate:>9,.0f} events/s", flush=True)
    for n in args.submitters:  # the bound each submitter count puts on the committer
        latency, cpu, wal, by_second = min(commit_bound(work, n, args.seconds)
                                           for _ in range(args.repeat))
        print(f"raw sqlite3, {n:>5} campaigns a commit:   {n / latency:>10,.0f} events/s"
              f"  (median commit {latency * 1e3:.2f} ms, {cpu * 1e6:.1f} CPU-µs and"
              f" {wal:,.0f} B of WAL an event: the bound of {n} submitters)"
              + seconds_line(by_second), flush=True)
