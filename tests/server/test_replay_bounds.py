"""A session's replay link shows nothing from before the session: not in its log lines, its
rolls, its table, its views or a report; only the table as it stood (members, characters and
their sheets, the destiny pool's points) so that the session can be read."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from poolhall.events import core, d12
from poolhall.events import narrative as n
from poolhall.events import narrative_encounter as e
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


async def _link_and_member_at(table: Table, campaign: str, gm: Any, session: int
                              ) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The table at the last event of game session ``session`` as its replay link gets it and
    as the GM does (both as JSON), and the link's log lines of the session."""
    share = await gm.call(core.ShareReplay, session=session)
    assert share.token
    viewer = _Viewer(await RawPeer.open(table.url))
    await viewer.peer.send({"type": "join", "token": share.token, "campaign": campaign,
                            "since": 0})
    welcome = await viewer.recv("welcome")
    last = welcome["head"]
    link = await viewer.ask({"type": "state_at", "seq": last}, "snapshot")
    assert link["type"] == "snapshot", link
    page = await viewer.ask({"type": "history", "before": last + 1, "limit": 500}, "history")
    await viewer.peer.close()
    member = await gm.state_at(last)
    return (link["table"]["game"], json.loads(msgspec.json.encode(member.table))["game"],
            [frame["event"]["type"] for frame in page["events"]])


async def test_a_session_replay_keeps_the_narrative_encounter_running_across_sessions(
        table: Table) -> None:
    """An encounter started, its initiative entered and round 1 begun in session 1 goes on
    in session 2 (round 2, Han in slot 1): session 2's link shows the encounter as the GM's
    table does - round 2, its slots and this round's claim - where it read "No encounter is
    running" beside its own log's "round 2 begins"; Han's Cool check of session 1 stays out."""
    campaign, gm = await table.create_campaign("narrative")
    await gm.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    await gm.call(n.SetDestinyPool, light=2, dark=1)
    await gm.call(core.StartSession, title="The ambush")
    await gm.call(e.StartEncounter, reason="ambush at the docks")
    await gm.call(n.OpenCheck, character="han", skill="Cool", characteristic="presence",
                  check="han-init", reason=SECRET)
    await gm.call(n.SetDifficulty, check="han-init", level="average")
    await gm.call(n.RollCheck, check="han-init")
    await gm.call(e.EnterInitiative, check="han-init")
    await gm.call(e.AdvanceRound)
    await gm.call(core.EndSession)
    await gm.call(core.StartSession, title="The fight goes on")
    await gm.call(e.AdvanceRound)
    await gm.call(e.ClaimSlot, slot=1, character="han")
    await gm.call(core.EndSession)
    link, member, lines = await _link_and_member_at(table, campaign, gm, 2)
    assert lines[-4:] == ["round_started", "slot_claimed", "game_session_ended", "seed_revealed"]
    assert link["encounter"] is not None
    assert link["encounter"] == member["encounter"]
    assert (link["encounter"]["round"], link["encounters"]) == (2, 1)
    assert [(c["slot"], c["character"]) for c in link["encounter"]["claims"]] == [(1, "han")]
    assert [s["character"] for s in link["encounter"]["slots"]] == ["han"]
    assert link["checks"] == {}  # the initiative's check was rolled before: not the link's
    assert SECRET not in json.dumps(link)


async def test_a_session_replay_keeps_a_d12_extended_test_still_going(table: Table) -> None:
    """An extended test called and rolled twice in session 1 goes on in session 2 (round 3):
    session 2's link shows it as the GM's table does - its pool, DT and three rounds had -
    with only its own round's faces and story; a basic test of session 1 stays out."""
    campaign, gm = await table.create_campaign("d12")
    await gm.call(core.CreateCharacter, character="han", name="Han",
                  stats=d12.D12Stats(ratings={"STR": 3, "CON": 2, "CHA": 1}))
    await gm.call(core.StartSession, title="The bar fight")
    await gm.call(d12.RollBasicTest, dice=3, dt=6, reason=SECRET)
    await gm.call(d12.CallThresholdTest, character="han", stats=("STR", "CON"), dt=4,
                  extended=True, refresh="CON", label="bar fight")
    test = 2  # the basic test was #1
    for _ in range(2):
        await gm.call(d12.RollThresholdTest, test=test)
    await gm.call(core.EndSession)
    await gm.call(core.StartSession, title="Still fighting")
    await gm.call(d12.RollThresholdTest, test=test)
    await gm.call(core.EndSession)
    link, member, lines = await _link_and_member_at(table, campaign, gm, 2)
    assert "threshold_dice_rolled" in lines
    theirs, mine = link["tests"][str(test)], member["tests"][str(test)]
    assert (mine["kind"], mine["open"], mine["rounds_rolled"]) == ("extended", True, 3)
    for key in ("pool", "threshold", "rounds_rolled", "start_pool", "open", "kind"):
        assert theirs[key] == mine[key], key
    assert [r["round"] for r in theirs["rounds"]] == [3]
    assert theirs["rounds"] == mine["rounds"][-1:]
    assert theirs["story"] == mine["story"][-len(theirs["story"]):]
    assert theirs["story"][0].startswith("round 3:")
    assert list(link["tests"]) == [str(test)]  # the basic test of session 1 is not its own
    assert SECRET not in json.dumps(link)
