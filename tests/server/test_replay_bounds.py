"""A session's replay link shows nothing from before the session: not in its log lines, its
rolls, its table, its views or a report; only the table as it stood (members, characters and
their sheets, the destiny pool's points) so that the session can be read."""

from __future__ import annotations

import json
from typing import Any

from poolhall.events import core
from poolhall.events import narrative as n
from tests.conftest import Table
from tests.narrative.narrative_support import HAN
from tests.server.raw import RawPeer
from tests.server.test_lazy_campaigns import restart

SECRET = "before the session"


class _Viewer:
    """A replay link's raw connection that keeps every frame's text."""

    def __init__(self, peer: RawPeer) -> None:
        self.peer = peer
        self.texts: list[str] = []
        self.asked = 0

    async def recv(self, kind: str) -> dict[str, Any]:
        while True:
            text = await self.peer.connection.recv()
            assert isinstance(text, str)
            self.texts.append(text)
            message: dict[str, Any] = json.loads(text)
            if message["type"] in (kind, "error"):
                return message

    async def ask(self, message: dict[str, Any], kind: str) -> dict[str, Any]:
        self.asked += 1
        await self.peer.send({**message, "id": f"ask-{self.asked:04d}"})
        return await self.recv(kind)


async def _campaign(table: Table) -> tuple[str, str, int, int]:
    """A narrative campaign with a roll, an open check, a rolled check and a destiny pool
    before session 1 (each named with :data:`SECRET`), then session 1 with a roll and an open
    check; the campaign, the link's token and the session's first and last events."""
    await restart(table)  # rates for a test that reads much at once
    campaign, gm = await table.create_campaign("narrative")
    await gm.call(core.Invite, role="player", name="Han's player", characters=("han",))
    await gm.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    for number in range(3):
        await gm.call(core.Roll, expression="1d6", reason=f"{SECRET} {number}")
    await gm.call(n.SetDestinyPool, light=2, dark=1)
    for check in ("ambush", "sneak"):
        await gm.call(n.OpenCheck, character="han", skill="Ranged (Light)", check=check,
                      reason=f"{SECRET}: {check}")
        await gm.call(n.SetDifficulty, check=check, level="hard", reason=SECRET)
    await gm.call(n.RollCheck, check="sneak")
    await gm.call(n.RollPool, pool=n.Pool(ability=2), reason=SECRET)
    first = (await gm.call(core.StartSession, title="The heist")).seqs[0]
    await gm.call(core.Roll, expression="2d6", reason="in the session")
    await gm.call(n.OpenCheck, character="han", skill="Ranged (Light)", check="duel")
    await gm.call(n.SetDifficulty, check="duel", level="average")
    last = (await gm.call(core.EndSession)).seqs[0]
    await gm.call(core.Roll, expression="1d4", reason="after the session")
    share = await gm.call(core.ShareReplay, session=1)
    assert share.token
    return campaign, share.token, first, last


async def test_a_session_replay_shows_nothing_from_before_the_session(table: Table) -> None:
    """At the session's first event and at its last: no earlier event in ``recent``, no
    earlier roll, check, history line or free pool on the table, no view of an earlier check,
    no text of before anywhere; the members, Han's sheet and the destiny points stand."""
    campaign, token, first, last = await _campaign(table)
    viewer = _Viewer(await RawPeer.open(table.url))
    await viewer.peer.send({"type": "join", "token": token, "campaign": campaign, "since": 0})
    welcome = await viewer.recv("welcome")
    # the session's end and the seed reveal it wrote (its rolls can be checked), no further
    assert (welcome["replay_from"], welcome["head"]) == (first, last + 1)

    start = await viewer.ask({"type": "state_at", "seq": first, "views": True}, "snapshot")
    assert start["type"] == "snapshot", start
    assert [frame["seq"] for frame in start["recent"]] == [first]
    assert start["rolls"] == []
    game = start["table"]["game"]
    assert (game["checks"], game["history"], game["rolls"], game["destiny"]["spent"]) == \
        ({}, {}, [], [])
    assert (game["destiny"]["light"], game["destiny"]["dark"]) == (2, 1)
    assert [c["character"] for c in start["characters"]] == ["han"]
    assert start["characters"][0]["stats"]["agility"] == HAN.agility
    assert {m["name"] for m in start["members"]} == {"GM", "Han's player"}
    assert start.get("replay_links", []) == []
    views = await viewer.recv("views_at")
    assert not [v for v in views["views"] if v["about"].startswith("check:")]

    end = await viewer.ask({"type": "state_at", "seq": last, "views": True}, "snapshot")
    assert [frame["seq"] for frame in end["recent"]] == list(range(first, last + 1))
    assert [roll["reason"] for roll in end["rolls"]] == ["in the session"]
    assert list(end["table"]["game"]["checks"]) == ["duel"]
    views = await viewer.recv("views_at")
    assert [v["about"] for v in views["views"] if v["about"].startswith("check:")] == \
        ["check:duel"]
    page = await viewer.ask({"type": "history", "before": last + 10, "limit": 500}, "history")
    assert [frame["seq"] for frame in page["events"]] == list(range(first, last + 2))
    assert page["events"][-1]["event"]["type"] == "seed_revealed"
    beyond = await viewer.ask({"type": "state_at", "seq": last + 2}, "snapshot")
    assert (beyond["type"], beyond["code"]) == ("error", "invalid")  # the next epoch's
    older = await viewer.ask({"type": "history", "before": first, "limit": 100}, "history")
    assert older["events"] == []
    refused = await viewer.ask({"type": "report"}, "report")
    assert (refused["type"], refused["code"]) == ("error", "forbidden")
    await viewer.peer.close()
    assert not [text for text in viewer.texts if SECRET in text]
    assert not [text for text in viewer.texts if "after the session" in text]


async def test_a_member_seeking_the_same_moment_sees_the_whole_table(table: Table) -> None:
    """The bound is the link's: the GM's own state_at at the session's start has the earlier
    rolls, checks and log lines (what the table showed then)."""
    campaign, _, first, _ = await _campaign(table)
    with_seat = await table.connect(campaign, (await _gm_token(table, campaign)))
    snapshot = await with_seat.state_at(first)
    assert any(SECRET in roll.reason for roll in snapshot.rolls)
    assert min(frame.seq for frame in snapshot.recent) < first


async def _gm_token(table: Table, campaign: str) -> str:
    """A GM token of ``campaign`` (invited by the admin)."""
    admin = await table.connect(campaign, table.admin_token)
    ack = await admin.call(core.Invite, role="gm", name="Second GM")
    assert ack.token
    return ack.token
