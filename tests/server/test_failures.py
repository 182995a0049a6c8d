"""Failures of the log: a table never hangs, never acts on what is not durable, and recovers."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from poolhall.events import core
from poolhall.events.errors import CommandRejected, ConnectionLost, StoreError
from poolhall.events.log import AppendRequest, AppendResult, Created, StoredRow
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.app import Server
from tests.conftest import ADMIN_TOKEN, Table, until


async def test_a_failed_append_and_failed_reloads_answer_unavailable_then_recover(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """One commit fails, then the log cannot be read: each command is answered
    ``unavailable`` (nothing stored), at once and without a read while ``/health`` says the
    log is failing, and once the log reads and writes again (the writer's probe write
    succeeds) the table plays on."""
    campaign, gm = await table.create_campaign("d12")
    log = table.server.log
    assert log is not None
    head = log.head(campaign)
    real_append, real_rows = log.append_batch, log.rows
    failures = {"append": 1, "rows": 1}
    reads = []

    def failing_append(requests: Sequence[AppendRequest]) -> list[AppendResult]:
        if failures["append"]:
            failures["append"] -= 1
            return [StoreError("disk full")] * len(requests)
        return real_append(requests)

    def failing_rows(*args: Any, **kwargs: Any) -> Iterator[StoredRow]:
        reads.append(args)
        if failures["rows"]:
            failures["rows"] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return real_rows(*args, **kwargs)

    monkeypatch.setattr(log, "append_batch", failing_append)
    monkeypatch.setattr(log, "rows", failing_rows)
    with pytest.raises(CommandRejected) as refusal:  # the failed append; its reload fails
        await gm.call(core.Roll, expression="1d6")
    assert refusal.value.code == "unavailable"
    await until(lambda: table.server.hubs[campaign].stale)  # answered, then reloaded: failed
    assert len(reads) == 1
    assert not table.server.health.ok
    with pytest.raises(CommandRejected) as refusal:  # while /health fails: no read tried
        await gm.call(core.Roll, expression="1d6")
    assert refusal.value.code == "unavailable"
    assert len(reads) == 1
    assert log.head(campaign) == head
    await until(lambda: table.server.health.ok)
    ack = await gm.call(core.Roll, expression="1d6")
    assert ack.seqs == [head + 1]
    assert table.server.hubs[campaign].state.head == head + 1


async def test_stop_while_a_campaign_is_being_created_finishes(table: Table) -> None:
    """A create racing a stop is either made (and its hub stopped) or refused; stop returns.
    (A client that does not reconnect: one that does holds a ``shutting_down`` refusal for the
    server that comes back, tests/clients/test_client_sigterm.py.)"""
    admin = await table.connect(None, table.admin_token, reconnect=False)
    creating = asyncio.create_task(admin.call(core.CreateCampaign, name="Late", system="d12"))
    await asyncio.sleep(0)
    await asyncio.wait_for(table.server.stop(), 10)
    (outcome,) = await asyncio.gather(creating, return_exceptions=True)
    match outcome:
        case CommandRejected(code=code):
            assert code in ("shutting_down", "unavailable")
        case ConnectionLost():
            pass  # the server closed the connection before answering: nothing was acknowledged
        case BaseException():
            raise outcome
        case ack:
            assert ack.campaign in table.server.hubs
            assert table.server.hubs[ack.campaign].closing


async def test_appends_after_the_writer_stopped_are_refused(tmp_path: Path) -> None:
    """Once the writer is stopping nothing more is queued, so nothing waits forever."""
    server = Server(tmp_path / "w.db", "127.0.0.1", 0, admin_token=ADMIN_TOKEN)
    await server.start()
    assert server.committer is not None
    await server.committer.stop()
    with pytest.raises(StoreError):
        await server.committer.append([])
    await server.stop()


async def test_two_stops_at_once_both_wait_for_the_one_shutdown(table: Table) -> None:
    """Overlapping ``stop()`` calls return together, once the log is closed."""
    await asyncio.wait_for(asyncio.gather(table.server.stop(), table.server.stop()), 10)
    assert isinstance(table.server.log, SqliteLog)
    with pytest.raises(sqlite3.ProgrammingError):  # the writer connection is closed
        table.server.log.db.execute("SELECT 1")


async def test_stop_called_while_starting_leaves_nothing_running(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """A stop that arrives during start (here while a slow log lists its campaigns) waits for
    it, then undoes it: the port is closed and the database is free for the next server."""
    import time

    from poolhall.events.sqlite_backend import SqliteReader

    def slow_directory(log: SqliteReader) -> list[Created]:
        time.sleep(0.3)
        return real_directory(log)

    real_directory = SqliteReader.directory
    monkeypatch.setattr(SqliteReader, "directory", slow_directory)
    server = Server(tmp_path / "s.db", "127.0.0.1", 0, admin_token=ADMIN_TOKEN)
    starting = asyncio.create_task(server.start())
    await asyncio.sleep(0.05)
    await asyncio.wait_for(server.stop(), 10)
    with contextlib.suppress(StoreError):
        await starting
    assert server._ws is None or not server._ws.is_serving()
    again = Server(tmp_path / "s.db", "127.0.0.1", 0, admin_token=ADMIN_TOKEN)
    await again.start()  # the file lock was released
    await again.stop()
