"""The authorization matrix: the GM may do anything, a player acts for their own characters,
a spectator only watches, and the admin token creates campaigns."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.base import Command
from poolhall.events.d12 import Stats as D12Stats
from poolhall.events.errors import CommandRejected, ConnectionLost
from tests.conftest import Table
from tests.server.raw import RawPeer


async def _table_with_members(table: Table) -> tuple[str, Client, Client, Client, Client]:
    campaign, gm = await table.create_campaign("d12")
    han = await table.invite(gm, "player", characters=("han",))
    leia = await table.invite(gm, "player", characters=("leia",))
    spectator = await table.invite(gm, "spectator")
    return campaign, gm, han, leia, spectator


async def _refused(client: Client, command_type: type[Command], **fields: Any
                   ) -> CommandRejected:
    head = client.head
    with pytest.raises(CommandRejected) as refusal:
        await client.call(command_type, **fields)
    assert client.head == head
    return refusal.value


def _stats() -> D12Stats:
    return D12Stats(ratings={"CON": 3, "CHA": 2})


GM_ONLY = [
    (core.Invite, {"role": "player"}),
    (core.RemoveMember, {"member": "leia"}),
    (core.AssignCharacters, {"member": "leia", "characters": ["leia", "r2"]}),
    (core.StartSession, {}),
]


@pytest.mark.parametrize(("command_type", "fields"), GM_ONLY)
async def test_players_and_spectators_may_not_give_gm_commands(
        table: Table, command_type: type[Command], fields: dict[str, Any]) -> None:
    """Invitations, removals and game sessions are the GM's alone."""
    _, gm, han, _, spectator = await _table_with_members(table)
    for member in (han, spectator):
        refusal = await _refused(member, command_type, **fields)
        assert (refusal.code, refusal.path) == ("forbidden", "$.type")
    await gm.call(command_type, **fields)


async def test_player_acts_only_for_their_own_character(table: Table) -> None:
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


async def test_spectator_only_watches(table: Table) -> None:
    """A spectator sees every event and may not roll or create anything."""
    _, gm, han, _, spectator = await _table_with_members(table)
    refusal = await _refused(spectator, core.Roll, expression="1d6")
    assert (refusal.code, refusal.path) == ("forbidden", "$.type")
    ack = await han.call(core.Roll, expression="1d6")
    await spectator.wait_for_seq(ack.seqs[-1])
    assert spectator.state.rolls[-1].seq == ack.seqs[-1]


async def test_only_the_admin_token_creates_campaigns(table: Table) -> None:
    """A GM's connection cannot create campaigns; the admin's can."""
    _, gm, *_ = await _table_with_members(table)
    refusal = await _refused(gm, core.CreateCampaign, name="Mine", system="d12")
    assert refusal.code == "forbidden"
    admin = await table.connect(None, table.admin_token)
    with pytest.raises(CommandRejected) as only_creates:
        await admin.call(core.Roll, expression="1d6")
    assert (only_creates.value.code, only_creates.value.path) == ("forbidden", "$.type")


async def test_removed_member_token_no_longer_opens_the_table(table: Table) -> None:
    """After removal a member's token is refused at join."""
    campaign, gm, _, leia, _ = await _table_with_members(table)
    token = leia._token
    await gm.call(core.RemoveMember, member="leia", reason="left the group")
    with pytest.raises(CommandRejected) as refusal:
        await table.connect(campaign, token)
    assert refusal.value.code == "unauthorized"


async def test_last_gm_cannot_be_removed(table: Table) -> None:
    """The table always keeps a GM."""
    _, gm, *_ = await _table_with_members(table)
    refusal = await _refused(gm, core.RemoveMember, member="gm")
    assert (refusal.code, refusal.path) == ("rule", "$.member")


async def test_admin_token_acts_as_gm_in_any_campaign(table: Table) -> None:
    """The admin token joins any campaign with the GM's rights."""
    campaign, gm, *_ = await _table_with_members(table)
    admin = await table.connect(campaign, table.admin_token)
    assert admin.welcome is not None
    assert admin.welcome.role == "gm"
    assert admin.welcome.member == "admin"
    await admin.call(core.StartSession, title="by the admin")


