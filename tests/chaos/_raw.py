"""A raw websocket peer for the attackers: asyncio streams and RFC 6455 frames written by hand.

The attackers must send what no library would (invalid UTF-8 in a text frame, a continuation
with no start, a frame larger than the server allows) and must be able *not* to read at all
(a tiny receive buffer that is never drained), so they speak the protocol themselves. The
server never compresses (``compression=None``), so no permessage-deflate here.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import secrets
import socket
from typing import Any

import _paths  # noqa: F401  (first: the repository and tests/bench on sys.path)
from _load_worker import apply_mask  # the table-load benchmark's masking, reused

__all__ = ["Closed", "RawSocket", "TEXT", "BINARY", "CONTINUATION", "CLOSE", "PING"]

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class Closed(Exception):
    """The server closed the connection; ``code`` is its close code (1006: no close frame)."""

    def __init__(self, code: int) -> None:
        super().__init__(f"closed {code}")
        self.code = code


class RawSocket:
    """One client connection driven by hand; every read is bounded by a timeout."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.close_code: int | None = None

    @classmethod
    async def open(cls, port: int, *, upgrade: bool = True, rcvbuf: int = 0,
                   source: str = "127.0.0.1", timeout: float = 10.0) -> RawSocket:
        """Connect to 127.0.0.1:``port``; upgrade to a websocket unless told not to.

        ``rcvbuf`` shrinks the kernel receive buffer before connecting, so that a peer that
        never reads stalls the server's sends after a few kilobytes, as a real stalled client
        on a slow link would. ``source`` is the loopback address to connect from: attackers use
        127.0.0.2 so that per-address limits tell them apart from the honest table, as they
        would tell apart two hosts.
        """
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            if rcvbuf:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            sock.bind((source, 0))
            sock.setblocking(False)
            await asyncio.wait_for(
                asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port)), timeout)
            reader, writer = await asyncio.open_connection(sock=sock, limit=2**22)
        except BaseException:
            sock.close()
            raise
        peer = cls(reader, writer)
        if upgrade:
            try:
                await asyncio.wait_for(peer._upgrade(port), timeout)
            except BaseException:
                peer.abort()
                raise
        return peer

    async def _upgrade(self, port: int) -> None:
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        self.writer.write(
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0].decode("latin-1")
        if not status.startswith("HTTP/1.1 101"):
            raise ConnectionError(f"refused: {status}")

    # ---- sending ----------------------------------------------------------------------

    def send_frame(self, opcode: int, payload: bytes, *, fin: bool = True) -> None:
        """One masked frame, exactly as given (no validation of the payload)."""
        n = len(payload)
        b0 = (0x80 if fin else 0) | opcode
        if n < 126:
            header = bytes((b0, 0x80 | n))
        elif n < 65536:
            header = bytes((b0, 0xFE)) + n.to_bytes(2, "big")
        else:
            header = bytes((b0, 0xFF)) + n.to_bytes(8, "big")
        mask = secrets.token_bytes(4)
        self.writer.write(header + mask + apply_mask(payload, mask))

    def send_text(self, text: str | bytes) -> None:
        self.send_frame(TEXT, text.encode() if isinstance(text, str) else text)

    def send_json(self, message: dict[str, Any]) -> None:
        self.send_text(json.dumps(message))

    async def drain(self) -> None:
        await self.writer.drain()

    # ---- receiving --------------------------------------------------------------------

    async def recv(self, timeout: float = 10.0) -> tuple[int, bytes]:
        """The next data frame (opcode, payload); pings are answered; raises :class:`Closed`."""
        return await asyncio.wait_for(self.next_frame(), timeout)

    async def next_frame(self) -> tuple[int, bytes]:
        """:meth:`recv` without its own timeout, for a loop under one ``asyncio.timeout``
        (a timer per frame costs the attacker more than the server spends sending it)."""
        while True:
            try:
                b0, b1 = await self.reader.readexactly(2)
                length = b1 & 0x7F
                if length == 126:
                    length = int.from_bytes(await self.reader.readexactly(2), "big")
                elif length == 127:
                    length = int.from_bytes(await self.reader.readexactly(8), "big")
                payload = await self.reader.readexactly(length)
            except (asyncio.IncompleteReadError, ConnectionError) as error:
                self.close_code = self.close_code or 1006
                raise Closed(self.close_code) from error
            opcode = b0 & 0x0F
            if opcode == CLOSE:
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                with contextlib.suppress(Exception):
                    self.send_frame(CLOSE, payload[:2])
                raise Closed(self.close_code)
            if opcode == PING:
                self.send_frame(PONG, payload)
                continue
            if opcode == PONG:
                continue
            return opcode, payload

    async def recv_json(self, timeout: float = 10.0) -> dict[str, Any]:
        _, payload = await self.recv(timeout)
        return json.loads(payload)  # type: ignore[no-any-return]

    async def reply_to(self, command_id: str, timeout: float = 10.0) -> dict[str, Any]:
        """Skip frames until the ack or error answering ``command_id``."""
        while True:
            frame = await self.recv_json(timeout)
            if frame.get("type") in ("ack", "error") and frame.get("id") == command_id:
                return frame

    async def join(self, token: str, campaign: str | None, since: int = 0,
                   timeout: float = 10.0, replay: bool = False) -> dict[str, Any]:
        """Send ``join`` (``replay``: every event after ``since``, not a snapshot); the first
        reply (a welcome, or an error)."""
        message: dict[str, Any] = {"type": "join", "token": token, "campaign": campaign,
                                   "since": since}
        if replay:
            message["replay"] = True
        self.send_json(message)
        return await self.recv_json(timeout)

    async def call(self, command: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """Send one command and wait for its answer."""
        self.send_json(command)
        return await self.reply_to(command["id"], timeout)

    def stop_reading(self) -> None:
        """Read nothing more from the kernel: its receive buffer fills, then the server's."""
        transport = self.writer.transport
        assert isinstance(transport, asyncio.Transport)
        transport.pause_reading()

    def tcp_open(self) -> bool:
        """Whether the TCP connection is still established, asked of the kernel (Linux
        ``TCP_INFO``) without reading: a peer that never reads would otherwise have to wade
        through megabytes of backlog to find the server's close."""
        sock: socket.socket | None = self.writer.get_extra_info("socket")
        if sock is None or self.writer.transport.is_closing():
            return False
        try:
            return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0] == 1  # ESTABLISHED
        except OSError:
            return False

    # ---- closing ----------------------------------------------------------------------

    def abort(self) -> None:
        """Drop the TCP connection at once, no closing handshake: a forced disconnect."""
        transport = self.writer.transport
        if not transport.is_closing():
            transport.abort()

    async def close(self) -> None:
        """A polite close (1000), bounded; an abort if the server does not answer."""
        with contextlib.suppress(Exception):
            self.send_frame(CLOSE, (1000).to_bytes(2, "big"))
            await asyncio.wait_for(self.writer.drain(), 1)
        self.abort()
