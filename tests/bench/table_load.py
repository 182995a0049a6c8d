"""Table load: durable commands/s, fan-out latency and rebuild speed of a real poolhall server.

::

    python tests/bench/table_load.py [--campaigns 100] [--clients 5] [--seconds 10] [--rate 1000]
    python tests/bench/table_load.py --quick              # a 2-second smoke run
    python tests/bench/table_load.py --profile py-spy     # where the server's time goes
    python tests/bench/table_load.py --keep /tmp/bench.db # keep the log to study a rebuild
    python tests/bench/table_load.py --against 34f704b    # beside the release before, alternately
    python tests/bench/table_load.py --db postgresql:///postgres --processes 3   # on PostgreSQL

The server runs in a child process (this file, re-run with ``--serve-child``) on a temporary
SQLite file; this process is the load generator. It speaks the JSON protocol over a minimal
websocket peer of its own (an ``asyncio.Protocol``, permessage-deflate like the real client
unless ``--no-deflate``) so that the generator stays cheaper than the server it measures.

1. full throttle: every client keeps ``--window`` free rolls in flight; only acks count, and
   the log must then hold exactly as many ``dice_rolled`` rows as rolls were acknowledged;
2. paced: ``--rate`` rolls/s across the campaigns; latency from sending to the moment the last
   client of the campaign received the event frame;
3. rebuild: fold every campaign of the resulting log in this process, then time the server's
   own startup rebuild.

With ``--against REV`` the run is instead phases 1 and 2 against two ``poolhall serve``
processes started the same way (the CLI, the same lifted limits, a SQLite file each): this
checkout's and revision REV's (checked out in a temporary worktree, ``_servers.py``),
alternately for ``--rounds`` rounds, each printing its figures for both and the ratio of the
medians (this / before).

With ``--db postgresql://...`` phases 1 and 2 run on ``--processes`` N ``poolhall serve``
processes sharing a fresh database of that PostgreSQL (dropped after), the clients of each
campaign spread over them round-robin: phase 2's latency is then from a command's send until
the last client of its table, on whichever process, has the event. The rebuild and the bare
peer are SQLite-run figures and are left out there.

Targets are printed beside the figures, never asserted. Exit 1 on any correctness failure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for entry in (str(ROOT), str(HERE)):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from _bare_peer import serve_bare  # noqa: E402
from _load_worker import Bench, percentile  # noqa: E402
from _servers import (  # noqa: E402
    Served,
    checkout,
    ratio_line,
    revision_name,
    serve_postgres,
    serve_sqlite,
    thread_cpu,
)

TARGET_THROUGHPUT = 5000.0
TARGET_BARE_RATIO = 0.7
TARGET_P99_MS = 20.0
TARGET_REBUILD = 300_000.0
PROFILE_ENV = "POOLHALL_BENCH_PROFILE"
SETTINGS_ENV = "POOLHALL_BENCH_SETTINGS"
"""JSON of settings the server child takes on top of the bench's (connection_scale.py)."""
SWITCH_ENV = "POOLHALL_BENCH_SWITCH_INTERVAL"
CENSUS_ENV = "POOLHALL_BENCH_GC_CENSUS"
"""A file the server child writes what each collection found to (:mod:`_gc_census`)."""
TARGET_AGAINST_28 = 0.90
"""#28: commands/s and fan-out latency on SQLite not worse than 10% beside the release before
(at least 0.90x the commands/s, at most 1.10x the latency)."""
TARGET_AGAINST_31 = 0.95
"""#31: commands/s within 5% of the release before (deriving faces must not slow the table)."""

LIFTED: dict[str, object] = dict(
    member_rate=1e9, member_burst=10**9, campaign_rate=1e9, campaign_burst=10**9,
    member_in_flight=10**9, member_connections=10**9, join_rate=1e9, join_burst=10**9,
    max_connections_per_address=10**6, request_rate=1e9, request_burst=10**9)
