"""A report link opens on any process of a deployment, once.

The browser table opens the report's path (``/report/<ticket>``) in a new tab: a plain
``GET`` that a proxy that is not sticky sends to any process, and so is the reload of a
"being made" page. The tickets used to live in the memory of the process that issued them:
behind three processes, two links in three were refused as "used already or too old". They
are now in the database too; any process makes the page from the log, and the database
spends each ticket once for all of them."""

from __future__ import annotations

import asyncio
import itertools
import urllib.error
import urllib.request
from pathlib import Path

from poolhall.clients.client import Client
from poolhall.events import core
from tests.server.raw import RawPeer
from tests.server.several_processes import admin_token, processes

LINKS = 4
"""Report links asked of one process, each opened through the others."""


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def _open(ports: list[int], path: str) -> tuple[int, str]:
    """GET ``path`` as a browser behind a proxy that is not sticky: each reload of a "being
    made" page (202) reaches the next process."""
    for port in itertools.islice(itertools.cycle(ports), 60):
        status, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{port}{path}")
        if status != 202:
            return status, body
        await asyncio.sleep(0.5)
    raise AssertionError(f"{path} was still being made after 60 reloads")


async def test_a_report_link_opens_on_every_process_once(postgres_url: str,
                                                         tmp_path: Path) -> None:
    with processes(postgres_url, tmp_path) as ports:
        urls = [f"ws://127.0.0.1:{port}" for port in ports]
        admin = Client(urls[0], admin_token(tmp_path), None)
        await admin.connect()
        created = await admin.call(core.CreateCampaign, name="Dice Night", system="d12")
        await admin.close()
        assert created.campaign
        assert created.token
        gm = Client(urls[1], created.token, created.campaign)
        await gm.connect()
        await gm.call(core.StartSession, title="One")
        await gm.call(core.Roll, expression="2d6")
        await gm.close()
        peer = await RawPeer.open(urls[0])
        try:
            assert (await peer.join(created.token, created.campaign))["type"] == "welcome"
            paths = []
            for n in range(LINKS):
                await peer.send({"type": "report", "id": f"report-{n}", "session": 1})
                answer = await peer.recv_until("report", timeout=30)
                paths.append(answer["path"])
        finally:
            await peer.close()
        for n, path in enumerate(paths):
            others = [ports[1 + n % 2], ports[2 - n % 2]]  # never the issuing process first
            status, body = await _open(others, path)
            assert status == 200, body
            assert "Dice Night" in body
            assert "<svg" in body
            for port in ports:  # spent for every process
                status, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{port}{path}")
                assert status == 404, body
                assert "used already" in body
