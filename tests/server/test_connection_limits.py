"""One outsider cannot lock a table out: join deadline, connection caps, failed-join throttle."""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from poolhall.clients.cli_support import CliError, open_client
from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.projections.campaign import fold
from poolhall.server.app import Server
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN
from tests.serve_process import ROOT
from tests.server.http_raw import handshake_lines, send_request
from tests.server.raw import RawPeer


@asynccontextmanager
async def server_with(tmp_path: Path, **settings: float) -> AsyncIterator[Server]:
    """A real server on 127.0.0.1:0 with the given settings."""
    server = Server(tmp_path / "poolhall.db", "127.0.0.1", 0, rng=random.Random(7),
                    admin_token=ADMIN_TOKEN, settings=Settings(**settings))  # type: ignore[arg-type]
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def new_campaign(server: Server) -> tuple[str, str]:
    """Create a campaign with the admin token; return its id and its GM's token."""
    admin = Client(server.url, ADMIN_TOKEN, None)
    await admin.connect()
    try:
        ack = await admin.call(core.CreateCampaign, name="Door", system="narrative")
    finally:
        await admin.close()
    assert ack.campaign
    assert ack.token
    return ack.campaign, ack.token


async def closed_with(peer: RawPeer) -> tuple[int | None, str | None]:
    """Read until the server closes the connection; its close code and reason."""
    try:
        async with asyncio.timeout(30):  # a guard against hanging, not a speed limit
            while True:
                await peer.connection.recv()
    except ConnectionClosed as closed:
        return (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (None, None)


async def until_counted(server: Server, total: int) -> None:
    """Let the server notice connections closing, until it counts ``total`` open ones."""
    for _ in range(10_000):
        if server.gate.admission.total == total:
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"{server.gate.admission.total} connections counted, not {total}")


async def health(server: Server) -> str:
    """The body of ``GET /health``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    reply = (await reader.read()).decode()
    writer.close()
    return reply


async def test_a_connection_that_never_joins_is_closed_at_its_deadline(tmp_path: Path) -> None:
    """Silence after the handshake ends in close 1008 with a reason saying why."""
    async with server_with(tmp_path, join_timeout=0.3) as server:
        peer = await RawPeer.open(server.url)
        assert await closed_with(peer) == (1008, "no join within 0.3 s")
        assert "join_timeouts=1" in await health(server)


async def test_bad_frames_do_not_extend_the_join_deadline(tmp_path: Path) -> None:
    """A client that sends rubbish is closed at the same deadline; after a refusal it reads one
    frame a second, so the second frame, sent within the half-second deadline, is never even
    answered (without the pause it would get not_joined before the close)."""
    async with server_with(tmp_path, join_timeout=0.5) as server:
        peer = await RawPeer.open(server.url)
        await peer.send("{not json")
        assert (await peer.recv())["code"] == "malformed"
        await peer.send({"type": "roll", "id": "r1", "expression": "1d6"})
        assert await closed_with(peer) == (1008, "no join within 0.5 s")


async def test_an_address_asking_too_fast_gets_its_answers_late(tmp_path: Path) -> None:
    """HTTP requests (here /health) past an address's burst wait their turn at the address's
    rate, not answered at once: churning handshakes or /health cannot monopolize the loop."""
    async with server_with(tmp_path, request_rate=2, request_burst=2) as server:
        for _ in range(2):
            assert "200 OK" in await health(server)
        assert server.gate.admission.paced_requests == 0
        assert "200 OK" in await health(server)  # answered, at its turn (~0.5 s on)
        assert server.gate.admission.paced_requests == 1


async def test_frames_before_a_join_are_read_one_a_second_and_count_as_failed_joins(
        tmp_path: Path) -> None:
    """An outsider's refused frames are not free: each counts against its address like a wrong
    token, so the address is soon throttled (a right token is then refused rate_limited too).
    That it reads one frame a second after a refusal shows in
    test_bad_frames_do_not_extend_the_join_deadline: its second frame is never answered."""
    async with server_with(tmp_path, join_failures_allowed=2) as server:
        campaign, token = await new_campaign(server)
        peer = await RawPeer.open(server.url)
        # A command, even a malformed one, is not decoded as one before a join: not_joined.
        for frame in ("{not json", {"type": "roll", "id": "r1", "expression": "1d6",
                                    "junk": 1}):
            await peer.send(frame)
        assert (await peer.recv())["code"] == "malformed"
        assert (await peer.recv())["code"] == "not_joined"
        await peer.send({"type": "join", "token": token, "campaign": campaign})
        assert (await peer.recv())["code"] == "rate_limited"
        assert "failed_joins=2" in await health(server)
        await peer.close()


async def test_a_joined_client_outlives_the_join_deadline(tmp_path: Path) -> None:
    """Once joined, a connection stays open past the deadline and keeps playing."""
    async with server_with(tmp_path, join_timeout=0.3) as server:
        campaign, token = await new_campaign(server)
        peer = await RawPeer.open(server.url)
        assert (await peer.join(token, campaign))["type"] == "welcome"
        idle = await RawPeer.open(server.url)
        await closed_with(idle)  # a later connection's deadline has passed: ours had too
        await peer.send({"type": "roll", "id": "r1", "expression": "2d6"})
        assert (await peer.recv_until("ack"))["id"] == "r1"
        await peer.close()


async def test_the_connection_over_the_per_address_cap_gets_a_clear_503(
        tmp_path: Path) -> None:
    """The N+1th connection from one address is refused before the handshake, with Retry-After,
    after the refusal delay (which paces an outsider who reconnects as soon as it is answered);
    ``/health`` over the cap is answered at once."""
    async with server_with(tmp_path, max_connections_per_address=2) as server:
        server.gate.refusal_delay = 0.5
        held = [await RawPeer.open(server.url) for _ in range(2)]
        opening = asyncio.create_task(RawPeer.open(server.url))
        for _ in range(10_000):  # until the server holds it as refused, waiting out the delay
            if server.gate.refusing == 1:
                break
            await asyncio.sleep(0.001)
        assert server.gate.refusing == 1
        assert not opening.done()  # not answered at once
        with pytest.raises(InvalidStatus) as refused:
            await opening
        response = refused.value.response
        assert response.status_code == 503
        assert response.headers["Retry-After"] == "10"
        assert b"too_many_connections: too many connections from your address (2)" in (
            response.body or b"")
        server.gate.refusal_delay = 60  # a refused handshake would now wait a minute:
        answer = await asyncio.wait_for(health(server), 30)  # /health over the cap does not
        server.gate.refusal_delay = 0.5
        assert "200 OK" in answer
        assert "refused_connections=2" in answer
        await held[0].close()
        await until_counted(server, 1)
        campaign, token = await new_campaign(server)  # room again: an honest client plays
        await until_counted(server, 1)
        client = Client(server.url, token, campaign)
        await client.connect()
        ack = await client.call(core.Roll, expression="1d6")
        await client.wait_for_seq(ack.seqs[-1])
        await client.close()
        await held[1].close()


async def test_the_cli_says_why_a_full_server_refused_it(tmp_path: Path) -> None:
    """A CLI command refused by a cap prints the server's reason, not "not a poolhall server"."""
    async with server_with(tmp_path, max_connections_per_address=1) as server:
        held = await RawPeer.open(server.url)
        with pytest.raises(CliError) as refused:
            await open_client(argparse.Namespace(url=server.url, token=ADMIN_TOKEN), None)
        assert str(refused.value) == (
            f"{server.url} refused the connection: too_many_connections: too many connections"
            " from your address (1); close some or retry in 10 s")
        await held.close()


