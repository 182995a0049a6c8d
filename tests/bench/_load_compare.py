"""The comparisons of ``table_load.py``: the same load against two servers, round by round.

- :func:`compare_bare`: phase 1 against poolhall and the bare websockets peer
  (``_bare_peer.py``), interleaved, and the ratio of the two (the default run's ``1b.``);
- :func:`run_against`: ``--against REV``, phases 1 and 2 against this checkout's ``poolhall
  serve`` and revision REV's (``_servers.py`` checks it out and starts both the same way);
- :func:`interleave` runs the rounds of either, the order reversed every other round so that
  both sides see the same load from other work.

:func:`durability` (the log holds every acknowledged roll) and :func:`verdict` are here
because the comparisons judge with them too; ``table_load.py``'s own phases import them from
here, so that the dependency runs one way: ``table_load.py`` imports this module, never the
reverse.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sqlite3
import statistics
import time
from pathlib import Path

from _load_worker import Bench, percentile
from _server_child import LIFTED, ROOT, ServerProcess
from _servers import Served, checkout, ratio_line, revision_name, serve_sqlite

__all__ = ["TARGET_BARE_RATIO", "compare_bare", "compare_revisions", "durability",
           "interleave", "run_against", "verdict"]

TARGET_BARE_RATIO = 0.7
TARGET_AGAINST_28 = 0.90
"""#28: commands/s and fan-out latency on SQLite not worse than 10% beside the release before
(at least 0.90x the commands/s, at most 1.10x the latency)."""
TARGET_AGAINST_31 = 0.95
"""#31: commands/s within 5% of the release before (deriving faces must not slow the table)."""


def verdict(ok: bool) -> str:
    return "meets target" if ok else "BELOW TARGET"


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


def server_of(args: argparse.Namespace) -> ServerProcess:
    """The poolhall server of this run (kept on ``args`` by ``table_load.py``'s default run)."""
    server: ServerProcess = args.server
    return server

