"""Connection scale: fan-out latency and the collector's pauses with 1k, 5k and 10k clients.

::

    python tests/bench/connection_scale.py                    # 1k, 5k, 10k clients; 100 and 1,000/s
    python tests/bench/connection_scale.py --sizes 1000 --seconds 3     # a smoke run
    python tests/bench/connection_scale.py --server-setting gc_freeze_joins=0   # CPython's GC
    python tests/bench/connection_scale.py --against 34f704b --sizes 1000,5000 --rounds 3
    python tests/bench/connection_scale.py --db postgresql:///postgres --processes 3

The real server runs in a child process (``_server_child.py``'s, as for ``table_load.py``, its
rate limits lifted, and here its connection caps too: ``max_connections`` 12,000 and no
per-address cap, as every client comes from 127.0.0.1). Tables of ``--clients`` clients (the GM
and players) are added until each size is reached, then at each ``--rates`` the clients roll,
paced across the tables, for ``--seconds``; printed per step: p50/p99/max from sending a roll
to the last client of its table having the event, and what the garbage collector cost the
server meanwhile (collections and pause totals per generation, how many collections took 2, 5,
10, 20 or 50 ms of CPU or more, from ``/health?format=json``), with the server's RSS. The load
generator is ``_load_worker.py``'s: one event loop, a minimal websocket peer per client.

To see what the server's collector scans, or which callbacks hold its event loop, run with
``POOLHALL_BENCH_GC_CENSUS=FILE`` (``FILE:stalls``, ``FILE:reclaim``: ``_gc_census.py``); never
for figures, it slows the server.

With ``--against REV`` two servers run side by side, this checkout's ``poolhall serve`` and
revision REV's (checked out in a temporary worktree by ``_servers.py``), both started by the
CLI with the same settings, each with its own clients; at each size and rate the two are
measured alternately for ``--rounds`` rounds, and the medians are printed with their ratio
(this / before) against #28's bound (not worse than 10%). The collector's figures are left out
there (an older server may not report them the same way).

With ``--db postgresql://...`` the clients are spread over ``--processes`` N ``poolhall
serve`` processes on a fresh database of that PostgreSQL (dropped after), each table's over
all of them, so that the latency is to the last client of the table on whichever process; CPU
and RSS are the processes' sums (PostgreSQL's own processes not counted), and the collector's
line is printed for each.

Targets are printed beside the figures, never asserted. Exit 1 on a gap, a lost connection or
a roll that never reached its table.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import secrets
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for entry in (str(ROOT), str(HERE)):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from _load_worker import Bench, percentile  # noqa: E402
from _server_child import LIFTED, ServerProcess  # noqa: E402
from _servers import (  # noqa: E402
    Served,
    checkout,
    ratio_line,
    revision_name,
    serve_postgres,
    serve_sqlite,
)

TARGET_P99_MS = 20.0
SCALE_SETTINGS: dict[str, Any] = {
    "max_connections": 12_000, "max_connections_per_address": 1_000_000,
    "request_rate": 1e9, "request_burst": 10**9, "join_failures_allowed": 10**9,
}


def gc_status(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health?format=json", timeout=30) as r:
        return dict(json.loads(r.read())["gc"])


def rss_mb(pids: list[int]) -> float:
    """The resident memory of processes ``pids``, summed."""
    total = 0.0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) / 1024
    return total


class GeneratorGc:
    """The load generator's own collections: a pause here would inflate every latency seen
    meanwhile, so its objects are frozen after each setup and its pauses are printed."""

    def __init__(self) -> None:
        self.pause = 0.0
        self.longest = 0.0
        self._started = 0.0
        gc.callbacks.append(self.callback)

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            took = time.perf_counter() - self._started
            self.pause += took
            self.longest = max(self.longest, took)


def gc_line(before: dict[str, Any], after: dict[str, Any]) -> str:
    counts = [a - b for a, b in zip(after["collections"], before["collections"], strict=True)]
    pauses = [a - b for a, b in zip(after["pause_ms"], before["pause_ms"], strict=True)]
    cpu = [a - b for a, b in zip(after["cpu_ms"], before["cpu_ms"], strict=True)]
    levels = after.get("long_pauses_at_ms", [])
    long = [a - b for a, b in zip(after.get("long_pauses", []), before.get("long_pauses", []),
                                  strict=True)]
    longest = (", ".join(f"{n} of {ms}+" for ms, n in zip(levels, long, strict=True))
               if levels else "not counted")
    return (f"GC: {counts[0]}/{counts[1]}/{counts[2]} collections (gen 0/1/2) pausing "
            f"{pauses[0]:.0f}/{pauses[1]:.0f}/{pauses[2]:.0f} ms (CPU {cpu[0]:.0f}/{cpu[1]:.0f}/"
            f"{cpu[2]:.0f} ms); collections of CPU ms {longest}; longest gen-2 pause so far "
            f"{after['max_pause_ms'][2]:.1f} ms; {after['freezes'] - before['freezes']} freezes, "
            f"{after.get('sweeps', 0) - before.get('sweeps', 0)} sweeps")


async def grow(args: argparse.Namespace, main: Bench, server: ServerProcess | Served,
               size: int, label: str = "") -> None:
    """Tables of ``args.clients`` added to ``main`` until it has ``size`` clients."""
    tables = len(main.peers)
    wanted = size // args.clients
    if wanted > tables:
        args.campaigns = wanted - tables
        more = Bench(args, server.ports)
        started = time.perf_counter()
        await more.setup(first=tables)
        for table in more.peers:
            for peer in table:
                peer.bench = main
        main.peers.extend(more.peers)
        print(f"\n{label}{wanted * args.clients:,} clients ({wanted:,} tables x {args.clients}); "
              f"the last {args.campaigns * args.clients:,} joined in "
              f"{time.perf_counter() - started:.1f}s; server RSS "
              f"{rss_mb(server.pids):.0f} MB")




async def run(args: argparse.Namespace, server: ServerProcess | Served) -> list[str]:
    failures: list[str] = []
    main = Bench(args, server.ports)
    own_gc = GeneratorGc()
    for size in args.sizes:
        await grow(args, main, server, size)
        gc.collect()
        gc.freeze()  # the generator's thousands of peers: out of its own collector's scans
        await asyncio.sleep(args.settle)  # the burst of joins settles (and is frozen)
        idle0, idle_at = server.cpu_seconds(), time.perf_counter()
        await asyncio.sleep(args.settle)  # no commands: what the connections alone cost
        idle = (server.cpu_seconds() - idle0) / (time.perf_counter() - idle_at)
        print(f"   idle: server CPU {100 * idle:.1f}% of a core (no commands: keepalive and "
              "timers)")
        for rate in args.rates:
            before = [await asyncio.to_thread(gc_status, port) for port in server.ports]
            own_gc.pause = own_gc.longest = 0.0
            cpu0, own0 = server.cpu_seconds(), time.process_time()
            sent = await main.paced(args.seconds, rate)
            cpu1, own1 = server.cpu_seconds(), time.process_time()
            drained = await main.settle(60)
            after = [await asyncio.to_thread(gc_status, port) for port in server.ports]
            fan = main.fanout_latency
            p50, p99 = 1000 * percentile(fan, 0.5), 1000 * percentile(fan, 0.99)
            verdict = "meets target" if p99 <= TARGET_P99_MS else "BELOW TARGET"
            print(f"   {rate:>6,.0f} commands/s: command -> last client p50 {p50:.1f} ms, "
                  f"p99 {p99:.1f} ms, max {1000 * max(fan, default=float('nan')):.1f} ms "
                  f"({len(fan):,} of {sent:,})  (p99 <= {TARGET_P99_MS:.0f} ms: {verdict})")
            for n, (then, now) in enumerate(zip(before, after, strict=True)):
                which = f"server {n + 1}" if len(server.ports) > 1 else "server"
                print(f"      {which} {gc_line(then, now)}")
            print(f"      RSS {rss_mb(server.pids):.0f} MB")
            print(f"      CPU: server {100 * (cpu1 - cpu0) / args.seconds:.0f}% of a core "
                  f"({1000 * (cpu1 - cpu0) / max(sent, 1):.2f} CPU-s per 1,000 commands), load "
                  f"generator {100 * (own1 - own0) / args.seconds:.0f}% (its GC paused "
                  f"{1000 * own_gc.pause:.0f} ms, longest {1000 * own_gc.longest:.1f} ms); "
                  f"load average {os.getloadavg()[0]:.2f}")
            if not drained or len(fan) != sent:
                failures.append(f"{size} clients at {rate}/s: {sent - len(fan)} rolls never "
                                "reached every client of their table")
    failures += main.failures()
    await main.close()
    return failures


async def run_against(args: argparse.Namespace, this: Served, before: Served) -> list[str]:
    """Each size and rate on both servers, alternately for ``args.rounds`` rounds."""
    failures: list[str] = []
    benches = {"this": (Bench(args, this.ports), this),
               "before": (Bench(args, before.ports), before)}
    own_gc = GeneratorGc()
    for size in args.sizes:
        for name, (main, server) in benches.items():
            await grow(args, main, server, size, f"{name} ({server.label}): ")
        gc.collect()
        gc.freeze()
        await asyncio.sleep(args.settle)
        for rate in args.rates:
            seen: dict[str, dict[str, list[float]]] = {
                name: {"p50": [], "p99": [], "max": [], "cpu": []} for name in benches}
            for round_ in range(args.rounds):
                said = []
                names = list(benches) if round_ % 2 == 0 else list(benches)[::-1]
                for name in names:
                    main, server = benches[name]
                    own_gc.pause = 0.0
                    cpu0 = server.cpu_seconds()
                    sent = await main.paced(args.seconds, rate)
                    cpu1 = server.cpu_seconds()
                    drained = await main.settle(60)
                    fan = main.fanout_latency
                    mine = seen[name]
                    mine["p50"].append(1000 * percentile(fan, 0.5))
                    mine["p99"].append(1000 * percentile(fan, 0.99))
                    mine["max"].append(1000 * max(fan, default=float("nan")))
                    mine["cpu"].append(1000 * (cpu1 - cpu0) / max(sent, 1))
                    said.append(f"{name} p50 {mine['p50'][-1]:.1f} p99 {mine['p99'][-1]:.1f} "
                                f"max {mine['max'][-1]:.1f} ms, {mine['cpu'][-1]:.2f} CPU-s per "
                                "1,000")
                    if not drained or len(fan) != sent:
                        failures.append(f"{name}: {size} clients at {rate}/s: "
                                        f"{sent - len(fan)} rolls never reached every client "
                                        "of their table")
                print(f"   {size:,} clients, {rate:,.0f}/s, round {round_ + 1}: "
                      + "; ".join(sorted(said))
                      + f" (generator GC {1000 * own_gc.pause:.0f} ms); load average "
                      f"{os.getloadavg()[0]:.2f}", flush=True)
            print(f"   {size:,} clients at {rate:,.0f} commands/s, medians, this ({this.label})"
                  f" / before ({before.label}):")
            this_seen, before_seen = seen["this"], seen["before"]
            print(ratio_line("command -> last client p99", this_seen["p99"],
                             before_seen["p99"], " ms", 1, ceiling=1.1)[0])
            print(ratio_line("command -> last client p50", this_seen["p50"],
                             before_seen["p50"], " ms", 1)[0])
            print(ratio_line("server CPU-s per 1,000 commands", this_seen["cpu"],
                             before_seen["cpu"], "", 2, ceiling=1.1)[0], flush=True)
        print(f"   RSS with {size:,} clients: this {rss_mb(this.pids):.0f} MB, before "
              f"{rss_mb(before.pids):.0f} MB")
    for name, (main, _) in benches.items():
        failures += main.failures(f"{name}: ")
        await main.close()
    return failures


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    settings = dict(SCALE_SETTINGS)
    for item in args.server_setting:
        name, _, value = item.partition("=")
        settings[name] = json.loads(value)
    work = Path(tempfile.mkdtemp(prefix="poolhall-scale-", dir=args.db_dir))
    args.db = work / "bench.db"
    args.admin_token = "ph_bench-" + secrets.token_hex(16)
    print(f"connection scale: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; "
          f"server settings {settings}")
    try:
        if args.against:
            failures, tail = against(args, work, settings)
        else:
            failures, tail = _run_alone(args, work, settings)
    finally:
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
        shutil.rmtree(work, ignore_errors=True)
    if tail:
        print("\nserver log (last lines):\n" + tail)
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked; the descriptor limit raised to its hard limit, which must
    allow every client."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,5000,10000", help="clients, comma-separated")
    parser.add_argument("--rates", default="100,1000", help="commands/s, comma-separated")
    parser.add_argument("--clients", type=int, default=5, help="per table, the GM included")
    parser.add_argument("--seconds", type=float, default=10.0, help="per rate")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds of quiet after the joins, before measuring")
    parser.add_argument("--db-dir", default=None,
                        help="where the log is written (e.g. /dev/shm: no fsync waits on a "
                             "shared disk); a temporary directory by default")
    parser.add_argument("--server-setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a server setting for this run, e.g. gc_freeze_joins=0")
    parser.add_argument("--against", metavar="REV",
                        help="run this checkout's `poolhall serve` and revision REV's side by "
                             "side, alternately, printing both and the ratio")
    parser.add_argument("--rounds", type=int, default=3,
                        help="with --against: alternate rounds at each size and rate")
    parser.add_argument("--db", dest="postgres", metavar="URL",
                        help="a postgresql:// server: run on a fresh database of it (dropped "
                             "after) instead of a SQLite file")
    parser.add_argument("--processes", type=int, default=1,
                        help="with --db: `poolhall serve` processes sharing the database")
    args = parser.parse_args(argv)
    if args.postgres is not None and not args.postgres.startswith("postgresql://"):
        parser.error("--db takes a postgresql:// URL (SQLite is the default)")
    if args.processes != 1 and args.postgres is None:
        parser.error("--processes needs --db postgresql://...")
    if args.against and args.postgres:
        parser.error("--against compares on SQLite; it does not take --db")
    if args.against and args.rounds < 1:
        parser.error("--against needs --rounds >= 1")
    args.sizes = sorted(int(n) for n in args.sizes.split(","))
    args.rates = [float(n) for n in args.rates.split(",")]
    args.system, args.window, args.no_deflate = "narrative", 8, True
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    needed = max(args.sizes) * (2 if args.against else 1) + 100
    if hard < needed:
        parser.error(f"the descriptor limit ({hard}) is below {needed - 100} clients")
    return args


def _run_alone(args: argparse.Namespace, work: Path,
               settings: dict[str, Any]) -> tuple[list[str], str]:
    """One server (or ``--processes`` on ``--db``) measured, stopped; the failures, the log's
    end."""
    if args.postgres:
        with serve_postgres(args.postgres, args.processes, work,
                            {**LIFTED, **settings}) as (servers, token, _):
            args.admin_token = token
            print(f"{servers.label} on a fresh database of {args.postgres}, pids "
                  f"{servers.pids}, ports {servers.ports}")
            return asyncio.run(run(args, servers)), servers.log_tail()
    server = ServerProcess(args.db, args.admin_token, work / "server.log", None, settings)
    print(f"server pid {server.pid} (py-spy record -p {server.pid})")
    try:
        failures = asyncio.run(run(args, server))
    finally:
        server.stop()
    return failures, server.log_tail()


def against(args: argparse.Namespace, work: Path,
            settings: dict[str, Any]) -> tuple[list[str], str]:
    """``--against``: both servers started, compared, stopped; the failures, the logs' ends."""
    with checkout(args.against) as code:
        this = serve_sqlite(revision_name(), ROOT, work / "this" / "bench.db", args.admin_token,
                            {**LIFTED, **settings})
        try:
            before = serve_sqlite(f"{args.against}, {revision_name(code)}", code,
                                  work / "before" / "bench.db", args.admin_token,
                                  {**LIFTED, **settings})
            try:
                failures = asyncio.run(run_against(args, this, before))
            finally:
                before.stop()
        finally:
            this.stop()
    return failures, "\n".join(filter(None, (this.log_tail(), before.log_tail())))


if __name__ == "__main__":
    sys.exit(main())
