"""Durable appends/s of each backend beside the eventsourcing library's recorder.

::

    python tests/bench/store_append_rate.py                 # both backends, 1/100/1,000
    python tests/bench/store_append_rate.py --seconds 0.5 --rounds 1 --only postgres

Group commit, as the server's writer does it: with N submitters, every transaction carries
one request (one event) of each of N campaigns (``append_batch`` of N requests, each with its
expected head and command id, the chain hash computed, the command recorded, and on
PostgreSQL the NOTIFY of each campaign's head). Beside it, on the same database and with the
same batch size, the eventsourcing library's application recorder
(``SQLiteApplicationRecorder`` / ``PostgresApplicationRecorder``): ``insert_events`` of N
stored events, one per aggregate, each the next version of its aggregate, with the same
payload bytes. poolhall's SQLite log has its WAL checkpointed beside the appends, as the
server does it (the recorder checkpoints inside its commits). The two run alternately,
``--seconds`` each, ``--rounds`` times, in one run, so that the load of a shared machine
falls on both alike; each figure is the median of its
rounds, and the ratio is poolhall's over eventsourcing's. Both write durably: SQLite in WAL
with ``synchronous=FULL`` (poolhall's log; the recorder keeps SQLite's default, FULL), and
PostgreSQL with ``synchronous_commit`` as the server has it (on by default).

PostgreSQL: ``POOLHALL_TEST_POSTGRES`` (else ``postgresql:///poolhall_test``), in fresh
schemas dropped after. Targets (issue 28): each backend >= 2x the recorder of the same
database; >= 10,000 events/s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from eventsourcing.persistence import StoredEvent  # noqa: E402
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore  # noqa: E402
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore  # noqa: E402

from poolhall.events import core  # noqa: E402
from poolhall.events.log import AppendRequest, prepare  # noqa: E402
from poolhall.events.log_contract import EventLog  # noqa: E402
from poolhall.events.postgres_backend import PostgresLog  # noqa: E402
from poolhall.events.sqlite_backend import SqliteLog  # noqa: E402
from poolhall.server.writer import CHECKPOINT_SECONDS  # noqa: E402
from tests.postgres import server_url, with_schema  # noqa: E402

EVENT = prepare(core.DiceRolled(expression="2d6", terms=(), total=7))


class Poolhall:
    """N campaigns, one event each per transaction, and the log's housekeeping done between
    two transactions when it asks (as the server's writer does: SQLite's WAL started over)."""

    def __init__(self, log: EventLog, submitters: int) -> None:
        self.log, self.heads = log, [0] * submitters
        self.campaigns = [f"c{uuid.uuid4().hex[:12]}" for _ in range(submitters)]
        self.next = 0
        self.housekeeping = getattr(log, "housekeeping", None)  # see log_contract.Maintenance

    def batch(self) -> int:
        self.next += 1
        requests = [AppendRequest(campaign=campaign, expected_head=head, events=(EVENT,),
                                  actor="gm", command_id=f"k{self.next}",
                                  at="2026-11-27T03:00:00.000Z")
                    for campaign, head in zip(self.campaigns, self.heads, strict=True)]
        results = self.log.append_batch(requests)
        assert all(isinstance(r, list) and len(r) == 1 for r in results), results[:3]
        self.heads = [head + 1 for head in self.heads]
        if self.housekeeping is not None and getattr(self.log, "has_housework", False):
            self.housekeeping()
        return len(requests)


@contextmanager
def checkpointing(log: EventLog) -> Iterator[None]:
    """The server's checkpointer beside the appends: ``log.checkpoint()`` every
    :data:`~poolhall.server.writer.CHECKPOINT_SECONDS` from another thread. Without it the
    WAL grew by ~800 KB a batch of 100 for the whole run (the recorder checkpoints its own
    WAL every 1,000 pages, inside its commits), and each append got slower as it grew."""
    checkpoint = getattr(log, "checkpoint", None)
    if checkpoint is None:
        yield
        return
    stop = threading.Event()

    def every_tick() -> None:
        while not stop.wait(CHECKPOINT_SECONDS):
            checkpoint()

    thread = threading.Thread(target=every_tick, name="checkpointer")
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class Recorder:
    """N aggregates, one event each per ``insert_events``."""

    def __init__(self, recorder: SQLiteApplicationRecorder | PostgresApplicationRecorder,
                 submitters: int) -> None:
        self.recorder = recorder
        self.ids = [uuid.uuid4() for _ in range(submitters)]
        self.versions = [0] * submitters

    def batch(self) -> int:
        self.versions = [v + 1 for v in self.versions]
        self.recorder.insert_events([
            StoredEvent(originator_id=i, originator_version=v, topic="poolhall:DiceRolled",
                        state=EVENT.payload)
            for i, v in zip(self.ids, self.versions, strict=True)])
        return len(self.ids)


def rate(batch: Callable[[], int], seconds: float) -> float:
    events, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        events += batch()
    return events / elapsed


def compare(name: str, ours: Callable[[int], Poolhall], theirs: Callable[[int], Recorder],
            args: argparse.Namespace) -> list[tuple[str, int, float, float]]:
    rows = []
    for submitters in args.submitters:
        mine, peer = ours(submitters), theirs(submitters)
        mine.batch()
        peer.batch()  # warm both
        figures: tuple[list[float], list[float]] = ([], [])
        for _ in range(args.rounds):
            figures[0].append(rate(mine.batch, args.seconds))
            figures[1].append(rate(peer.batch, args.seconds))
        a, b = statistics.median(figures[0]), statistics.median(figures[1])
        rows.append((name, submitters, a, b))
        print(f"{name:<10} {submitters:>6} submitters   poolhall {a:>9,.0f} events/s   "
              f"eventsourcing {b:>9,.0f} events/s   ratio {a / b:5.2f}x", flush=True)
    return rows


def sqlite_run(args: argparse.Namespace) -> list[tuple[str, int, float, float]]:
    work = Path(tempfile.mkdtemp(prefix="poolhall-bench-"))
    log = SqliteLog(work / "poolhall.db")
    recorder = SQLiteApplicationRecorder(SQLiteDatastore(str(work / "eventsourcing.db")))
    recorder.create_table()
    try:
        with checkpointing(log):
            return compare("sqlite", lambda n: Poolhall(log, n),
                           lambda n: Recorder(recorder, n), args)
    finally:
        log.close()
        shutil.rmtree(work, ignore_errors=True)  # tens of MB a run, left in /tmp before


def postgres_run(args: argparse.Namespace) -> list[tuple[str, int, float, float]]:
    base = server_url()
    schemas = [f"bench_{uuid.uuid4().hex[:10]}" for _ in range(2)]
    with psycopg.connect(base, autocommit=True) as connection:
        for schema in schemas:
            connection.execute(f"CREATE SCHEMA {schema}")
        info = connection.info
        datastore = PostgresDatastore(
            dbname=info.dbname, host=info.host, port=info.port, user=info.user,
            password=info.password or "", schema=schemas[1])
    log = PostgresLog(with_schema(base, schemas[0]))
    recorder = PostgresApplicationRecorder(datastore)
    recorder.create_table()
    try:
        return compare("postgresql", lambda n: Poolhall(log, n),
                       lambda n: Recorder(recorder, n), args)
    finally:
        log.close()
        datastore.close()
        with psycopg.connect(base, autocommit=True) as connection:
            for schema in schemas:
                connection.execute(f"DROP SCHEMA {schema} CASCADE")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--submitters", type=int, nargs="+", default=[1, 100, 1000])
    parser.add_argument("--only", choices=("sqlite", "postgres"))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; "
          f"{args.rounds} alternate rounds of {args.seconds:g}s each\n")
    rows = []
    if args.only in (None, "sqlite"):
        rows += sqlite_run(args)
    if args.only in (None, "postgres"):
        rows += postgres_run(args)
    print()
    for name, submitters, ours, theirs in rows:
        verdicts = []
        if submitters > 1:
            verdicts.append(f"{'PASS' if ours >= 2 * theirs else 'MISS'} >= 2x the recorder")
            verdicts.append(f"{'PASS' if ours >= 10_000 else 'MISS'} >= 10,000 events/s")
        print(f"{name:<10} {submitters:>6}: {', '.join(verdicts) or 'one fsync an event'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
