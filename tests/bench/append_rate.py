"""The append path and `verify`: durable events/s at each layer, and verify events/s.

::

    python tests/bench/append_rate.py            # full run (builds, then caches, two 1M logs)
    python tests/bench/append_rate.py --quick    # small figures in a few seconds
    python tests/bench/append_rate.py --only verify --verify-events 1000000

Prints, each a best of ``--repeat`` runs on a fresh SQLite file in ``--dir`` (WAL,
``synchronous=FULL`` as the store opens it, so every figure is durable):

1. raw ``sqlite3``: the events table's columns and unique index, ``executemany`` of tuples,
   one commit per batch of 100 rows: the floor for one fsync per 100 events; then the same
   with what ``append_batch`` writes (a ``commands`` row with a random id, 10 campaigns),
   once with the old ``commands`` table keyed by ``(campaign, command_id)`` (a random B-tree
   insert per command) and once as the store keeps it now (appended in id order, no key);
   then, for each ``--submitters`` count N, raw commits of N campaigns' rows each in the
   store's shape: N / (median commit time) is the most N submitters can get from any
   committer (each has at most one event in a commit), with its CPU and WAL bytes an event;
2. ``SqliteLog.append_batch`` with 100 requests of one event each over 10 campaigns (hash
   chain, command row), then 1,000 over 1,000 campaigns, each with the WAL bytes and the
   CPU time per event;
3. the group committer under N concurrent submitters, each awaiting its own one-event
   append before sending the next (what a hub does; each request marked, as a hub marks
   its, as looked up already): durable events/s, the mean batch, CPU per event and, for runs
   of two seconds or more, the events/s of each second (the rate falls as the campaigns'
   index grows), with the collector tuned as ``poolhall serve`` tunes it (``--collector
   cpython`` for CPython's defaults); ``--compare-recheck`` runs the writer's own look-up of
   every id too, alternately, and prints the ratio; the writer thread's own CPU an event is
   printed beside (that thread is the one that bounds the rate); ``--against CHECKOUT`` runs
   that checkout's committer (before a change, say) and this one's alternately, each run in
   a child process of its own, and prints the ratio of their medians;
4. ``SqliteReader.verify`` on ``--verify-events`` events: one campaign, then 100 campaigns
   interleaved one event at a time (the worst order for a walk campaign by campaign). The
   logs are built with ``append_batch`` and kept in ``--cache`` (``/tmp`` by default), keyed
   by their shape, so a second run measures only the verify. ``--verify-against CHECKOUT``
   runs another checkout's ``verify_file`` (before a change, say) alternately with this one's
   on the same logs, one line each: a comparison made in one run, under the same load.

Figures are printed, never asserted; the machine is shared, so compare runs made together.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import resource
import secrets
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from itertools import chain, pairwise, repeat
from pathlib import Path
from types import ModuleType
from typing import Any

CHECKOUT_ENV = "POOLHALL_BENCH_CHECKOUT"
"""Set by ``--against`` for its child runs: the checkout whose code a child imports."""
ROOT = Path(os.environ.get(CHECKOUT_ENV) or Path(__file__).resolve().parents[2])
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if not (ROOT / "poolhall" / "__init__.py").exists():  # its code is not poolhall.* yet
    raise SystemExit(f"{ROOT} is a checkout from before the one namespace (it has no "
                     "poolhall/): run that checkout's own tests/bench/append_rate.py")

from poolhall.events import core  # noqa: E402
from poolhall.events.dice import RolledTerm  # noqa: E402
from poolhall.events.log import AppendRequest, PreparedEvent, prepare  # noqa: E402
from poolhall.events.sqlite_backend import SqliteLog  # noqa: E402
from poolhall.events.sqlite_backend.bulk_insert import insert_rows  # noqa: E402
from poolhall.events.sqlite_backend.verify import verify_file  # noqa: E402
from poolhall.server.gc_tuning import GcTuning  # noqa: E402
from poolhall.server.settings import Settings  # noqa: E402
from poolhall.server.writer import GroupCommitter  # noqa: E402

COMMANDS_TABLE = ("CREATE TABLE commands (campaign TEXT NOT NULL, command_id TEXT NOT NULL,"
                  " actor TEXT NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,"
                  " PRIMARY KEY (campaign, command_id))")
"""The plain schema's ``commands`` (:mod:`poolhall.events.sqlite_backend.schema`), for the raw
bound."""
LOOKED_UP = "id_looked_up" in AppendRequest.__struct_fields__
"""Whether the checkout's requests carry the older store's ``id_looked_up`` mark."""

AT = "2026-01-01T00:00:00.000Z"
TARGET_COMMITTER = 50_000.0
TARGET_VERIFY = 300_000.0


def _roll() -> PreparedEvent:
    faces = (3, 5)
    return prepare(core.DiceRolled(expression="2d6", terms=(RolledTerm(sides=6, faces=faces),),
                                   total=sum(faces)))


ROLL = _roll()


def _request(campaign: str, head: int, n: int, *, random_id: bool = True,
             command_id: str | None = None, looked_up: bool = False) -> AppendRequest:
    """A one-roll command; its id random like a real client's (``c-`` and 16 hex digits), so
    that an index on the ids takes its inserts where a server's would, all over the tree.
    ``looked_up``: marked as a hub marks its requests (it looked the id up before deciding)."""
    if command_id is None:
        command_id = f"c-{secrets.token_hex(8)}" if random_id else f"c{n:09d}"
    marked: dict[str, Any] = {"id_looked_up": looked_up} if LOOKED_UP else {}
    return AppendRequest(campaign=campaign, expected_head=head, events=(ROLL,), actor="gm",
                         command_id=command_id, at=AT, **marked)


def _id_block(_: object = None) -> list[str]:
    block = secrets.token_hex(8 * 512)
    return [f"c-{block[start:start + 16]}" for start in range(0, len(block), 16)]


def _random_ids() -> Iterator[str]:
    """Random ids as clients make them, drawn 512 at a time: the load generator's cost (a
    ``token_hex`` call each, a system call, was a tenth of the committer run's CPU) is not
    the server's. Handed out by C iterators (a generator's resumption per id was 7% of the
    event loop's time in a run against a log that stores nothing)."""
    return chain.from_iterable(map(_id_block, repeat(None)))


