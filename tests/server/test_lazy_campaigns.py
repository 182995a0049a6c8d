"""Campaigns load when first used and unload when idle; nothing a client relies on changes."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import msgspec

from events import command_keys, core
from server.app import Server
from server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Table, until

FAST = {"member_rate": 1000.0, "member_burst": 1000, "campaign_rate": 1000.0,
        "campaign_burst": 1000}


async def restart(table: Table, **settings: Any) -> Server:
    """Stop the table's server and start another on the same file with these settings."""
    await table.close_clients()
    await table.server.stop()
    server = Server(table.db_path, "127.0.0.1", 0, rng=random.Random(7),
                    admin_token=ADMIN_TOKEN, settings=Settings(**{**FAST, **settings}))
    await server.start()
    table.server = server
    return server


async def test_start_loads_no_campaign_and_a_join_loads_its_own(table: Table) -> None:
    """After a restart no hub is loaded; joining one campaign loads it alone, and its table
    and commands carry on from the log."""
    campaign, gm = await table.create_campaign("narrative")
    other, _ = await table.create_campaign("d12", name="Other")
    ack = await gm.call(core.Roll, expression="2d6")
    server = await restart(table)
    assert server.hubs == {} and server.campaigns == {campaign, other}
    client = await table.connect(campaign, gm._token)
    assert set(server.hubs) == {campaign}
    assert client.welcome is not None and client.welcome.head == ack.seqs[-1]
    again = await client.call(core.Roll, expression="1d4")
    assert again.seqs == [ack.seqs[-1] + 1]


async def test_an_idle_campaign_is_unloaded_and_loads_again_the_same(table: Table) -> None:
    """With nobody connected for --idle-unload seconds the hub goes; the next join loads the
    same state from the snapshots and the log."""
    campaign, gm = await table.create_campaign("narrative")
    server = await restart(table, idle_unload=0.1, snapshot_every=5)
    gm = await table.connect(campaign, gm._token)
    for _ in range(12):
        await gm.call(core.Roll, expression="3d6")
    before = msgspec.to_builtins(server.hubs[campaign].state)
    await asyncio.sleep(0.3)  # three idle periods: a joined table stays loaded
    assert campaign in server.hubs and server.unloads == 0
    await table.close_clients()
    await until(lambda: campaign not in server.hubs)
    assert server.unloads == 1
    loaded = await server.load(campaign)
    assert loaded is not None and msgspec.to_builtins(loaded.state) == before


async def test_a_retry_after_the_hub_was_unloaded_gets_its_original_answer(table: Table
                                                                           ) -> None:
    """An old command id is read from the log once the hub forgot it: the retry is answered
    with the original seqs and appends nothing."""
    campaign, gm = await table.create_campaign("narrative")
    server = await restart(table, idle_unload=0.1)
    gm = await table.connect(campaign, gm._token)
    first = await gm.send(core.Roll(id="roll-once", expression="1d6"))
    await gm.call(core.Roll, expression="1d8")
    head = server.log.head(campaign)
    token = gm._token
    await table.close_clients()
    await until(lambda: campaign not in server.hubs)
    gm = await table.connect(campaign, token)
    retried = await gm.send(core.Roll(id="roll-once", expression="1d6"))
    assert retried.seqs == first.seqs
    assert server.log.head(campaign) == head


async def test_a_retried_creation_finds_its_campaign_unloaded(table: Table) -> None:
    """Creating a campaign again with the same command id answers with the campaign it made,
    though the server restarted and never loaded it."""
    admin = await table.connect(None, table.admin_token)
    command = core.CreateCampaign(id="create-once", name="Once", system="d12")
    first = await admin.send(command)
    server = await restart(table)
    admin = await table.connect(None, table.admin_token)
    again = await admin.send(command)
    assert again.campaign == first.campaign and again.seqs == first.seqs
    assert server.campaigns == {first.campaign} and server.hubs == {}


async def test_joins_arriving_together_load_the_campaign_once(table: Table, caplog: Any
                                                              ) -> None:
    """Five members joining an unloaded campaign at once share one load and one hub."""
    campaign, gm = await table.create_campaign("d12")
    server = await restart(table)
    caplog.set_level("INFO", logger="server.app")
    clients = await asyncio.gather(*(table.connect(campaign, gm._token) for _ in range(5)))
    assert all(client.welcome is not None for client in clients)
    loads = [r for r in caplog.records if r.getMessage().startswith(f"loaded {campaign} ")]
    assert len(loads) == 1
    assert server.hubs[campaign].pins == 5


async def test_a_campaign_loaded_only_by_refused_joins_goes_sooner(table: Table,
                                                                   monkeypatch: Any) -> None:
    """Wrong tokens load a campaign (the token is checked against it) but never keep it for
    the whole --idle-unload: it goes after the short grace; a joined one stays."""
    from events.errors import CommandRejected
    from server import app

    monkeypatch.setattr(app, "UNJOINED_GRACE", 0.1)
    probed, _ = await table.create_campaign("d12", name="Probed")
    played, gm = await table.create_campaign("d12", name="Played")
    server = await restart(table, idle_unload=600.0)
    with_gm = await table.connect(played, gm._token)
    await with_gm.close()  # joined once, then nobody: kept for --idle-unload
    try:
        await table.connect(probed, "ph_wrong-token-0123456789abcdef0123456789")
    except CommandRejected as refused:
        assert refused.code == "unauthorized"
    else:
        raise AssertionError("a wrong token joined")
    await until(lambda: server.unloads == 1)  # it was loaded, and is gone
    assert probed not in server.hubs and played in server.hubs


async def test_retries_after_a_restart_find_ids_merged_into_the_index_and_in_the_tail(
        table: Table, monkeypatch: Any) -> None:
    """An id old enough to be only in the log's merged command index, and one only in its
    tail, each get their original answer after a restart, and append nothing."""
    monkeypatch.setattr(command_keys, "TAIL_LIMIT", 8)
    monkeypatch.setattr(command_keys, "STEP_ROWS", 4)
    campaign, gm = await table.create_campaign("narrative")
    old = await gm.send(core.Roll(id="roll-old", expression="1d6"))
    for _ in range(10):
        await gm.call(core.Roll, expression="1d8")
    log = table.server.log
    assert log is not None
    await until(lambda: not log.has_housework)  # the committer merged the full tail
    assert log._keys.tail_get(campaign, "roll-old") is None
    recent = await gm.send(core.Roll(id="roll-recent", expression="1d4"))
    token = gm._token
    server = await restart(table)
    assert server.log is not None
    assert server.log._keys.tail_get(campaign, "roll-old") is None
    assert server.log._keys.tail_get(campaign, "roll-recent") is not None
    head = server.log.head(campaign)
    gm = await table.connect(campaign, token)
    assert (await gm.send(core.Roll(id="roll-old", expression="1d6"))).seqs == old.seqs
    assert (await gm.send(core.Roll(id="roll-recent", expression="1d4"))).seqs == recent.seqs
    assert server.log.head(campaign) == head
