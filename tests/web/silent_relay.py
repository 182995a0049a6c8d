"""A link that dies without a word, for the browser tests of the pages' link check
(reconnecting.js ``LinkCheck``): a relay whose WebSockets go silent on request, are cut on
request, and whose next WebSocket can hang before its welcome (a reconnect that never gets
through). The page's own waits those tests skip are tests.web.page_clock's."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from tests.threaded_relay import ThreadedRelay

if TYPE_CHECKING:
    from tests.web.conftest import Served

__all__ = ["Hang", "SilentRelay", "through"]

Hang = Literal["handshake", "welcome"]
"""How a connection hangs: ``handshake``, the connection is taken and its handshake never
answered (a captive portal, a middlebox that hung); ``welcome``, the handshake passes, the join
goes up, then the path dies both ways (no welcome, no close)."""


@dataclass
class _Link:
    """One relayed connection."""

    websocket: bool
    silent: dict[str, bool] = field(default_factory=lambda: {"up": False, "down": False})
    """Per way (``up`` to the server, ``down`` to the browser): whether it drops what it
    carries (and, at its end, closes nothing)."""
    left: dict[str, int] = field(default_factory=lambda: {"up": -1, "down": -1})
    """Per way: chunks still relayed before it goes silent (-1: no end)."""
    dropped: dict[str, int] = field(default_factory=lambda: {"up": 0, "down": 0})
    """Per way: chunks dropped so far."""
    writers: list[asyncio.StreamWriter] = field(default_factory=list)


class SilentRelay(ThreadedRelay):
    """A TCP relay from a port of its own to the server's. :meth:`go_silent` makes every
    WebSocket open at that moment drop what it carries and close nothing, as a phone's link
    does when the phone sleeps and wakes on another network (no close, no ``offline`` event);
    connections made afterwards are relayed again. (The page's files, fetched over other
    connections the browser keeps open, still come: a file the page fetches later hung.)"""

    def __init__(self, target: int) -> None:
        super().__init__(target)
        self.open: list[_Link] = []
        """Each connection relayed (a hung handshake is not: it never reaches the server)."""
        self.hangs: list[Hang] = []
        """How the next WebSockets hang, in order (:meth:`hang_next`)."""
        self.websockets = 0
        """WebSocket connections made to the relay so far, hung ones too."""
        self.start()

    @property
    def dropped(self) -> int:
        """Chunks the server sent to browsers that the relay dropped so far: a frame sent on
        a silent link, which the page will never see."""
        return sum(link.dropped["down"] for link in self.open)

    def go_silent(self, to_the_server_too: bool = True) -> None:
        """Every WebSocket open now drops what the server sends it (and, unless told
        otherwise, what it sends the server: with ``False`` a command still arrives)."""
        def silence() -> None:
            for link in self.open:
                if not link.websocket:
                    continue
                link.silent["down"] = True
                link.silent["up"] = link.silent["up"] or to_the_server_too
        self._now(silence)

    def hang_next(self, *hangs: Hang) -> None:
        """The next WebSockets made hang, one way each (:data:`Hang`), in order; those after
        them are relayed again."""
        self._now(lambda: self.hangs.extend(hangs))

    def cut(self) -> None:
        """Every WebSocket open now is closed at both ends (a FIN each way), as a router that
        dropped the link and said so: the page reconnects at once."""
        def cut() -> None:
            for link in self.open:
                if link.websocket:
                    for writer in link.writers:
                        writer.close()
        self._now(cut)

    def _now(self, change: Callable[[], None]) -> None:
        """Make ``change`` on the relay's loop and wait until it is made: what the test does
        next (a roll pressed, a frame awaited) meets the link as changed, however late the
        relay's thread runs on a busy machine."""
        async def make() -> None:
            change()
        asyncio.run_coroutine_threadsafe(make(), self.loop).result(10)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = await reader.read(65536)
        link = _Link(websocket=b"upgrade: websocket" in first.lower())
        hang = self.hangs.pop(0) if link.websocket and self.hangs else None
        self.websockets += link.websocket
        if hang == "handshake":  # taken, never answered: the browser's handshake waits
            while await reader.read(65536):
                pass
            writer.close()  # the browser gave it up
            return
        if hang == "welcome":  # the answer to the handshake, then the join, then nothing
            link.left = {"up": 1, "down": 1}
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.target)
        server_writer.write(first)
        link.writers = [writer, server_writer]
        self.open.append(link)
        try:
            await asyncio.gather(self._pipe(reader, server_writer, link, "up"),
                                 self._pipe(server_reader, writer, link, "down"))
        except asyncio.CancelledError:  # the relay is closed (:meth:`close`)
            writer.close()
            server_writer.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    link: _Link, way: str) -> None:
        try:
            while data := await reader.read(65536):
                if link.silent[way]:
                    link.dropped[way] += 1
                    continue
                writer.write(data)
                await writer.drain()
                link.left[way] -= 1
                link.silent[way] = link.silent[way] or link.left[way] == 0
        except OSError:
            pass
        if not link.silent[way]:
            writer.close()


def through(relay: SilentRelay, served: Served, link: str) -> str:
    """``link`` opened through ``relay`` (the server lets in a page's own address literal)."""
    return link.replace(f":{served.port}/", f":{relay.port}/", 1)
