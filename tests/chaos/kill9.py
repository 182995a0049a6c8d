"""Chaos trial: ``kill -9`` under load, then a restart: is every acknowledged command there?

::

    python tests/chaos/kill9.py               # 5 rounds, 4 campaigns at full throttle
    python tests/chaos/kill9.py --quick       # 1 round, 2 campaigns
    python tests/chaos/kill9.py --server-arg=--queue-limit=64

Each round starts ``poolhall serve`` on the same log (a fresh one for the first round); the
loader child opens ``--campaigns`` new campaigns and keeps ``--window`` rolls in flight from
each GM, writing down every command id the server acknowledged; after a random 0.3-2 s the
server gets SIGKILL (no shutdown, no flush). The next start must hold every acknowledged
command (the log's ``commands`` table), the hash chains must verify (``poolhall verify``) and
the server must come back answering ``/health``. Prints figures and verdicts; exit 0 only if
nothing acknowledged was lost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext, AttackerProcess, child_main  # noqa: E402
from _harness import ROOT, ServerProcess, commands_in_log, health  # noqa: E402
from _raw import Closed  # noqa: E402
from _trial import Check, print_checks  # noqa: E402


async def load(ctx: AttackContext) -> None:
    """The loader child: full-throttle rolls until the server dies; acked ids to a file."""
    gms = [await ctx.campaign(f"load-{k}") for k in range(ctx.options["campaigns"])]
    acked: list[str] = []
    await ctx.ready()

    async def roll(gm_sock: Any) -> None:
        def send() -> None:
            gm_sock.send_json({"type": "roll", "id": ctx.next_id("k"), "expression": "2d6"})
            ctx.count("rolls sent")

        try:
            for _ in range(ctx.options["window"]):
                send()
            while ctx.time_left() > 0:
                _, payload = await gm_sock.recv(max(0.01, ctx.time_left()))
                if payload.startswith(b'{"type":"ack"'):
                    acked.append(json.loads(payload)["id"])
                    send()
                elif payload.startswith(b'{"type":"error"'):
                    ctx.count(f"rolls refused: {json.loads(payload).get('code')}")
                    send()
        except Closed as closed:
            ctx.count(f"connections closed: {closed.code}")
        except TimeoutError:
            pass

    await asyncio.gather(*(roll(sock) for _, _, sock in gms))
    ctx.count("rolls acknowledged", len(acked))
    Path(ctx.options["acked_path"]).write_text("\n".join(acked))


def verify(db: Path) -> bool:
    done = subprocess.run([sys.executable, "-m", "poolhall", "verify", str(db)],
                          cwd=db.parent, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return done.returncode == 0


async def round_(args: argparse.Namespace, server: ServerProcess, work: Path, n: int,
                 rng: random.Random) -> dict[str, Any]:
    acked_path = work / f"acked-{n}.txt"
    loader = AttackerProcess(Path(__file__).resolve(), {
        "port": server.port, "admin_token": server.admin_token, "seconds": 60.0,
        "quick": args.quick, "options": {"campaigns": args.campaigns, "window": args.window,
                                         "acked_path": str(acked_path)}},
        work / "loader.log")
    try:
        await loader.wait_ready()
        loader.go()
        delay = rng.uniform(0.3, 0.8) if args.quick else rng.uniform(0.3, 2.0)
        await asyncio.sleep(delay)
        rss = server.rss_mb()
        server.kill9()
        result = await loader.result(90)
    finally:
        loader.stop()
    acked = [line for line in acked_path.read_text().splitlines() if line] \
        if acked_path.exists() else []
    started = time.perf_counter()
    server.start()  # the same log, the same port
    recovered = time.perf_counter() - started
    stored = commands_in_log(server.db)
    lost = [command for command in acked if command not in stored]
    return {"killed after": delay, "acked": len(acked), "lost": len(lost),
            "sent": result["counters"].get("rolls sent", 0), "rss": rss,
            "restart seconds": recovered, "error": result["error"], "lost ids": lost[:5]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--campaigns", type=int, default=4)
    parser.add_argument("--window", type=int, default=32, help="rolls in flight per GM")
    parser.add_argument("--quick", action="store_true", help="1 round, 2 campaigns")
    parser.add_argument("--seed", type=int, default=9, help="when each kill falls")
    parser.add_argument("--server-arg", action="append", default=[], metavar="FLAG")
    parser.add_argument("--attack-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.attack_child:
        return child_main(load, args.attack_child)
    if args.quick:
        args.rounds, args.campaigns = 1, 2
    if not (1 <= args.rounds <= 50 and 1 <= args.campaigns <= 50 and 1 <= args.window <= 64):
        parser.error("out of range: rounds 1-50, campaigns 1-50, window 1-64")

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    work = Path(tempfile.mkdtemp(prefix="poolhall-chaos-kill9-"))
    server = ServerProcess(work / "chaos.db", args.server_arg)
    rounds: list[dict[str, Any]] = []
    checks: list[Check] = []
    rng = random.Random(args.seed)
    try:
        print(f"chaos trial kill-9: {args.rounds} round(s), {args.campaigns} campaigns x "
              f"{args.window} rolls in flight; server flags: "
              f"{' '.join(args.server_arg) or '(defaults)'}")
        server.start()
        for n in range(args.rounds):
            figures = asyncio.run(round_(args, server, work, n, rng))
            rounds.append(figures)
            print(f"round {n + 1}: killed after {figures['killed after']:.2f}s, "
                  f"{figures['sent']:,} rolls sent, {figures['acked']:,} acknowledged, "
                  f"{figures['lost']} lost; RSS at the kill {figures['rss']:.0f} MB; back up "
                  f"in {figures['restart seconds']:.2f}s"
                  + (f"; lost e.g. {figures['lost ids']}" if figures["lost"] else "")
                  + (f"; loader error: {figures['error']}" if figures["error"] else ""))
        alive, _ = asyncio.run(health(server.port, 5.0))
        code = server.stop()
        acked = sum(r["acked"] for r in rounds)
        lost = sum(r["lost"] for r in rounds)
        print(f"\ntotal: {acked:,} acknowledged, {lost} lost after {args.rounds} kill -9")
        checks = [
            Check("0 acknowledged commands lost", lost == 0),
            Check("the loader got acknowledgements before every kill",
                  all(r["acked"] > 0 for r in rounds)),
            Check("the server restarts on the killed log and answers /health", alive),
            Check("every hash chain verifies after the kills", verify(server.db)),
            Check("no traceback in the server's output", server.tracebacks() == 0),
            Check("the last server stopped cleanly on SIGTERM", code == 0),
        ]
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
        return 130
    except Exception as error:
        checks.append(Check(f"the trial ran: {type(error).__name__}: {error}", False))
        print(server.log_tail())
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    ok = print_checks(checks)
    print("CHAOS-RESULT " + json.dumps({
        "trial": "kill-9", "ok": ok,
        "checks": [{"name": c.name, "ok": c.ok, "kind": c.kind} for c in checks],
        "figures": {"rounds": rounds}}, default=str))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
