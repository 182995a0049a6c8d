"""Three real ``poolhall serve`` processes on one PostgreSQL: one table played through all
three at once. Every client sees every event once, in one order, and every command is
acknowledged exactly once, whichever process it reached."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from tests.serve_process import free_port, serve_database
from tests.server.raw import RawPeer

COMMANDS_EACH = 12
"""Rolls each sender sends at once (two senders a process; under the 16 a member may have
in flight)."""


def serve(url: str, port: int, cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    """``poolhall serve --db URL`` on ``port``, once its health check answers."""
    return serve_database(url, port, cwd, log)


@pytest.fixture
def three(postgres_url: str, tmp_path: Path) -> Iterator[list[str]]:
    """Three servers on one database, started one after the other (the first makes the
    admin token), each in the same working directory; their ws:// URLs."""
    processes = []
    urls = []
    try:
        for n in range(3):
            port = free_port()
            processes.append(serve(postgres_url, port, tmp_path, tmp_path / f"serve{n}.log"))
            urls.append(f"ws://127.0.0.1:{port}")
        yield urls
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


async def _created(url: str, tmp_path: Path) -> tuple[str, str]:
    """A d12 campaign created through the server at ``url`` with the deployment's admin
    token: its id and its GM's token."""
    admin_token = next(tmp_path.glob("poolhall-*.admin-token")).read_text().strip()
    admin = Client(url, admin_token, None)
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Shared", system="d12")
    await admin.close()
    assert created.campaign
    assert created.token
    return created.campaign, created.token


async def _watch(url: str, token: str, campaign: str, since: int, last: asyncio.Future[int],
                 ) -> list[tuple[int, str, str]]:
    """Every event frame one connection receives after ``since``, until ``last``."""
    peer = await RawPeer.open(url)
    welcome = await peer.join(token, campaign, since=since)
    assert welcome["type"] == "welcome", welcome
    frames: list[tuple[int, str, str]] = []
    try:
        while not last.done() or not frames or frames[-1][0] < last.result():
            try:
                frame = await peer.recv(timeout=0.5)
            except TimeoutError:
                continue
            if frame["type"] == "event":
                frames.append((frame["seq"], frame["hash"], frame["command"]))
    finally:
        await peer.close()
    return frames


async def _send(url: str, token: str, campaign: str, since: int, prefix: str
                ) -> dict[str, list[dict[str, Any]]]:
    """Send :data:`COMMANDS_EACH` rolls at once; every answer, by command id."""
    peer = await RawPeer.open(url)
    assert (await peer.join(token, campaign, since=since))["type"] == "welcome"
    ids = [f"{prefix}-{n}" for n in range(COMMANDS_EACH)]
    for command_id in ids:
        await peer.send({"type": "roll", "id": command_id, "expression": "1d6"})
    answers: dict[str, list[dict[str, Any]]] = {command_id: [] for command_id in ids}
    pending = set(ids)
    try:
        while pending:
            frame = await peer.recv(timeout=30)
            if frame["type"] in ("ack", "error") and frame.get("id") in answers:
                answers[frame["id"]].append(frame)
                pending.discard(frame["id"])
        late: list[dict[str, Any]] = []
        with pytest.raises(TimeoutError):  # and nothing answered twice
            await peer.read_all(late, timeout=0.5)
        for frame in late:
            if frame["type"] in ("ack", "error") and frame.get("id") in answers:
                answers[frame["id"]].append(frame)
    finally:
        await peer.close()
    return answers


async def test_three_servers_one_table_every_client_sees_the_same_log(
        three: list[str], tmp_path: Path) -> None:
    """Clients of one campaign on three processes; commands to all three at once."""
    campaign, gm_token = await _created(three[0], tmp_path)
    gm = Client(three[1], gm_token, campaign)  # the campaign reached through another process
    await gm.connect()
    invited = await gm.call(core.Invite, role="player", characters=("han",))
    assert invited.token
    await gm.wait_for_seq(invited.seqs[-1])
    since = gm.head
    await gm.close()

    last: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    watchers = [asyncio.create_task(_watch(url, token, campaign, since, last))
                for url in three for token in (gm_token, invited.token)]
    await asyncio.sleep(0.5)  # every watcher joined before the first command
    answers_by_sender = await asyncio.gather(*(
        _send(url, token, campaign, since, f"s{n}-{m}")
        for n, url in enumerate(three) for m, token in enumerate((gm_token, invited.token))))
    answers = {k: v for sender in answers_by_sender for k, v in sender.items()}
    assert all(len(replies) == 1 for replies in answers.values())  # each answered once
    assert all(replies[0]["type"] == "ack" for replies in answers.values()), [
        r for r in answers.values() if r[0]["type"] != "ack"][:3]
    acked = sorted(seq for replies in answers.values() for seq in replies[0]["seqs"])
    assert len(acked) == len(set(acked))  # each applied once
    # one event each: the campaign's first epoch began after every process opened the log,
    # so none ends it as one that may come from a backup (docs: fairness.md)
    assert len(answers) == 6 * COMMANDS_EACH
    assert all(len(replies[0]["seqs"]) == 1 for replies in answers.values())
    last.set_result(acked[-1])
    seen = await asyncio.wait_for(asyncio.gather(*watchers), 60)
    expected = list(range(since + 1, acked[-1] + 1))
    for frames in seen:  # no gap, no duplicate, the same events in the same order
        assert [seq for seq, _, _ in frames] == expected
        assert frames == seen[0]
    by_seq = {seq: command for seq, _, command in seen[0]}
    for command_id, replies in answers.items():
        assert {by_seq[seq] for seq in replies[0]["seqs"]} == {command_id}


async def test_an_epoch_begun_after_a_process_started_is_not_ended_by_it(
        three: list[str], tmp_path: Path) -> None:
    """A process ends the fair epoch it found open when it loaded the campaign only if that
    epoch began before the process opened the log (the log may be a backup put back then):
    one begun since, on another process, is the log it serves, and ending it again would
    only add events. Every process's first roll here is one event (docs: fairness.md)."""
    campaign, gm_token = await _created(three[0], tmp_path)
    clients = [Client(url, gm_token, campaign) for url in three]
    try:
        head = 0
        for client in clients:  # each process loads the campaign in its first epoch
            await client.connect()
            await client.wait_for_seq(head, timeout=10)
            rolled = await client.call(core.Roll, expression="1d6")
            assert len(rolled.seqs) == 1
            head = rolled.seqs[0]
    finally:
        for client in clients:
            await client.close()
