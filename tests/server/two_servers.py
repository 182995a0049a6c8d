"""Two servers of one PostgreSQL deployment in the test's own process, a table of each."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator

from poolhall.server.app import Server
from tests.conftest import ADMIN_TOKEN, Table


@contextlib.asynccontextmanager
async def two_servers(postgres_url: str) -> AsyncIterator[tuple[list[Server], list[Table]]]:
    """Two servers on one database (the default settings, ``--presence-expiry`` 5 s) and a
    table of each; the clients closed and both servers stopped after."""
    servers = [Server(postgres_url, "127.0.0.1", 0, rng=random.Random(seed),
                      admin_token=ADMIN_TOKEN) for seed in (1, 2)]
    for server in servers:
        await server.start()
    tables = [Table(server, server.db_path) for server in servers]
    try:
        yield servers, tables
    finally:
        for table in tables:
            await table.close_clients()
        for server in servers:
            await server.stop()
