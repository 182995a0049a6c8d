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
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from itertools import pairwise
from pathlib import Path

CHECKOUT_ENV = "POOLHALL_BENCH_CHECKOUT"
"""Set by ``--against`` for its child runs: the checkout whose code a child imports."""
ROOT = Path(os.environ.get(CHECKOUT_ENV) or Path(__file__).resolve().parents[2])
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if not (ROOT / "poolhall" / "__init__.py").exists():  # its code is not poolhall.* yet
    raise SystemExit(f"{ROOT} is a checkout from before the one namespace (it has no "
                     "poolhall/): run that checkout's own tests/bench/append_rate.py")

from _append_common import (  # noqa: E402  (after ROOT: its poolhall is the checkout's)
    cached_log,
    random_ids,
    remove_db,
    request,
    seconds_line,
)
from _append_verify import run_verify  # noqa: E402
from _raw_sqlite import run_raw  # noqa: E402

from poolhall.events.sqlite_backend import SqliteLog  # noqa: E402
from poolhall.server.gc_tuning import GcTuning  # noqa: E402
from poolhall.server.settings import Settings  # noqa: E402
from poolhall.server.writer import GroupCommitter  # noqa: E402

TARGET_COMMITTER = 50_000.0


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
            batch.append(request(f"c{k}", heads[k], n))
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
    remove_db(path)
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
            ids = random_ids()
            while not stop:
                (result,) = await committer.append([request(
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
    remove_db(path)
    by_second = [float(b - a) for a, b in pairwise(counts)]
    return (done / elapsed, done / max(batches, 1), cpu / max(done, 1),
            writer_cpu / max(done, 1), by_second)


def _writer_cpu_seconds() -> float:
    """The CPU time so far of the group committer's writer thread (its executor's one)."""
    (writer,) = [t for t in threading.enumerate() if t.name.startswith("poolhall-writer")]
    assert writer.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(writer.ident))


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


def main() -> None:
    args = _arguments()
    parts = set(args.only or ["raw", "append", "committer", "verify"])
    work = Path(tempfile.mkdtemp(prefix="append-rate-", dir=args.dir))
    try:
        for part, run in (("raw", run_raw), ("append", _append), ("committer", _committer),
                          ("verify", run_verify)):
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
              f" {label}; target >= {TARGET_COMMITTER:,.0f})" + seconds_line(by_second),
              flush=True)
    if args.compare_recheck:
        print(f"  hub's requests / ids looked up again: "
              f"{max(by_mode[False])[0] / max(by_mode[True])[0]:.2f}x", flush=True)


if __name__ == "__main__":
    main()
