"""A server on PostgreSQL stops even while its database does not answer (a cut network drops
the packets, nothing resets the connection): the presence thread, stuck in a statement, does
not hold the stop, and this process's rows are left to expire as a killed process's are."""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import time
import urllib.parse
from collections.abc import Iterator

import psycopg
import pytest

from poolhall.events.postgres_backend import listener
from poolhall.server import shared_presence
from poolhall.server.app import Server
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Table


class Blackhole:
    """A TCP relay to the database, in a thread of its own, that stops relaying (holding the
    bytes, keeping the sockets open) while :attr:`held` is set: a network cut, as the
    server's connections see it."""

    def __init__(self, url: str) -> None:
        with psycopg.connect(url, connect_timeout=10) as connection:
            self._upstream = (connection.info.host, connection.info.port)
        self.held = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._port = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)
        query = urllib.parse.urlencode({"host": "127.0.0.1", "port": self._port})
        self.url = f"{url}{'&' if '?' in url else '?'}{query}"
        """``url`` through the relay."""

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self._port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await server.serve_forever()

    async def _open_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        host, port = self._upstream
        if host.startswith("/"):  # a Unix socket directory
            return await asyncio.open_unix_connection(f"{host}/.s.PGSQL.{port}")
        return await asyncio.open_connection(host, port)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                while self.held.is_set():
                    await asyncio.sleep(0.05)
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await self._open_upstream()
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))


@contextlib.contextmanager
def blackhole(url: str) -> Iterator[Blackhole]:
    """A relay, let go after (the statements it held end, so the schema can be dropped)."""
    hole = Blackhole(url)
    try:
        yield hole
    finally:
        hole.held.clear()
        time.sleep(0.5)


async def test_a_server_stops_while_its_database_does_not_answer(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A member connected (a presence row written), then the database stops answering: the
    stop returns within the presence thread's wait, not never (the waits shortened to 1 s: the
    listener's, held in its statement too, took 5 s of the test's 10)."""
    monkeypatch.setattr(shared_presence, "STOP_WAIT", 1.0)
    monkeypatch.setattr(listener, "STOP_WAIT", 1.0)
    with blackhole(postgres_url) as hole:
        server = Server(hole.url, "127.0.0.1", 0, rng=random.Random(1),
                        admin_token=ADMIN_TOKEN,  # a heartbeat every 0.2 s, not every 1 s
                        settings=Settings(presence_expiry=1.0))
        await server.start()
        table = Table(server, server.db_path)
        await table.create_campaign("d12")
        assert server.deployment is not None
        hole.held.set()
        await asyncio.sleep(2 * server.deployment.presence.heartbeat)  # a heartbeat is held now
        await asyncio.wait_for(server.stop(), 30)  # before the fix: never (the stop hung)
        await table.close_clients()
