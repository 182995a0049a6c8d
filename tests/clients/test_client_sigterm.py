"""A client rolling through a server stopped with SIGTERM and started again, as a rolling restart
does (docs: several-servers.md, "Restart or upgrade without a pause"): the commands that reach
the server while it drains are refused ``shutting_down`` unapplied, and the client sends them
again, same id, once it has resumed; its caller never sees the refusal."""

from __future__ import annotations

import asyncio
import logging
import signal
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from poolhall.clients.client import Client, new_command
from poolhall.events import core
from poolhall.events.messages import Ack
from tests.serve_process import free_port, start_serve

UNLIMITED = ("--member-rate", "1000", "--member-burst", "1000",
             "--campaign-rate", "1000", "--campaign-burst", "1000")
"""Rates no roller reaches: a ``rate_limited`` wait would only slow the test."""


async def test_rolls_sent_while_the_server_stops_are_each_acked_once_after_the_restart(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Eight rollers on one client while the SQLite server is stopped with SIGTERM and started
    again on the same file, twice: every roll gets exactly one ack (none raised to its caller),
    and each is in the log once, at the seqs it was acked with."""
    caplog.set_level(logging.INFO, logger="poolhall.clients.client")
    port, db = free_port(), tmp_path / "restart.db"
    process = start_serve(db, port, *UNLIMITED)
    url = f"ws://127.0.0.1:{port}"
    admin = Client(url, (tmp_path / "restart.db.admin-token").read_text().strip())
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Rolling", system="d12")
    await admin.close()
    assert created.token is not None
    assert created.campaign is not None
    acks: dict[str, list[Ack]] = {}
    failures: list[str] = []
    rolling = True
    async with Client(url, created.token, created.campaign, reconnect_for=30) as gm:

        async def roll_on() -> None:
            while rolling:
                command = new_command(core.Roll, expression="1d6")
                try:
                    acks.setdefault(command.id, []).append(await gm.send(command))
                except Exception as error:  # what the caller would have to handle by hand
                    failures.append(f"{type(error).__name__}: {error}")

        rollers = [asyncio.create_task(roll_on()) for _ in range(8)]
        try:
            for _ in range(2):
                acked = len(acks)
                while len(acks) < acked + 50:  # rolling hard when the stop comes
                    await asyncio.sleep(0.01)
                process.send_signal(signal.SIGTERM)
                assert await asyncio.to_thread(process.wait, 20) == 0
                process = await asyncio.to_thread(start_serve, db, port, *UNLIMITED)
            acked = len(acks)
            while len(acks) < acked + 20:  # the held rolls were answered, and more went on
                await asyncio.sleep(0.01)
        finally:
            rolling = False
            await asyncio.wait_for(asyncio.gather(*rollers), 30)
            process.send_signal(signal.SIGTERM)
            await asyncio.to_thread(process.wait, 20)
    assert failures == []
    assert gm.reconnects >= 2
    # the stops did meet rolls: refused shutting_down, held, and sent again
    assert "the server is shutting down: the roll command" in caplog.text
    assert all(len(answers) == 1 for answers in acks.values())
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT command_id, seq, type FROM events WHERE campaign = ?",
                                  [created.campaign]).fetchall()
    rolled = Counter(command for command, _, kind in rows if kind == "dice_rolled")
    assert rolled == dict.fromkeys(acks, 1)  # every acked roll once, and nothing else rolled
    for command_id, [ack] in acks.items():
        assert sorted(seq for command, seq, _ in rows if command == command_id) == ack.seqs
