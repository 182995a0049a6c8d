"""Odds isolation: one member rebuilding big pools must not slow another table down.

::

    python tests/bench/odds_isolation.py                     # this checkout's server
    python tests/bench/odds_isolation.py --root /work/main   # another checkout, read-only
    python tests/bench/odds_isolation.py --checks 48 --seconds 10 --window 8
    python tests/bench/odds_isolation.py --no-odds             # control: no live odds at all

The server runs in a child process from ``--root`` on a temporary SQLite file. One GM (the
attacker) opens ``--checks`` narrative checks of 16-20 dice in campaign A, then changes them
as fast as one connection can (``--window`` commands in flight: upgrades, downgrades, boost and
setback dice, so most pools are new and few odds come from a cache). Meanwhile a player of
campaign B rolls ``--rate`` times a second (latency: sending to the ack) and ``/health`` is
asked 20 times a second over plain HTTP. Each is measured first with the server idle, then
under the attack. Figures are printed beside the target (p99 at most 20 ms), never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from poolhall.events import core  # noqa: E402
from poolhall.events import narrative as n  # noqa: E402
from poolhall.events.base import Command  # noqa: E402
from poolhall.events.messages import Join  # noqa: E402

TOKEN = "ph_bench-admin-token-0123456789abcdef"
TARGET_P99_MS = 20.0
SERVE = """
import asyncio, cProfile, dataclasses, importlib, pathlib, sys
code = "poolhall." if pathlib.Path("poolhall/__init__.py").exists() else ""  # cwd: its checkout
Server = importlib.import_module(code + "server.app").Server  # before the one namespace: bare
Settings = importlib.import_module(code + "server.settings").Settings
names = {f.name for f in dataclasses.fields(Settings)}
# the load limits lifted: the attacker and the victim send more than a person would
wanted = dict(member_rate=1e9, member_burst=10**9, campaign_rate=1e9, campaign_burst=10**9,
              member_in_flight=10**9, request_rate=1e9, request_burst=10**9)
