"""Who is at the table, across real ``poolhall serve`` processes on one PostgreSQL: a member
connected to one process shows as connected on the page of a member on another (the
``table`` message's ``connected``, which the page's **At the table** reads), goes when they
leave, goes within the expiry when their process is killed, and a process started later
learns who is connected elsewhere; then, with servers in this process, what a member with a
connection to each, a clean stop and a listener back each make of it."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.postgres_backend.presence import PostgresPresence
from poolhall.server.app import Server
from tests.conftest import Table
from tests.serve_process import free_port, serve_database
from tests.server.raw import RawPeer
from tests.server.two_servers import two_servers

EXPIRY = 1.5
"""``--presence-expiry`` of the processes: a killed one is forgotten within it (and a
heartbeat, a fifth of it), so the test waits seconds, not the default's five."""


class _Servers:
    """Real ``poolhall serve`` processes on one database, started on demand."""

    def __init__(self, url: str, cwd: Path) -> None:
        self.url, self.cwd = url, cwd
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> str:
        """One more process; its ws:// URL."""
        port = free_port()
        self.processes.append(serve_database(
            self.url, port, self.cwd, self.cwd / f"serve{len(self.processes)}.log",
            options=("--presence-expiry", str(EXPIRY))))
        return f"ws://127.0.0.1:{port}"


@pytest.fixture
def servers(postgres_url: str, tmp_path: Path) -> Iterator[_Servers]:
    started = _Servers(postgres_url, tmp_path)
    try:
        yield started
    finally:
        for process in started.processes:
            if process.poll() is None:
                process.terminate()
        for process in started.processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


async def _watch_table(url: str, token: str, campaign: str) -> tuple[RawPeer, str]:
    """A connection joined the way the page joins (it gets the ``table`` message); its
    member id."""
    peer = await RawPeer.open(url)
    await peer.send({"type": "join", "token": token, "campaign": campaign, "since": 0,
                     "table": True})
    welcome = await peer.recv()
    assert welcome["type"] == "welcome", welcome
    return peer, welcome["member"]


async def _until_connected(peer: RawPeer, wanted: set[str], timeout: float = 5.0
                           ) -> dict[str, Any]:
    """The first ``table`` message whose ``connected`` members are ``wanted``."""
    async with asyncio.timeout(timeout):
        while True:
            frame = await peer.recv_until("table", timeout=timeout)
            if set(frame["connected"]) == wanted:
                return frame


async def test_a_member_on_one_process_is_at_the_table_on_every_other(
        servers: _Servers, tmp_path: Path) -> None:
    """The GM watches on process B; the player comes and goes on process A and the GM's
    table follows; a process C started meanwhile shows the player at once; A is killed
    (SIGKILL: it never says goodbye) and the player is gone from B and C within the
    expiry."""
    a, b = servers.start(), servers.start()
    admin = Client(a, next(tmp_path.glob("poolhall-*.admin-token")).read_text().strip(), None)
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Shared", system="d12")
    await admin.close()
    assert created.campaign
    assert created.token
    campaign, gm_token = created.campaign, created.token
    gm, gm_member = await _watch_table(b, gm_token, campaign)
    try:
        await _until_connected(gm, {gm_member})
        await gm.send({"type": "invite", "id": "invite-han", "role": "player",
                       "characters": ["han"]})
        invited = await gm.recv_until("ack")
        player_member, player_token = invited["member"], invited["token"]

        player = Client(a, player_token, campaign)
        await player.connect()
        await _until_connected(gm, {gm_member, player_member})
        await player.close()
        await _until_connected(gm, {gm_member})

        player = Client(a, player_token, campaign)
        await player.connect()
        await _until_connected(gm, {gm_member, player_member})
        c = servers.start()  # started while the player is connected to A
        gm_on_c, _ = await _watch_table(c, gm_token, campaign)
        await _until_connected(gm_on_c, {gm_member, player_member})

        servers.processes[0].send_signal(signal.SIGKILL)
        servers.processes[0].wait(5)
        await _until_connected(gm, {gm_member}, timeout=EXPIRY + 3)
        await _until_connected(gm_on_c, {gm_member}, timeout=3)
        await gm_on_c.close()
    finally:
        await gm.close()


async def _han_and_a_watcher(servers: list[Server], tables: list[Table]
                             ) -> tuple[str, str, RawPeer]:
    """A campaign made on the first server with a player, Han, invited (not connected); the
    campaign, Han's token and the GM's page on the second server, shown the GM alone."""
    campaign, gm = await tables[0].create_campaign("d12")
    invited = await gm.call(core.Invite, role="player", characters=("han",))
    assert invited.token
    await gm.close()
    watcher, gm_member = await _watch_table(servers[1].url, gm._token, campaign)
    await _until_connected(watcher, {gm_member})
    return campaign, invited.token, watcher