def best(repeat: int, run: Callable[[], float]) -> float:
    """The best of ``repeat`` rates: the machine is shared, and noise only ever slows a run."""
    return max(run() for _ in range(repeat))


# ---- 1. raw sqlite3 ------------------------------------------------------------------------


def _raw_events_table(path: Path) -> sqlite3.Connection:
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
    connection = _raw_events_table(path)
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
    _remove(path)
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
    _remove(path)
    connection = _raw_events_table(path)
    connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.execute(COMMANDS_TABLE)
    payload, digest, ids = ROLL.payload.decode(), "0" * 64, _random_ids()
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
    _remove(path)
    return statistics.median(latencies), cpu / appended, wal / appended, by_second


# ---- 2. append_batch -----------------------------------------------------------------------


def append_batch_rate(work: Path, events: int, per_batch: int = 100, campaigns: int = 10
                      ) -> tuple[float, float, float]:
    """``append_batch`` with ``per_batch`` one-event requests over ``campaigns`` campaigns:
    events/s, then the bytes of WAL and the CPU seconds of the calling thread per event (the
    steadier figures on a shared machine; the command index's merges are in both, done
    between two calls as the committer does them)."""
    path = work / "append.db"
    log = SqliteLog(path)
    heads = [0] * campaigns
    batches = []
    for first in range(0, events, per_batch):
        batch = []
        for n in range(first, first + per_batch):
            k = n % campaigns
            batch.append(_request(f"c{k}", heads[k], n))
            heads[k] += 1
        batches.append(batch)
    housework = getattr(log, "housekeeping", None)
    wal = Path(str(path) + "-wal")
    wal_before = wal.stat().st_size if wal.exists() else 0  # never checkpointed meanwhile
    started, cpu = time.perf_counter(), time.thread_time()
    for batch in batches:
        for result in log.append_batch(batch):
            if isinstance(result, Exception):
                raise result
        while housework is not None and log.has_housework:
            housework()
    elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu
    written = wal.stat().st_size - wal_before
    log.close()
    _remove(path)
    return events / elapsed, written / events, cpu / events


# ---- 3. the group committer ----------------------------------------------------------------


