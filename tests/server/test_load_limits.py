"""One member cannot exhaust the server: rates, in-flight and connection caps, bounded catch-up."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.server.app import Server
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN
from tests.server.raw import RawPeer

UNLIMITED = {"member_rate": 1e6, "member_burst": 10**6, "campaign_rate": 1e6,
             "campaign_burst": 10**6, "member_in_flight": 10**6}


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, **settings: Any) -> AsyncIterator[Server]:
    """A real server on 127.0.0.1:0 with these settings."""
    server = Server(tmp_path / "limits.db", "127.0.0.1", 0, rng=random.Random(9),
                    admin_token=ADMIN_TOKEN, settings=Settings(**settings))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def open_table(server: Server, name: str) -> tuple[str, str]:
    """Create a campaign; return its id and the GM's token."""
    async with Client(server.url, ADMIN_TOKEN) as admin:
        ack = await admin.call(core.CreateCampaign, name=name, system="d12")
    assert ack.campaign
    assert ack.token
    return ack.campaign, ack.token


async def invite(server: Server, campaign: str, gm_token: str, role: str) -> str:
    async with Client(server.url, gm_token, campaign) as gm:
        ack = await gm.call(core.Invite, role=role, name=role.title())
    assert ack.token
    return ack.token


async def answers(peer: RawPeer, ids: set[str]) -> dict[str, dict[str, Any]]:
    """Read until every command in ``ids`` is answered (ack or error)."""
    got: dict[str, dict[str, Any]] = {}
    while set(got) != ids:
        frame = await peer.recv()
        if frame["type"] in ("ack", "error") and frame.get("id") in ids:
            got[frame["id"]] = frame
    return got


def rolls_by(server: Server, campaign: str, actor: str) -> int:
    assert server.log is not None
    return sum(1 for row in server.log.rows(campaign)
               if row.actor == actor and row.type == "dice_rolled")


async def test_a_member_over_their_rate_is_refused_and_the_others_are_served(tmp_path: Path
                                                                             ) -> None:
    """Past their burst a player gets rate_limited with retry_after and nothing is appended;
    the GM of the same table and another table's GM are still served."""
    async with serving(tmp_path, member_rate=0.001, member_burst=4) as server:
        campaign, gm_token = await open_table(server, "Busy")
        other, other_token = await open_table(server, "Quiet")
        player_token = await invite(server, campaign, gm_token, "player")
        player = await RawPeer.open(server.url)
        assert (await player.join(player_token, campaign))["type"] == "welcome"
        ids = {f"r{n}" for n in range(7)}
        for n in range(7):
            await player.send({"type": "roll", "id": f"r{n}", "expression": "1d6"})
        got = await answers(player, ids)
        assert sorted(f["type"] for f in got.values()) == ["ack"] * 4 + ["error"] * 3
        for refused in (f for f in got.values() if f["type"] == "error"):
            assert refused["code"] == "rate_limited"
            assert refused["retry_after"] > 100  # one token per 1,000 s
            assert refused["message"].startswith("too many commands; retry in ")
            assert refused["path"] is None
        assert rolls_by(server, campaign, "player") == 4
        async with Client(server.url, gm_token, campaign) as gm:
            for _ in range(3):
                await gm.call(core.Roll, expression="1d6")
        async with Client(server.url, other_token, other) as other_gm:
            for _ in range(4):
                await other_gm.call(core.Roll, expression="1d6")
        assert rolls_by(server, campaign, "gm") == 3
        assert rolls_by(server, other, "gm") == 4
        await player.close()


async def test_refused_frames_spend_the_members_rate(tmp_path: Path) -> None:
    """A frame refused before it becomes work (malformed, invalid, unknown type) costs the
    member a command of their rate, so garbage is no way past the limit: after a burst of
    two bad frames, a good roll is refused rate_limited and nothing is appended; and once the
    rate is spent a frame is refused before it is even decoded."""
    async with serving(tmp_path, member_rate=0.001, member_burst=2) as server:
        campaign, _ = await open_table(server, "Garbage")
        player_token = await invite(server, campaign, _, "player")
        player = await RawPeer.open(server.url)
        assert (await player.join(player_token, campaign))["type"] == "welcome"
        await player.send("{not json")
        assert (await player.recv_until("error"))["code"] == "malformed"
        await player.send({"type": "no_such_thing", "id": "x1"})
        assert (await player.recv_until("error"))["code"] == "unknown_type"
        await player.send({"type": "roll", "id": "r1", "expression": "1d6"})
        refused = await player.recv_until("error")
        assert (refused["id"], refused["code"]) == ("r1", "rate_limited")
        assert rolls_by(server, campaign, "player") == 0
        await player.send("{still not json")  # out of tokens: refused before any decoding
        assert (await player.recv_until("error"))["code"] == "rate_limited"
        await player.close()