"""The bench measures capacity, so the per-member and per-campaign rates are lifted (its
clients share a few tokens and send far faster than a person does), and so are the caps per
address (every client connects from 127.0.0.1)."""


# ---- the server child ----------------------------------------------------------------------


def serve_child(db: str, token: str) -> None:
    """Run the real server until SIGTERM/SIGINT or until the parent closes our stdin."""
    import ctypes
    import logging

    with contextlib.suppress(Exception):  # die with the parent (Linux)
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)
    logging.basicConfig(level=logging.WARNING, format="server %(levelname)s %(name)s: %(message)s")
    if os.environ.get(SWITCH_ENV):  # diagnosis: does the writer thread wait for the GIL?
        sys.setswitchinterval(float(os.environ[SWITCH_ENV]))
    from poolhall.server.app import Server
    from poolhall.server.settings import Settings

    census_to = os.environ.get(CENSUS_ENV)
    if census_to:  # diagnosis: what the collector's young generations hold
        from _gc_census import GcCensus, watch_stalls

        path, _, only = census_to.partition(":")
        out = open(path, "a")  # noqa: SIM115 (written to while the server runs)
        if only == "stalls":
            watch_stalls(out)
        else:
            GcCensus(out, collections=only != "reclaim")

    capacity = Settings(**{**LIFTED, **json.loads(os.environ.get(SETTINGS_ENV, "{}"))})

    async def main() -> None:
        started = time.perf_counter()
        server = Server(db, "127.0.0.1", 0, admin_token=token, settings=capacity)
        await server.start()
        print(f"READY {server.port} {time.perf_counter() - started:.6f} {len(server.hubs)}",
              flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not os.read(0, 1) else None)
        await stop.wait()
        await server.stop()

    profile_to = os.environ.get(PROFILE_ENV)
    if profile_to:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
        try:
            asyncio.run(main())
        finally:
            profiler.disable()
            profiler.dump_stats(profile_to)
    else:
        asyncio.run(main())


class ServerProcess:
    """The server child: started, timed, stopped gracefully, killed if it will not stop."""

    def __init__(self, db: Path, token: str, log_path: Path, profile_to: Path | None,
                 settings: dict[str, object] | None = None, *, bare: bool = False) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), **{SETTINGS_ENV: json.dumps(settings or {})})
        if profile_to is not None:
            env[PROFILE_ENV] = str(profile_to)
        self.log_path = log_path
        started = time.perf_counter()
        with open(log_path, "ab") as log:  # the child writes to its own copy of the descriptor
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()),
                 *(["--serve-bare", token] if bare else ["--serve-child", str(db), token])],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, cwd=ROOT, env=env,
                start_new_session=True,  # a Ctrl-C reaches us; we stop the server ourselves
            )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode().split()
        if not line or line[0] != "READY":
            self.stop()
            raise RuntimeError(f"server did not start; see {log_path}:\n{self.log_tail()}")
        self.ready_seconds = time.perf_counter() - started
        self.port, self.start_seconds, self.hubs = int(line[1]), float(line[2]), int(line[3])

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def ports(self) -> list[int]:
        return [self.port]

    @property
    def pids(self) -> list[int]:
        return [self.pid]

    def cpu_seconds(self) -> float:
        """User + system CPU of the whole server process (all threads) so far."""
        return sum(sum(split) for split in self.thread_cpu().values()) or float("nan")

    def thread_cpu(self) -> dict[str, tuple[float, float]]:
        """User and system CPU seconds so far: the event loop's thread, and all the others."""
        return thread_cpu([self.pid])

    def stop(self, timeout: float = 20.0) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""


# ---- rebuild -------------------------------------------------------------------------------

REBUILD_RUNS = 5


