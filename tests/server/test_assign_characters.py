"""The GM gives a player characters after the invite (``assign_characters``): what the player
may act for follows the new list, every member sees it, it survives a restart, and every
refusal names its field and appends nothing."""

from __future__ import annotations

from typing import Any

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.d12 import Stats as D12Stats
from poolhall.events.errors import CommandRejected
from tests.conftest import Table, start_server


def _stats() -> D12Stats:
    return D12Stats(ratings={"CON": 3, "CHA": 2})


async def _refused(client: Client, **fields: Any) -> CommandRejected:
    head = client.head
    with pytest.raises(CommandRejected) as refusal:
        await client.call(core.AssignCharacters, **fields)
    assert client.head == head  # nothing appended
    return refusal.value


def _plays(client: Client, member: str) -> list[str]:
    return client.state.members[member].characters


async def test_a_player_invited_without_characters_is_given_one_and_plays_it(
        table: Table) -> None:
    """Mira was invited before the characters were made: she may not make or roll for Ana
    until the GM gives Ana to her; then she may, and everyone's table says she plays Ana."""
    _, gm = await table.create_campaign("d12")
    mira = await table.invite(gm, "player", name="Mira")
    watcher = await table.invite(gm, "spectator")
    with pytest.raises(CommandRejected) as refusal_before:
        await mira.call(core.CreateCharacter, character="ana", name="Ana", stats=_stats())
    assert (refusal_before.value.code, refusal_before.value.path) == ("forbidden", "$.character")

    ack = await gm.call(core.AssignCharacters, member="mira", characters=["ana"])
    for client in (gm, mira, watcher):
        await client.wait_for_seq(ack.seqs[-1])
        assert _plays(client, "mira") == ["ana"]
    await mira.call(core.CreateCharacter, character="ana", name="Ana", stats=_stats())
    await mira.call(core.Roll, expression="1d12", character="ana")


async def test_the_list_is_replaced_and_an_empty_one_takes_every_character_away(
        table: Table) -> None:
    """The new list is the whole list: giving Bram and not Ana takes Ana away; giving none
    leaves the player rolling only for no one in particular."""
    _, gm = await table.create_campaign("d12")
    mira = await table.invite(gm, "player", characters=("ana",), name="Mira")
    for character in ("ana", "bram"):
        await gm.call(core.CreateCharacter, character=character, name=character.title(),
                      stats=_stats())
    ack = await gm.call(core.AssignCharacters, member="mira", characters=["bram", "bram"])
    await mira.wait_for_seq(ack.seqs[-1])
    assert _plays(mira, "mira") == ["bram"]  # each once
    with pytest.raises(CommandRejected) as not_hers:
        await mira.call(core.Roll, expression="1d12", character="ana")
    assert (not_hers.value.code, not_hers.value.path) == ("forbidden", "$.character")
    await mira.call(core.Roll, expression="1d12", character="bram")

    ack = await gm.call(core.AssignCharacters, member="mira", characters=[])
    await mira.wait_for_seq(ack.seqs[-1])
    assert _plays(mira, "mira") == []
    with pytest.raises(CommandRejected):
        await mira.call(core.Roll, expression="1d12", character="bram")
    await mira.call(core.Roll, expression="1d12")


async def test_an_assignment_survives_a_restart(table: Table) -> None:
    """The assignment is an event in the log: a restarted server (its snapshot and the events
    after it) still lets the player act for the character, and the joining page is told."""
    _, gm = await table.create_campaign("d12")
    ack = await gm.call(core.Invite, role="player", name="Mira")
    assert ack.token
    campaign = gm.campaign
    await gm.call(core.AssignCharacters, member="mira", characters=["ana"])
    await table.close_clients()
    await table.server.stop()
    table.server = await start_server(table.db_path)
    mira = await table.connect(campaign, ack.token)
    assert _plays(mira, "mira") == ["ana"]
    await mira.call(core.CreateCharacter, character="ana", name="Ana", stats=_stats())


async def test_refusals_name_the_field_and_append_nothing(table: Table) -> None:
    """Only a current player can be given characters: an unknown or removed member, a
    spectator, a GM, the same list again; and a player may not give themselves one."""
    _, gm = await table.create_campaign("d12")
    mira = await table.invite(gm, "player", characters=("ana",), name="Mira")
    await table.invite(gm, "spectator", name="Wren")
    await table.invite(gm, "player", name="Olek")
    await gm.call(core.RemoveMember, member="olek")

    cases = [
        ({"member": "nobody", "characters": ["ana"]}, "not_found", "$.member",
         "no member 'nobody' at this table"),
        ({"member": "olek", "characters": ["ana"]}, "not_found", "$.member",
         "no member 'olek' at this table"),
        ({"member": "wren", "characters": ["ana"]}, "invalid", "$.member",
         "Wren is a spectator: only players are given characters"),
        ({"member": "gm", "characters": ["ana"]}, "invalid", "$.member",
         "GM is a gm: only players are given characters"),
        ({"member": "mira", "characters": ["ana"]}, "invalid", "$.characters",
         "Mira already plays ana: nothing to change"),
        ({"member": "mira", "characters": ["Not A Slug"]}, "invalid", "$.characters[0]", ""),
    ]
    for fields, code, path, words in cases:
        refusal = await _refused(gm, **fields)
        assert (refusal.code, refusal.path) == (code, path), fields
        assert words in refusal.message, (fields, refusal.message)
    refusal = await _refused(mira, member="mira", characters=["ana", "bram"])
    assert (refusal.code, refusal.path) == ("forbidden", "$.type")
    assert _plays(gm, "mira") == ["ana"]