def committer_rate(work: Path, submitters: int, seconds: float, collector: str = "server",
                   recheck_ids: bool = False, prefilled: Path | None = None,
                   ) -> tuple[float, float, float, float, list[float]]:
    """N submitters, each on its own campaign, one one-event append at a time, for a while:
    durable events/s, the mean batch the writer committed, the process's CPU seconds per
    event (both threads; the steadier figure on a shared machine), the writer thread's own
    CPU seconds per event (what bounds the rate: that thread is never idle under this load,
    and its CPU time is steadier than the wall clock on a shared machine), and the events/s
    of each whole second of the run (they fall as a thousand campaigns' index grows: each commit
    then writes a page of the ``(campaign, seq)`` index for every campaign in it).

    Each request is marked as a hub marks its own (``id_looked_up``: the hub looked its id
    up before deciding, on the event loop, outside this figure); ``recheck_ids`` leaves it
    unmarked, so the writer looks every id up in its index again, as it did for a hub's
    requests before 2026-11-26.

    ``collector="server"`` runs CPython's garbage collector as ``poolhall serve`` does
    (:class:`poolhall.server.gc_tuning.GcTuning` with the default settings: what start-up built is
    frozen, young collections every 10,000 allocations, a sweep a second); ``"cpython"``
    leaves CPython's defaults, under which this process's full collections scanned every
    object of the modules it imported (numpy among them), a pause a server does not take.

    ``prefilled``: a copy of that log (:func:`cached_log`) is where the run
    appends, each submitter going on from its campaign's head: the rate at that size of log,
    not the average of a log growing from nothing.
    """
    path = work / "committer.db"
    heads = [0] * submitters
    if prefilled is not None:
        shutil.copy2(prefilled, path)  # its mode too (0600: it holds token hashes)
        events = int(prefilled.stem.rpartition("x")[2])
        heads = [events // submitters + (k < events % submitters) for k in range(submitters)]
    log = SqliteLog(path)

    async def main() -> tuple[int, float, int, float, float, list[int]]:
        tuning = GcTuning(Settings().gc_freeze_joins if collector == "server" else 0)
        tuning.start()
        committer = GroupCommitter(log)
        committer.start()
        stop = False

        async def submit(k: int) -> int:
            head = heads[k]
            ids = _random_ids()
            while not stop:
                (result,) = await committer.append([_request(
                    f"s{k}", head, head, command_id=next(ids), looked_up=not recheck_ids)])
                if isinstance(result, Exception):
                    raise result
                head += 1
            return head

        tasks = [asyncio.create_task(submit(k)) for k in range(submitters)]
        await asyncio.sleep(0.3)  # warm up: every submitter has its first append in
        before, batches = committer.appended, committer.batches
        writer_cpu = _writer_cpu_seconds()
        started, cpu = time.perf_counter(), time.process_time()
        counts = [before]
        for whole in range(1, int(seconds) + 1):  # a count at the end of each whole second
            await asyncio.sleep(max(0.0, started + whole - time.perf_counter()))
            counts.append(committer.appended)
        await asyncio.sleep(max(0.0, started + seconds - time.perf_counter()))
        done, elapsed = committer.appended - before, time.perf_counter() - started
        cpu = time.process_time() - cpu
        writer_cpu = _writer_cpu_seconds() - writer_cpu
        batches = committer.batches - batches
        stop = True
        await asyncio.gather(*tasks)
        await committer.stop()
        tuning.stop()
        return done, elapsed, batches, cpu, writer_cpu, counts

    done, elapsed, batches, cpu, writer_cpu, counts = asyncio.run(main())
    log.close()
    _remove(path)
    by_second = [float(b - a) for a, b in pairwise(counts)]
    return (done / elapsed, done / max(batches, 1), cpu / max(done, 1),
            writer_cpu / max(done, 1), by_second)


def _writer_cpu_seconds() -> float:
    """The CPU time so far of the group committer's writer thread (its executor's one)."""
    (writer,) = [t for t in threading.enumerate() if t.name.startswith("poolhall-writer")]
    assert writer.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(writer.ident))


# ---- 4. verify -----------------------------------------------------------------------------