async def main():
    server = Server(sys.argv[1], "127.0.0.1", 0, admin_token=sys.argv[2],
                    settings=Settings(**{k: v for k, v in wanted.items() if k in names}))
    await server.start()
    print("READY", server.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop()
if len(sys.argv) > 3:
    cProfile.run("asyncio.run(main())", sys.argv[3])
else:
    asyncio.run(main())
"""
BIG = n.NarrativeStats(agility=5, skills={"Ranged (Heavy)": n.Skill(rank=5,
                                                                    characteristic="agility")})


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Peer:
    """One websocket member: commands with ids, answers matched by id, the rest ignored."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self._answers: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.views: dict[str, Any] = {}
        self.frames = 0
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def join(cls, port: int, token: str, campaign: str | None) -> Peer:
        ws = await connect(f"ws://127.0.0.1:{port}", max_size=2**24, compression=None)
        await ws.send(msgspec.json.encode(Join(token=token, campaign=campaign)).decode())
        welcome = msgspec.json.decode(await ws.recv())
        assert welcome["type"] == "welcome", welcome
        return cls(ws)

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for frame in self.ws:
                message = msgspec.json.decode(frame)
                self.frames += 1
                if message["type"] == "view":
                    self.views[message["about"]] = message["data"]
                elif message["type"] in ("ack", "error"):
                    future = self._answers.pop(message.get("id") or "", None)
                    if future is not None and not future.done():
                        future.set_result(message)

    async def call(self, command_type: type, **fields: Any) -> dict[str, Any]:
        command_id = f"{id(self):x}-{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._answers[command_id] = future
        await self.ws.send(msgspec.json.encode(command_type(id=command_id, **fields)).decode())
        return await future

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


async def campaign(port: int, name: str) -> tuple[str, str]:
    admin = await Peer.join(port, TOKEN, None)
    ack = await admin.call(core.CreateCampaign, name=name, system="narrative")
    await admin.close()
    return ack["campaign"], ack["token"]


async def open_checks(gm: Peer, count: int, extra: int) -> list[str]:
    """``count`` checks of 16-20 dice: 5 proficiency, 5 challenge, 6-10 more (and ``extra``
    setback dice: past 20 dice, a control run with the same commands and no live odds)."""
    await gm.call(core.CreateCharacter, character="boba", name="Boba", stats=BIG)
    checks = []
    for i in range(count):
        check = f"c{i}"
        await gm.call(n.OpenCheck, character="boba", skill="Ranged (Heavy)", check=check)
        await gm.call(n.SetDifficulty, check=check, level="formidable")
        await gm.call(n.UpgradeDice, check=check, side="difficulty", count=5)
        await gm.call(n.AddDice, check=check, kind="ability", count=3 + i % 3)
        await gm.call(n.AddDice, check=check, kind="boost", count=3)
        if extra:
            await gm.call(n.AddDice, check=check, kind="setback", count=extra)
        checks.append(check)
    return checks


CHANGES: list[tuple[type[Command], dict[str, str]]] = [
    (n.UpgradeDice, {"side": "ability"}), (n.DowngradeDice, {"side": "ability"}),
    (n.UpgradeDice, {"side": "difficulty"}), (n.DowngradeDice, {"side": "difficulty"}),
    (n.AddDice, {"kind": "setback"}), (n.RemoveDice, {"kind": "setback"}),
    (n.AddDice, {"kind": "boost"}), (n.RemoveDice, {"kind": "boost"})]


async def attack(gm: Peer, checks: list[str], stop: asyncio.Event, window: int) -> int:
    """Change random checks with ``window`` commands in flight; the number of acks."""
    rng = random.Random(7)
    acks = 0

    async def one_lane() -> None:
        nonlocal acks
        while not stop.is_set():
            command, fields = rng.choice(CHANGES)
            answer = await gm.call(command, check=rng.choice(checks), **fields)
            acks += answer["type"] == "ack"

    await asyncio.gather(*(one_lane() for _ in range(window)))
    return acks


async def rolls(player: Peer, stop: asyncio.Event, rate: float) -> list[float]:
    latencies = []
    while not stop.is_set():
        started = time.perf_counter()
        answer = await player.call(core.Roll, expression="2d6")
        assert answer["type"] == "ack", answer
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(max(0.0, 1 / rate - (time.perf_counter() - started)))
    return latencies


async def health(port: int, stop: asyncio.Event) -> list[float]:
    latencies = []
    while not stop.is_set():
        started = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        status = await reader.readline()
        await reader.read()
        writer.close()
        assert b" 200 " in status, status
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(max(0.0, 0.05 - (time.perf_counter() - started)))
    return latencies


async def settle(gm: Peer, checks: list[str], quiet: float = 1.0) -> None:
    """Wait until every check's view has arrived and no frame came for ``quiet`` seconds."""
    frames = -1
    while frames != gm.frames or not all(f"check:{check}" in gm.views for check in checks):
        frames = gm.frames
        await asyncio.sleep(quiet)


def report(label: str, values: list[float]) -> None:
    p99 = percentile(values, 0.99)
    verdict = "ok" if p99 <= TARGET_P99_MS else "OVER"
    print(f"  {label:<8} n={len(values):5d}  p50 {percentile(values, 0.5):7.1f} ms  "
          f"p99 {p99:7.1f} ms  max {max(values, default=float('nan')):7.1f} ms  "
          f"(target p99 <= {TARGET_P99_MS:g} ms: {verdict})")


async def measure(port: int, args: argparse.Namespace) -> None:
    attacked, gm_token = await campaign(port, "Attacked")
    victim, victim_token = await campaign(port, "Victim")
    gm = await Peer.join(port, gm_token, attacked)
    player = await Peer.join(port, victim_token, victim)
    started = time.perf_counter()
    checks = await open_checks(gm, args.checks, 10 if args.no_odds else 0)
    size = "26-30 dice (no live odds)" if args.no_odds else "16-20 dice"
    print(f"opened {len(checks)} checks of {size} in {time.perf_counter() - started:.1f}s")
    await settle(gm, checks)
    print(f"their odds arrived after {time.perf_counter() - started:.1f}s")
    for phase in ("idle", "attack"):
        stop = asyncio.Event()
        tasks: list[asyncio.Task[Any]] = [asyncio.create_task(rolls(player, stop, args.rate)),
                 asyncio.create_task(health(port, stop))]
        if phase == "attack":
            tasks.append(asyncio.create_task(attack(gm, checks, stop, args.window)))
        await asyncio.sleep(args.seconds)
        stop.set()
        results = await asyncio.gather(*tasks)
        print(f"{phase}:")
        report("roll", results[0])
        report("/health", results[1])
        if phase == "attack":
            print(f"  changes  {results[2] / args.seconds:.0f}/s acknowledged "
                  f"({args.window} in flight)")
    await gm.close()
    await player.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve from")
    parser.add_argument("--checks", type=int, default=48)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--window", type=int, default=8, help="attacker commands in flight")
    parser.add_argument("--rate", type=float, default=50.0, help="victim rolls per second")
    parser.add_argument("--no-odds", action="store_true",
                        help="control run: the same attack on pools too big for live odds")
    parser.add_argument("--profile", type=Path, help="write the server's cProfile stats here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, PYTHONPATH=str(args.root.resolve()))
        profile = [str(args.profile.resolve())] if args.profile else []
        server = subprocess.Popen([sys.executable, "-c", SERVE, f"{folder}/bench.db", TOKEN,
                                   *profile],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  cwd=args.root, env=env)
        try:
            assert server.stdout is not None
            line = server.stdout.readline().decode().split()
            if not line or line[0] != "READY":
                raise SystemExit("the server did not start")
            print(f"server from {args.root} on port {line[1]}")
            asyncio.run(measure(int(line[1]), args))
        finally:
            with contextlib.suppress(Exception):
                server.communicate(timeout=30)
            if server.poll() is None:
                server.kill()


if __name__ == "__main__":
    main()
