"""A relay between a client and the server that cuts a WebSocket at a chosen frame, for the
tests of what the client and the CLI do when a command's answer is lost on the way.

It reads the frames of each WebSocket it relays (the server never compresses, so a text frame
is plain JSON) and can, at the first frame of one direction that holds a given text: cut the
connection before relaying it, right after, or halfway through it; or relay it and then let the
connection die without a word, dropping all it carries both ways and closing nothing (a laptop
that sleeps, a train's Wi-Fi). New connections can be refused, or relayed again.
"""

from __future__ import annotations

import asyncio
import struct
import threading
from dataclasses import dataclass, field
from typing import Literal

from tests.threaded_relay import ThreadedRelay

__all__ = ["CuttingRelay", "Fault", "Way"]

Fault = Literal["cut_before", "cut_after", "midframe", "dead"]
Way = Literal["up", "down"]


@dataclass
class _Link:
    """One relayed connection: its two writers, and whether it has gone dead."""

    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    dead: bool = False
    websocket: bool = False

    def cut(self) -> None:
        for writer in (self.client, self.server):
            writer.transport.abort()


@dataclass
class _Armed:
    way: Way
    match: str
    fault: Fault
    fired: threading.Event = field(default_factory=threading.Event)


def _frames(buffer: bytearray) -> list[tuple[bytes, str | None]]:
    """The complete frames at the start of ``buffer`` (taken out of it): each one's bytes, and
    its text if it is a text frame (unmasked)."""
    frames = []
    while len(buffer) >= 2:
        length, start = buffer[1] & 0x7F, 2
        if length == 126:
            if len(buffer) < 4:
                break
            length, start = struct.unpack(">H", buffer[2:4])[0], 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length, start = struct.unpack(">Q", buffer[2:10])[0], 10
        mask = b""
        if buffer[1] & 0x80:
            mask, start = bytes(buffer[start:start + 4]), start + 4
        if len(buffer) < start + length:
            break
        payload = bytes(buffer[start:start + length])
        if mask:
            payload = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        raw = bytes(buffer[:start + length])
        del buffer[:start + length]
        text = payload.decode(errors="replace") if raw[0] & 0x0F == 1 else None
        frames.append((raw, text))
    return frames


class CuttingRelay(ThreadedRelay):
    """A TCP relay from a port of its own to the server's, on a thread of its own (the CLI's
    tests wait for a process while it relays)."""

    def __init__(self, target: int) -> None:
        super().__init__(target)
        self.url = f"ws://127.0.0.1:{self.port}"
        self.refuse = False
        """New connections are closed at once (the network is still down)."""
        self.connections = 0
        self._armed: list[_Armed] = []
        self._links: list[_Link] = []
        self._seen: dict[Way, list[str]] = {"up": [], "down": []}
        self._lock = threading.Lock()
        self.start()

    def arm(self, way: Way, match: str, fault: Fault) -> threading.Event:
        """The first frame going ``way`` whose text holds ``match`` gets ``fault``, once; the
        event returned is set when it has."""
        armed = _Armed(way, match, fault)
        with self._lock:
            self._armed.append(armed)
        return armed.fired

    def seen(self, way: Way) -> list[str]:
        """The text frames relayed (or cut) so far going ``way``."""
        with self._lock:
            return list(self._seen[way])

    def go_dead(self) -> None:
        """Every WebSocket open now drops what it carries both ways and closes nothing (done
        when this returns; call it off the server's event loop, with ``asyncio.to_thread``)."""
        async def die() -> None:
            for link in self._links:
                link.dead = link.dead or link.websocket
        asyncio.run_coroutine_threadsafe(die(), self.loop).result(10)

    def cut_all(self) -> None:
        """Abort every connection open now (the client sees the link end, without a close)."""
        async def cut() -> None:
            for link in self._links:
                link.cut()
        asyncio.run_coroutine_threadsafe(cut(), self.loop).result(10)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        if self.refuse:
            writer.transport.abort()
            return
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1",
                                                                         self.target)
        except OSError:
            writer.transport.abort()
            return
        link = _Link(writer, server_writer)
        self._links.append(link)
        try:
            await asyncio.gather(self._pipe(reader, server_writer, link, "up"),
                                 self._pipe(server_reader, writer, link, "down"))
        except asyncio.CancelledError:
            link.cut()
        finally:
            self._links.remove(link)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    link: _Link, way: Way) -> None:
        buffer = bytearray()
        handshake = True
        try:
            while data := await reader.read(65536):
                if link.dead:
                    continue
                if handshake:  # the HTTP upgrade, relayed as it is
                    buffer += data
                    end = buffer.find(b"\r\n\r\n")
                    if end < 0:
                        continue
                    head, data = bytes(buffer[:end + 4]), bytes(buffer[end + 4:])
                    buffer.clear()
                    handshake = False
                    link.websocket = link.websocket or b"websocket" in head.lower()
                    writer.write(head)
                buffer += data
                for raw, text in _frames(buffer):
                    if not await self._forward(raw, text, link, way, writer):
                        return
                await writer.drain()
        except (OSError, RuntimeError):
            pass
        if not link.dead:
            writer.close()

    async def _forward(self, raw: bytes, text: str | None, link: _Link, way: Way,
                       writer: asyncio.StreamWriter) -> bool:
        """Relay one frame, or apply the fault armed for it; ``False`` once the link is cut
        (what was relayed of it first is flushed: it reaches the other end)."""
        if link.dead:
            return True
        fault = None
        with self._lock:
            if text is not None:
                self._seen[way].append(text)
                for armed in self._armed:
                    if armed.way == way and armed.match in text and not armed.fired.is_set():
                        fault = armed.fault
                        armed.fired.set()
                        break
        if fault == "cut_before":
            link.cut()
            return False
        if fault in ("midframe", "cut_after"):
            link.dead = True  # nothing more either way: an answer to it must not get through
            writer.write(raw[:len(raw) // 2] if fault == "midframe" else raw)
            await writer.drain()
            await asyncio.sleep(0.05)  # on its way before the cut
            link.cut()
            return False
        writer.write(raw)
        if fault == "dead":
            link.dead = True
        return True
