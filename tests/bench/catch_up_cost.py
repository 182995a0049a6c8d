"""What catch-ups cost: a join storm and stalled joiners on a long log, seen from another table.

::

    python tests/bench/catch_up_cost.py                       # this tree
    python tests/bench/catch_up_cost.py --code /tmp/old-tree  # another checkout, to compare

The server runs in a child process from ``--code`` (its rates lifted, where it has them, so the
log can be filled, and its per-address caps, as every connection comes from 127.0.0.1: at 64
connections an address, ``--stalled 200`` was answered 503; ``--catch-up-timeout`` where it
has that setting). One campaign gets
``--events`` rolls; a probe on a second campaign rolls every 10 ms throughout and its ack
latency is the figure that matters: what one member's joins cost everyone else.

1. storm: ``--storm`` joins per second with ``since=0`` on the long campaign for 4 s, each
   reading its catch-up to the head;
2. stalled: ``--stalled`` connections join with ``since=0`` and never read; the server's RSS is
   printed while they sit there and after the catch-up timeout has passed.

With ``--flood``, instead, a server with its default settings: one player on 4 connections
rolls as fast as the server answers for 5 s; printed are the rolls accepted and refused and
the probe's latency meanwhile.

Figures are printed, never asserted; the machine is shared, so compare runs made together.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]
PROBE_UNDER_RATE = 0.15
"""Seconds between the probe's rolls against a server with its default limits: under the
10 commands/s a member may send, so the probe measures the others and not its own limit."""
TOKEN = "ph_bench-admin-token-0123456789abcdef"

CHILD = """
import asyncio, dataclasses, sys
import importlib, pathlib
code = "poolhall." if pathlib.Path("poolhall/__init__.py").exists() else ""  # cwd: its checkout
Server = importlib.import_module(code + "server.app").Server  # before the one namespace: bare
Settings = importlib.import_module(code + "server.settings").Settings
names = {f.name for f in dataclasses.fields(Settings)}
wanted = dict(member_rate=1e9, member_burst=10**9, campaign_rate=1e9, campaign_burst=10**9,
              member_in_flight=10**9, member_connections=10**9, join_rate=1e9,
              join_burst=10**9, catch_up_timeout=float(sys.argv[3]),
              max_connections=12_000, max_connections_per_address=10**6, request_rate=1e9,
              request_burst=10**9)
if sys.argv[4] == "defaults":
    wanted = {}
