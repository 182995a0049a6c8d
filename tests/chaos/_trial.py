"""One chaos trial from start to verdict: server, honest table, attacker, figures.

:func:`main` is what each trial script calls with its :class:`Trial`. It starts the server
(:class:`_harness.ServerProcess`), sets up an honest table in this process (the table-load
benchmark's ``Bench``: one campaign, a GM and two players rolling ``--rate`` times a second),
starts the attacker child and lets it set up, then measures the honest table *before* the
attack and *during* it, in the same run, so that the ratio means something on a shared
machine. Beside the rolls it times ``GET /health`` and a fresh member joining the honest
table, and samples the server's RSS. It prints a table of figures, one verdict per target, a
``CHAOS-RESULT`` JSON line (read by ``test_chaos_quick.py``), and exits 0 only if every
target holds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _attacker import Attack, AttackerProcess, child_main
from _harness import (
    RssSampler,
    ServerProcess,
    count_events,
    health,
    health_body,
    percentile_ms,
)
from _load_worker import Bench
from _raw import Closed, RawSocket

from poolhall.events import core
from tests.chaos._longlog import build_long_log

__all__ = ["Check", "Trial", "main", "parse_args", "print_checks"]

TARGET_P99_MS = 20.0
TARGET_RSS_MB = 200.0
HONEST = "bench-0000"


@dataclass
class Check:
    """One verdict: ``correctness`` checks must hold everywhere (the quick suite asserts
    them); ``target`` checks are the issue's figures (p99, RSS), printed only."""

    name: str
    ok: bool
    kind: str = "correctness"


@dataclass
class Trial:
    """A trial script's description of itself."""

    name: str
    script: Path
    attack: Attack
    full: dict[str, Any]
    quick: dict[str, Any]
    checks: Callable[[dict[str, Any], dict[str, Any]], list[Check]] = lambda result, o: []
    long_log_role: str | None = None
    """Write a campaign of ``events`` rolls with ``members`` of this role into the log before
    the server starts (see :mod:`_longlog`); the attacker finds it in ``ctx.long_log``."""