def build_log(path: Path, events: int, campaigns: int, *, committer: bool = False) -> None:
    """``events`` one-event commands over ``campaigns`` campaigns, interleaved one by one.

    For ``verify``: campaigns ``campaign-<k>``, ordered command ids (quicker to build, and
    all the same to verify). For ``--prefill`` (``committer``): the committer runs'
    campaigns ``s<k>``, random ids as clients make them, and each batch followed by the
    housekeeping the group committer does between two commits (the command index's merges),
    so the file is as a server leaves it."""
    partial = path.with_name(path.name + ".partial")
    _remove(partial)
    log = SqliteLog(partial)
    heads = [0] * campaigns
    ids = _random_ids() if committer else None
    batch: list[AppendRequest] = []
    for n in range(events):
        k = n % campaigns
        batch.append(_request(f"s{k}" if committer else f"campaign-{k}", heads[k], n,
                              random_id=False, command_id=None if ids is None else next(ids)))
        heads[k] += 1
        if len(batch) == 2000 or n == events - 1:
            for result in log.append_batch(batch):
                if isinstance(result, Exception):
                    raise result
            batch.clear()
            while committer and log.has_housework:
                log.housekeeping()
            if n % 100_000 < 2000:
                log.checkpoint()  # keep the WAL short (a 1 GB WAL slowed the build)
    log.checkpoint()
    log.close()
    partial.rename(path)


