"""The authorization matrix: the GM may do anything, a player acts for their own characters,
a spectator only watches, and the admin token creates campaigns."""

from __future__ import annotations

import pytest

from events import core
from events.d12 import Stats as D12Stats
from events.errors import CommandRejected


async def _table_with_members(table):
    campaign, gm = await table.create_campaign("d12")
    han = await table.invite(gm, "player", characters=("han",))
    leia = await table.invite(gm, "player", characters=("leia",))
    spectator = await table.invite(gm, "spectator")
    return campaign, gm, han, leia, spectator


async def _refused(client, command_type, **fields) -> CommandRejected:
    head = client.table_head = client.head
    with pytest.raises(CommandRejected) as refusal:
        await client.call(command_type, **fields)
    assert client.head == head
    return refusal.value


def _stats() -> D12Stats:
    return D12Stats(ratings={"CON": 3, "CHA": 2})


GM_ONLY = [
    (core.Invite, {"role": "player"}),
    (core.RemoveMember, {"member": "leia"}),
    (core.StartSession, {}),
]


@pytest.mark.parametrize(("command_type", "fields"), GM_ONLY)
async def test_players_and_spectators_may_not_give_gm_commands(table, command_type, fields):
    """Invitations, removals and game sessions are the GM's alone."""
    _, gm, han, _, spectator = await _table_with_members(table)
    for member in (han, spectator):
        refusal = await _refused(member, command_type, **fields)
        assert (refusal.code, refusal.path) == ("forbidden", "$.type")
    await gm.call(command_type, **fields)


async def test_player_acts_only_for_their_own_character(table) -> None:
    """A player may create and roll for their character, not for another player's."""
    _, gm, han, leia, _ = await _table_with_members(table)
    await han.call(core.CreateCharacter, character="han", name="Han", stats=_stats())
    refusal = await _refused(han, core.CreateCharacter, character="leia", name="Leia",
                             stats=_stats())
    assert (refusal.code, refusal.path) == ("forbidden", "$.character")
    await gm.call(core.CreateCharacter, character="leia", name="Leia", stats=_stats())
    await han.call(core.Roll, expression="1d20", character="han")
    refusal = await _refused(han, core.Roll, expression="1d20", character="leia")
    assert (refusal.code, refusal.path) == ("forbidden", "$.character")
    refusal = await _refused(han, core.UpdateCharacter, character="leia", name="Not Leia")
    assert refusal.code == "forbidden"
    await gm.call(core.Roll, expression="1d20", character="leia")


async def test_spectator_only_watches(table) -> None:
    """A spectator sees every event and may not roll or create anything."""
    _, gm, han, _, spectator = await _table_with_members(table)
    refusal = await _refused(spectator, core.Roll, expression="1d6")
    assert (refusal.code, refusal.path) == ("forbidden", "$.type")
    ack = await han.call(core.Roll, expression="1d6")
    await spectator.wait_for_seq(ack.seqs[-1])
    assert spectator.state.rolls[-1].seq == ack.seqs[-1]


async def test_only_the_admin_token_creates_campaigns(table) -> None:
    """A GM's connection cannot create campaigns; the admin's can."""
    _, gm, *_ = await _table_with_members(table)
    refusal = await _refused(gm, core.CreateCampaign, name="Mine", system="d12")
    assert refusal.code == "forbidden"


async def test_removed_member_token_no_longer_opens_the_table(table) -> None:
    """After removal a member's token is refused at join."""
    campaign, gm, _, leia, _ = await _table_with_members(table)
    token = leia._token
    await gm.call(core.RemoveMember, member="leia", reason="left the group")
    with pytest.raises(CommandRejected) as refusal:
        await table.connect(campaign, token)
    assert refusal.value.code == "unauthorized"


async def test_last_gm_cannot_be_removed(table) -> None:
    """The table always keeps a GM."""
    _, gm, *_ = await _table_with_members(table)
    refusal = await _refused(gm, core.RemoveMember, member="gm")
    assert (refusal.code, refusal.path) == ("rule", "$.member")


async def test_admin_token_acts_as_gm_in_any_campaign(table) -> None:
    """The admin token joins any campaign with the GM's rights."""
    campaign, gm, *_ = await _table_with_members(table)
    admin = await table.connect(campaign, table.admin_token)
    assert admin.welcome.role == "gm" and admin.welcome.member == "admin"
    await admin.call(core.StartSession, title="by the admin")
