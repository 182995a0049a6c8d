"""A removed member who opens the table again is told they were removed, not that their
token "does not open" it; anyone else's refusal says nothing of which tokens existed."""

from __future__ import annotations

from poolhall.events import core
from tests.conftest import Table
from tests.server.raw import RawPeer

REMOVED = "you were removed from this table by the GM"


async def _join(table: Table, token: str, campaign: str) -> dict[str, object]:
    peer = await RawPeer.open(table.url)
    try:
        return await peer.join(token, campaign)
    finally:
        await peer.close()


async def test_a_removed_player_is_told_they_were_removed(table: Table) -> None:
    """The page of a removed player said "this token does not open 'night-of-the-long-dice'";
    the server knows the token is that removed member's own, and says so."""
    campaign, gm = await table.create_campaign("d12", name="Night of the Long Dice")
    ack = await gm.call(core.Invite, role="player", name="Mira")
    assert ack.token is not None
    assert ack.member is not None
    assert (await _join(table, ack.token, campaign))["type"] == "welcome"
    await gm.call(core.RemoveMember, member=ack.member, reason="left the group")
    reply = await _join(table, ack.token, campaign)
    assert (reply["type"], reply["code"], reply["message"], reply["path"]) == (
        "error", "unauthorized", REMOVED, "$.token")


async def test_other_tokens_keep_the_general_words(table: Table) -> None:
    """A made-up token, and a removed member's token at another campaign, learn nothing of
    removals: the same words as any token that opens no seat there."""
    campaign, gm = await table.create_campaign("d12", name="First")
    other, _ = await table.create_campaign("d12", name="Second")
    ack = await gm.call(core.Invite, role="player", name="Mira")
    assert ack.token is not None
    assert ack.member is not None
    await gm.call(core.RemoveMember, member=ack.member)
    for token, where in (("ph_" + "0" * 40, campaign), (ack.token, other)):
        reply = await _join(table, token, where)
        assert (reply["code"], reply["message"]) == (
            "unauthorized", f"this token does not open {where!r}")


async def test_a_removed_replay_link_is_said_to_be_revoked(table: Table) -> None:
    """A replay link the GM removed is a revoked link, as its reads are told."""
    campaign, gm = await table.create_campaign("d12")
    await gm.call(core.StartSession, title="One")
    await gm.call(core.Roll, expression="1d6")
    await gm.call(core.EndSession)
    ack = await gm.call(core.ShareReplay, session=1)
    assert ack.token is not None
    assert ack.member is not None
    await gm.call(core.RemoveMember, member=ack.member)
    reply = await _join(table, ack.token, campaign)
    assert (reply["code"], reply["message"]) == ("unauthorized", "this replay link was revoked")
