"""Replay links: a token that opens one game session's replay, read-only, and is revocable."""

from __future__ import annotations

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.errors import CommandRejected
from poolhall.events.fair import RotateSeed, SeedRevealed
from tests.conftest import Table


async def _two_sessions(table: Table) -> tuple[Client, int, int]:
    """A campaign with session 1 (three rolls) ended and session 2 running; its GM and the
    first and last events a link of session 1 reads: its start, and the seed reveal its end
    wrote (the event after the end: without it no roll of the session could be checked)."""
    _, gm = await table.create_campaign("d12")
    first = (await gm.call(core.StartSession, title="The heist")).seqs[0]
    for _ in range(3):
        await gm.call(core.Roll, expression="1d6")
    ended = (await gm.call(core.EndSession)).seqs
    last = ended[1]
    assert last == ended[0] + 1
    await gm.call(core.StartSession, title="Aftermath")
    return gm, first, last


async def test_a_replay_link_reads_its_session_and_nothing_else(table: Table) -> None:
    """The link's welcome names session 1's events; state_at and history stay within them."""
    gm, first, last = await _two_sessions(table)
    ack = await gm.call(core.ShareReplay, session=1)
    assert ack.token
    assert ack.member
    viewer = await table.connect(gm.campaign, ack.token)
    assert viewer.welcome is not None
    assert (viewer.welcome.role, viewer.welcome.replay_from, viewer.welcome.head) == \
        ("replay", first, last)
    assert (await viewer.state_at(last - 1)).seq == last - 1
    page = await viewer.history(before=10_000, limit=500)
    assert [r.seq for r in page] == list(range(first, last + 1))
    assert isinstance(page[-1].event, SeedRevealed)  # the seed of the session's rolls
    assert isinstance(page[-2].event, core.GameSessionEnded)
    with pytest.raises(CommandRejected) as beyond:
        await viewer.state_at(last + 1)
    assert (beyond.value.code, beyond.value.path) == ("invalid", "$.seq")
    with pytest.raises(CommandRejected) as acting:
        await viewer.call(core.Roll, expression="1d6")
    assert acting.value.code == "forbidden"
    head = (await gm.call(core.Roll, expression="1d20")).seqs[0]
    await gm.wait_for_seq(head)
    assert viewer.head == 0  # no live events reach a replay link


async def test_removing_the_link_revokes_it_at_once(table: Table) -> None:
    """remove_member on the link's member: its next read and any new join are refused."""
    gm, _, last = await _two_sessions(table)
    ack = await gm.call(core.ShareReplay, session=1)
    assert ack.token is not None
    viewer = await table.connect(gm.campaign, ack.token)
    await gm.call(core.RemoveMember, member=ack.member, reason="shared by mistake")
    with pytest.raises(CommandRejected) as read:
        await viewer.state_at(last)
    assert read.value.code == "unauthorized"
    with pytest.raises(CommandRejected) as join:
        await table.connect(gm.campaign, ack.token)
    assert join.value.code == "unauthorized"


async def test_only_the_gm_shares_and_only_a_session_that_started(table: Table) -> None:
    """A player is refused; session 7, which never started, is named as not found."""
    gm, _, _ = await _two_sessions(table)
    player = await table.invite(gm, "player")
    with pytest.raises(CommandRejected) as played:
        await player.call(core.ShareReplay, session=1)
    assert played.value.code == "forbidden"
    with pytest.raises(CommandRejected) as missing:
        await gm.call(core.ShareReplay, session=7)
    assert (missing.value.code, missing.value.path) == ("not_found", "$.session")
    assert "sessions 1 to 2 have started" in missing.value.message


async def test_a_campaign_replay_link_ends_where_the_campaign_stood_when_shared(
        table: Table) -> None:
    """Without a session the link replays events 1 to the head at the time of sharing."""
    gm, _, _ = await _two_sessions(table)
    ack = await gm.call(core.ShareReplay)
    shared_at = ack.seqs[0] - 1
    await gm.call(core.Roll, expression="1d6")
    assert ack.token is not None
    viewer = await table.connect(gm.campaign, ack.token)
    assert viewer.welcome is not None
    assert (viewer.welcome.replay_from, viewer.welcome.head) == (1, shared_at)


async def test_the_table_lists_replay_links_apart_from_its_members(table: Table) -> None:
    """A snapshot names the link under replay_links, never among the members (no seat)."""
    gm, _, _ = await _two_sessions(table)
    ack = await gm.call(core.ShareReplay, session=1, name="for the forum")
    late = await table.connect(gm.campaign, gm._token)  # a fresh join gets a snapshot
    assert late.snapshot is not None
    assert ack.member not in {m.member for m in late.snapshot.members}
    assert [(link.member, link.name, link.session) for link in late.snapshot.replay_links] == \
        [(ack.member, "for the forum", 1)]


async def test_a_session_link_ends_with_the_reveal_its_end_wrote_not_a_rotation_in_it(
        table: Table) -> None:
    """A seed rotated during the session is revealed within it; shared while the session runs,
    the link reads up to the head; once the session ends, up to the reveal that end wrote, and
    never the next epoch's commitment or anything after."""
    _, gm = await table.create_campaign("d12")
    first = (await gm.call(core.StartSession, title="The heist")).seqs[0]
    await gm.call(core.Roll, expression="1d6")
    rotated = (await gm.call(RotateSeed)).seqs
    ack = await gm.call(core.ShareReplay, session=1)
    assert ack.token is not None
    running = await table.connect(gm.campaign, ack.token)
    assert running.welcome is not None
    assert running.welcome.head == ack.seqs[-1]  # the session runs: its link reads on
    await gm.call(core.Roll, expression="1d8")
    ended = (await gm.call(core.EndSession)).seqs
    await gm.call(core.Roll, expression="1d20")  # after the session: the next epoch's
    viewer = await table.connect(gm.campaign, ack.token)
    assert viewer.welcome is not None
    assert (viewer.welcome.replay_from, viewer.welcome.head) == (first, ended[1])
    page = await viewer.history(before=10_000, limit=500)
    reveals = [r.seq for r in page if isinstance(r.event, SeedRevealed)]
    assert reveals == [first + 1, rotated[0], ended[1]]  # the session's start reveals too
    with pytest.raises(CommandRejected):
        await viewer.state_at(ended[2])
