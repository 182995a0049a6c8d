"""Table load: durable commands/s, fan-out latency and rebuild speed of a real poolhall server.

::

    python tests/bench/table_load.py [--campaigns 100] [--clients 5] [--seconds 10] [--rate 1000]
    python tests/bench/table_load.py --quick              # a 2-second smoke run
    python tests/bench/table_load.py --profile py-spy     # where the server's time goes

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

Targets are printed beside the figures, never asserted. Exit 1 on any correctness failure.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from events import core  # noqa: E402
from events.codec import encode  # noqa: E402
from events.messages import Join  # noqa: E402

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - the pure-Python fallback
    def apply_mask(data: bytes, mask: bytes) -> bytes:
        n = len(data)
        key = (mask * (n // 4 + 1))[:n]
        return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")

TARGET_THROUGHPUT = 5000.0
TARGET_P99_MS = 20.0
TARGET_REBUILD = 300_000.0
EXPRESSION = "2d6+1"
PROFILE_ENV = "POOLHALL_BENCH_PROFILE"


# ---- the server child ----------------------------------------------------------------------


def serve_child(db: str, token: str) -> None:
    """Run the real server until SIGTERM/SIGINT or until the parent closes our stdin."""
    import ctypes
    import logging

    with contextlib.suppress(Exception):  # die with the parent (Linux)
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)
    logging.basicConfig(level=logging.WARNING, format="server %(levelname)s %(name)s: %(message)s")
    from server.app import Server

    async def main() -> None:
        started = time.perf_counter()
        server = Server(db, "127.0.0.1", 0, admin_token=token)
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

    def __init__(self, db: Path, token: str, log_path: Path, profile_to: Path | None) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        if profile_to is not None:
            env[PROFILE_ENV] = str(profile_to)
        self.log_path = log_path
        self._log = open(log_path, "ab")
        started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve-child", str(db), token],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, cwd=ROOT, env=env,
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

    def cpu_seconds(self) -> float:
        """User + system CPU of the whole server process (all threads) so far."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return float("nan")

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
        self._log.close()

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""


# ---- a minimal websocket peer --------------------------------------------------------------


class Frame(msgspec.Struct):
    """Every server message, decoded just enough (the event payload is skipped)."""

    type: str
    id: str | None = None
    seq: int = 0
    command: str | None = None
    seqs: list[int] | None = None
    token: str | None = None
    campaign: str | None = None
    code: str | None = None
    message: str | None = None
    head: int = 0


DECODER = msgspec.json.Decoder(Frame)


