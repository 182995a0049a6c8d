"""A deployment whose PostgreSQL schema has a long name (up to PostgreSQL's 63 bytes) works:
its NOTIFY channels stay within PostgreSQL's limit, so commands are stored and every
process hears of them and of who is connected."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

from poolhall.events import core
from tests.postgres import server_url, with_schema
from tests.server.raw import RawPeer
from tests.server.two_servers import two_servers


@pytest.fixture
def long_schema_url() -> Iterator[str]:
    """A fresh schema named with 63 characters, dropped after."""
    schema = f"t_{uuid.uuid4().hex}".ljust(63, "x")
    with psycopg.connect(server_url(), autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql.SQL("create schema {}").format(sql.Identifier(schema)))
    try:
        yield with_schema(server_url(), schema)
    finally:
        with psycopg.connect(server_url(), autocommit=True) as conn:
            conn.execute(sql.SQL("drop schema {} cascade").format(sql.Identifier(schema)))


async def test_two_servers_on_a_schema_with_a_long_name(long_schema_url: str) -> None:
    """A roll on one server is stored (it failed, "channel name too long") and reaches a
    member on the other; a member connected to the other is shown on the first's table."""
    async with two_servers(long_schema_url) as (_, tables):
        campaign, gm = await tables[0].create_campaign("d12")
        ack = await gm.call(core.Invite, role="player", name="Ana")
        assert ack.token
        ana = await tables[1].connect(campaign, ack.token)
        rolled = await gm.call(core.Roll, expression="1d6")
        await ana.wait_for_seq(rolled.seqs[-1], timeout=10)
        ben = await gm.call(core.Invite, role="spectator", name="Ben")
        watcher = await RawPeer.open(tables[0].url)
        await watcher.send({"type": "join", "token": ben.token, "campaign": campaign,
                            "since": 0, "table": True})
        shown: list[list[str]] = []

        async def read() -> bool:
            frame = await watcher.recv(timeout=10)
            if frame["type"] == "table":
                shown.append(sorted(frame["connected"]))
            return bool(shown) and "ana" in shown[-1]

        while not await read():
            pass
        await watcher.close()
