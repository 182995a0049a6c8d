"""A TCP relay to a server's port, on an event loop in a thread of its own, for the tests
that cut, silence or hang a client's link while they wait on the client (a page in Chromium,
a CLI process): what each relay does to the bytes is its subclass's (:meth:`_relay`)."""

from __future__ import annotations

import asyncio
import threading

from tests.serve_process import free_port

__all__ = ["ThreadedRelay"]


class ThreadedRelay:
    """Listens on a free loopback port of its own (``port``) and relays to ``target``."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> None:
        """Start listening (after the subclass has set what :meth:`_relay` reads)."""
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._relay, "127.0.0.1", self.port), self.loop).result(10)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Stop listening, end every relayed connection and the loop's thread."""
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def _stop(self) -> None:
        self.server.close()
        relays = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in relays:
            task.cancel()
        await asyncio.gather(*relays, return_exceptions=True)
