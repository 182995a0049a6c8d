"""Retiring a character through the real server with the Python client: every member's table
loses it at once, its player no longer plays it, refusals append nothing, and a restarted
server (its stored snapshot and the log) agrees."""

from __future__ import annotations

import pytest

from poolhall.clients.client import Client
from poolhall.events import core, d12
from poolhall.events.d12 import Stats as D12Stats
from poolhall.events.errors import CommandRejected
from poolhall.projections.snapshot import observable
from tests.conftest import Table, start_server


async def _refused(client: Client, command: type, **fields: object) -> CommandRejected:
    head = client.head
    with pytest.raises(CommandRejected) as refusal:
        await client.call(command, **fields)
    assert client.head == head  # nothing appended
    return refusal.value


async def test_a_retired_character_leaves_every_table_and_stays_gone_after_a_restart(
        table: Table) -> None:
    """The GM retires Ana (Mira's): Mira's, the spectator's and the GM's tables drop her and
    say Mira plays no one; Mira cannot retire Bram nor roll for Ana; a restart agrees."""
    admin = await table.connect(None, table.admin_token)
    created = await admin.call(core.CreateCampaign, name="Far Reach", system="d12")
    assert created.campaign
    assert created.token
    campaign, gm_token = created.campaign, created.token
    gm = await table.connect(campaign, gm_token)
    await gm.wait_for_seq(created.seqs[-1])
    mira = await table.invite(gm, "player", characters=("ana",), name="Mira")
    watcher = await table.invite(gm, "spectator", name="Wren")
    for character in ("ana", "bram"):
        await gm.call(core.CreateCharacter, character=character, name=character.title(),
                      stats=D12Stats(ratings={"CON": 2, "CHA": 1}))
    forbidden = await _refused(mira, core.RetireCharacter, character="bram")
    assert (forbidden.code, forbidden.path) == ("forbidden", "$.type")

    ack = await gm.call(core.RetireCharacter, character="ana", reason="fell off the ship")
    assert len(ack.seqs) == 2  # characters_assigned, then character_retired
    for client in (gm, mira, watcher):
        await client.wait_for_seq(ack.seqs[-1])
        assert list(client.state.characters) == ["bram"]
        assert client.state.retired == {"ana": "Ana"}
        assert client.state.members["mira"].characters == []
    roll = await _refused(mira, core.Roll, expression="1d12", character="ana")
    assert roll.message == "Ana is retired: no longer at this table"
    again = await _refused(gm, core.RetireCharacter, character="ana")
    assert (again.code, again.message) == ("not_found", "Ana is retired already")
    seen = observable(gm.state)

    await table.close_clients()
    await table.server.stop()
    table.server = await start_server(table.db_path)
    back = await table.connect(campaign, gm_token)
    assert observable(back.state) == seen
    reused = await _refused(back, core.CreateCharacter, character="ana", name="Ana II",
                            stats=D12Stats(ratings={"CON": 1, "CHA": 1}))
    assert reused.code == "conflict"


async def test_the_opponent_of_an_open_d12_test_is_not_retired(table: Table) -> None:
    """Bram's STR sets the DT of Ana's extended test: the server refuses to retire him,
    naming the test, and appends nothing; once the test ends, he retires."""
    _, gm = await table.create_campaign("d12")
    for character, ratings in (("ana", {"CON": 2, "CHA": 3}),
                               ("bram", {"CON": 2, "CHA": 1, "STR": 4})):
        await gm.call(core.CreateCharacter, character=character, name=character.title(),
                      stats=D12Stats(ratings=ratings))
    await gm.call(d12.CallThresholdTest, character="ana", stats=("CHA",), opponent="bram",
                  opponent_stat="STR", extended=True, refresh="CHA")
    refusal = await _refused(gm, core.RetireCharacter, character="bram")
    assert (refusal.code, refusal.message, refusal.path) == (
        "rule", "Bram is in the open test #1: end it first", "$.character")
    await gm.call(d12.EndThresholdTest, test=1)
    await gm.call(core.RetireCharacter, character="bram")
    assert "bram" in gm.state.retired