def parse_args(description: str, argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, default=20.0, help="attack duration")
    parser.add_argument("--before", type=float, default=5.0,
                        help="seconds the honest table is measured before the attack")
    parser.add_argument("--rate", type=float, default=20.0, help="honest rolls/s")
    parser.add_argument("--quick", action="store_true", help="a few seconds, smaller attack")
    parser.add_argument("--server-arg", action="append", default=[], metavar="FLAG",
                        help="pass a flag to poolhall serve (repeatable), e.g. "
                             "--server-arg=--queue-limit=64")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=INT",
                        help="override one of the trial's own sizes (see its docstring)")
    parser.add_argument("--attack-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.before = min(args.seconds, 2.0), min(args.before, 1.0)
    if not (0 < args.seconds <= 300 and 0 < args.before <= 60 and 0 < args.rate <= 500):
        parser.error("out of range: seconds <= 300, before <= 60, rate <= 500")
    return args


def options_of(trial: Trial, args: argparse.Namespace) -> dict[str, Any]:
    options = dict(trial.quick if args.quick else trial.full)
    for item in args.option:
        name, _, value = item.partition("=")
        if name not in options:
            raise SystemExit(f"unknown option {name!r}; this trial has {sorted(options)}")
        options[name] = int(value)
    return options


# ---- the honest table ---------------------------------------------------------------------


class Honest:
    """The measured table and its probes, all in this process's event loop."""

    def __init__(self, port: int, admin_token: str, rate: float) -> None:
        ns = argparse.Namespace(no_deflate=True, admin_token=admin_token, campaigns=1,
                                clients=3, system="narrative", window=1)
        self.bench = Bench(ns, port)
        self.port, self.rate = port, rate
        self.probe_token = ""
        self.health: list[tuple[bool, float]] = []
        self.joins: list[tuple[str, float]] = []

    async def setup(self) -> None:
        await self.bench.setup()
        gm = self.bench.peers[0][0]
        ack = await asyncio.wait_for(gm.request(core.Invite(
            id="probe-invite", role="player", name="Probe")), 30)
        self.probe_token = ack.token or ""
        await self.bench.settle()

    async def _probe_health(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.health.append(await health(self.port, 2.0))
            await asyncio.sleep(0.2)

    async def _probe_join(self, stop: asyncio.Event) -> None:
        """A member of the honest table joins afresh twice a second: locked out, or not."""
        while not stop.is_set():
            started = time.perf_counter()
            outcome = "welcome"
            sock: RawSocket | None = None
            try:
                sock = await RawSocket.open(self.port, timeout=5)
                head = self.bench.peers[0][0].last_seq
                reply = await sock.join(self.probe_token, HONEST, since=head, timeout=5)
                if reply.get("type") != "welcome":
                    outcome = f"error {reply.get('code')}"
            except Closed as closed:
                outcome = f"closed {closed.code}"
            except (OSError, TimeoutError) as error:
                outcome = f"{type(error).__name__}"
            finally:
                if sock is not None:
                    await sock.close()
            self.joins.append((outcome, time.perf_counter() - started))
            await asyncio.sleep(0.5)

    async def phase(self, seconds: float) -> dict[str, Any]:
        """Roll at the steady rate for ``seconds`` while probing; the phase's figures."""
        bench = self.bench
        bench.fanout.clear()
        self.health, self.joins = [], []
        stop = asyncio.Event()
        probes = [asyncio.create_task(self._probe_health(stop)),
                  asyncio.create_task(self._probe_join(stop))]
        errors_before, lost_before = sum(bench.errors.values()), bench.lost
        sent = await bench.paced(seconds, self.rate)
        stop.set()
        bench.running = True  # the last rolls' acks still count (paced() stops at its end)
        await bench.settle(15.0)
        bench.running = False
        await asyncio.gather(*probes)
        fan, acks = list(bench.fanout_latency), list(bench.ack_latency)
        missing = sent - len(fan)
        worst = fan + [math.inf] * missing
        return {
            "sent": sent, "missing": missing,
            "p50": percentile_ms(worst, 0.5), "p99": percentile_ms(worst, 0.99),
            "max": 1000 * max(worst, default=math.nan),
            "ack_p99": percentile_ms(acks + [math.inf] * (sent - len(acks)), 0.99),
            "errors": sum(bench.errors.values()) - errors_before,
            "lost": bench.lost - lost_before,
            "health_failed": sum(1 for ok, _ in self.health if not ok),
            "health_p99": percentile_ms([t for ok, t in self.health if ok], 0.99),
            "joins": len(self.joins),
            "joins_failed": sum(1 for outcome, _ in self.joins if outcome != "welcome"),
            "join_outcomes": sorted({o for o, _ in self.joins if o != "welcome"}),
            "join_p99": percentile_ms([t for o, t in self.joins if o == "welcome"], 0.99),
        }


# ---- the run --------------------------------------------------------------------------


def ms(value: float) -> str:
    return "-" if value != value else ("never" if math.isinf(value) else f"{value:.1f}")


async def run(trial: Trial, args: argparse.Namespace, server: ServerProcess, work: Path,
              options: dict[str, Any], long_log: dict[str, Any] | None) -> dict[str, Any]:
    rss = RssSampler(server)
    rss.start()
    honest = Honest(server.port, server.admin_token, args.rate)
    attacker: AttackerProcess | None = None
    try:
        started = time.perf_counter()
        attacker = AttackerProcess(trial.script, {
            "port": server.port, "admin_token": server.admin_token, "seconds": args.seconds,
            "quick": args.quick, "options": options, "long_log": long_log},
            work / "attacker.log")
        await asyncio.gather(honest.setup(), attacker.wait_ready())  # both set up at once
        setup_seconds = time.perf_counter() - started
        await honest.bench.settle()
        before = await honest.phase(args.before)
        rss_before = rss.mark()
        events_before = count_events(server.db)
        log_lines_before = server.log_lines()
        attacker.go()
        during = await honest.phase(args.seconds)
        result = await attacker.result(args.seconds + 120)
        rss_peak = rss.peak
        await asyncio.sleep(0.2 if args.quick else 1.0)  # what the attack left behind
        after_rss = server.rss_mb()
        alive_ok, _ = await health(server.port, 5.0)
        health_text = await asyncio.to_thread(health_body, server.port)
        events_after = count_events(server.db)
    finally:
        rss.stop()
        if attacker is not None:
            attacker.stop()
        honest.bench.closing = True
        await honest.bench.close()
    appended = {c: n - events_before.get(c, 0) for c, n in events_after.items()
                if c != HONEST and n != events_before.get(c, 0)}
    return {"trial": trial.name, "options": options, "setup_seconds": setup_seconds,
            "before": before, "during": during, "attacker": result,
            "rss_before": rss_before, "rss_peak": rss_peak, "rss_after": after_rss,
            "events_appended_by_attack": sum(appended.values()),
            "health_at_end": alive_ok, "health_body": health_text,
            "log_lines_during": server.log_lines() - log_lines_before}


def common_checks(figures: dict[str, Any], server: ServerProcess) -> list[Check]:
    during, before = figures["during"], figures["before"]
    return [
        Check("the server is alive and answers /health at the end",
              figures["health_at_end"] and server.alive()),
        Check("no traceback in the server's output", server.tracebacks() == 0),
        Check("the honest table is served: every roll acked and broadcast, no error",
              during["missing"] == 0 and during["errors"] == 0 and during["lost"] == 0
              and before["missing"] == 0),
        Check("an honest member can join during the attack", during["joins_failed"] == 0),
        Check("the attacker ran to the end", not figures["attacker"]["error"]),
        Check(f"honest p99 during the attack < {TARGET_P99_MS:.0f} ms",
              during["p99"] < TARGET_P99_MS, "target"),
        Check(f"server RSS peak < {TARGET_RSS_MB:.0f} MB", figures["rss_peak"] < TARGET_RSS_MB,
              "target"),
    ]


def print_figures(figures: dict[str, Any]) -> None:
    before, during = figures["before"], figures["during"]
    print(f"\n{'honest table':<44}{'before':>12}{'during':>12}")
    for label, key in (("send -> every client has the event p50 (ms)", "p50"),
                       ("send -> every client has the event p99 (ms)", "p99"),
                       ("send -> every client has the event max (ms)", "max"),
                       ("send -> ack p99 (ms)", "ack_p99"),
                       ("/health p99 (ms)", "health_p99"),
                       ("fresh join -> welcome p99 (ms)", "join_p99")):
        print(f"  {label:<42}{ms(before[key]):>12}{ms(during[key]):>12}")
    for label, key in (("rolls sent", "sent"), ("rolls never acked+broadcast", "missing"),
                       ("error replies / connections lost", "errors"),
                       ("/health failures", "health_failed"),
                       ("fresh joins tried", "joins"), ("fresh joins failed", "joins_failed")):
        print(f"  {label:<42}{before[key]:>12}{during[key]:>12}")
    if during["join_outcomes"]:
        print(f"  failed joins: {', '.join(during['join_outcomes'])}")
    print(f"\nserver RSS (MB): before {figures['rss_before']:.0f}, peak "
          f"{figures['rss_peak']:.0f}, after {figures['rss_after']:.0f}")
    print(f"events appended to the attacker's campaigns during the attack: "
          f"{figures['events_appended_by_attack']:,}; server log lines during the attack: "
          f"{figures['log_lines_during']:,}")
    print("/health at the end: " + " | ".join(figures["health_body"].splitlines()[:12]))
    attacker = figures["attacker"]
    print("attacker:")
    for key, value in sorted(attacker["counters"].items()):
        print(f"  {key:<64}{value:>10,}")
    for key, value in sorted(attacker["figures"].items()):
        print(f"  {key:<64}{value!s:>10}")
    if attacker["error"]:
        print(f"  attacker error: {attacker['error']}")


def print_checks(checks: list[Check]) -> bool:
    print()
    for check in checks:
        print(f"{'PASS' if check.ok else 'FAIL'}  [{check.kind}] {check.name}")
    return all(check.ok for check in checks)


def main(trial: Trial, description: str, argv: list[str] | None = None) -> int:
    args = parse_args(description, argv)
    if args.attack_child:
        return child_main(trial.attack, args.attack_child)

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # clean up as for Ctrl-C

    signal.signal(signal.SIGTERM, terminate)
    work = Path(tempfile.mkdtemp(prefix=f"poolhall-chaos-{trial.name}-"))
    server = ServerProcess(work / "chaos.db", args.server_arg)
    figures: dict[str, Any] = {}
    checks: list[Check] = []
    try:
        print(f"chaos trial {trial.name}: {description}\n"
              f"{'quick' if args.quick else 'full'} run; honest table at {args.rate:g} rolls/s, "
              f"{args.before:g}s before and {args.seconds:g}s during the attack; server flags: "
              f"{' '.join(args.server_arg) or '(defaults)'}; load average "
              f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
        options = options_of(trial, args)
        long_log = None
        if trial.long_log_role is not None:
            started = time.perf_counter()
            long_log = build_long_log(server.db, options["events"], options["members"],
                                      trial.long_log_role)
            print(f"wrote a campaign of {long_log['head']:,} events into the log in "
                  f"{time.perf_counter() - started:.1f}s")
        server.start()
        figures = asyncio.run(run(trial, args, server, work, options, long_log))
        print(f"options: {figures['options']}; attacker setup {figures['setup_seconds']:.1f}s")
        print_figures(figures)
        checks = common_checks(figures, server) + trial.checks(figures, figures["options"])
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as error:  # say it loudly, still clean up
        checks.append(Check(f"the trial ran: {type(error).__name__}: {error}", False))
    finally:
        code = server.stop()
        tail = server.log_tail(8)
        shutil.rmtree(work, ignore_errors=True)
    checks.append(Check("the server stopped cleanly on SIGTERM", code == 0))
    print("\nserver output (last lines):\n" + tail)
    ok = print_checks(checks)
    print("CHAOS-RESULT " + json.dumps({
        "trial": trial.name, "ok": ok,
        "checks": [{"name": c.name, "ok": c.ok, "kind": c.kind} for c in checks],
        "figures": figures}, default=str))
    return 0 if ok else 1
