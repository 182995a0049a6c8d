"""One server per database: a second one is refused and the first goes on untouched."""

from __future__ import annotations

import pytest

from events import core
from events.errors import StoreError
from server.app import Server
from tests.conftest import ADMIN_TOKEN, start_server


async def test_second_server_on_the_same_file_is_refused(table) -> None:
    """Two writers would each hold a state the other cannot see; the second never starts."""
    campaign, gm = await table.create_campaign("d12")
    second = Server(table.db_path, "127.0.0.1", 0, admin_token=ADMIN_TOKEN)
    with pytest.raises(StoreError, match="already open for writing"):
        await second.start()
    ack = await gm.call(core.Roll, expression="1d6")
    assert table.server.log.head(campaign) == ack.seqs[-1]


async def test_the_file_is_released_when_the_server_stops(table) -> None:
    """After a stop (or a start that failed to bind) the next server opens the same file."""
    campaign, gm = await table.create_campaign("d12")
    await table.close_clients()
    await table.server.stop()
    blocked = Server(table.db_path, "256.0.0.1", 0, admin_token=ADMIN_TOKEN)
    with pytest.raises(OSError):
        await blocked.start()  # cannot bind: it must let go of the file on its way out
    table.server = await start_server(table.db_path)
    assert campaign in table.server.hubs