async def test_the_total_cap_refuses_a_new_connection_once_the_server_is_full(
        tmp_path: Path) -> None:
    """With the total cap reached by members who have joined (none to make room by closing),
    a connection is refused saying the server is full."""
    async with server_with(tmp_path, max_connections=3) as server:
        campaign, token = await new_campaign(server)
        await until_counted(server, 0)
        held = [await RawPeer.open(server.url) for _ in range(3)]
        for peer in held:
            assert (await peer.join(token, campaign))["type"] == "welcome"
        with pytest.raises(InvalidStatus) as refused:
            await RawPeer.open(server.url)
        assert refused.value.response.status_code == 503
        assert b"the server is full (3 connections)" in (refused.value.response.body or b"")
        assert "connections=3 max_connections=3" in await health(server)
        for peer in held:
            await peer.close()


async def test_a_source_is_throttled_after_failed_joins_and_the_summary_counts_them(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """After N wrong tokens, joins are refused as rate_limited, even a right one; one log line."""
    async with server_with(tmp_path, join_failures_allowed=3) as server:
        campaign, token = await new_campaign(server)
        peer = await RawPeer.open(server.url)
        for n in range(3):
            reply = await peer.join(f"ph_wrong-{n}", campaign)
            assert (reply["code"], reply["path"]) == ("unauthorized", "$.token")
        refused = await peer.join(token, campaign)  # no token work: the address is throttled
        assert refused["type"] == "error"
        assert refused["code"] == "rate_limited"
        assert refused["message"].startswith("too many failed joins from your address; retry in")
        assert "rate_limited_addresses=1" in await health(server)
        with caplog.at_level(logging.WARNING, "poolhall.server.gate"):
            server.gate.log_summary()
        (line,) = [r.getMessage() for r in caplog.records if r.name == "poolhall.server.gate"]
        assert "3 failed joins from 1 address, 1 joins refused as rate_limited" in line
        await peer.close()


async def test_a_flood_of_accept_failures_logs_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The event loop's accept() failure, reported a thousand times, is logged once."""
    async with server_with(tmp_path):
        loop = asyncio.get_running_loop()
        with caplog.at_level(logging.ERROR, "asyncio"):
            for _ in range(1000):
                loop.call_exception_handler({
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(24, "Too many open files")})
        lines = [r for r in caplog.records if r.name == "asyncio"]
        assert len(lines) == 1
        assert lines[0].exc_info is None
        assert "Too many open files" in lines[0].getMessage()


async def test_every_member_of_a_large_campaign_joins_by_their_own_token(table) -> None:  # type: ignore[no-untyped-def]
    """Members are found by token hash; a wrong token is refused, a removed one told so."""
    campaign, gm = await table.create_campaign("narrative")
    tokens = []
    for n in range(40):
        ack = await gm.call(core.Invite, role="spectator", name=f"Watcher {n}")
        tokens.append((ack.member, ack.token))
    state = table.server.hubs[campaign].state
    assert {state.tokens[m.token_hash] for m in state.members.values()} == set(state.members)
    for member, token in tokens[::7]:
        peer = await RawPeer.open(table.url)
        assert (await peer.join(token, campaign))["member"] == member
        await peer.close()
    await gm.call(core.RemoveMember, member=tokens[0][0])
    for token, where, said in (
            (tokens[0][1], campaign, "you were removed from this table by the GM"),
            ("ph_wrong", campaign, f"this token does not open {campaign!r}"),
            ("ph_wrong", "nowhere", "this token does not open 'nowhere'")):
        peer = await RawPeer.open(table.url)
        reply = await peer.join(token, where)
        assert (reply["code"], reply["message"], reply["path"]) == ("unauthorized", said,
                                                                     "$.token")
        await peer.close()


def test_the_token_index_follows_the_log() -> None:
    """The projection indexes every invited member by token hash, removed ones included."""
    from poolhall.events.base import Recorded

    events = [core.CampaignCreated(campaign="c", name="C", system="narrative"),
              core.MemberInvited(member="gm", name="GM", role="gm", token_hash="a" * 64),
              core.MemberInvited(member="p", name="P", role="player", token_hash="b" * 64),
              core.MemberRemoved(member="p")]
    state = fold(Recorded(seq=n, at="", actor="admin", command="c1", event=e)
                 for n, e in enumerate(events, 1))
    assert state.tokens == {"a" * 64: "gm", "b" * 64: "p"}


def test_the_total_cap_is_fitted_to_the_file_descriptor_limit() -> None:
    """With 1,024 descriptors at most, the server caps itself below them and says so."""
    probe = ("import logging, resource; logging.basicConfig(level=logging.INFO);"
             "resource.setrlimit(resource.RLIMIT_NOFILE, (512, 1024));"
             "from poolhall.server.gate import fit_to_descriptors; print(fit_to_descriptors(1000));"
             "print(resource.getrlimit(resource.RLIMIT_NOFILE))")
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, timeout=60, check=True)
    assert ran.stdout.splitlines() == ["(576, 192)", "(1024, 1024)"]  # soft raised to hard
    assert ("at most 576 connections (not 1000) and 192 refused ones waiting: the file"
            " descriptor limit is 1024") in ran.stderr


