"""Shared fixtures: a real server on an ephemeral loopback port with a real SQLite file.

``table`` starts :class:`poolhall.server.app.Server` on 127.0.0.1 port 0 with a log in ``tmp_path``
and a seeded dice generator, and hands out real :class:`poolhall.clients.client.Client` connections.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import hypothesis
import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.server.app import Server
from tests.postgres import fresh_schema
from tests.web.chromium import KEY, stop_before

ADMIN_TOKEN = "ph_test-admin-token-0123456789abcdef"

hypothesis.settings.register_profile("poolhall", deadline=None)
hypothesis.settings.load_profile("poolhall")
"""Property tests check what is computed, never how fast: the suite runs on two busy cores
(a browser, servers, PostgreSQL), where Hypothesis's default 200 ms deadline per example
failed an exact-odds property now and then for the machine's load, not the code."""

os.environ["TZ"] = "UTC"
time.tzset()
"""The terminal and the page show log times on the reader's clock: the tests read them in UTC
wherever they run (and the CLIs they start inherit it); ``tests/clients/test_local_clock.py``
reads them elsewhere."""


class Table:
    """A running server and the clients connected to it in one test."""

    def __init__(self, server: Server, db_path: Path) -> None:
        self.server = server
        self.db_path = db_path
        self.admin_token = server.admin_token
        self.clients: list[Client] = []

    @property
    def url(self) -> str:
        return self.server.url

    async def connect(self, campaign: str | None, token: str, **options: object) -> Client:
        """A connected client for ``token`` in ``campaign``."""
        client = Client(self.url, token, campaign, **options)  # type: ignore[arg-type]
        await client.connect()
        self.clients.append(client)
        return client

    async def create_campaign(self, system: str, name: str = "Test Campaign") -> tuple[str, Client]:
        """Create a campaign with the admin token; return its id and a connected GM client."""
        admin = await self.connect(None, self.admin_token)
        ack = await admin.call(core.CreateCampaign, name=name, system=system)
        assert ack.campaign
        assert ack.token
        gm = await self.connect(ack.campaign, ack.token)
        await gm.wait_for_seq(ack.seqs[-1])
        return ack.campaign, gm

    async def invite(self, gm: Client, role: str, characters: tuple[str, ...] = (),
                     name: str | None = None) -> Client:
        """Invite a member through the GM and return their connected client."""
        ack = await gm.call(core.Invite, role=role, characters=characters, name=name)
        assert ack.token
        client = await self.connect(gm.campaign, ack.token)
        await client.wait_for_seq(ack.seqs[-1])
        return client

    async def close_clients(self) -> None:
        for client in self.clients:
            await client.close()
        self.clients.clear()


async def until(condition: Callable[[], object], turns: int = 2000) -> None:
    """Wait for ``condition`` to hold, checking every 10 ms; fail after ``turns`` checks."""
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


async def start_server(db_path: Path, seed: int = 1234) -> Server:
    """Start a real server on an ephemeral loopback port."""
    server = Server(db_path, "127.0.0.1", 0, rng=random.Random(seed), admin_token=ADMIN_TOKEN)
    await server.start()
    return server


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    """A real server on 127.0.0.1:0 with a real SQLite file and seeded dice."""
    db_path = tmp_path / "poolhall.db"
    server = await start_server(db_path)
    table = Table(server, db_path)
    try:
        yield table
    finally:
        await table.close_clients()
        await table.server.stop()  # the one running now: a test may have restarted it
        keep = os.environ.get("POOLHALL_KEEP_DBS")  # to capture event fixtures from real logs
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(db_path, Path(keep) / f"{uuid.uuid4().hex}.db")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL database's URL whose connections use a fresh schema of their own
    (``tests/postgres.py``; never skipped in CI)."""
    yield from fresh_schema()


@pytest.fixture
async def pg_table(postgres_url: str) -> AsyncIterator[Table]:
    """A real server on 127.0.0.1:0 on a real PostgreSQL (a fresh schema) and seeded dice."""
    server = Server(postgres_url, "127.0.0.1", 0, rng=random.Random(1234),
                    admin_token=ADMIN_TOKEN)
    await server.start()
    table = Table(server, Path("."))
    try:
        yield table
    finally:
        await table.close_clients()
        await table.server.stop()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Stop a worker's Chromium before its first test outside the browser tests."""
    stop_before(item)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop a worker's Chromium if its last test was a browser test."""
    chromium = session.config.stash.get(KEY, None)
    if chromium is not None:
        chromium.stop()