def rebuild(db: Path) -> tuple[int, float, float, float, float]:
    """Events folded, seconds for the full fold, then for reading, decoding, folding alone."""
    from poolhall.events.log import to_recorded
    from poolhall.events.sqlite_backend import SqliteLog
    from poolhall.projections.campaign import fold
    from poolhall.server.rebuild import rebuild_states

    log = SqliteLog(db)
    try:
        campaigns = log.campaigns()
        fold_seconds = float("inf")
        for _ in range(REBUILD_RUNS):  # best of a few: one run is at the mercy of a busy box
            started = time.perf_counter()  # the server's own projection rebuild: one scan
            events = sum(state.head for state in rebuild_states(log).values())
            fold_seconds = min(fold_seconds, time.perf_counter() - started)
        # the same work in three separate passes, to show where the time goes
        started = time.perf_counter()
        rows = [list(log.rows(campaign)) for campaign in campaigns]
        read_seconds = time.perf_counter() - started
        started = time.perf_counter()
        recorded = [[to_recorded(row) for row in part] for part in rows]
        decode_seconds = time.perf_counter() - started
        started = time.perf_counter()
        for part in recorded:
            fold(part)
        evolve_seconds = time.perf_counter() - started
    finally:
        log.close()
    return events, fold_seconds, read_seconds, decode_seconds, evolve_seconds


# ---- profiles ------------------------------------------------------------------------------


def print_cprofile(path: Path, top: int) -> None:
    import pstats

    print(f"\n--- cProfile of the server process (top {top} by own time) ---")
    stats = pstats.Stats(str(path))
    stats.sort_stats("tottime").print_stats(top)


def print_pyspy(path: Path, top: int) -> None:
    """Summarize py-spy's collapsed stacks: own and inclusive share per function and package."""
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    packages: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = [f for f in stack.split(";") if not f.startswith("thread (")]
        total += count
        leaf = frames[-1]
        own[leaf] = own.get(leaf, 0) + count
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + count
        where = leaf.rpartition("(")[2].split(":")[0]
        package = where.split("/")[0] if "/" in where else where
        packages[package] = packages.get(package, 0) + count
    if not total:
        print("py-spy recorded no samples")
        return
    print(f"\n--- py-spy of the server during phase 1: {total} samples holding the GIL ---")
    print("own time by package: " + ", ".join(
        f"{name} {100 * n / total:.0f}%"
        for name, n in sorted(packages.items(), key=lambda kv: -kv[1]) if n / total >= 0.01))
    print(f"{'own %':>6} {'incl %':>7}  function")
    for frame, count in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{100 * count / total:6.1f} {100 * inclusive[frame] / total:7.1f}  {frame}")
    print(f"\n{'incl %':>7}  function (inclusive, event loop and thread plumbing left out)")
    plumbing = ("asyncio/runners.py", "asyncio/base_events.py", "asyncio/events.py",
                "threading.py", "concurrent/futures/thread.py", "table_load.py")
    shown = [(f, n) for f, n in inclusive.items() if not any(p in f for p in plumbing)]
    for frame, count in sorted(shown, key=lambda kv: -kv[1])[:top]:
        print(f"{100 * count / total:7.1f}  {frame}")


# ---- main ----------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "meets target" if ok else "BELOW TARGET"


