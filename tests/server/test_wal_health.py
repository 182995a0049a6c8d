"""A WAL that grows past its limit is reported, in ``/health`` and in the log (issue 26,
item 12).

A real server on port 0 with a real SQLite file, and a real reader outside it (``sqlite3``,
as an operator's backup or a forgotten shell would be) holding a read transaction while a
member rolls. The limit is lowered on the running writer so that a few hundred kilobytes of
WAL pass it (the real limit is 64 MiB).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sqlite3
from pathlib import Path

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.server.app import Server
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, until
from tests.server.http_raw import send_request

LIMIT = 256 * 1024


async def health(server: Server, json_body: bool = False) -> tuple[int, str]:
    path = "/health?format=json" if json_body else "/health"
    reply = await send_request(server.port, [f"GET {path} HTTP/1.1",
                                             f"Host: 127.0.0.1:{server.port}"])
    return reply.status, reply.body.decode()


async def test_a_wal_held_past_its_limit_is_reported_degraded_then_recovered(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An outside reader holds a snapshot while a member rolls: once the WAL is past its limit
    /health says degraded (still 200) with the size and the limit in words, the log says so
    once; when the reader lets go both say it is over."""
    caplog.set_level(logging.INFO)
    db = tmp_path / "poolhall.db"
    server = Server(db, "127.0.0.1", 0, rng=random.Random(9), admin_token=ADMIN_TOKEN,
                    settings=Settings(member_rate=1000.0, member_burst=1000,
                                      campaign_rate=1000.0, campaign_burst=1000))
    await server.start()
    assert server.committer is not None
    server.committer.wal_limit = LIMIT
    admin = Client(server.url, ADMIN_TOKEN, None)
    reader = sqlite3.connect(db)
    try:
        await admin.connect()
        created = await admin.call(core.CreateCampaign, name="Wal", system="d12")
        gm = Client(server.url, created.token or "", created.campaign)
        await gm.connect()
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM events").fetchone()  # holds its snapshot
        wal = db.with_name(db.name + "-wal")
        rolls = 0
        while wal.stat().st_size <= 2 * LIMIT:
            await asyncio.gather(*(gm.call(core.Roll, expression="3d12") for _ in range(20)))
            rolls += 20
            assert rolls < 5000, "the WAL did not grow"
        await until(lambda: server.health.status == "degraded", turns=1000)
        status, text = await health(server)
        assert status == 200
        assert text.startswith("degraded: WAL past its limit: the WAL file is ")
        assert "its limit 0.2 MiB: a reader holds an old snapshot" in text
        status, body = await health(server, json_body=True)
        document = json.loads(body)
        assert status == 200
        assert document["status"] == "degraded"
        assert [w["part"] for w in document["warnings"]] == ["wal"]
        said = [r for r in caplog.records if "the WAL past its limit" in r.getMessage()]
        assert len(said) == 1
        assert said[0].levelno == logging.WARNING
        reader.rollback()  # the reader lets go: the next checkpoint copies the WAL back
        await until(lambda: server.health.status == "ok", turns=1000)
        assert (await health(server))[1].startswith("ok 1 campaigns")
        assert [r for r in caplog.records if "the WAL back under its limit" in r.getMessage()]
        await gm.close()
    finally:
        reader.close()
        with contextlib.suppress(Exception):
            await admin.close()
        await server.stop()
