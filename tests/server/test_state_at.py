"""``state_at``: the table at any seq, from the nearest stored snapshot and the events after it."""

from __future__ import annotations

import msgspec
import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.errors import CommandRejected
from poolhall.events.log import to_recorded
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.projections.campaign import fold
from poolhall.projections.snapshot import observable, state_from
from tests.conftest import Table
from tests.server.test_lazy_campaigns import restart


async def played(table: Table, rolls: int = 40) -> tuple[str, Client]:
    """A narrative campaign with members, sessions and rolls, served with a snapshot stored
    every 7 events."""
    campaign, gm = await table.create_campaign("narrative")
    await restart(table, snapshot_every=7)
    gm = await table.connect(campaign, gm._token)
    await gm.call(core.Invite, role="player", characters=("han",), name="Han")
    await gm.call(core.StartSession, title="one")
    for number in range(rolls):
        await gm.call(core.Roll, expression="2d6+1", reason=f"roll {number}")
        if number == rolls // 2:
            await gm.call(core.EndSession)
            await gm.call(core.StartSession, title="two")
    return campaign, gm


async def test_state_at_start_middle_and_end_equals_a_full_fold(table: Table) -> None:
    """At the first event, one in the middle and the head, the snapshot shows what folding
    the log from its start shows, with the events up to there as ``recent``."""
    campaign, gm = await played(table)
    assert table.server.log is not None
    rows = list(table.server.log.rows(campaign))
    head = rows[-1].seq
    for seq in (1, head // 2, head - 3, head):
        snapshot = await gm.state_at(seq)
        whole = fold([to_recorded(row) for row in rows], upto=seq)
        assert snapshot.seq == seq
        assert snapshot.head_hash == rows[seq - 1].hash
        assert observable(state_from(snapshot)) == observable(whole)
        assert [frame.seq for frame in snapshot.recent] == list(range(max(1, seq - 49),
                                                                      seq + 1))
    assert gm.state.head == head  # the live table is untouched by the answers


async def test_state_at_past_the_head_is_refused_naming_the_field(table: Table) -> None:
    """A seq the log does not have yet is refused in plain words, at ``$.seq``."""
    campaign, gm = await played(table, rolls=3)
    assert table.server.log is not None
    head = table.server.log.head(campaign)
    with pytest.raises(CommandRejected) as refused:
        await gm.state_at(head + 1)
    assert refused.value.code == "invalid"
    assert refused.value.path == "$.seq"
    assert f"#{head + 1}" in refused.value.message
    assert f"#{head}" in refused.value.message


async def test_deleting_the_snapshots_table_loses_nothing(table: Table) -> None:
    """With the table dropped, the campaign loads and answers ``state_at`` as before, and the
    snapshots are written again as it folds."""
    campaign, gm = await played(table, rolls=20)
    middle = (await gm.state_at(15))
    live = observable(table.server.hubs[campaign].state)
    server = await restart(table, snapshot_every=7)
    assert isinstance(server.log, SqliteLog)
    server.log.db.execute("DROP TABLE snapshots")
    gm = await table.connect(campaign, gm._token)
    assert observable(server.hubs[campaign].state) == live
    assert observable(state_from(await gm.state_at(15))) == observable(state_from(middle))
    (stored,) = server.log.db.execute("SELECT count(*) FROM snapshots").fetchone()
    assert stored == server.log.head(campaign) // 7  # written again by the load's fold


async def test_the_admin_session_has_no_table_to_ask_about(table: Table) -> None:
    """``state_at`` is for members of a campaign: the admin session is refused."""
    admin = await table.connect(None, table.admin_token)
    with pytest.raises(CommandRejected) as refused:
        await admin.state_at(1)
    assert refused.value.code == "invalid"
    assert refused.value.path == "$.type"


async def test_the_odds_of_a_past_table_come_with_it_when_asked(table: Table) -> None:
    """state_at with views: after the snapshot, a views_at with the check's exact odds as it
    stood then (two ability dice against Hard), though the check was rolled since."""
    from poolhall.events import narrative as n
    from poolhall.events.messages import StateAt
    from tests.server.raw import RawPeer

    _, gm = await table.create_campaign("narrative")
    stats = n.NarrativeStats(agility=2, skills={"Ranged (Light)": n.Skill(
        rank=0, characteristic="agility")})
    await gm.call(core.CreateCharacter, character="han", name="Han", stats=stats)
    await gm.call(n.OpenCheck, character="han", skill="Ranged (Light)", check="shot")
    moment = (await gm.call(n.SetDifficulty, check="shot", level="hard")).seqs[-1]
    await gm.call(n.RollCheck, check="shot")
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(gm._token, gm.campaign)
        await peer.send(msgspec.json.encode(
            StateAt(id="past-0001", seq=moment, views=True)).decode())
        snapshot = await peer.recv_until("snapshot")
        while snapshot.get("id") is None:  # the join's own snapshot of the head comes first
            snapshot = await peer.recv_until("snapshot")
        views = await peer.recv_until("views_at", timeout=30)
    finally:
        await peer.connection.close()
    assert (snapshot["id"], snapshot["seq"], views["id"], views["seq"]) == \
        ("past-0001", moment, "past-0001", moment)
    odds = {view["about"]: view["data"] for view in views["views"]}["check:shot"]
    assert odds["pool"] == "2g3p"
    assert odds["odds"]["p_success"] > 0