async def run_load(args: argparse.Namespace, server: ServerProcess | Served,
                   work: Path) -> list[str]:
    """Phases 1 and 2; returns the correctness failures found."""
    failures: list[str] = []
    bench = Bench(args, server.ports)
    started = time.perf_counter()
    await bench.setup()
    print(f"setup: {args.campaigns} campaigns x {args.clients} clients connected in "
          f"{time.perf_counter() - started:.1f}s (deflate {'off' if args.no_deflate else 'on'})")

    spy: subprocess.Popen[bytes] | None = None
    spy_out = work / "py-spy.txt"
    if args.profile == "py-spy":
        spy = subprocess.Popen(
            [args.py_spy, "record", "--pid", str(server.pids[0]), "--format", "raw", "--gil",
             "--function", "--rate", "200", "--duration", str(max(1, int(args.seconds))),
             "-o", str(spy_out)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        await asyncio.sleep(0.5)

    threads0 = server.thread_cpu()
    cpu0, own0 = server.cpu_seconds(), time.process_time()
    elapsed, acks = await bench.throughput(args.seconds)
    cpu1, own1 = server.cpu_seconds(), time.process_time()
    threads1 = server.thread_cpu()
    drained = await bench.settle()
    rate = acks / elapsed
    lat = bench.ack_latency
    print(f"\n1. full throttle, {args.campaigns} campaigns x {args.clients} clients, "
          f"{args.window} in flight per client, {elapsed:.1f}s"
          f"{'' if len(server.ports) == 1 else f', {len(server.ports)} server processes'}")
    print(f"   durable commands/s: {rate:,.0f}   (target >= {TARGET_THROUGHPUT:,.0f}: "
          f"{verdict(rate >= TARGET_THROUGHPUT)})")
    print(f"   acks in window {acks:,}; ack latency p50 {1000 * percentile(lat, 0.5):.1f} ms, "
          f"p99 {1000 * percentile(lat, 0.99):.1f} ms")
    print(f"   CPU: server {100 * (cpu1 - cpu0) / elapsed:.0f}% of a core, load generator "
          f"{100 * (own1 - own0) / elapsed:.0f}%; {acks / max(cpu1 - cpu0, 1e-9):,.0f} commands "
          "per server CPU-second")
    print("   server CPU per command: " + ", ".join(
        f"{name} {1e6 * (threads1[name][0] - threads0[name][0]) / max(acks, 1):.0f} us user + "
        f"{1e6 * (threads1[name][1] - threads0[name][1]) / max(acks, 1):.0f} us sys"
        for name in threads1) + ("  (other threads = the SQLite writer)" if args.postgres is None
                                 else "  (other threads = psycopg's pool and the listener)"))
    if not drained:
        failures.append("commands still in flight 30 s after phase 1 stopped")
    if args.rounds:
        failures += await compare_bare(args, bench)
    if spy is not None:
        try:
            _, err = spy.communicate(timeout=args.seconds + 30)
        except subprocess.TimeoutExpired:
            spy.kill()
            _, err = spy.communicate()
        if spy.returncode != 0 or not spy_out.exists():
            print(f"   py-spy failed: {err.decode(errors='replace').strip()[-400:]}")
        else:
            print_pyspy(spy_out, args.top)

    cpu0, own0 = server.cpu_seconds(), time.process_time()
    sent = await bench.paced(args.seconds, args.rate)
    cpu1, own1 = server.cpu_seconds(), time.process_time()
    drained = await bench.settle()
    fan = bench.fanout_latency
    p50, p99 = 1000 * percentile(fan, 0.5), 1000 * percentile(fan, 0.99)
    print(f"\n2. paced at {args.rate:,.0f} commands/s for {args.seconds:.0f}s ({sent:,} sent, "
          f"{len(fan):,} seen by every client)")
    print(f"   send -> last client of the table has the event: p50 {p50:.2f} ms, p99 {p99:.2f} ms,"
          f" max {1000 * max(fan, default=float('nan')):.2f} ms   (target p99 < {TARGET_P99_MS:.0f}"
          f" ms: {verdict(p99 < TARGET_P99_MS)})")
    lat = bench.ack_latency
    print(f"   send -> ack: p50 {1000 * percentile(lat, 0.5):.2f} ms, "
          f"p99 {1000 * percentile(lat, 0.99):.2f} ms")
    print(f"   CPU: server {100 * (cpu1 - cpu0) / args.seconds:.0f}% of a core, load generator "
          f"{100 * (own1 - own0) / args.seconds:.0f}%")
    if not drained or len(fan) != sent:
        failures.append(f"paced phase: {sent - len(fan)} commands never reached every client")

    failures += bench.failures()

    failures += durability(args.postgres or args.db, bench.acked)
    await bench.close()
    return failures


def durability(db: str | Path, acked: int, label: str = "") -> list[str]:
    """Whether the log (a SQLite file or a ``postgresql://`` URL) holds exactly as many
    ``dice_rolled`` rows as rolls were acknowledged; read beside the running server."""
    query = "SELECT count(*) FROM events WHERE type = 'dice_rolled'"
    if str(db).startswith("postgresql://"):
        import psycopg

        with psycopg.connect(str(db)) as connection:
            row = connection.execute(query).fetchone()
    else:
        with contextlib.closing(sqlite3.connect(db)) as connection:
            row = connection.execute(query).fetchone()
    stored = int(row[0]) if row is not None else 0
    print(f"\ndurability{label}: {acked:,} rolls acknowledged, {stored:,} dice_rolled rows in "
          f"the log: {'match' if stored == acked else 'MISMATCH'}")
    if stored != acked:
        return [f"the log{label} holds {stored} dice_rolled rows, {acked} were acked"]
    return []




Contender = tuple[str, Bench, "ServerProcess | Served"]


async def interleave(args: argparse.Namespace, contenders: list[Contender], paced: bool,
                     ) -> tuple[dict[str, dict[str, list[float]]], list[str]]:
    """Phase 1 (and with ``paced`` phase 2) against each contender in turn, ``args.rounds``
    times, the order reversed every other round; each figure of each round, by contender."""
    failures: list[str] = []
    names = ("commands/s", "% of a core", "per CPU-second", "p50 ms", "p99 ms")
    figures: dict[str, dict[str, list[float]]] = {
        name: {figure: [] for figure in names} for name, _, _ in contenders}
    for round_ in range(args.rounds):
        said = []
        for name, bench, process in contenders if round_ % 2 == 0 else contenders[::-1]:
            mine = figures[name]
            cpu0 = process.cpu_seconds()
            elapsed, acks = await bench.throughput(args.seconds)
            cpu1 = process.cpu_seconds()
            if not await bench.settle():
                failures.append(f"{name}: commands still in flight after round {round_ + 1}")
            mine["commands/s"].append(acks / elapsed)
            mine["% of a core"].append(100 * (cpu1 - cpu0) / elapsed)
            mine["per CPU-second"].append(acks / max(cpu1 - cpu0, 1e-9))
            line = (f"{name} {acks / elapsed:,.0f}/s ({mine['% of a core'][-1]:.0f}% of a core,"
                    f" {mine['per CPU-second'][-1]:,.0f} per CPU-second)")
            if paced:
                sent = await bench.paced(args.seconds, args.rate)
                if not await bench.settle() or len(bench.fanout_latency) != sent:
                    failures.append(f"{name}: round {round_ + 1}: "
                                    f"{sent - len(bench.fanout_latency)} commands never reached"
                                    " every client")
                mine["p50 ms"].append(1000 * percentile(bench.fanout_latency, 0.5))
                mine["p99 ms"].append(1000 * percentile(bench.fanout_latency, 0.99))
                line += (f", paced p50 {mine['p50 ms'][-1]:.2f} ms p99 "
                         f"{mine['p99 ms'][-1]:.2f} ms")
            said.append(line)
        print(f"   round {round_ + 1}: " + "; ".join(sorted(said))
              + f"; load average {os.getloadavg()[0]:.2f}", flush=True)
    return figures, failures


async def compare_bare(args: argparse.Namespace, bench: Bench) -> list[str]:
    """Phase 1 against poolhall and the bare websockets peer, interleaved, same load."""
    bare = ServerProcess(args.db, args.admin_token, args.db.with_name("bare.log"), None,
                         bare=True)
    try:
        bare_bench = Bench(args, bare.port)
        await bare_bench.setup()
        print(f"\n1b. full throttle against a bare websockets peer (parses and broadcasts, "
              f"stores nothing), {args.rounds} rounds of {args.seconds:g}s each, interleaved")
        figures, failures = await interleave(
            args, [("poolhall", bench, server_of(args)), ("bare", bare_bench, bare)], False)
        rates, per_cpu = ({name: figures[name][figure] for name in figures}
                          for figure in ("commands/s", "per CPU-second"))
        ours, theirs = statistics.median(rates["poolhall"]), statistics.median(rates["bare"])
        ratio = ours / theirs
        print(f"   median commands/s: poolhall {ours:,.0f}, bare peer {theirs:,.0f}: ratio "
              f"{ratio:.2f}x   (target >= {TARGET_BARE_RATIO}x: "
              f"{verdict(ratio >= TARGET_BARE_RATIO)})")
        efficiency = statistics.median(per_cpu["poolhall"]) / statistics.median(per_cpu["bare"])
        print(f"   median commands per server CPU-second: poolhall "
              f"{statistics.median(per_cpu['poolhall']):,.0f}, bare peer "
              f"{statistics.median(per_cpu['bare']):,.0f}: ratio {efficiency:.2f}x (what the ratio"
              " is when neither process is starved of a core; on a busy machine trust this one)")
        if bare_bench.lost or bare_bench.errors:
            failures.append(f"bare peer: {bare_bench.lost} lost, errors {bare_bench.errors}")
        await bare_bench.close()
    finally:
        bare.stop()
    return failures


async def compare_revisions(args: argparse.Namespace, this: Served, before: Served,
                            before_db: Path) -> list[str]:
    """Phases 1 and 2 against this checkout's server and the revision's, alternately."""
    benches = [Bench(args, this.ports), Bench(args, before.ports)]
    for bench, served in zip(benches, (this, before), strict=True):
        started = time.perf_counter()
        await bench.setup()
        print(f"setup ({served.label}): {args.campaigns} campaigns x {args.clients} clients "
              f"connected in {time.perf_counter() - started:.1f}s")
    print(f"\nphases 1 (full throttle, {args.window} in flight per client) and 2 (paced at "
          f"{args.rate:,.0f}/s), {args.rounds} rounds of {args.seconds:g}s each, alternately")
    figures, failures = await interleave(
        args, [("this", benches[0], this), ("before", benches[1], before)], True)
    mine, theirs = figures["this"], figures["before"]
    print(f"\nmedians over {args.rounds} rounds, this ({this.label}) / before ({before.label}):")
    rates = (mine["commands/s"], theirs["commands/s"])
    print(ratio_line("durable commands/s (#31)", *rates, floor=TARGET_AGAINST_31)[0])
    print(ratio_line("durable commands/s (#28)", *rates, floor=TARGET_AGAINST_28)[0])
    print(ratio_line("commands per server CPU-second", mine["per CPU-second"],
                     theirs["per CPU-second"])[0] + " (the steadier one on a busy machine)")
    print(ratio_line("send -> last client p99 (#28)", mine["p99 ms"], theirs["p99 ms"], " ms",
                     2, ceiling=2 - TARGET_AGAINST_28)[0])
    print(ratio_line("send -> last client p50", mine["p50 ms"], theirs["p50 ms"], " ms", 2)[0])
    failures += durability(args.db, benches[0].acked, " (this)")
    failures += durability(before_db, benches[1].acked, " (before)")
    for bench, label in zip(benches, ("this: ", "before: "), strict=True):
        failures += bench.failures(label)
        await bench.close()
    return failures


def run_against(args: argparse.Namespace, work: Path) -> list[str]:
    """``--against``: both servers started, compared, stopped; the failures found."""
    this_db, before_db = work / "this" / "bench.db", work / "before" / "bench.db"
    args.db = this_db
    with checkout(args.against) as code:
        this = serve_sqlite(revision_name(), ROOT, this_db, args.admin_token, LIFTED)
        try:
            before = serve_sqlite(f"{args.against}, {revision_name(code)}", code, before_db,
                                  args.admin_token, LIFTED)
            try:
                return asyncio.run(compare_revisions(args, this, before, before_db))
            finally:
                before.stop()
                if before.log_tail():
                    print("\nserver log (before):\n" + before.log_tail())
        finally:
            this.stop()
            if this.log_tail():
                print("\nserver log (this):\n" + this.log_tail())


def run_postgres(args: argparse.Namespace, work: Path) -> list[str]:
    """``--db postgresql://``: phases 1 and 2 on ``--processes`` servers; the failures."""
    with serve_postgres(args.postgres, args.processes, work, LIFTED) as (servers, token, url):
        print(f"{servers.label} on a fresh database of {args.postgres}, clients spread over "
              f"ports {servers.ports}")
        args.admin_token, args.postgres, args.rounds = token, url, 0
        failures = asyncio.run(run_load(args, servers, work))
        tail = servers.log_tail()
    if tail:
        print("\nserver logs:\n" + tail)
    return failures


def server_of(args: argparse.Namespace) -> ServerProcess:
    """The poolhall server of this run (kept on ``args`` by :func:`main`)."""
    server: ServerProcess = args.server
    return server


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.serve_bare:
        serve_bare(args.serve_bare)
        return 0
    if args.serve_child:
        serve_child(*args.serve_child)
        return 0
    if args.quick:
        args.seconds = 2.0
    _check(parser, args)

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # clean up as for Ctrl-C

    signal.signal(signal.SIGTERM, terminate)
    work = Path(tempfile.mkdtemp(prefix="poolhall-bench-"))
    args.db = work / "bench.db"
    args.admin_token = "ph_bench-" + secrets.token_hex(16)
    failures: list[str] = []
    try:
        print(f"poolhall table load: load average {os.getloadavg()[0]:.2f} on "
              f"{os.cpu_count()} CPUs")
        if args.against or args.postgres:
            failures = (run_against if args.against else run_postgres)(args, work)
            print(f"load average at the end: {os.getloadavg()[0]:.2f}")
            return finish(failures)
        _run_sqlite(args, work, failures)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as error:  # any failure: say it loudly, still clean up
        failures.append(f"{type(error).__name__}: {error}")
    finally:
        log_tail = ""
        with contextlib.suppress(OSError):
            log_tail = (work / "server.log").read_text(errors="replace").strip()
        shutil.rmtree(work, ignore_errors=True)
    if log_tail:
        print("\nserver log:\n" + "\n".join(log_tail.splitlines()[-20:]))
    return finish(failures)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--campaigns", type=int, default=100)
    parser.add_argument("--clients", type=int, default=5, help="per campaign, the GM included")
    parser.add_argument("--seconds", type=float, default=10.0, help="per phase")
    parser.add_argument("--rate", type=float, default=1000.0, help="commands/s in phase 2")
    parser.add_argument("--window", type=int, default=8, help="rolls in flight per client")
    parser.add_argument("--system", default="narrative")
    parser.add_argument("--quick", action="store_true", help="2-second phases: a smoke run")
    parser.add_argument("--no-deflate", action="store_true",
                        help="do not offer permessage-deflate (the real client does)")
    parser.add_argument("--profile", choices=("cprofile", "py-spy"),
                        help="profile the server: cProfile for the whole run, py-spy in phase 1")
    parser.add_argument("--top", type=int, default=25, help="profile lines to print")
    parser.add_argument("--keep", type=Path, metavar="DB",
                        help="copy the resulting log to DB (to profile a rebuild on it later)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="interleaved rounds of phase 1 against poolhall and the bare "
                             "websockets peer (0: no comparison); with --against, rounds of "
                             "phases 1 and 2 against each server")
    parser.add_argument("--against", metavar="REV",
                        help="instead, phases 1 and 2 against this checkout's `poolhall serve` "
                             "and revision REV's (e.g. 34f704b, the release before), "
                             "alternately, printing both and the ratio")
    parser.add_argument("--db", dest="postgres", metavar="URL",
                        help="a postgresql:// server: run on a fresh database of it (dropped "
                             "after) instead of a SQLite file")
    parser.add_argument("--processes", type=int, default=1,
                        help="with --db: `poolhall serve` processes sharing the database; the "
                             "clients of each campaign are spread over them (default 1)")
    parser.add_argument("--serve-child", nargs=2, metavar=("DB", "TOKEN"), help=argparse.SUPPRESS)
    parser.add_argument("--serve-bare", metavar="TOKEN", help=argparse.SUPPRESS)
    return parser


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse what is out of range or does not go together (``parser.error`` exits)."""
    if not (1 <= args.campaigns <= 2000 and 1 <= args.clients <= 50 and 0 < args.seconds <= 600
            and 0 < args.rate <= 100_000 and 1 <= args.window <= 64):
        parser.error("out of range: campaigns 1-2000, clients 1-50, seconds <= 600, window 1-64")
    if args.postgres is not None and not args.postgres.startswith("postgresql://"):
        parser.error("--db takes a postgresql:// URL (SQLite is the default, a temporary file)")
    if args.processes != 1 and args.postgres is None:
        parser.error("--processes needs --db postgresql://...: SQLite is one process's")
    if not 1 <= args.processes <= 8:
        parser.error("--processes: 1 to 8")
    if (args.against or args.postgres) and (args.profile or args.keep):
        parser.error("--profile and --keep are for the default run (one SQLite server)")
    if args.against and args.postgres:
        parser.error("--against compares on SQLite; it does not take --db")
    if args.against and args.rounds < 1:
        parser.error("--against needs --rounds >= 1")
    if args.profile == "py-spy":
        args.py_spy = _py_spy(parser)


def _py_spy(parser: argparse.ArgumentParser) -> str:
    """py-spy's path: on the PATH, or beside this Python."""
    found = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(found).exists():
        parser.error("py-spy not found: /work/venv/bin/pip install py-spy")
    return found


def _run_sqlite(args: argparse.Namespace, work: Path, failures: list[str]) -> None:
    """The default run, on one SQLite server: the load's phases (their failures added to
    ``failures``), the server's profile, then the log it wrote rebuilt, here and by a
    server starting on it."""
    profile_to = work / "server.prof" if args.profile == "cprofile" else None
    print(f"server in a child process, log {args.db}")
    server = ServerProcess(args.db, args.admin_token, work / "server.log", profile_to)
    args.server = server
    try:
        failures.extend(asyncio.run(run_load(args, server, work)))
    finally:
        server.stop()
    if server.proc.returncode not in (0, None):
        failures.append(f"server exited with {server.proc.returncode}")
    if profile_to is not None and profile_to.exists():
        print_cprofile(profile_to, args.top)
    if args.keep is not None:
        shutil.copyfile(args.db, args.keep)
        print(f"\nthe log is kept in {args.keep}")
    events, fold_s, read_s, decode_s, evolve_s = rebuild(args.db)
    speed = events / fold_s
    print(f"\n3. rebuild (best of {REBUILD_RUNS}): {events:,} events folded in "
          f"{fold_s:.3f}s = {speed:,.0f} events/s   "
          f"(target >= {TARGET_REBUILD:,.0f}: {verdict(speed >= TARGET_REBUILD)})")
    print(f"   in separate passes: reading rows {read_s:.3f}s, decoding (to_recorded) "
          f"{decode_s:.3f}s, folding (evolve) {evolve_s:.3f}s")
    server = ServerProcess(args.db, args.admin_token, work / "server.log", None)
    try:
        print(f"   server startup rebuild: {server.hubs} campaigns in {server.start_seconds:.3f}s "
              f"= {events / server.start_seconds:,.0f} events/s (process ready in "
              f"{server.ready_seconds:.2f}s including imports)")
    finally:
        server.stop()


def finish(failures: list[str]) -> int:
    """Print the failures, or that there were none; the exit status."""
    if failures:
        for failure in failures:
            print(f"FAILED: {failure}")
        return 1
    print("\nOK: every acknowledged roll is in the log, no gap, no error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
