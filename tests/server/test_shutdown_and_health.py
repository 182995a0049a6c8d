"""Graceful shutdown on SIGTERM loses no acknowledged command; health answers over HTTP."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from clients.client import Client
from events import core
from events.errors import ConnectionLost, PoolhallError


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start_serve(db: Path, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "clients.cli", "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=db.parent,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as reply:
                if reply.status == 200:
                    return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("server did not start: " + process.stdout.read().decode())


async def test_health_check_answers_over_plain_http(tmp_path) -> None:
    """GET /health answers 200 with the campaign count."""
    port = _free_port()
    process = _start_serve(tmp_path / "h.db", port)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as reply:
            assert reply.status == 200 and reply.read().startswith(b"ok")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(20) == 0


async def test_sigterm_finishes_in_flight_commands_and_loses_no_ack(tmp_path) -> None:
    """Every command acknowledged before a SIGTERM is in the log after the server exits."""
    port = _free_port()
    db = tmp_path / "term.db"
    process = _start_serve(db, port)
    url = f"ws://127.0.0.1:{port}"
    admin_token = (tmp_path / "term.db.admin-token").read_text().strip()
    admin = Client(url, admin_token, reconnect=False)
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Term", system="d12")
    await admin.close()
    gm = Client(url, created.token, created.campaign, reconnect=False)
    await gm.connect()
    acked: list[int] = []

    async def roll_forever() -> None:
        while True:
            try:
                ack = await gm.call(core.Roll, expression="1d6")
            except (ConnectionLost, PoolhallError, OSError):
                return
            acked.extend(ack.seqs)

    rollers = [asyncio.create_task(roll_forever()) for _ in range(8)]
    while len(acked) < 200:
        await asyncio.sleep(0.01)
    process.send_signal(signal.SIGTERM)
    await asyncio.wait_for(asyncio.gather(*rollers), 30)
    assert process.wait(30) == 0
    await gm.close()
    with sqlite3.connect(db) as connection:
        stored = {seq for (seq,) in connection.execute(
            "SELECT seq FROM events WHERE campaign = ?", [created.campaign])}
    assert set(acked) <= stored
    assert len(acked) >= 200
