"""Joining gets the table as a snapshot; resuming nearby gets the missed events; history is
fetched a page at a time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from poolhall.events import core
from poolhall.events.errors import CommandRejected
from poolhall.events.messages import HISTORY_LIMIT
from poolhall.projections.snapshot import RECENT_EVENTS, observable, protocol_schema
from poolhall.server import hub_joins as hub_module
from tests.server.raw import RawPeer


async def _rolled(table: Any, count: int) -> tuple[str, Any, int]:
    """A d12 campaign with ``count`` rolls, by the GM and, past 25, players (within each
    member's burst of commands, so that no roll waits for the rate)."""
    campaign, gm = await table.create_campaign("d12")
    rollers = [gm] + [await table.invite(gm, "player", name=f"p{k}")
                      for k in range(count // 25)]
    acks = await asyncio.gather(*(rollers[i % len(rollers)].call(
        core.Roll, expression="2d6", reason=f"r{i}") for i in range(count)))
    head = max(ack.seqs[-1] for ack in acks)
    await gm.wait_for_seq(head)
    return campaign, gm, head


async def _frames_until(peer: RawPeer, kind: str) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    while not frames or frames[-1]["type"] != kind:
        frames.append(await peer.recv(timeout=10))
    return frames


async def test_a_join_afresh_gets_the_table_not_the_log(table: Any) -> None:
    """since=0: welcome, then one snapshot at the head with the last events, no token hash."""
    campaign, gm, head = await _rolled(table, RECENT_EVENTS + 10)
    peer = await RawPeer.open(table.url)
    welcome = await peer.join(gm._token, campaign)
    snapshot = await peer.recv(timeout=10)
    assert welcome["type"] == "welcome"
    assert snapshot["type"] == "snapshot"
    assert snapshot["seq"] == head == welcome["head"]
    assert snapshot["head_hash"] == welcome["head_hash"] == gm.last_hash
    assert [f["seq"] for f in snapshot["recent"]] == list(range(head - RECENT_EVENTS + 1,
                                                                head + 1))
    assert snapshot["table"]["system"] == "d12"
    assert [m["member"] for m in snapshot["members"]] == ["gm", "p0", "p1"]
    assert "token_hash" not in str(snapshot)
    assert "tokens" not in snapshot
    assert len(snapshot["rolls"]) == 10
    assert snapshot["rolls"][-1]["seq"] == head
    await peer.close()


async def test_the_snapshot_is_the_same_after_a_restart(table: Any) -> None:
    """The recent events come from the log after a restart as they did live."""
    campaign, gm, head = await _rolled(table, 5)
    before = await table.connect(campaign, gm._token)
    await table.close_clients()
    await table.server.stop()
    from tests.conftest import start_server
    table.server = await start_server(table.db_path)
    after = await table.connect(campaign, gm._token)
    assert before.snapshot is not None
    assert after.snapshot is not None
    assert after.snapshot == before.snapshot


async def test_a_client_from_a_snapshot_folds_live_events_like_the_server(table: Any) -> None:
    """Snapshot then live events give what a full fold of the log shows."""
    campaign, gm, _ = await _rolled(table, 15)
    watcher = await table.connect(campaign, gm._token)
    assert watcher.snapshot is not None
    assert watcher.head == watcher.snapshot.seq
    ack = await gm.call(core.Invite, role="player", characters=("kit",), name="Kit")
    ack = await gm.call(core.Roll, expression="1d20")
    await watcher.wait_for_seq(ack.seqs[-1])
    assert [r.seq for r in watcher.drain()] == [ack.seqs[-1] - 1, ack.seqs[-1]]
    assert observable(watcher.state) == observable(table.server.hubs[campaign].state)


async def test_resuming_within_the_limit_gets_exactly_the_missed_events(
        table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within RESUME_LIMIT of the head: the events after since; further: a snapshot."""
    monkeypatch.setattr(hub_module, "RESUME_LIMIT", 5)
    campaign, gm, head = await _rolled(table, 12)
    near = await RawPeer.open(table.url)
    await near.join(gm._token, campaign, since=head - 5)
    frames = [await near.recv(timeout=10) for _ in range(5)]
    assert [(f["type"], f["seq"]) for f in frames] == [("event", s)
                                                     for s in range(head - 4, head + 1)]
    far = await RawPeer.open(table.url)
    await far.join(gm._token, campaign, since=head - 6)
    assert (await far.recv(timeout=10))["type"] == "snapshot"
    replaying = await RawPeer.open(table.url)
    await replaying.join(gm._token, campaign, since=0, replay=True)
    frames = [await replaying.recv(timeout=10) for _ in range(head)]
    assert [f["seq"] for f in frames] == list(range(1, head + 1))
    for peer in (near, far, replaying):
        await peer.close()


async def test_history_comes_a_page_at_a_time_oldest_first(table: Any) -> None:
    """history before a seq: the latest `limit` events before it, nothing appended."""
    campaign, gm, head = await _rolled(table, 20)  # and the history below: within the burst
    page = await gm.history(head, limit=10)
    assert [r.seq for r in page] == list(range(head - 10, head))
    assert isinstance(page[0].event, core.DiceRolled)
    assert [r.seq for r in await gm.history(3, limit=10)] == [1, 2]
    assert await gm.history(1) == []
    assert table.server.hubs[campaign].state.head == head
    everything: list[Any] = []
    before = head + 1
    while batch := await gm.history(before, limit=12):
        everything[:0] = batch
        before = batch[0].seq
    assert [r.seq for r in everything] == list(range(1, head + 1))


async def test_a_bad_history_request_is_refused_naming_the_field(table: Any) -> None:
    """A page over HISTORY_LIMIT, or history without a campaign, changes nothing."""
    campaign, gm, _ = await _rolled(table, 2)
    peer = await RawPeer.open(table.url)
    await peer.join(gm._token, campaign)
    await _frames_until(peer, "snapshot")
    await peer.send({"type": "history", "id": "h1", "before": 3, "limit": HISTORY_LIMIT + 1})
    refusal = await peer.recv(timeout=10)
    assert (refusal["type"], refusal["code"], refusal["path"], refusal["id"]) == (
        "error", "invalid", "$.limit", "h1")
    admin = await table.connect(None, table.admin_token)
    with pytest.raises(CommandRejected) as refused:
        await admin.history(5)
    assert refused.value.code == "invalid"
    await peer.close()


def test_the_schema_describes_snapshot_and_history() -> None:
    """The browser can build the table from the JSON Schema alone."""
    schema = protocol_schema()
    defs = schema["$defs"]
    assert {"Snapshot", "History", "HistoryPage", "NarrativeTable", "Sr3Table",
            "D12Table"} <= set(defs)
    assert "token_hash" not in str(defs["Snapshot"])
    assert "token_hash" not in str(defs["MemberEntry"])
    assert defs["Join"]["properties"]["replay"]["type"] == "boolean"