def cached_log(cache: Path, events: int, campaigns: int, *, committer: bool = False) -> Path:
    """A log of :func:`build_log`, built once and kept in ``cache``, keyed by its shape.

    The committer's is opened and closed once by this code's writer before it is used, so
    that one an older release built is brought to this release's layout here, not at the
    open of each run's copy (whose rewrite then burdened the timed run with its WAL)."""
    path = cache / f"{'committer' if committer else 'verify'}-{campaigns}x{events}.db"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        print(f"  (building {path}: {events:,} events, once)", flush=True)
        build_log(path, events, campaigns, committer=committer)
        print(f"  (built in {time.perf_counter() - started:.1f} s)", flush=True)
    elif committer:
        log = SqliteLog(path)
        log.checkpoint()
        log.close()
    return path


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (verify's segment walkers)."""
    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def verify_rate(path: Path, events: int, verify: Callable[..., tuple[int, list[Any]]]
                = verify_file) -> tuple[float, float]:
    """Events/s of one ``verify`` (``SqliteReader.verify``'s own call), and the CPU seconds
    it took on all cores (a figure that a busy shared machine inflates less than the wall
    time)."""
    started, cpu = time.perf_counter(), _cpu_seconds()
    checked, problems = verify(f"{path.resolve().as_uri()}?mode=ro")
    elapsed, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    if checked != events or problems:
        raise SystemExit(f"verify of {path}: {checked} checked, problems {problems[:3]}")
    return events / elapsed, cpu


def verify_of(checkout: Path) -> Callable[..., tuple[int, list[Any]]]:
    """Another checkout's ``verify_file``, loaded beside this one's (its segment walkers
    run from that checkout too: they are started by the module's own path)."""
    spec = importlib.util.spec_from_file_location(
        "before_store_verify", checkout / "events" / "store_verify.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"no events/store_verify.py in {checkout}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # msgspec resolves the module's annotations through it
    spec.loader.exec_module(module)
    return module.verify_file  # type: ignore[no-any-return]


def compare_committers(args: argparse.Namespace, submitters: int) -> None:
    """``--against``: the committer of ``args.against`` and of this checkout, alternately,
    ``args.repeat`` runs each, every run in a child process importing its checkout's code
    (this file's measurement, the other's log, writer and hubs' requests). Each checkout
    appends to a copy of a prefilled log of its own layout: the other's cache is a folder
    of ``--cache``, seeded with a copy of this one's log, which that checkout's code then
    brings to its own layout once (:func:`cached_log`). Prints every run and the ratio of
    the medians: events/s, and the writer thread's CPU an event."""
    checkouts = {"before": args.against.resolve(), "now": ROOT}
    caches = {"before": args.cache / ("against-" + args.against.resolve().name), "now": args.cache}
    if args.prefill:
        ours = cached_log(args.cache, args.prefill, submitters, committer=True)
        theirs = caches["before"] / ours.name
        if not theirs.exists():
            caches["before"].mkdir(parents=True, exist_ok=True)
            shutil.copy2(ours, theirs)
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in checkouts}
    for _ in range(args.repeat):
        for label, checkout in checkouts.items():
            command = [sys.executable, __file__, "--only", "committer", "--child-json",
                       "--submitters", str(submitters), "--seconds", str(args.seconds),
                       "--prefill", str(args.prefill), "--collector", args.collector,
                       "--cache", str(caches[label])]
            if args.dir is not None:
                command += ["--dir", str(args.dir)]
            env = dict(os.environ, **{CHECKOUT_ENV: str(checkout), "PYTHONPATH": str(checkout)})
            out = subprocess.run(command, env=env, capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(f"the committer run of {checkout} failed:\n{out.stderr[-3000:]}")
            run = json.loads(out.stdout.strip().splitlines()[-1])
            runs[label].append(run)
            print(f"  {label:<6} {run['rate']:>8,.0f} events/s  (writer's thread"
                  f" {run['writer'] * 1e6:.1f} CPU-µs an event, all threads"
                  f" {run['cpu'] * 1e6:.1f}; mean batch {run['batch']:,.0f})", flush=True)
    rate = {label: statistics.median(r["rate"] for r in rs) for label, rs in runs.items()}
    writer = {label: statistics.median(r["writer"] for r in rs) for label, rs in runs.items()}
    on = f" on a log of {args.prefill:,}" if args.prefill else ""
    print(f"group committer, {submitters} submitters{on}, medians of {args.repeat}: now"
          f" {rate['now']:,.0f} events/s against {rate['before']:,.0f} before ="
          f" {rate['now'] / rate['before']:.2f}x; the writer's CPU an event"
          f" {writer['now'] * 1e6:.1f} against {writer['before'] * 1e6:.1f} µs ="
          f" {writer['now'] / writer['before']:.2f}x (target >= {TARGET_COMMITTER:,.0f})",
          flush=True)


def _seconds(by_second: list[float]) -> str:
    """A run's events/s second by second, on a line of its own (for runs of 2 s or more)."""
    if len(by_second) < 2:
        return ""
    return "\n  second by second: " + " ".join(f"{rate / 1000:.0f}k" for rate in by_second)


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def main() -> None:
    args = _arguments()
    parts = set(args.only or ["raw", "append", "committer", "verify"])
    work = Path(tempfile.mkdtemp(prefix="append-rate-", dir=args.dir))
    try:
        for part, run in (("raw", _raw), ("append", _append), ("committer", _committer),
                          ("verify", _verify)):
            if part in parts:
                run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--only", choices=["raw", "append", "committer", "verify"],
                        action="append", help="run only these parts (repeatable)")
    parser.add_argument("--events", type=int, default=100_000, help="events per append run")
    parser.add_argument("--seconds", type=float, default=3.0, help="per committer run")
    parser.add_argument("--submitters", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--verify-events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--collector", choices=["server", "cpython"], default="server",
                        help="the committer runs' garbage collector: tuned as `poolhall serve`"
                        " tunes it (default), or CPython's defaults")
    parser.add_argument("--compare-recheck", action="store_true",
                        help="also run the committer with its requests unmarked, alternately:"
                        " the writer looks every id up in its index again (as it did before"
                        " 2026-11-26), and print the ratio")
    parser.add_argument("--prefill", type=int, default=0, metavar="EVENTS",
                        help="run the committer on a log already holding this many events"
                        " over its campaigns (built once, kept in --cache): the rate at that"
                        " size, not the average of a log growing from nothing")
    parser.add_argument("--verify-against", type=Path, default=None, metavar="CHECKOUT",
                        help="also run this checkout's verify, alternately with this one's")
    parser.add_argument("--against", type=Path, default=None, metavar="CHECKOUT",
                        help="run the committer of this checkout (before a change, say) and"
                        " this one's alternately, each in a child process of its own, and print"
                        " the ratio of their medians")
    parser.add_argument("--child-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, default=None, help="where the append runs write")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir())
                        / "poolhall-bench-logs")
    args = parser.parse_args()
    if args.quick:
        args.events, args.seconds, args.repeat = 20_000, 1.0, 1
        args.verify_events, args.submitters = 100_000, [100]
    return args


def _raw(args: argparse.Namespace, work: Path) -> None:
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
              + _seconds(by_second), flush=True)