class Peer(asyncio.Protocol):
    """One client connection: handshake, frame parsing and sending, nothing more."""

    def __init__(self, bench: Bench, campaign: int, slot: int, deflate: bool) -> None:
        self.bench, self.campaign, self.slot, self.deflate = bench, campaign, slot, deflate
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.upgraded = False
        self.pending: dict[str, asyncio.Future[Frame]] = {}
        self.welcome: asyncio.Future[Frame] | None = None
        self.fragments: list[bytes] = []
        self.compressed = False
        self.inflate: Any = None
        self.deflater: Any = None
        self.inflate_reset = self.deflate_reset = False
        self.client_bits = 15
        self.last_seq = 0
        self.gaps = 0
        self.in_flight = 0
        self.sent_at: dict[str, float] = {}
        self.counter = 0

    # handshake

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        extensions = ("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
                      if self.deflate else "")
        self.transport.write(
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.bench.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"{extensions}\r\n".encode())

    def _upgrade(self) -> bool:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buffer[:end]).decode("latin-1")
        del self.buffer[:end + 4]
        if not head.startswith("HTTP/1.1 101"):
            self.opened.set_exception(ConnectionError(head.splitlines()[0]))
            return False
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-extensions" and "permessage-deflate" in value:
                params = [p.strip() for p in value.split(";")]
                self.inflate_reset = "server_no_context_takeover" in params
                self.deflate_reset = "client_no_context_takeover" in params
                for p in params:
                    if p.startswith("client_max_window_bits="):
                        self.client_bits = int(p.split("=")[1])
                self.inflate = zlib.decompressobj(-15)
                self.deflater = zlib.compressobj(6, zlib.DEFLATED, -self.client_bits, 5)
        self.upgraded = True
        self.opened.set_result(None)
        return True

    # receiving

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()  # every frame in this chunk arrived now
        buffer = self.buffer
        buffer += data
        if not self.upgraded and not self._upgrade():
            return
        pos, size = 0, len(buffer)
        while size - pos >= 2:
            b0, b1 = buffer[pos], buffer[pos + 1]
            length, header = b1 & 0x7F, 2
            if length == 126:
                if size - pos < 4:
                    break
                length, header = int.from_bytes(buffer[pos + 2:pos + 4], "big"), 4
            elif length == 127:
                if size - pos < 10:
                    break
                length, header = int.from_bytes(buffer[pos + 2:pos + 10], "big"), 10
            if size - pos < header + length:
                break
            payload = bytes(buffer[pos + header:pos + header + length])
            pos += header + length
            opcode = b0 & 0x0F
            if opcode in (1, 0):
                if opcode == 1:
                    self.compressed = bool(b0 & 0x40)
                self.fragments.append(payload)
                if b0 & 0x80:
                    message = b"".join(self.fragments) if len(self.fragments) > 1 else payload
                    self.fragments.clear()
                    if self.compressed:
                        if self.inflate_reset:
                            self.inflate = zlib.decompressobj(-15)
                        message = self.inflate.decompress(message + b"\x00\x00\xff\xff")
                    self.bench.on_message(self, DECODER.decode(message), now)
            elif opcode == 9:
                self._send_frame(0x8A, payload)
            elif opcode == 8:
                self._send_frame(0x88, payload[:2])
        del buffer[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed during the handshake"))
        for future in self.pending.values():
            if not future.done():
                future.set_exception(ConnectionError("connection lost"))
        if not self.closed.done():
            self.closed.set_result(None)
        self.bench.on_lost(self)

    # sending

    def _send_frame(self, b0: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        n = len(payload)
        if n < 126:
            header = bytes((b0, 0x80 | n))
        elif n < 65536:
            header = bytes((b0, 0xFE)) + n.to_bytes(2, "big")
        else:
            header = bytes((b0, 0xFF)) + n.to_bytes(8, "big")
        mask = secrets.token_bytes(4)
        self.transport.write(header + mask + apply_mask(payload, mask))

    def send_text(self, payload: bytes) -> None:
        if self.deflater is not None:  # compress like the real client does
            if self.deflate_reset:
                self.deflater = zlib.compressobj(6, zlib.DEFLATED, -self.client_bits, 5)
            data = self.deflater.compress(payload) + self.deflater.flush(zlib.Z_SYNC_FLUSH)
            self._send_frame(0xC1, data[:-4] if data.endswith(b"\x00\x00\xff\xff") else data)
        else:
            self._send_frame(0x81, payload)

    def request(self, command: Any) -> asyncio.Future[Frame]:
        future: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self.pending[command.id] = future
        self.send_text(encode(command))
        return future

    def roll(self) -> str:
        self.counter += 1
        command_id = f"r{self.campaign}.{self.slot}-{self.counter}"
        self.sent_at[command_id] = time.perf_counter()
        self.in_flight += 1
        self.send_text(encode(core.Roll(id=command_id, expression=EXPRESSION)))
        return command_id

    async def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self._send_frame(0x88, (1000).to_bytes(2, "big"))
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.closed), 3)
            if not self.closed.done() and self.transport is not None:
                self.transport.abort()


