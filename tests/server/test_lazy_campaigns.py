"""Campaigns load when first used and unload when idle; nothing a client relies on changes."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from typing import Any

import msgspec
import pytest

from poolhall.events import core
from poolhall.events.errors import CommandRejected
from poolhall.server.app import Server
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Table, until

FAST: dict[str, Any] = {"member_rate": 1000.0, "member_burst": 1000, "campaign_rate": 1000.0,
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
    assert server.hubs == {}
    assert server.campaigns == {campaign, other}
    client = await table.connect(campaign, gm._token)
    assert set(server.hubs) == {campaign}
    assert client.welcome is not None
    assert client.welcome.head == ack.seqs[-1]
    again = await client.call(core.Roll, expression="1d4")
    assert again.seqs[0] == ack.seqs[-1] + 1  # after the epoch ends (docs: fairness.md)
    assert [r.expression for r in client.state.rolls][-2:] == ["2d6", "1d4"]


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
    assert campaign in server.hubs
    assert server.unloads == 0
    await table.close_clients()
    await until(lambda: campaign not in server.hubs)
    assert server.unloads == 1
    loaded = await server.load(campaign)
    assert loaded is not None
    assert msgspec.to_builtins(loaded.state) == before


async def test_a_retry_after_the_hub_was_unloaded_gets_its_original_answer(table: Table
                                                                           ) -> None:
    """Loaded again, the hub holds the commands of the campaign's last events (read from the
    log): the retry is answered from them with the original seqs and appends nothing."""
    campaign, gm = await table.create_campaign("narrative")
    server = await restart(table, idle_unload=0.1)
    gm = await table.connect(campaign, gm._token)
    first = await gm.send(core.Roll(id="roll-once", expression="1d6"))
    await gm.call(core.Roll, expression="1d8")
    assert server.log is not None
    head = server.log.head(campaign)
    token = gm._token
    await table.close_clients()
    await until(lambda: campaign not in server.hubs)
    gm = await table.connect(campaign, token)
    assert "roll-once" in server.hubs[campaign].commands  # not decided again to be refused
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
    assert again.campaign == first.campaign
    assert again.seqs == first.seqs
    assert server.campaigns == {first.campaign}
    assert server.hubs == {}


async def test_joins_arriving_together_load_the_campaign_once(table: Table, caplog: Any
                                                              ) -> None:
    """Five members joining an unloaded campaign at once share one load and one hub."""
    campaign, gm = await table.create_campaign("d12")
    server = await restart(table)
    caplog.set_level("INFO", logger="poolhall.server.app")
    clients = await asyncio.gather(*(table.connect(campaign, gm._token) for _ in range(5)))
    assert all(client.welcome is not None for client in clients)
    loads = [r for r in caplog.records if r.getMessage().startswith(f"loaded {campaign} ")]
    assert len(loads) == 1
    assert server.hubs[campaign].pins == 5


async def test_a_campaign_loaded_only_by_refused_joins_goes_sooner(table: Table,
                                                                   monkeypatch: Any) -> None:
    """A token once issued there but no longer valid (a removed member's) loads a campaign
    (the exact check needs its state) but never keeps it for the whole --idle-unload: it goes
    after the short grace; a joined one stays."""
    from poolhall.server import app

    monkeypatch.setattr(app, "UNJOINED_GRACE", 0.1)
    probed, probed_gm = await table.create_campaign("d12", name="Probed")
    leia = await table.invite(probed_gm, "player")
    assert leia.welcome is not None
    await probed_gm.call(core.RemoveMember, member=leia.welcome.member, reason="left")
    played, gm = await table.create_campaign("d12", name="Played")
    server = await restart(table, idle_unload=600.0)
    with_gm = await table.connect(played, gm._token)
    await with_gm.close()  # joined once, then nobody: kept for --idle-unload
    with pytest.raises(CommandRejected) as refused:
        await table.connect(probed, leia._token)
    assert refused.value.code == "unauthorized"
    await until(lambda: server.unloads == 1)  # it was loaded, and is gone
    assert probed not in server.hubs
    assert played in server.hubs


async def test_a_token_not_issued_for_the_campaign_is_refused_before_anything_loads(
        table: Table) -> None:
    """A wrong token, or one issued for another campaign, is refused by the log's issued
    tokens before the campaign loads, with the answer a missing campaign gets: an outsider
    cannot tell which campaigns exist by how long refusals take. The members' own tokens
    (an invited player's, a replay link's) still open the campaign and load it."""
    campaign, gm = await table.create_campaign("d12", name="Probed")
    other, other_gm = await table.create_campaign("d12", name="Other")
    player = await table.invite(gm, "player")
    shared = await gm.call(core.ShareReplay, name="Friday")
    assert shared.token
    server = await restart(table)
    answers = []
    for target in (campaign, "no-such-campaign"):
        for token in ("ph_wrong-token-0123456789abcdef0123456789", other_gm._token):
            with pytest.raises(CommandRejected) as refused:
                await table.connect(target, token)
            answers.append((refused.value.code, refused.value.path,
                            refused.value.message.replace(repr(target), "<campaign>")))
    assert len(set(answers)) == 1
    assert answers[0][:2] == ("unauthorized", "$.token")
    assert server.hubs == {}  # nothing was loaded to check those
    joined = await table.connect(campaign, player._token)
    assert joined.welcome is not None
    assert joined.welcome.role == "player"
    replay = await table.connect(campaign, shared.token)
    assert replay.welcome is not None
    assert replay.welcome.role == "replay"
    assert set(server.hubs) == {campaign}


async def test_issued_tokens_are_indexed_from_the_log_when_the_table_is_missing(
        table: Table) -> None:
    """A log from before the issued-tokens table (or with it dropped) gets it filled from
    its events at open: every member's token opens their campaign again."""
    campaign, gm = await table.create_campaign("narrative")
    player = await table.invite(gm, "player")
    await table.close_clients()
    await table.server.stop()
    with sqlite3.connect(table.db_path) as connection:
        connection.execute("DROP TABLE issued_tokens")
    server = Server(table.db_path, "127.0.0.1", 0, rng=random.Random(7),
                    admin_token=ADMIN_TOKEN, settings=Settings(**FAST))
    await server.start()
    table.server = server
    for token in (gm._token, player._token):
        client = await table.connect(campaign, token)
        assert client.welcome is not None
        assert client.welcome.campaign == campaign


async def test_retries_after_a_restart_get_their_original_answers(table: Table) -> None:
    """An old command id and the last one each get their original answer after a restart
    (looked up in the log: the restarted server holds neither), and append nothing."""
    campaign, gm = await table.create_campaign("narrative")
    old = await gm.send(core.Roll(id="roll-old", expression="1d6"))
    for _ in range(10):
        await gm.call(core.Roll, expression="1d8")
    recent = await gm.send(core.Roll(id="roll-recent", expression="1d4"))
    token = gm._token
    server = await restart(table)
    assert server.log is not None
    head = server.log.head(campaign)
    gm = await table.connect(campaign, token)
    assert (await gm.send(core.Roll(id="roll-old", expression="1d6"))).seqs == old.seqs
    assert (await gm.send(core.Roll(id="roll-recent", expression="1d4"))).seqs == recent.seqs
    assert server.log.head(campaign) == head