def _append(args: argparse.Namespace, work: Path) -> None:
    """The store's append_batch alone, in small and in wide batches."""
    for per_batch, campaigns in ((100, 10), (1000, 1000)):
        rate, wal, cpu = max(append_batch_rate(work, args.events, per_batch, campaigns)
                             for _ in range(args.repeat))
        print(f"append_batch, {per_batch:>5} requests a call, {campaigns:>5} campaigns:"
              f" {rate:>8,.0f} events/s  ({wal:,.0f} B of WAL, {cpu * 1e6:.1f} CPU-µs"
              " an event)", flush=True)


def _committer(args: argparse.Namespace, work: Path) -> None:
    """The group committer: as another checkout's child (``--child-json``), against another
    checkout (``--against``), or here for each submitter count."""
    if args.child_json:
        (n,) = args.submitters
        prefilled = (cached_log(args.cache, args.prefill, n, committer=True)
                     if args.prefill else None)
        rate, mean, cpu, writer, _ = committer_rate(work, n, args.seconds, args.collector,
                                                    False, prefilled)
        print(json.dumps({"rate": rate, "batch": mean, "cpu": cpu, "writer": writer}))
    elif args.against is not None:
        for n in args.submitters:
            compare_committers(args, n)
    else:
        for n in args.submitters:
            _committer_runs(args, work, n)


def _committer_runs(args: argparse.Namespace, work: Path, n: int) -> None:
    """The committer with ``n`` submitters, ``--repeat`` times (and with its requests
    unmarked as well, alternately, with ``--compare-recheck``): the best run of each."""
    modes = [True, False] if args.compare_recheck else [False]
    prefilled = (cached_log(args.cache, args.prefill, n, committer=True)
                 if args.prefill else None)
    by_mode: dict[bool, list[tuple[float, float, float, float, list[float]]]] = {
        mode: [] for mode in modes}
    for _ in range(args.repeat):  # alternately, so both see the same load
        for mode in modes:
            by_mode[mode].append(committer_rate(work, n, args.seconds, args.collector,
                                                mode, prefilled))
    for mode in modes:
        rate, mean, cpu, writer, by_second = max(by_mode[mode])
        label = "ids looked up again by the writer" if mode else "hub's requests"
        on = f", on a log of {args.prefill:,}" if args.prefill else ""
        print(f"group committer, {n:>5} submitters{on}:      {rate:>10,.0f} events/s"
              f"  (mean batch {mean:,.0f}; {cpu * 1e6:.1f} CPU-µs an event, the"
              f" writer's thread {writer * 1e6:.1f}; {args.collector} collector;"
              f" {label}; target >= {TARGET_COMMITTER:,.0f})" + _seconds(by_second),
              flush=True)
    if args.compare_recheck:
        print(f"  hub's requests / ids looked up again: "
              f"{max(by_mode[False])[0] / max(by_mode[True])[0]:.2f}x", flush=True)


def _verify(args: argparse.Namespace, work: Path) -> None:
    """``poolhall verify`` over a cached log (and another checkout's, alternately, with
    ``--verify-against``); ``work`` is unused: the logs are kept in ``--cache``."""
    variants = [("", verify_file)]
    if args.verify_against is not None:
        variants = [("before ", verify_of(args.verify_against)), ("now    ", verify_file)]
    for campaigns, shape in ((1, "one campaign"), (100, "100 campaigns interleaved")):
        path = cached_log(args.cache, args.verify_events, campaigns)
        runs: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in variants}
        for _ in range(args.repeat):  # alternately, so both see the same load
            for label, verify in variants:
                runs[label].append(verify_rate(path, args.verify_events, verify))
        for label, _ in variants:  # the best of each: noise only ever adds
            rate, cpu = max(r for r, _ in runs[label]), min(c for _, c in runs[label])
            print(f"{label}verify, {args.verify_events:,} events, {shape + ':':<27}"
                  f"{rate:>10,.0f} events/s  ({cpu:.1f} CPU-s; target >="
                  f" {TARGET_VERIFY:,.0f})", flush=True)


if __name__ == "__main__":
    main()
