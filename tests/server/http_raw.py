"""Raw HTTP requests over a real socket, for tests that must send what no client library would
(a header twice, a stranger's ``Host``, a request that never ends)."""

from __future__ import annotations

import asyncio
import base64
import secrets
from dataclasses import dataclass

__all__ = ["Reply", "handshake_lines", "parse_reply", "send_request"]


@dataclass
class Reply:
    """What the server answered: its status, headers (lowercased names, every value) and body."""

    status: int
    headers: dict[str, list[str]]
    body: bytes

    def header(self, name: str) -> str:
        """The one value of ``name`` (fails if absent or repeated)."""
        values = self.headers.get(name.lower(), [])
        assert len(values) == 1, (name, values)
        return values[0]


def handshake_lines(port: int, *extra: str, host: str | None = None) -> list[str]:
    """A WebSocket handshake request's lines for ``/`` (``extra`` headers added last)."""
    key = base64.b64encode(secrets.token_bytes(16)).decode()
    return ["GET / HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}", "Upgrade: websocket",
            "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
            *extra]


def parse_reply(data: bytes) -> Reply:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, list[str]] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    return Reply(int(lines[0].split()[1]), headers, body)


async def send_request(port: int, lines: list[str] | bytes, *, source: str = "127.0.0.1",
                       timeout: float = 10.0) -> Reply:
    """Send a request (its lines, or raw bytes) from ``source`` and read the answer.

    A 101 is read up to the end of its headers and the connection dropped; any other answer to
    the server's close.
    """
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        data = lines if isinstance(lines, bytes) else ("\r\n".join(lines) + "\r\n\r\n").encode()
        writer.write(data)
        async with asyncio.timeout(timeout):
            head = await reader.readuntil(b"\r\n\r\n")
            if head.startswith(b"HTTP/1.1 101"):
                return parse_reply(head)
            return parse_reply(head + await reader.read())
    finally:
        writer.transport.abort()
