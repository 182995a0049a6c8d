"""Graceful shutdown on SIGTERM loses no acknowledged command; health answers over HTTP."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import urllib.request
from pathlib import Path

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.errors import ConnectionLost, PoolhallError
from tests.serve_process import free_port, start_serve


async def test_health_check_answers_over_plain_http(tmp_path: Path) -> None:
    """GET /health answers 200 with the campaign count."""
    port = free_port()
    process = start_serve(tmp_path / "h.db", port)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as reply:
            assert reply.status == 200
            assert reply.read().startswith(b"ok")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(20) == 0


async def test_sigterm_finishes_in_flight_commands_and_loses_no_ack(tmp_path: Path) -> None:
    """Every command acknowledged before a SIGTERM is in the log after the server exits."""
    port = free_port()
    db = tmp_path / "term.db"
    # the default member rate (10 a second) would make the 200 rolls take 17 s
    process = start_serve(db, port, "--member-rate", "1000", "--member-burst", "1000",
                          "--campaign-rate", "1000", "--campaign-burst", "1000")
    url = f"ws://127.0.0.1:{port}"
    admin_token = (tmp_path / "term.db.admin-token").read_text().strip()
    admin = Client(url, admin_token, reconnect=False)
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Term", system="d12")
    await admin.close()
    assert created.token is not None
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
    # wait in a thread: the client must stay free to answer the server's closing handshake
    assert await asyncio.to_thread(process.wait, 30) == 0
    await gm.close()
    with sqlite3.connect(db) as connection:
        stored = {seq for (seq,) in connection.execute(
            "SELECT seq FROM events WHERE campaign = ?", [created.campaign])}
    assert set(acked) <= stored
    assert len(acked) >= 200
