"""A hub stores its campaign's catch-up pages as it grows, a log written before included; a
failure to store them costs nothing but their reading."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from pathlib import Path

import pytest
from events.framed_pages import STORED_PAGE

from events import core, framed_pages
from events.dice import RolledTerm
from events.log import AppendRequest, prepare
from events.sqlite_backend import SqliteLog
from server import derived_writes
from server.hub import PAGES_EVERY
from tests.conftest import Table, until
from tests.server.raw import RawPeer
from tests.server.test_lazy_campaigns import restart


def _stored(db_path: Path, campaign: str) -> list[int]:
    """Where each of the campaign's stored pages starts."""
    with sqlite3.connect(db_path) as db:
        try:
            return [after for (after,) in db.execute(
                "SELECT after_seq FROM framed_pages WHERE campaign = ? ORDER BY after_seq",
                [campaign])]
        except sqlite3.OperationalError:  # no page stored yet
            return []


async def _old_log(table: Table, rolls: int) -> tuple[str, str, int]:
    """A campaign of ``rolls`` rolls appended straight to the log, as a release that stored
    no pages left it; its id, the GM's token and its head."""
    campaign, gm = await table.create_campaign("d12")
    token, head = gm._token, gm.head
    await table.close_clients()
    await table.server.stop()
    log = SqliteLog(table.db_path)
    try:
        requests = [AppendRequest(
            campaign=campaign, expected_head=head + n, actor="gm", command_id=f"old-{n}",
            at="2026-11-23T08:00:00.000Z", events=(prepare(core.DiceRolled(
                expression="1d6", terms=(RolledTerm(sides=6, faces=(n % 6 + 1,)),),
                total=n % 6 + 1)),)) for n in range(rolls)]
        assert all(isinstance(r, list) for r in log.append_batch(requests))
    finally:
        log.close()
    return campaign, token, head + rolls


async def _replayed(table: Table, token: str, campaign: str, head: int) -> list[int]:
    """The seqs a replay from 0 delivers, up to ``head``."""
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(token, campaign, since=0, replay=True)
        seqs: list[int] = []
        while not seqs or seqs[-1] < head:
            frame = await peer.recv()
            if frame["type"] == "event":
                seqs.append(frame["seq"])
        return seqs
    finally:
        await peer.close()


async def test_a_log_written_before_gets_its_pages_a_bounded_number_per_store(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """A campaign whose log has no stored pages gets them from its next appends on, at most
    ``STORE_MOST`` events a store; replays are whole and in order before, during and after."""
    campaign, token, head = await _old_log(table, 1400)
    monkeypatch.setattr(framed_pages, "STORE_MOST", 400)
    await restart(table)
    assert _stored(table.db_path, campaign) == []
    assert await _replayed(table, token, campaign, head) == list(range(1, head + 1))
    gm = await table.connect(campaign, token)
    await gm.call(core.Roll, expression="1d6")
    await until(lambda: _stored(table.db_path, campaign) == [0, 200])
    await gm.call(core.Roll, expression="1d6")
    await until(lambda: _stored(table.db_path, campaign) == [0, 200, 400, 600])
    head = gm.head
    assert await _replayed(table, token, campaign, head) == list(range(1, head + 1))


async def test_a_failed_store_is_logged_once_and_its_pages_built_instead(
        table: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """When the pages cannot be stored the failure is logged, those pages are skipped (not
    tried again at every append) and a replay builds them from the rows."""
    campaign, token, head = await _old_log(table, 1100)
    server = await restart(table)
    calls: list[int] = []

    def failing(campaign: str, after: int | None, upto: int) -> int:
        calls.append(upto)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(server.log, "store_frame_pages", failing)
    gm = await table.connect(campaign, token)
    with caplog.at_level(logging.ERROR, logger="server.hub"):
        for _ in range(3):  # each after the last store attempt ended
            await gm.call(core.Roll, expression="1d6")
            await until(lambda: calls and not server.hubs[campaign]._writes.paging)
    assert calls == [head + 1] and 3 < PAGES_EVERY
    assert [r.message for r in caplog.records] == [
        f"storing the catch-up pages of {campaign} up to #{head + 1} failed"]
    assert _stored(table.db_path, campaign) == []
    head = gm.head
    assert await _replayed(table, token, campaign, head) == list(range(1, head + 1))


async def test_events_appended_during_a_store_are_looked_at_when_it_ends(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store is not started while another runs; the appends made meanwhile are looked at
    once it ends, so the pages they completed are stored without waiting for another."""
    campaign, token, head = await _old_log(table, 1100)
    server = await restart(table)
    monkeypatch.setattr(derived_writes, "PAGES_EVERY", STORED_PAGE)
    gate = threading.Event()
    store = server.log.store_frame_pages

    def held(campaign: str, after: int | None, upto: int) -> int:
        assert gate.wait(10)
        return store(campaign, after, upto)

    monkeypatch.setattr(server.log, "store_frame_pages", held)
    gm = await table.connect(campaign, token)
    await gm.call(core.Roll, expression="1d6")  # stores up to 1,000, held
    for _ in range(4):
        await asyncio.gather(*(gm.call(core.Roll, expression="1d6") for _ in range(50)))
    assert gm.head >= 1200 and server.hubs[campaign]._writes.paging
    gate.set()
    await until(lambda: _stored(table.db_path, campaign) == list(range(0, 1200, 200)))
