"""Retried command ids and racing writers: one answer per command, one order for everyone."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.base import Event
from poolhall.events.d12 import Stats as D12Stats
from poolhall.events.errors import CommandRejected
from poolhall.projections.campaign import ROLLS_KEPT
from poolhall.server.command_index import RECENT_COMMANDS
from poolhall.server.rules.base import Decision
from tests.conftest import Table
from tests.server.raw import RawPeer


async def test_retried_command_id_gives_the_original_ack_and_no_second_event(table: Table) -> None:
    """Sending the same command id twice appends once and acks twice with the same seqs."""
    _, gm = await table.create_campaign("d12")
    command = core.Roll(id="retry-me", expression="3d6")
    first = await gm.send(command)
    assert table.server.log is not None
    assert gm.campaign is not None
    head = table.server.log.head(gm.campaign)
    second = await gm.send(command)
    assert second.seqs == first.seqs
    assert table.server.log.head(gm.campaign) == head
    assert sum(1 for r in gm.state.rolls if r.seq in first.seqs) == 1


async def test_a_command_older_than_the_hub_holds_is_answered_as_it_was_when_retried(
        table: Table) -> None:
    """Retries of commands sent before the hub's last RECENT_COMMANDS: a roll (decided
    again, refused by the log's unique command id), a character's creation (refused when
    decided again: the character exists) and an invite (its token read back) each get their
    first answer; nothing is appended twice, and the table goes on from the right head."""
    await _retry_old_commands(table)


async def test_an_old_command_retried_on_postgresql_is_answered_as_it_was(
        pg_table: Table) -> None:
    """The same on PostgreSQL: its unique command id refuses the roll decided again."""
    await _retry_old_commands(pg_table)


async def _retry_old_commands(table: Table) -> None:
    _, gm = await table.create_campaign("d12")
    assert table.server.log is not None
    assert gm.campaign is not None
    roll = core.Roll(id="old-roll", expression="3d6")
    create = core.CreateCharacter(id="old-create", character="ana", name="Ana",
                                  stats=D12Stats(ratings={"CON": 3, "CHA": 2}))
    invite = core.Invite(id="old-invite", role="player", characters=("ana",),
                         retry_key="k" * 22)
    first = [await gm.send(command) for command in (roll, create, invite)]
    for n in range(RECENT_COMMANDS + 5):
        await gm.send(core.Roll(id=f"later-{n}", expression="1d6"))
    head = table.server.log.head(gm.campaign)
    again = [await gm.send(command) for command in (roll, create, invite)]
    assert [ack.seqs for ack in again] == [ack.seqs for ack in first]
    assert again[2].token == first[2].token
    assert table.server.log.head(gm.campaign) == head
    after = await gm.send(core.Roll(id="after", expression="1d6"))
    assert after.seqs == [head + 1]
    assert sum(1 for m in gm.state.members.values() if m.role == "player") == 1


async def test_retried_invite_returns_the_same_token(table: Table) -> None:
    """An invite retried (with its retry key) after a lost ack gives the same token, not a
    second member."""
    _, gm = await table.create_campaign("d12")
    command = core.Invite(id="invite-once", role="player", characters=("han",),
                          retry_key="k" * 22)
    first = await gm.send(command)
    second = await gm.send(command)
    assert first.token
    assert second.token == first.token
    assert second.seqs == first.seqs
    assert first.member
    assert second.member == first.member
    assert sum(1 for m in gm.state.members.values() if m.role == "player") == 1
    roll = core.Roll(id="roll-once", expression="1d6")
    assert (await gm.send(roll)).token is None
    assert (await gm.send(roll)).token is None


async def test_an_invite_retried_without_its_retry_key_names_the_member_but_no_token(table: Table
                                                                                     ) -> None:
    """The server keeps no token: a retry without the key, or with another, learns who was
    invited and not their token."""
    _, gm = await table.create_campaign("d12")
    first = await gm.send(core.Invite(id="no-key", role="player", characters=("han",)))
    again = await gm.send(core.Invite(id="no-key", role="player", characters=("han",)))
    assert first.token
    assert (again.member, again.token, again.seqs) == ("han", None, first.seqs)
    keyed = core.Invite(id="keyed", role="player", characters=("leia",), retry_key="a" * 22)
    issued = await gm.send(keyed)
    wrong = await gm.send(msgspec.structs.replace(keyed, retry_key="b" * 22))
    assert issued.token
    assert (wrong.member, wrong.token) == ("leia", None)


async def test_command_id_used_by_another_member_is_a_conflict(table: Table) -> None:
    """One member cannot replay another member's command id."""
    _, gm = await table.create_campaign("d12")
    han = await table.invite(gm, "player", characters=("han",))
    await gm.send(core.Roll(id="shared-id", expression="1d6"))
    with pytest.raises(CommandRejected) as refusal:
        await han.send(core.Roll(id="shared-id", expression="1d6"))
    assert (refusal.value.code, refusal.value.path) == ("conflict", "$.id")


