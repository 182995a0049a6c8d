"""The load generator of ``table_load.py``: a minimal websocket peer and the table's clients.

Every client of every campaign lives in one event loop so that receive timestamps compare.
:class:`Peer` is an ``asyncio.Protocol`` that speaks just enough RFC 6455 (masked frames out,
permessage-deflate in and out like the real client, ping answered) to keep the generator much
cheaper than the server it measures; :class:`Bench` drives the phases.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import secrets
import sys
import time
import zlib
from typing import Any

import msgspec
from websockets.typing import BytesLike

from poolhall.events import core
from poolhall.events.codec import encode
from poolhall.events.messages import Join

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - the pure-Python fallback
    def apply_mask(data: BytesLike, mask: bytes | bytearray) -> bytes:
        n = len(data)
        key = (mask * (n // 4 + 1))[:n]
        return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")

__all__ = ["Bench", "Frame", "Peer", "apply_mask", "percentile", "EXPRESSION"]

EXPRESSION = "2d6+1"


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

    def __init__(self, bench: Bench, campaign: int, slot: int, deflate: bool,
                 port: int) -> None:
        self.bench, self.campaign, self.slot, self.deflate = bench, campaign, slot, deflate
        self.port = port
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
        assert self.transport is not None
        self.transport.write(
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"{extensions}\r\n".encode())

    def _upgrade(self) -> bool:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buffer[:end]).decode("latin-1")
        del self.buffer[:end + 4]
        if not head.startswith("HTTP/1.1 101"):
            if not self.opened.done():
                self.opened.set_exception(ConnectionError(head.splitlines()[0]))
            if self.transport is not None:
                self.transport.close()
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
        while (framed := _frame_at(buffer, pos, size)) is not None:
            header, length = framed
            b0 = buffer[pos]
            payload = bytes(buffer[pos + header:pos + header + length])
            pos += header + length
            self._on_frame(b0, payload, now)
        del buffer[:pos]

    def _on_frame(self, b0: int, payload: bytes, now: float) -> None:
        """One whole frame: a text frame or a fragment of one (the message goes to the bench
        once its last fragment is in, inflated), a ping answered, a close echoed."""
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


def _frame_at(buffer: bytearray, pos: int, size: int) -> tuple[int, int] | None:
    """The lengths of the header and of the payload of the frame at ``pos`` in ``buffer``
    (``size`` bytes long); None until the whole frame has arrived."""
    if size - pos < 2:
        return None
    length, header = buffer[pos + 1] & 0x7F, 2
    if length == 126:
        if size - pos < 4:
            return None
        length, header = int.from_bytes(buffer[pos + 2:pos + 4], "big"), 4
    elif length == 127:
        if size - pos < 10:
            return None
        length, header = int.from_bytes(buffer[pos + 2:pos + 10], "big"), 10
    if size - pos < header + length:
        return None
    return header, length


# ---- the load generator --------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class Bench:
    """All clients of all campaigns in this one event loop, and the phase they are in.

    With several server ``ports`` (processes sharing one PostgreSQL), the clients of each
    campaign are spread over them round-robin, from a different process for each campaign:
    every table then has members on every process, and its events cross between them.
    """

    def __init__(self, args: argparse.Namespace, ports: int | list[int]) -> None:
        self.args = args
        self.ports = [ports] if isinstance(ports, int) else list(ports)
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
        port = self.ports[(max(campaign, 0) + max(slot, 0)) % len(self.ports)]
        _, peer = await loop.create_connection(
            lambda: Peer(self, campaign, slot, not self.args.no_deflate, port), "127.0.0.1", port)
        await asyncio.wait_for(peer.opened, 10)
        peer.welcome = loop.create_future()
        peer.send_text(encode(Join(token=token, campaign=name)))
        await asyncio.wait_for(peer.welcome, 10)
        return peer

    def failures(self, label: str = "") -> list[str]:
        """The correctness failures these clients saw: gaps, lost connections, errors."""
        found = []
        gaps = sum(p.gaps for table in self.peers for p in table)
        if gaps:
            found.append(f"{label}{gaps} gaps in the event sequences the clients received")
        if self.lost:
            found.append(f"{label}{self.lost} connections lost during the run")
        if self.errors:
            found.append(f"{label}error replies: "
                         + "; ".join(f"{n} x {e}" for e, n in self.errors.items()))
        return found

    def on_lost(self, peer: Peer) -> None:
        if not self.closing and peer.campaign >= 0:  # the admin session closes itself
            self.lost += 1
            print(f"   connection lost: campaign {peer.campaign} client {peer.slot} in phase "
                  f"{self.mode}", file=sys.stderr)

    def on_message(self, peer: Peer, frame: Frame, now: float) -> None:
        kind = frame.type
        if kind == "event":
            self._on_event(peer, frame, now)
        elif kind == "ack" or kind == "error":
            future = peer.pending.pop(frame.id, None) if frame.id else None
            if future is None:
                self._on_roll_answer(peer, frame, now)
            elif kind == "ack":
                future.set_result(frame)
            else:
                future.set_exception(RuntimeError(f"{frame.code}: {frame.message}"))
        elif kind == "welcome":
            if peer.welcome is not None and not peer.welcome.done():
                peer.welcome.set_result(frame)
        elif kind == "snapshot":  # joined afresh: the table at its seq, events from there
            peer.last_seq = max(peer.last_seq, frame.seq)

    def _on_event(self, peer: Peer, frame: Frame, now: float) -> None:
        """An event: a gap is counted; the last client to see a timed roll's event times
        its fan-out."""
        if frame.seq != peer.last_seq + 1:
            peer.gaps += 1
        peer.last_seq = frame.seq
        entry = self.fanout.get(frame.command) if self.fanout and frame.command else None
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                self.fanout_latency.append(now - entry[0])
                del self.fanout[frame.command]  # type: ignore[arg-type]

    def _on_roll_answer(self, peer: Peer, frame: Frame, now: float) -> None:
        """A roll's ack or error (not a setup request's): counted, timed while a phase runs;
        in the throughput phase the client rolls again at once."""
        sent = peer.sent_at.pop(frame.id, None) if frame.id else None
        if frame.type == "error":
            key = f"{frame.code}: {frame.message}"
            self.errors[key] = self.errors.get(key, 0) + 1
        if sent is None:
            return
        peer.in_flight -= 1
        if frame.type == "ack":
            self.acked += 1
            if self.running:
                self.phase_acks += 1
                self.ack_latency.append(now - sent)
        if self.running and self.mode == "throughput":
            peer.roll()

    # setup

    async def setup(self, first: int = 0) -> None:
        """Create ``args.campaigns`` campaigns (numbered from ``first``) and join their
        clients."""
        args = self.args
        admin = await self.open_peer(-1, -1, args.admin_token, None)
        creates = [admin.request(core.CreateCampaign(
            id=f"cc-{c}", name=f"Bench table {c}", system=args.system, campaign=f"bench-{c:04d}"))
            for c in range(first, first + args.campaigns)]
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
            *(table(c, ack.token)  # type: ignore[arg-type]  # an invite's ack has its token
              for c, ack in enumerate(acks, start=first))), 600))
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
