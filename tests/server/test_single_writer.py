"""One server per database: a second one is refused and the first goes on untouched."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from poolhall.events import core
from poolhall.events.errors import StoreError
from poolhall.server.app import Server
from tests.conftest import ADMIN_TOKEN, Table, start_server


async def test_second_server_on_the_same_file_is_refused(table: Table) -> None:
    """Two writers would each hold a state the other cannot see; the second never starts."""
    campaign, gm = await table.create_campaign("d12")
    second = Server(table.db_path, "127.0.0.1", 0, admin_token=ADMIN_TOKEN)
    with pytest.raises(StoreError, match="already open for writing"):
        await second.start()
    ack = await gm.call(core.Roll, expression="1d6")
    assert table.server.log is not None
    assert table.server.log.head(campaign) == ack.seqs[-1]


async def test_the_file_is_released_when_the_server_stops(table: Table) -> None:
    """After a stop (or a start that failed to bind) the next server opens the same file."""
    campaign, gm = await table.create_campaign("d12")
    await table.close_clients()
    await table.server.stop()
    blocked = Server(table.db_path, "256.0.0.1", 0, admin_token=ADMIN_TOKEN)
    with pytest.raises(socket.gaierror):  # no such address
        await blocked.start()  # cannot bind: it must let go of the file on its way out
    table.server = await start_server(table.db_path)
    assert campaign in table.server.campaigns


async def test_a_first_start_that_fails_leaves_no_admin_token_behind(tmp_path: Path) -> None:
    """The admin token is printed by the first start that succeeds, so one that fails (the
    port is taken) takes back the token file it created."""
    first = Server(tmp_path / "a.db", "127.0.0.1", 0)
    await first.start()
    try:
        taken = Server(tmp_path / "b.db", "127.0.0.1", first.port)
        with pytest.raises(OSError, match="address already in use"):
            await taken.start()
        assert not (tmp_path / "b.db.admin-token").exists()
        retry = Server(tmp_path / "b.db", "127.0.0.1", 0)
        await retry.start()
        assert retry.admin_token_created
        assert (tmp_path / "b.db.admin-token").exists()
        await retry.stop()
    finally:
        await first.stop()
