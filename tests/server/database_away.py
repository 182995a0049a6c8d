"""A server on a PostgreSQL database of its own, a campaign there with its GM connected, and
the database taken away and given back (it refuses connections and ends the server's): what
the outage tests share (``test_postgres_outage.py``, ``test_postgres_server.py``)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import psycopg

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.server.app import Server
from tests.conftest import ADMIN_TOKEN
from tests.postgres import fresh_database, server_url

__all__ = ["Away", "away_table"]


@dataclass
class Away:
    """A server on a database of its own, a campaign there and its GM connected."""

    server: Server
    database: str
    campaign: str
    token: str
    gm: Client

    @contextlib.contextmanager
    def outage(self) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
        """The database refuses connections and ends the server's, until the block ends."""
        with psycopg.connect(server_url(), autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS false')
            # the server's own sessions: an autovacuum worker in the database runs as a
            # superuser, whom the tests' role may not end ("must be a member of the role")
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                          " WHERE datname = %s AND pid <> pg_backend_pid()"
                          " AND usename = current_user", [self.database])
            try:
                yield admin
            finally:
                admin.execute(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS true')


@contextlib.asynccontextmanager
async def away_table() -> AsyncIterator[Away]:
    with fresh_database(server_url()) as url:
        server = Server(url, "127.0.0.1", 0, rng=random.Random(1), admin_token=ADMIN_TOKEN)
        await server.start()
        admin = Client(f"ws://127.0.0.1:{server.port}", ADMIN_TOKEN, None)
        gm: Client | None = None
        try:
            await admin.connect()
            created = await admin.call(core.CreateCampaign, name="Away", system="d12")
            assert created.campaign
            assert created.token
            gm = Client(f"ws://127.0.0.1:{server.port}", created.token, created.campaign)
            await gm.connect()
            await gm.call(core.Roll, expression="1d6")
            yield Away(server, url.rsplit("/", 1)[1].split("?", 1)[0], created.campaign,
                       created.token, gm)
        finally:
            if gm is not None:
                await gm.close()
            await admin.close()
            await server.stop()
