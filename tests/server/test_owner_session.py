"""The owner's session lists the server's campaigns (``list_campaigns``); nobody else may."""

from __future__ import annotations

from poolhall.events import core
from tests.conftest import Table
from tests.server.raw import RawPeer


async def test_the_owner_lists_the_campaigns_with_their_names_and_systems(table: Table) -> None:
    """Two campaigns created: the owner's list names both, by id, with name and system."""
    await table.create_campaign("narrative", name="Edge of the Empire")
    await table.create_campaign("sr3", name="Seattle Nights")
    owner = await RawPeer.open(table.url)
    try:
        welcome = await owner.join(table.admin_token, None)
        assert welcome["role"] == "admin"
        await owner.send({"type": "list_campaigns", "id": "list-1"})
        answer = await owner.recv_until("campaign_list")
    finally:
        await owner.close()
    assert answer["id"] == "list-1"
    assert answer["more"] is False
    assert [(c["campaign"], c["name"], c["system"]) for c in answer["campaigns"]] == [
        ("edge-of-the-empire", "Edge of the Empire", "narrative"),
        ("seattle-nights", "Seattle Nights", "sr3")]
    assert all(c["events"] >= 2 for c in answer["campaigns"])


async def test_a_campaign_member_may_not_list_the_campaigns(table: Table) -> None:
    """The GM of one campaign learns nothing of the others: refused, naming the type."""
    admin = await table.connect(None, table.admin_token)
    ack = await admin.call(core.CreateCampaign, name="Solo", system="d12")
    campaign, token = ack.campaign, ack.token
    assert campaign
    assert token
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(token, campaign)
        await peer.send({"type": "list_campaigns", "id": "list-2"})
        refusal = await peer.recv_until("error")
    finally:
        await peer.close()
    assert (refusal["id"], refusal["code"], refusal["path"]) == ("list-2", "forbidden", "$.type")
    assert "owner" in refusal["message"]


async def test_a_malformed_list_request_names_the_field(table: Table) -> None:
    """An unknown field in ``list_campaigns`` is refused, naming it."""
    owner = await RawPeer.open(table.url)
    try:
        await owner.join(table.admin_token, None)
        await owner.send({"type": "list_campaigns", "id": "list-3", "all": True})
        refusal = await owner.recv_until("error")
    finally:
        await owner.close()
    assert refusal["code"] == "invalid"
    assert refusal["path"] == "$.all"
