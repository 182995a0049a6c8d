"""Who is at the table, across real ``poolhall serve`` processes on one PostgreSQL: a member
connected to one process shows as connected on the page of a member on another (the
``table`` message's ``connected``, which the page's **At the table** reads), goes when they
leave, goes within the expiry when their process is killed, and a process started later
learns who is connected elsewhere."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from tests.serve_process import free_port, serve_database
from tests.server.raw import RawPeer

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
    admin = Client(a, (tmp_path / "poolhall.admin-token").read_text().strip(), None)
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