async def test_replays_spend_the_campaigns_replay_budget_and_snapshots_do_not(tmp_path: Path
                                                                              ) -> None:
    """A join that replays the log costs its campaign's replay budget by the events it is
    sent: one replay of any size goes through, the next waits until the debt is repaid
    (rate_limited at $.since); a join afresh, which gets a snapshot, costs none."""
    async with serving(tmp_path, replay_rate=0.001, replay_burst=5) as server:
        campaign, gm_token = await open_table(server, "Replays")
        async with Client(server.url, gm_token, campaign) as gm:
            for _ in range(8):
                await gm.call(core.Roll, expression="1d6")
        first = await RawPeer.open(server.url)
        assert (await first.join(gm_token, campaign, replay=True))["type"] == "welcome"
        second = await RawPeer.open(server.url)
        refused = await second.join(gm_token, campaign, replay=True)
        assert (refused["code"], refused["path"]) == ("rate_limited", "$.since")
        assert refused["message"].startswith("too many events replayed at this table")
        third = await RawPeer.open(server.url)
        assert (await third.join(gm_token, campaign))["type"] == "welcome"  # a snapshot
        for peer in (first, second, third):
            await peer.close()


async def test_the_in_flight_cap_holds_across_a_members_connections(tmp_path: Path) -> None:
    """With two commands unanswered on one connection, a third on another is refused."""
    async with serving(tmp_path, member_in_flight=2) as server:
        campaign, gm_token = await open_table(server, "Pipelined")
        first, second = RawPeer(await connect(server.url)), RawPeer(await connect(server.url))
        for peer in (first, second):
            assert (await peer.join(gm_token, campaign))["type"] == "welcome"
        blocker = sqlite3.connect(server.db_path, timeout=0)  # holds appends back, for a moment
        blocker.execute("BEGIN IMMEDIATE")
        try:
            for n in range(3):
                await first.send({"type": "roll", "id": f"a{n}", "expression": "1d6"})
            refused = (await answers(first, {"a2"}))["a2"]  # a0, a1 are in flight
            assert refused["code"] == "rate_limited"
            assert refused["message"] == "too many commands in flight (2); retry in 0.1 s"
            await second.send({"type": "roll", "id": "b0", "expression": "1d6"})
            refused = (await answers(second, {"b0"}))["b0"]
            assert (refused["code"], refused["retry_after"]) == ("rate_limited", 0.1)
        finally:
            blocker.rollback()
            blocker.close()
        got = await answers(first, {"a0", "a1"})
        assert [got[i]["type"] for i in ("a0", "a1")] == ["ack", "ack"]
        await second.send({"type": "roll", "id": "b1", "expression": "1d6"})
        assert (await answers(second, {"b1"}))["b1"]["type"] == "ack"
        assert rolls_by(server, campaign, "gm") == 3
        for peer in (first, second):
            await peer.close()


async def test_a_token_over_its_connection_cap_is_refused(tmp_path: Path) -> None:
    """A spectator's third connection is refused with too_many_connections on the token."""
    async with serving(tmp_path, member_connections=2) as server:
        campaign, gm_token = await open_table(server, "Watched")
        watcher = await invite(server, campaign, gm_token, "spectator")
        peers = [await RawPeer.open(server.url) for _ in range(3)]
        for peer in peers[:2]:
            assert (await peer.join(watcher, campaign))["type"] == "welcome"
        refused = await peers[2].join(watcher, campaign)
        assert refused["type"] == "error"
        assert (refused["code"], refused["path"]) == ("too_many_connections", "$.token")
        assert refused["message"] == ("this token already has 2 connections open; close one first"
                                      " (one that dropped without closing counts until the"
                                      " server notices, within 40 s)")
        async with Client(server.url, gm_token, campaign) as gm:  # another member: unaffected
            await gm.call(core.Roll, expression="1d6")
        for peer in peers:
            await peer.close()


