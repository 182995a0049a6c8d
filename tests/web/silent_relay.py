"""A link that dies without a word, for the browser tests of the pages' link check
(connection.js ``LinkCheck``): a relay whose WebSockets go silent on request."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING

from tests.serve_process import free_port

if TYPE_CHECKING:
    from tests.web.conftest import Served

__all__ = ["LINK_CHECK_TIMEOUT", "SilentRelay", "through"]

LINK_CHECK_TIMEOUT = 20_000
"""connection.js: a command unanswered for 5 s is followed by the link's check, given up after
4 s of silence, then a join again after 0.2-0.3 s: 20 s leaves room on a busy machine."""


class SilentRelay:
    """A TCP relay from a port of its own to the server's. :meth:`go_silent` makes every
    WebSocket open at that moment drop what it carries and close nothing, as a phone's link
    does when the phone sleeps and wakes on another network (no close, no ``offline`` event);
    connections made afterwards are relayed again. (The page's files, fetched over other
    connections the browser keeps open, still come: a file the page fetches later hung.)"""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.open: list[dict[str, bool]] = []
        """Each connection: whether it is a WebSocket, whether it drops what goes up to the
        server, and what comes down."""
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._relay, "127.0.0.1", self.port), self.loop).result(10)

    def go_silent(self, to_the_server_too: bool = True) -> None:
        """Every WebSocket open now drops what the server sends it (and, unless told
        otherwise, what it sends the server: with ``False`` a command still arrives)."""
        def silence() -> None:
            for connection in self.open:
                if not connection["websocket"]:
                    continue
                connection["down"] = True
                connection["up"] = connection["up"] or to_the_server_too
        self.loop.call_soon_threadsafe(silence)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.target)
        first = await reader.read(65536)
        server_writer.write(first)
        silent = {"websocket": b"upgrade: websocket" in first.lower(), "up": False,
                  "down": False}
        self.open.append(silent)
        try:
            await asyncio.gather(self._pipe(reader, server_writer, silent, "up"),
                                 self._pipe(server_reader, writer, silent, "down"))
        except asyncio.CancelledError:  # the relay is closed (:meth:`close`)
            writer.close()
            server_writer.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    silent: dict[str, bool], way: str) -> None:
        try:
            while data := await reader.read(65536):
                if not silent[way]:
                    writer.write(data)
                    await writer.drain()
        except OSError:
            pass
        if not silent[way]:
            writer.close()

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def _stop(self) -> None:
        self.server.close()
        relays = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in relays:
            task.cancel()
        await asyncio.gather(*relays, return_exceptions=True)


def through(relay: SilentRelay, served: Served, link: str) -> str:
    """``link`` opened through ``relay`` (the server lets in a page's own address literal)."""
    return link.replace(f":{served.port}/", f":{relay.port}/", 1)
