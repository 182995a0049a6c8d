"""Real ``poolhall serve`` processes on one PostgreSQL, restarted one at a time in a game session
whose fair-roll epoch holds the GM's secret roll: the deployment never stopped, so no restarted
process takes the epoch for one a backup put back, and the dice never wait; with every process
stopped (a killed one's heartbeat expired), the next one does, as a backup put back needs
(docs: fairness.md, several-servers.md)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.errors import CommandRejected
from tests.serve_process import free_port, serve_database

EXPIRY = 1.0
"""``--presence-expiry`` of the processes: a killed one stops counting as serving after it."""


class _Deployment:
    """Real ``poolhall serve`` processes on one database, started and stopped on demand."""

    def __init__(self, url: str, cwd: Path) -> None:
        self.url, self.cwd = url, cwd
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        """Each running process, by its ws:// URL."""

    def start(self) -> str:
        """One more process, once its health check answers; its ws:// URL."""
        port = free_port()
        url = f"ws://127.0.0.1:{port}"
        self.processes[url] = serve_database(
            self.url, port, self.cwd, self.cwd / f"serve{port}.log",
            options=("--presence-expiry", str(EXPIRY)))
        return url

    def stop(self, url: str, how: signal.Signals = signal.SIGTERM) -> None:
        """Stop the process at ``url`` (``SIGTERM``: cleanly; ``SIGKILL``: its row stays)."""
        process = self.processes.pop(url)
        process.send_signal(how)
        process.wait(20)

    def admin_token(self) -> str:
        return next(self.cwd.glob("poolhall-*.admin-token")).read_text().strip()


@pytest.fixture
def deployment(postgres_url: str, tmp_path: Path) -> Iterator[_Deployment]:
    started = _Deployment(postgres_url, tmp_path)
    try:
        yield started
    finally:
        for process in started.processes.values():
            process.terminate()
        for process in started.processes.values():
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


async def _secret_session(url: str, admin_token: str) -> tuple[str, str]:
    """A d12 campaign created through ``url``, in a game session whose epoch holds the GM's
    secret roll (not revealed before the session ends): its id and the GM's token."""
    admin = Client(url, admin_token, None)
    await admin.connect()
    try:
        created = await admin.call(core.CreateCampaign, name="Secret", system="d12")
    finally:
        await admin.close()
    assert created.campaign
    assert created.token
    gm = Client(url, created.token, created.campaign)
    await gm.connect()
    try:
        await gm.call(core.StartSession, title="Cloud City")
        await gm.call(core.Roll, expression="1d20", visibility="gm")
    finally:
        await gm.close()
    return created.campaign, created.token


async def _roll(url: str, token: str, campaign: str) -> int:
    """A roll through the process at ``url`` (which loads the campaign): how many events it
    appended (one: no epoch was ended). Raises :class:`CommandRejected` if refused."""
    gm = Client(url, token, campaign)
    await gm.connect()
    try:
        return len((await gm.call(core.Roll, expression="3d20")).seqs)
    finally:
        await gm.close()


async def test_processes_restarted_one_at_a_time_roll_on_in_a_secret_epoch(
        deployment: _Deployment) -> None:
    """Two processes; each restarted in turn while the other serves (as an upgrade does):
    the epoch open began while the deployment served, so the restarted process rolls in it,
    one event a roll, and so does every process after both were restarted."""
    first, second = deployment.start(), deployment.start()
    campaign, gm = await _secret_session(first, deployment.admin_token())
    deployment.stop(second)
    second = deployment.start()
    assert await _roll(second, gm, campaign) == 1  # was refused "the dice wait"
    assert await _roll(first, gm, campaign) == 1
    deployment.stop(first)
    first = deployment.start()
    assert await _roll(first, gm, campaign) == 1
    assert await _roll(second, gm, campaign) == 1


async def test_a_process_started_after_every_process_stopped_makes_the_dice_wait(
        deployment: _Deployment) -> None:
    """One process stopped cleanly, the other killed (its heartbeat left behind) and its
    expiry passed: the deployment stopped, as it is to put a backup back, so the next process
    takes the epoch open for one that may come from a backup, and its secret roll makes every
    roll wait for the GM to end the session."""
    first, second = deployment.start(), deployment.start()
    campaign, gm = await _secret_session(first, deployment.admin_token())
    deployment.stop(first)
    deployment.stop(second, signal.SIGKILL)
    time.sleep(EXPIRY + 0.5)
    third = deployment.start()
    with pytest.raises(CommandRejected, match="the dice wait"):
        await _roll(third, gm, campaign)