# ---- the load generator --------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class Bench:
    """All clients of all campaigns in this one event loop, and the phase they are in."""

    def __init__(self, args: argparse.Namespace, port: int) -> None:
        self.args, self.port = args, port
        self.peers: list[list[Peer]] = []
        self.mode = "setup"
        self.running = False
        self.acked = 0  # roll acks over the whole run: the log must hold exactly these
        self.phase_acks = 0
        self.ack_latency: list[float] = []
        self.errors: dict[str, int] = {}
        self.lost = 0
        self.closing = False
        self.fanout: dict[str, list[float]] = {}  # command id -> [sent at, clients still to see]
        self.fanout_latency: list[float] = []

    async def open_peer(self, campaign: int, slot: int, token: str, name: str | None) -> Peer:
        loop = asyncio.get_running_loop()
        _, peer = await loop.create_connection(
            lambda: Peer(self, campaign, slot, not self.args.no_deflate), "127.0.0.1", self.port)
        await asyncio.wait_for(peer.opened, 10)
        peer.welcome = loop.create_future()
        peer.send_text(encode(Join(token=token, campaign=name)))
        await asyncio.wait_for(peer.welcome, 10)
        return peer

    def on_lost(self, peer: Peer) -> None:
        if not self.closing and peer.campaign >= 0:  # the admin session closes itself
            self.lost += 1
            print(f"   connection lost: campaign {peer.campaign} client {peer.slot} in phase "
                  f"{self.mode}", file=sys.stderr)

    def on_message(self, peer: Peer, frame: Frame, now: float) -> None:
        kind = frame.type
        if kind == "event":
            if frame.seq != peer.last_seq + 1:
                peer.gaps += 1
            peer.last_seq = frame.seq
            entry = self.fanout.get(frame.command) if self.fanout else None
            if entry is not None:
                entry[1] -= 1
                if entry[1] == 0:
                    self.fanout_latency.append(now - entry[0])
                    del self.fanout[frame.command]  # type: ignore[arg-type]
        elif kind == "ack" or kind == "error":
            future = peer.pending.pop(frame.id, None) if frame.id else None  # type: ignore[arg-type]
            if future is not None:
                if kind == "ack":
                    future.set_result(frame)
                else:
                    future.set_exception(RuntimeError(f"{frame.code}: {frame.message}"))
                return
            sent = peer.sent_at.pop(frame.id, None) if frame.id else None  # type: ignore[arg-type]
            if kind == "error":
                key = f"{frame.code}: {frame.message}"
                self.errors[key] = self.errors.get(key, 0) + 1
            if sent is None:
                return
            peer.in_flight -= 1
            if kind == "ack":
                self.acked += 1
                if self.running:
                    self.phase_acks += 1
                    self.ack_latency.append(now - sent)
            if self.running and self.mode == "throughput":
                peer.roll()
        elif kind == "welcome":
            if peer.welcome is not None and not peer.welcome.done():
                peer.welcome.set_result(frame)

    # setup

    async def setup(self) -> None:
        args = self.args
        admin = await self.open_peer(-1, -1, args.admin_token, None)
        creates = [admin.request(core.CreateCampaign(
            id=f"cc-{c}", name=f"Bench table {c}", system=args.system, campaign=f"bench-{c:04d}"))
            for c in range(args.campaigns)]
        acks = await asyncio.wait_for(asyncio.gather(*creates), 120)
        await admin.close()
        gate = asyncio.Semaphore(64)

        async def table(c: int, gm_token: str) -> list[Peer]:
            name = f"bench-{c:04d}"
            async with gate:
                gm = await self.open_peer(c, 0, gm_token, name)
            invites = await asyncio.gather(*(gm.request(core.Invite(
                id=f"inv-{k}", role="player", name=f"Player {k}")) for k in range(1, args.clients)))
            players = []
            for k, ack in enumerate(invites, start=1):
                async with gate:
                    players.append(await self.open_peer(c, k, ack.token, name))  # type: ignore[arg-type]
            return [gm, *players]

        self.peers = list(await asyncio.wait_for(asyncio.gather(
            *(table(c, ack.token) for c, ack in enumerate(acks))), 300))
        await self.settle()

    async def settle(self, timeout: float = 30.0) -> bool:
        """Wait until nothing is in flight and every client holds its campaign's head."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            busy = any(p.in_flight or p.last_seq != table[0].last_seq or p.pending
                       for table in self.peers for p in table)
            if not busy and not self.fanout:
                return True
            await asyncio.sleep(0.02)
        return False

    # phases

    async def throughput(self, seconds: float) -> tuple[float, float]:
        self.mode, self.phase_acks, self.ack_latency = "throughput", 0, []
        self.running = True
        started = time.perf_counter()
        for _ in range(self.args.window):
            for table in self.peers:
                for peer in table:
                    peer.roll()
        await asyncio.sleep(seconds)
        self.running = False
        return time.perf_counter() - started, self.phase_acks

    async def paced(self, seconds: float, rate: float) -> int:
        self.mode, self.phase_acks, self.ack_latency = "paced", 0, []
        self.fanout_latency = []
        tables = self.peers
        sent = 0
        self.running = True
        started = time.perf_counter()
        total = int(seconds * rate)
        while sent < total:
            due = min(total, int((time.perf_counter() - started) * rate) + 1)
            while sent < due:
                table = tables[sent % len(tables)]
                peer = table[(sent // len(tables)) % len(table)]
                command_id = peer.roll()
                self.fanout[command_id] = [peer.sent_at[command_id], len(table)]
                sent += 1
            await asyncio.sleep(max(0.0, started + sent / rate - time.perf_counter()))
        self.running = False
        return sent

    async def close(self) -> None:
        self.closing = True
        await asyncio.gather(*(p.close() for table in self.peers for p in table))


# ---- rebuild -------------------------------------------------------------------------------


def rebuild(db: Path) -> tuple[int, float, float, float, float]:
    """Events folded, seconds for the full fold, then for reading, decoding, folding alone."""
    from events.log import to_recorded
    from events.store import SqliteLog
    from projections.campaign import fold

    log = SqliteLog(db)
    try:
        campaigns = log.campaigns()
        started = time.perf_counter()
        events = 0
        for campaign in campaigns:
            events += fold(to_recorded(row) for row in log.rows(campaign)).head
        fold_seconds = time.perf_counter() - started
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
        f"{name} {100 * n / total:.0f}%" for name, n in sorted(packages.items(), key=lambda kv: -kv[1])
        if n / total >= 0.01))
    print(f"{'own %':>6} {'incl %':>7}  function")
    for frame, count in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{100 * count / total:6.1f} {100 * inclusive[frame] / total:7.1f}  {frame}")
    print(f"\n{'incl %':>7}  function (inclusive, below the event loop, top {top})")
    shown = [(f, n) for f, n in inclusive.items() if n < 0.9 * total]
    for frame, count in sorted(shown, key=lambda kv: -kv[1])[:top]:
        print(f"{100 * count / total:7.1f}  {frame}")


# ---- main ----------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "meets target" if ok else "BELOW TARGET"


async def run_load(args: argparse.Namespace, server: ServerProcess, work: Path) -> list[str]:
    """Phases 1 and 2; returns the correctness failures found."""
    failures: list[str] = []
    bench = Bench(args, server.port)
    started = time.perf_counter()
    await bench.setup()
    print(f"setup: {args.campaigns} campaigns x {args.clients} clients connected in "
          f"{time.perf_counter() - started:.1f}s (deflate {'off' if args.no_deflate else 'on'})")

    spy: subprocess.Popen[bytes] | None = None
    spy_out = work / "py-spy.txt"
    if args.profile == "py-spy":
        spy = subprocess.Popen(
            [args.py_spy, "record", "--pid", str(server.pid), "--format", "raw", "--gil", "--function",
             "--rate", "200", "--duration", str(max(1, int(args.seconds))), "-o", str(spy_out)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        await asyncio.sleep(0.5)

    cpu0, own0 = server.cpu_seconds(), time.process_time()
    elapsed, acks = await bench.throughput(args.seconds)
    cpu1, own1 = server.cpu_seconds(), time.process_time()
    drained = await bench.settle()
    rate = acks / elapsed
    lat = bench.ack_latency
    print(f"\n1. full throttle, {args.campaigns} campaigns x {args.clients} clients, "
          f"{args.window} in flight per client, {elapsed:.1f}s")
    print(f"   durable commands/s: {rate:,.0f}   (target >= {TARGET_THROUGHPUT:,.0f}: "
          f"{verdict(rate >= TARGET_THROUGHPUT)})")
    print(f"   acks in window {acks:,}; ack latency p50 {1000 * percentile(lat, 0.5):.1f} ms, "
          f"p99 {1000 * percentile(lat, 0.99):.1f} ms")
    print(f"   CPU: server {100 * (cpu1 - cpu0) / elapsed:.0f}% of a core, load generator "
          f"{100 * (own1 - own0) / elapsed:.0f}%; {acks / max(cpu1 - cpu0, 1e-9):,.0f} commands "
          "per server CPU-second")
    if not drained:
        failures.append("commands still in flight 30 s after phase 1 stopped")
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

    gaps = sum(p.gaps for table in bench.peers for p in table)
    if gaps:
        failures.append(f"{gaps} gaps in the event sequences the clients received")
    if bench.lost:
        failures.append(f"{bench.lost} connections lost during the run")
    if bench.errors:
        failures.append("error replies: " + "; ".join(f"{n} x {e}" for e, n in bench.errors.items()))

    with contextlib.closing(sqlite3.connect(args.db)) as db:
        (stored,) = db.execute("SELECT count(*) FROM events WHERE type = 'dice_rolled'").fetchone()
    print(f"\ndurability: {bench.acked:,} rolls acknowledged, {stored:,} dice_rolled rows in the "
          f"log: {'match' if stored == bench.acked else 'MISMATCH'}")
    if stored != bench.acked:
        failures.append(f"the log holds {stored} dice_rolled rows, {bench.acked} were acked")
    await bench.close()
    return failures


def main(argv: list[str] | None = None) -> int:
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
    parser.add_argument("--serve-child", nargs=2, metavar=("DB", "TOKEN"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_child:
        serve_child(*args.serve_child)
        return 0
    if args.quick:
        args.seconds = 2.0
    if not (1 <= args.campaigns <= 2000 and 1 <= args.clients <= 50 and 0 < args.seconds <= 600
            and 0 < args.rate <= 100_000 and 1 <= args.window <= 64):
        parser.error("out of range: campaigns 1-2000, clients 1-50, seconds <= 600, window 1-64")
    if args.profile == "py-spy":
        args.py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        if not Path(args.py_spy).exists():
            parser.error("py-spy not found: /work/venv/bin/pip install py-spy")

    work = Path(tempfile.mkdtemp(prefix="poolhall-bench-"))
    args.db = work / "bench.db"
    args.admin_token = "ph_bench-" + secrets.token_hex(16)
    profile_to = work / "server.prof" if args.profile == "cprofile" else None
    server: ServerProcess | None = None
    failures: list[str] = []
    try:
        print(f"poolhall table load: server in a child process, log {args.db}; "
              f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
        server = ServerProcess(args.db, args.admin_token, work / "server.log", profile_to)
        failures = asyncio.run(run_load(args, server, work))
        server.stop()
        if server.proc.returncode not in (0, None):
            failures.append(f"server exited with {server.proc.returncode}")
        if profile_to is not None and profile_to.exists():
            print_cprofile(profile_to, args.top)
        server = None

        events, fold_s, read_s, decode_s, evolve_s = rebuild(args.db)
        speed = events / fold_s
        print(f"\n3. rebuild: {events:,} events folded in {fold_s:.3f}s = {speed:,.0f} events/s   "
              f"(target >= {TARGET_REBUILD:,.0f}: {verdict(speed >= TARGET_REBUILD)})")
        print(f"   in separate passes: reading rows {read_s:.3f}s, decoding (to_recorded) "
              f"{decode_s:.3f}s, folding (evolve) {evolve_s:.3f}s")
        server = ServerProcess(args.db, args.admin_token, work / "server.log", None)
        print(f"   server startup rebuild: {server.hubs} campaigns in {server.start_seconds:.3f}s "
              f"= {events / server.start_seconds:,.0f} events/s (process ready in "
              f"{server.ready_seconds:.2f}s including imports)")
        server.stop()
        server = None
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as error:  # any failure: say it loudly, still clean up
        failures.append(f"{type(error).__name__}: {error}")
    finally:
        if server is not None:
            server.stop()
        log_tail = ""
        with contextlib.suppress(OSError):
            log_tail = (work / "server.log").read_text(errors="replace").strip()
        shutil.rmtree(work, ignore_errors=True)
    if log_tail:
        print("\nserver log:\n" + "\n".join(log_tail.splitlines()[-20:]))
    if failures:
        for failure in failures:
            print(f"FAILED: {failure}")
        return 1
    print("\nOK: every acknowledged roll is in the log, no gap, no error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