async def test_a_full_server_makes_room_by_closing_the_oldest_connection_not_joined(
        tmp_path: Path) -> None:
    """Idle connections filling the total cap (from another address) no longer lock a
    newcomer out: the oldest one that has not joined is closed to make room; joined members
    are never closed for it."""
    async with server_with(tmp_path, max_connections=4) as server:
        campaign, token = await new_campaign(server)
        member = await RawPeer.open(server.url)
        assert (await member.join(token, campaign))["type"] == "welcome"
        idle = [await asyncio.open_connection("127.0.0.1", server.port,
                                              local_addr=("127.0.0.2", 0)) for _ in range(3)]
        await until_counted(server, 4)
        newcomer = await RawPeer.open(server.url)  # the server is full: room is made
        assert (await newcomer.join(token, campaign))["type"] == "welcome"
        oldest_reader, _ = idle[0]
        assert await oldest_reader.read() == b""  # closed, unanswered
        await member.send({"type": "roll", "id": "r1", "expression": "1d6"})
        assert (await member.recv_until("ack"))["id"] == "r1"  # the joined member stays
        assert server.gate.evicted == 1
        for _, writer in idle:
            writer.close()
        await member.close()
        await newcomer.close()


async def test_addresses_holding_equal_shares_do_not_close_each_others_connections(
        tmp_path: Path) -> None:
    """A full server makes room only from the address holding at least two more than the
    newcomer's would: two addresses holding two idle connections each do not close each
    other's (a newcomer from either is refused 503), while a newcomer from a third address
    closes the oldest of one of them. So connections from many addresses cannot churn by
    closing each other as fast as they reconnect."""
    async with server_with(tmp_path, max_connections=4) as server:
        server.gate.refusal_delay = 0.0
        idle = [await asyncio.open_connection("127.0.0.1", server.port,
                                              local_addr=(f"127.0.0.{2 + n % 2}", 0))
                for n in range(4)]
        await until_counted(server, 4)
        refused = await send_request(server.port, handshake_lines(server.port),
                                     source="127.0.0.3")
        assert refused.status == 503
        assert server.gate.evicted == 0
        newcomer = await RawPeer.open(server.url)
        await newcomer.close()  # from 127.0.0.1: it made room
        assert server.gate.evicted == 1
        assert await idle[0][0].read() == b""  # the oldest of 127.0.0.2, unanswered
        for _, idle_writer in idle:
            idle_writer.close()