async def test_joins_are_rate_limited_per_member(tmp_path: Path) -> None:
    """A storm of joins from one token is refused rate_limited, with retry_after."""
    async with serving(tmp_path, join_rate=0.001, join_burst=2) as server:
        campaign, gm_token = await open_table(server, "Stormy")
        watcher = await invite(server, campaign, gm_token, "spectator")
        peers = [await RawPeer.open(server.url) for _ in range(3)]
        for peer in peers[:2]:
            assert (await peer.join(watcher, campaign))["type"] == "welcome"
        refused = await peers[2].join(watcher, campaign)
        assert (refused["type"], refused["code"], refused["path"]) == (
            "error", "rate_limited", "$.token")
        assert refused["retry_after"] > 100
        for peer in peers:
            await peer.close()


async def test_the_client_waits_out_rate_limited_commands(tmp_path: Path) -> None:
    """The Python client re-sends a rate-limited command after retry_after: all are acked."""
    async with serving(tmp_path, member_rate=20.0, member_burst=3) as server:
        campaign, gm_token = await open_table(server, "Patient")
        async with Client(server.url, gm_token, campaign) as gm:
            acks = await asyncio.gather(*(gm.call(core.Roll, expression="1d6")
                                          for _ in range(10)))
        assert len({ack.seqs[0] for ack in acks}) == 10
        assert rolls_by(server, campaign, "gm") == 10


async def test_a_joiner_that_never_reads_its_catch_up_is_closed_and_resumes(tmp_path: Path) -> None:
    """A reader replaying from 0 that stops reading is closed 1013 after the catch-up timeout,
    and resumes from the last event it got with no gap and no duplicate."""
    async with serving(tmp_path, catch_up_timeout=0.5, **UNLIMITED) as server:
        campaign, gm_token = await open_table(server, "Long log")
        async with Client(server.url, gm_token, campaign) as gm:
            for _ in range(40):  # about 1 MB of log: far more than the socket buffers hold
                await asyncio.gather(*(gm.call(core.Roll, expression="100d100")
                                       for _ in range(40)))
            head = gm.head
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        sock.setblocking(False)
        stalled = RawPeer(await connect(server.url, sock=sock, max_size=2**24))
        await stalled.send({"type": "join", "token": gm_token, "campaign": campaign, "since": 0,
                            "replay": True})
        stalled.connection.transport.pause_reading()  # it never reads its catch-up

        for _ in range(600):  # the server gives up on it after 0.5 s without progress
            if any(subscriber.dropped for subscriber in server._connections):
                break
            await asyncio.sleep(0.05)
        stalled.connection.transport.resume_reading()
        frames: list[dict[str, Any]] = []
        with pytest.raises(ConnectionClosed):
            await stalled.read_all(frames, timeout=30)
        seqs = [frame["seq"] for frame in frames if frame["type"] == "event"]
        assert stalled.connection.close_code == 1013
        assert stalled.connection.close_reason == "too slow to catch up; resume"
        assert seqs == list(range(1, len(seqs) + 1))
        assert len(seqs) < head

        resumed = await RawPeer.open(server.url)
        assert (await resumed.join(gm_token, campaign, since=seqs[-1] if seqs else 0,
                                   replay=True))["type"] == "welcome"
        while not seqs or seqs[-1] < head:
            frame = await resumed.recv()
            if frame["type"] == "event":
                seqs.append(frame["seq"])
        assert seqs == list(range(1, head + 1))
        await resumed.close()


def test_catch_up_pages_are_framed_as_websockets_frames_them() -> None:
    """The catch-up's own framing gives websockets' bytes for short, medium and long frames."""
    from websockets.frames import Frame, Opcode

    from poolhall.server.subscriber import text_frames

    payloads = [b"", b"x" * 125, b"y" * 126, b"z" * 65535, b"w" * 65536, b'{"type":"event"}']
    assert text_frames(payloads) == b"".join(
        Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[]) for payload in payloads)