async def test_same_command_twice_in_flight_appends_once(table: Table) -> None:
    """Two copies of a command on the wire back to back (one batch) append once, and both
    get the same ack."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    assert table.server.log is not None
    await peer.join(gm._token, campaign, since=table.server.log.head(campaign))
    command = {"type": "roll", "id": "double-send", "expression": "1d6"}
    await asyncio.gather(peer.send(command), peer.send(command))
    first, second = await peer.recv_until("ack"), await peer.recv_until("ack")
    assert first == second
    rows = list(table.server.log.rows(campaign))
    assert [row.command_id for row in rows].count("double-send") == 1
    assert rows[-1].seq == first["seqs"][0]
    await peer.close()


async def test_the_client_sending_one_command_twice_at_once_gets_one_ack_for_both(
        table: Table) -> None:
    """Two sends of the same command object while it is in flight share its one answer."""
    _, gm = await table.create_campaign("d12")
    command = core.Roll(id="double-send", expression="1d6")
    first, second = await asyncio.wait_for(
        asyncio.gather(gm.send(command), gm.send(command)), 5)
    assert first == second
    assert len(first.seqs) == 1


async def test_two_gms_racing_both_succeed_in_one_order(table: Table) -> None:
    """Two GMs sending at once both get every command in; everyone sees one gap-free order."""
    campaign, gm = await table.create_campaign("d12")
    co_gm = await table.invite(gm, "gm", name="Co GM")
    watcher = await table.invite(gm, "spectator")
    assert table.server.log is not None
    start = table.server.log.head(campaign)

    async def burst(client: Client, label: str) -> list[int]:
        acks = await asyncio.gather(*(
            client.call(core.Roll, expression="1d20", reason=f"{label}-{i}") for i in range(40)))
        return [seq for ack in acks for seq in ack.seqs]

    first, second = await asyncio.gather(burst(gm, "a"), burst(co_gm, "b"))
    assert len(first) == len(second) == 40
    assert sorted(first + second) == list(range(start + 1, start + 81))
    end = start + 80
    for client in (gm, co_gm, watcher):
        await client.wait_for_seq(end)
    orders = [[r.reason for r in client.state.rolls] for client in (gm, co_gm, watcher)]
    logged = [msgspec.json.decode(row.payload)["reason"]
              for row in table.server.log.rows(campaign, start)]
    assert len(logged) == 80  # the state keeps the latest rolls; the log has them all
    assert orders[0] == orders[1] == orders[2] == logged[-ROLLS_KEPT:]


async def test_a_failing_rule_costs_one_command_not_the_table(table: Table,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A bug that raises while deciding answers ``internal`` for that command; play goes on."""
    from poolhall.server.rules import core as core_rules

    _, gm = await table.create_campaign("d12")
    assert table.server.log is not None
    assert gm.campaign is not None
    head = table.server.log.head(gm.campaign)
    real_roll = core_rules._roll

    def broken_once(ctx: Decision, command: core.Roll) -> list[Event]:
        monkeypatch.setattr(core_rules, "_roll", real_roll)
        raise RuntimeError("a bug in a rule")

    monkeypatch.setattr(core_rules, "_roll", broken_once)
    with pytest.raises(CommandRejected) as refusal:
        await gm.call(core.Roll, expression="1d6")
    assert refusal.value.code == "internal"
    assert table.server.log.head(gm.campaign) == head
    ack = await gm.call(core.Roll, expression="1d6")
    assert ack.seqs == [head + 1]


async def test_an_event_past_its_limits_is_refused_not_stored(table: Table,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A rule that lets a value past its type's limit costs that command (``invalid``) and
    stores nothing: the log never holds an event a rebuild could not read back."""
    from poolhall.server.rules import core as core_rules

    _, gm = await table.create_campaign("d12")
    assert table.server.log is not None
    assert gm.campaign is not None
    head = table.server.log.head(gm.campaign)
    real_roll = core_rules._roll

    def too_long_a_reason(ctx: Decision, command: core.Roll) -> list[Event]:
        (event,) = real_roll(ctx, command)
        return [msgspec.structs.replace(event, reason="r" * 500)]

    monkeypatch.setattr(core_rules, "_roll", too_long_a_reason)
    with pytest.raises(CommandRejected) as refusal:
        await gm.call(core.Roll, expression="1d6")
    assert refusal.value.code == "invalid"
    assert "dice_rolled" in refusal.value.message
    assert table.server.log.head(gm.campaign) == head
    monkeypatch.setattr(core_rules, "_roll", real_roll)
    assert (await gm.call(core.Roll, expression="1d6")).seqs == [head + 1]


async def test_a_create_retried_while_the_first_is_committing_makes_one_campaign(table: Table
                                                                                 ) -> None:
    """Two admin connections send the same create at once: one campaign, the same answer."""
    peers = [await RawPeer.open(table.url) for _ in range(2)]
    for peer in peers:
        await peer.join(table.admin_token, None)
    create = {"type": "create_campaign", "id": "create-once", "name": "Twice", "system": "d12",
              "retry_key": "r" * 32}
    await asyncio.gather(*(peer.send(create) for peer in peers))
    acks = [await peer.recv_until("ack") for peer in peers]
    assert acks[0] == acks[1]
    assert acks[0]["campaign"] == "twice"
    assert [c for c in table.server.hubs if c.startswith("twice")] == ["twice"]
    for peer in peers:
        await peer.close()


async def test_an_invite_and_its_retry_in_one_batch_both_carry_the_token(table: Table) -> None:
    """A retry decided in the same batch as its original gets the very same answer."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    assert table.server.log is not None
    await peer.join(gm._token, campaign, since=table.server.log.head(campaign))
    invite = {"type": "invite", "id": "invite-1", "role": "player", "characters": ["han"]}
    await asyncio.gather(peer.send(invite), peer.send(invite))
    first, second = await peer.recv_until("ack"), await peer.recv_until("ack")
    assert first == second
    assert first["token"]
    assert first["member"] == "han"
    await peer.close()