async def main():
    server = Server(sys.argv[1], "127.0.0.1", 0, admin_token=sys.argv[2],
                    settings=Settings(**{k: v for k, v in wanted.items() if k in names}))
    await server.start()
    print("READY", server.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop()
asyncio.run(main())
"""


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Peer:
    """A JSON peer over one websocket."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.count = 0

    @classmethod
    async def join(cls, url: str, token: str, campaign: str | None, since: int = 0,
                   sock: socket.socket | None = None) -> Peer:
        connection = await connect(url, max_size=2**24, sock=sock, compression=None)
        peer = cls(connection)
        await connection.send(json.dumps({"type": "join", "token": token,
                                          "campaign": campaign, "since": since}))
        return peer

    async def call(self, command: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        command = {**command, "id": f"b{self.count}-{os.urandom(4).hex()}"}
        await self.connection.send(json.dumps(command))
        while True:
            frame: dict[str, Any] = json.loads(await self.connection.recv())
            if frame.get("id") == command["id"]:
                return frame


async def fill(url: str, campaign: str, token: str, events: int) -> None:
    peers = [await Peer.join(url, token, campaign) for _ in range(4)]
    for peer in peers:
        json.loads(await peer.connection.recv())  # welcome
    per_peer = events // len(peers)

    async def roll(peer: Peer, index: int) -> None:
        left = per_peer
        while left:  # windows of 100 in flight: the group commit makes one fsync of many
            window = min(100, left)
            for n in range(window):
                await peer.connection.send(json.dumps(
                    {"type": "roll", "id": f"f{index}-{left}-{n}", "expression": "3d6"}))
            answered = 0
            while answered < window:
                answered += (await peer.connection.recv(decode=True)).startswith('{"type":"ack"')
            left -= window

    await asyncio.gather(*(roll(peer, index) for index, peer in enumerate(peers)))
    for peer in peers:
        await peer.connection.close()


async def probe(url: str, campaign: str, token: str, stop: asyncio.Event,
                latencies: list[float], every: float = 0.01) -> None:
    peer = await Peer.join(url, token, campaign)
    await peer.connection.recv()
    while not stop.is_set():
        started = time.perf_counter()
        await peer.call({"type": "roll", "expression": "1d6"})
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(every)
    await peer.connection.close()


def line(name: str, latencies: list[float]) -> str:
    return (f"{name}: probe on another table p50 {percentile(latencies, 0.5):.1f} ms, "
            f"p99 {percentile(latencies, 0.99):.1f} ms, max {max(latencies or [0]):.1f} ms "
            f"({len(latencies)} rolls)")


async def read_to(peer: Peer, head: int) -> None:
    last = ""
    try:
        while True:
            frame = await asyncio.wait_for(peer.connection.recv(), 30)
            last = frame if isinstance(frame, str) else frame.decode()
            if f'"seq":{head},' in last:
                break
    except Exception as error:
        print(f"a reader stopped short ({error!r}); last frame: {last[:120]}")
    await peer.connection.close()


async def run(args: argparse.Namespace, port: int, pid: int) -> None:
    url = f"ws://127.0.0.1:{port}"
    admin = await Peer.join(url, TOKEN, None)
    await admin.connection.recv()
    long = await admin.call({"type": "create_campaign", "name": "Long", "system": "d12"})
    other = await admin.call({"type": "create_campaign", "name": "Other", "system": "d12"})
    started = time.perf_counter()
    await fill(url, long["campaign"], long["token"], args.events)
    head = args.events - args.events % 4 + 2
    print(f"filled {head} events in {time.perf_counter() - started:.1f}s; "
          f"server RSS {rss_mb(pid):.0f} MB")

    quiet: list[float] = []
    stop = asyncio.Event()
    probing = asyncio.create_task(probe(url, other["campaign"], other["token"], stop, quiet))
    await asyncio.sleep(3)
    stop.set()
    await probing
    print(line("quiet", quiet))

    storm: list[float] = []
    stop = asyncio.Event()
    probing = asyncio.create_task(probe(url, other["campaign"], other["token"], stop, storm))
    readers: list[asyncio.Task[None]] = []
    joins_started = time.perf_counter()
    for _ in range(int(args.storm * 4)):
        peer = await Peer.join(url, long["token"], long["campaign"])
        readers.append(asyncio.create_task(read_to(peer, head)))
        await asyncio.sleep(1 / args.storm)
    await asyncio.gather(*readers)
    storm_seconds = time.perf_counter() - joins_started
    stop.set()
    await probing
    print(line(f"storm of {args.storm:g} since=0 joins/s ({len(readers)} joins, all read "
               f"in {storm_seconds:.1f}s)", storm))

    stalled_lat: list[float] = []
    stop = asyncio.Event()
    probing = asyncio.create_task(probe(url, other["campaign"], other["token"], stop,
                                        stalled_lat))
    before = rss_mb(pid)
    stalled = []
    for _ in range(args.stalled):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", port))
        sock.setblocking(False)
        peer = await Peer.join(url, long["token"], long["campaign"], sock=sock)
        peer.connection.transport.pause_reading()
        stalled.append(peer)
    await asyncio.sleep(3)
    during = rss_mb(pid)
    await asyncio.sleep(args.catch_up_timeout + 5)
    after = rss_mb(pid)
    stop.set()
    await probing
    print(f"{args.stalled} stalled since=0 joiners: server RSS {before:.0f} MB before, "
          f"{during:.0f} MB 3 s in, {after:.0f} MB {args.catch_up_timeout + 8:g} s in")
    print(line("  meanwhile", stalled_lat))
    for peer in stalled:
        peer.connection.transport.abort()


async def flood(args: argparse.Namespace, port: int, pid: int) -> None:
    url = f"ws://127.0.0.1:{port}"
    admin = await Peer.join(url, TOKEN, None)
    await admin.connection.recv()
    table = await admin.call({"type": "create_campaign", "name": "Flooded", "system": "d12"})
    other = await admin.call({"type": "create_campaign", "name": "Other", "system": "d12"})
    gm = await Peer.join(url, table["token"], table["campaign"])
    await gm.connection.recv()
    player = (await gm.call({"type": "invite", "role": "player", "name": "P"}))["token"]
    quiet: list[float] = []
    stop = asyncio.Event()
    probing = asyncio.create_task(probe(url, other["campaign"], other["token"], stop, quiet,
                                          every=PROBE_UNDER_RATE))
    await asyncio.sleep(3)
    stop.set()
    await probing
    print(line("quiet", quiet))

    counts = {"ack": 0, "error": 0}
    stop = asyncio.Event()

    async def roll_flat_out(index: int) -> None:
        peer = await Peer.join(url, player, table["campaign"])
        await peer.connection.recv()
        sent = 0
        while not stop.is_set():  # 16 in flight: as fast as the server answers
            for _ in range(16):
                sent += 1
                await peer.connection.send(json.dumps(
                    {"type": "roll", "id": f"x{index}-{sent}", "expression": "3d6"}))
            answered = 0
            while answered < 16:
                frame = json.loads(await peer.connection.recv())
                if frame["type"] in counts and frame.get("id", "").startswith(f"x{index}-"):
                    counts[frame["type"]] += 1
                    answered += 1
        await peer.connection.close()

    flooded: list[float] = []
    probing = asyncio.create_task(probe(url, other["campaign"], other["token"], stop, flooded,
                                        every=PROBE_UNDER_RATE))
    rolling = [asyncio.create_task(roll_flat_out(index)) for index in range(4)]
    await asyncio.sleep(5)
    stop.set()
    await asyncio.gather(probing, *rolling)
    print(f"one player, 4 connections, 5 s flat out: {counts['ack'] / 5:,.0f} rolls/s accepted, "
          f"{counts['error'] / 5:,.0f}/s refused; server RSS {rss_mb(pid):.0f} MB")
    print(line("  meanwhile", flooded))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the tree to run the server from")
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--storm", type=float, default=5.0, help="joins per second")
    parser.add_argument("--stalled", type=int, default=200)
    parser.add_argument("--catch-up-timeout", type=float, default=10.0)
    parser.add_argument("--flood", action="store_true", help="the rate limits' trial instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(Path(tmp) / "bench.db"), TOKEN,
             str(args.catch_up_timeout), "defaults" if args.flood else "lifted"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=args.code,
            env={**os.environ, "PYTHONPATH": str(args.code.resolve())})
        try:
            assert child.stdout is not None
            ready = child.stdout.readline().decode().split()
            if not ready or ready[0] != "READY":
                raise SystemExit("the server did not start")
            asyncio.run((flood if args.flood else run)(args, int(ready[1]), child.pid))
        finally:
            if child.stdin is not None:
                child.stdin.close()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()


if __name__ == "__main__":
    main()
