"""Table load: durable commands/s, fan-out latency and rebuild speed of a real poolhall server.

::

    python tests/bench/table_load.py [--campaigns 100] [--clients 5] [--seconds 10] [--rate 1000]
    python tests/bench/table_load.py --quick              # a 2-second smoke run
    python tests/bench/table_load.py --profile py-spy     # where the server's time goes
    python tests/bench/table_load.py --keep /tmp/bench.db # keep the log to study a rebuild
    python tests/bench/table_load.py --against 34f704b    # beside the release before, alternately
    python tests/bench/table_load.py --db postgresql:///postgres --processes 3   # on PostgreSQL

The server runs in a child process (``_server_child.py``) on a temporary SQLite file; this
process is the load generator. It speaks the JSON protocol over a minimal
websocket peer of its own (an ``asyncio.Protocol``, permessage-deflate like the real client
unless ``--no-deflate``) so that the generator stays cheaper than the server it measures.

1. full throttle: every client keeps ``--window`` free rolls in flight; only acks count, and
   the log must then hold exactly as many ``dice_rolled`` rows as rolls were acknowledged;
2. paced: ``--rate`` rolls/s across the campaigns; latency from sending to the moment the last
   client of the campaign received the event frame;
3. rebuild: fold every campaign of the resulting log in this process, then time the server's
   start on that log (which folds nothing: campaigns are loaded when first joined).

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
import os
import secrets
import shutil
import signal
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

from _load_compare import compare_bare, durability, run_against, verdict  # noqa: E402
from _load_worker import Bench, percentile  # noqa: E402
from _profiles import print_cprofile, print_pyspy  # noqa: E402
from _server_child import LIFTED, ServerProcess  # noqa: E402
from _servers import Served, serve_postgres  # noqa: E402

TARGET_THROUGHPUT = 5000.0
TARGET_P99_MS = 20.0
TARGET_REBUILD = 300_000.0


# ---- rebuild -------------------------------------------------------------------------------

REBUILD_RUNS = 5


def rebuild(db: Path) -> tuple[int, float, float, float, float, float]:
    """Events folded, seconds for the full fold (and its CPU seconds: the machine is shared),
    then for reading, decoding, folding alone."""
    from poolhall.events.log import to_recorded
    from poolhall.events.sqlite_backend import SqliteLog
    from poolhall.projections.campaign import fold
    from poolhall.server.rebuild import rebuild_states

    log = SqliteLog(db)
    try:
        campaigns = log.campaigns()
        fold_seconds = fold_cpu = float("inf")
        for _ in range(REBUILD_RUNS):  # best of a few: one run is at the mercy of a busy box
            started, cpu = time.perf_counter(), time.process_time()  # one scan of the log
            events = sum(state.head for state in rebuild_states(log).values())
            fold_seconds = min(fold_seconds, time.perf_counter() - started)
            fold_cpu = min(fold_cpu, time.process_time() - cpu)
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
    return events, fold_seconds, fold_cpu, read_seconds, decode_seconds, evolve_seconds


# ---- main ----------------------------------------------------------------------------------


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


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
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
    events, fold_s, fold_cpu, read_s, decode_s, evolve_s = rebuild(args.db)
    speed = events / fold_s
    print(f"\n3. rebuild (best of {REBUILD_RUNS}): {events:,} events folded in "
          f"{fold_s:.3f}s = {speed:,.0f} events/s, {fold_cpu / events * 1e6:.2f} µs of CPU an"
          f" event   "
          f"(target >= {TARGET_REBUILD:,.0f}: {verdict(speed >= TARGET_REBUILD)})")
    print(f"   in separate passes: reading rows {read_s:.3f}s, decoding (to_recorded) "
          f"{decode_s:.3f}s, folding (evolve) {evolve_s:.3f}s")
    server = ServerProcess(args.db, args.admin_token, work / "server.log", None)
    try:
        print(f"   server start on that log: {server.start_seconds:.3f}s, {server.hubs} "
              "campaigns loaded (a campaign is loaded when first joined, not folded at start;"
              f" process ready in {server.ready_seconds:.2f}s including imports)")
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