async def test_a_removed_member_is_cut_off_at_once(table: Table) -> None:
    """A member removed while connected gets no event in after the removal: what they send
    is refused, they see the removal, then their connection closes (1008)."""
    campaign, gm, _, leia, _ = await _table_with_members(table)
    peer = await RawPeer.open(table.url)
    assert table.server.log is not None
    await peer.join(leia._token, campaign, since=table.server.log.head(campaign))

    async def flood() -> None:
        with contextlib.suppress(ConnectionClosed):
            for n in range(200):
                await peer.send({"type": "roll", "id": f"r{n}", "expression": "1d6"})
                await asyncio.sleep(0)

    flooding = asyncio.create_task(flood())
    await asyncio.sleep(0.01)
    removal = await gm.call(core.RemoveMember, member="leia", reason="left the group")
    await flooding
    frames: list[dict[str, Any]] = []
    with pytest.raises(ConnectionClosed) as closed:
        await peer.read_all(frames)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert any(f["type"] == "event" and f["event"]["type"] == "member_removed" for f in frames)
    by_leia = [row.seq for row in table.server.log.rows(campaign) if row.actor == "leia"]
    assert by_leia
    assert max(by_leia) < removal.seqs[0]
    refused = [f for f in frames if f["type"] == "error"]
    # a flood of 200 also meets leia's rate limit: those are refused before the hub sees them
    assert all(f["code"] in {"unauthorized", "rate_limited"} for f in refused)


async def test_a_removed_gm_can_no_longer_invite(table: Table) -> None:
    """A co-GM removed while connected cannot issue tokens or remove the other GM."""
    campaign, gm, *_ = await _table_with_members(table)
    second = await table.invite(gm, "gm", name="Co-GM")
    await gm.call(core.RemoveMember, member="co-gm")
    with pytest.raises((CommandRejected, ConnectionLost)):
        await second.call(core.Invite, role="gm", name="sleeper")
    assert all(m.active for m in gm.state.members.values() if m.member != "co-gm")
    assert "sleeper" not in table.server.hubs[campaign].state.members


async def test_no_one_can_be_invited_as_the_admin(table: Table) -> None:
    """The id ``admin`` is the admin token's; an invited "Admin" gets another."""
    _, gm, *_ = await _table_with_members(table)
    ack = await gm.call(core.Invite, role="player", name="Admin")
    assert ack.member
    assert ack.member != "admin"


async def test_a_join_queued_behind_a_removal_is_refused(table: Table) -> None:
    """A member removed while their join waits in the queue is not let in: either the join
    is refused, or it came first and the connection closes after the removal."""
    campaign, gm, _, leia, _ = await _table_with_members(table)
    gm_peer = await RawPeer.open(table.url)
    assert table.server.log is not None
    await gm_peer.join(gm._token, campaign, since=table.server.log.head(campaign))
    leia_peer = await RawPeer.open(table.url)
    await gm_peer.send({"type": "roll", "id": "r1", "expression": "1d6"})
    await gm_peer.send({"type": "remove_member", "id": "rm", "member": "leia"})
    reply = await leia_peer.join(leia._token, campaign, since=0)
    if reply["type"] == "error":
        assert (reply["code"], reply["message"]) == (
            "unauthorized", "you were removed from this table by the GM")
    else:
        with pytest.raises(ConnectionClosed) as closed:
            await leia_peer.read_all([])
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (
            1008, "you were removed from this table by the GM")
    await gm_peer.close()


async def test_a_logged_member_called_admin_is_not_the_admin_token(tmp_path: Path) -> None:
    """A log written before ``admin`` was reserved may hold a member with that id: removing
    them cuts them off, and leaves the admin token's own session alone."""
    from poolhall.events.log import AppendRequest, prepare
    from poolhall.events.sqlite_backend import SqliteLog
    from poolhall.server.auth import hash_token
    from tests.conftest import start_server

    gm_token, impostor_token = "ph_" + "g" * 40, "ph_" + "i" * 40
    log = SqliteLog(tmp_path / "old.db")
    log.append_batch([AppendRequest(
        campaign="old", expected_head=0, actor="admin", command_id="c1",
        at="2026-11-01T08:00:00.000Z", events=tuple(prepare(e) for e in (
            core.CampaignCreated(campaign="old", name="Old", system="d12"),
            core.MemberInvited(member="gm", name="GM", role="gm",
                               token_hash=hash_token(gm_token)),
            core.MemberInvited(member="admin", name="Admin", role="player",
                               token_hash=hash_token(impostor_token)))))])
    log.close()
    server = await start_server(tmp_path / "old.db")
    clients = []
    try:
        for token in (gm_token, impostor_token, server.admin_token):
            clients.append(Client(server.url, token, "old", reconnect=False))
            await clients[-1].connect()
        gm, impostor, admin = clients
        await gm.call(core.RemoveMember, member="admin")
        with pytest.raises((CommandRejected, ConnectionLost)):
            await impostor.call(core.Roll, expression="1d6")
        ack = await admin.call(core.Roll, expression="1d6", reason="still here")
        assert ack.seqs
        assert admin.lost is None
    finally:
        for client in clients:
            await client.close()
        await server.stop()