async def test_a_member_connected_through_two_servers_shows_until_both_let_go(
        postgres_url: str) -> None:
    """Han has two tabs on one server and one on the other; the database counts each
    process's connections (what an operator reads there). Closing the tab on the watcher's
    server leaves him at the table (no table message says otherwise); closing the others
    takes him off."""
    async with two_servers(postgres_url) as (servers, tables):
        campaign, token, watcher = await _han_and_a_watcher(servers, tables)
        there = await tables[0].connect(campaign, token)
        await _until_connected(watcher, {"gm", "han"})  # the watcher's server heard of him
        also_there = await tables[0].connect(campaign, token)
        here = await tables[1].connect(campaign, token)
        await _until_counted(postgres_url, campaign, "han", 3)
        await here.close()
        frames: list[dict[str, Any]] = []
        with pytest.raises(TimeoutError):
            await watcher.read_all(frames, timeout=0.5)
        shown = [f["connected"] for f in frames if f["type"] == "table"]
        assert all("han" in connected for connected in shown), shown
        await there.close()
        await _until_counted(postgres_url, campaign, "han", 1)
        await also_there.close()
        await _until_connected(watcher, {"gm"})
        await watcher.close()


async def _until_counted(url: str, campaign: str, member: str, connections: int) -> None:
    """Wait until the presence rows count ``connections`` of ``member``, all processes
    together (read as an operator would, with SQL)."""
    def counted() -> int:
        with psycopg.connect(url, autocommit=True) as connection:
            row = connection.execute("SELECT coalesce(sum(connections), 0) FROM presence"
                                     " WHERE campaign = %s AND member = %s",
                                     [campaign, member]).fetchone()
        return int(row[0]) if row else 0
    for _ in range(300):
        if await asyncio.to_thread(counted) == connections:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{member} never had {connections} connections counted")


async def test_a_server_stopped_cleanly_takes_its_members_off_at_once(
        postgres_url: str) -> None:
    """A server stopped cleanly does not wait to be forgotten: its connections close and it
    withdraws from the board, so the other server's page shows Han gone well before the 5 s
    expiry would have."""
    async with two_servers(postgres_url) as (servers, tables):
        campaign, token, watcher = await _han_and_a_watcher(servers, tables)
        await tables[0].connect(campaign, token)
        await _until_connected(watcher, {"gm", "han"})
        await servers[0].stop()
        await _until_connected(watcher, {"gm"}, timeout=2)
        await watcher.close()


async def test_a_server_whose_listener_is_back_reads_who_is_connected_elsewhere(
        postgres_url: str) -> None:
    """The second server's listener is stopped (it hears nothing) while Han connects to the
    first: its page cannot know. Once the listener is back (the callback it makes on
    reconnecting), the server reads who is connected elsewhere and the page shows Han."""
    async with two_servers(postgres_url) as (servers, tables):
        campaign, token, watcher = await _han_and_a_watcher(servers, tables)
        assert servers[1].deployment is not None
        deaf = servers[1].deployment.followers
        await asyncio.to_thread(deaf.stop)
        await tables[0].connect(campaign, token)
        probe = PostgresPresence(postgres_url, "probe", expiry=5.0)
        try:  # the first server has published Han
            for _ in range(500):
                if "han" in await asyncio.to_thread(probe.elsewhere, campaign):
                    break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError("the first server never published Han")
        finally:
            probe.close()
        frames: list[dict[str, Any]] = []
        with pytest.raises(TimeoutError):
            await watcher.read_all(frames, timeout=0.3)
        assert not any("han" in f["connected"] for f in frames if f["type"] == "table")
        deaf.listener._on_back()  # what the listener calls once it listens again
        await _until_connected(watcher, {"gm", "han"})
        await watcher.close()


def test_serve_refuses_a_presence_expiry_that_is_not_positive(
        postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An expiry of 0 (or less) would forget every process at once: ``poolhall serve``
    refuses it at start with the flag named, before the database is touched."""
    from poolhall.clients.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["serve", "--db", postgres_url, "--port", "0", "--presence-expiry", "0"]) == 2
    assert "--presence-expiry must be more than 0 seconds, not 0" in capsys.readouterr().err
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        assert connection.execute("SELECT to_regclass('events')").fetchone() == (None,)
