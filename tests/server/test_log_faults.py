"""Faults of the disk the operator must see: /health and one log line for each, commands refused
before they are decided, nothing acknowledged lost, and a shutdown that always finishes."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import signal
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.errors import CommandRejected, ConnectionLost
from poolhall.events.sqlite_backend import SqliteLog, open_error
from poolhall.server.app import Server
from poolhall.server.health import FailureLog
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Table, start_server, until
from tests.serve_process import free_port, poolhall, start_serve
from tests.server.raw import RawPeer


async def get_health(url: str, query: str = "",
                     accept: str = "*/*") -> tuple[int, str, list[str]]:
    """``GET /health`` (off the event loop, which serves it): status, body, content types."""

    def fetch() -> tuple[int, str, list[str]]:
        address = url.replace("ws://", "http://") + "/health" + query
        request = urllib.request.Request(address, headers={"Accept": accept})
        try:
            with urllib.request.urlopen(request, timeout=5) as reply:
                return (reply.status, reply.read().decode(),
                        reply.headers.get_all("Content-Type") or [])
        except urllib.error.HTTPError as error:
            return (error.code, error.read().decode(),
                    error.headers.get_all("Content-Type") or [])

    return await asyncio.to_thread(fetch)


async def test_health_answers_503_while_the_log_cannot_write_and_200_once_it_can(table: Table
                                                                                 ) -> None:
    """After an append fails (the log turned read-only) /health answers 503 with the reason,
    as text and as JSON; once the writer's probe write succeeds it answers 200 again."""
    campaign, gm = await table.create_campaign("d12")
    assert isinstance(table.server.log, SqliteLog)
    writer = table.server.log.db
    writer.execute("PRAGMA query_only=1")
    with pytest.raises(CommandRejected) as refusal:
        await gm.call(core.Roll, expression="1d6")
    assert refusal.value.code == "unavailable"
    status, body, _ = await get_health(table.url)
    assert status == 503
    assert body.startswith("failing: append failed: attempt to write a readonly database")
    for query, accept in (("?format=json", "*/*"), ("", "application/json")):
        status, body, types = await get_health(table.url, query, accept)
        assert status == 503
        assert types == ["application/json"]
        assert json.loads(body)["status"] == "failing"
        assert [p["part"] for p in json.loads(body)["problems"]] == ["append"]
    writer.execute("PRAGMA query_only=0")
    await until(lambda: table.server.health.ok)
    status, body, _ = await get_health(table.url)
    assert status == 200
    assert body.startswith("ok 1 campaigns\nconnections=")
    ack = await gm.call(core.Roll, expression="1d6")
    assert table.server.log.head(campaign) == ack.seqs[-1]


async def test_a_retried_command_gets_its_original_answer_while_the_log_fails(table: Table) -> None:
    """While the log cannot write, a new command is refused ``unavailable`` but the retry of
    one already carried out still gets its original ack: it needs no write."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    assert (await peer.join(table.admin_token, campaign))["type"] == "welcome"
    roll = {"type": "roll", "id": "before-the-fault", "expression": "1d6"}
    await peer.send(roll)
    first = await peer.recv_until("ack")
    assert isinstance(table.server.log, SqliteLog)
    table.server.log.db.execute("PRAGMA query_only=1")
    await peer.send({"type": "roll", "id": "during-the-fault", "expression": "1d6"})
    assert (await peer.recv_until("error"))["code"] == "unavailable"
    await peer.send(roll)
    assert (await peer.recv_until("ack")) == first
    table.server.log.db.execute("PRAGMA query_only=0")
    await peer.close()


async def test_a_full_log_refuses_commands_undecided_and_reloads_once(
        table: Table, caplog: pytest.LogCaptureFixture) -> None:
    """Once the log is full, the command that met it and every later one are answered
    ``unavailable``, nothing more is appended, and the campaign is reloaded (and the fault
    logged) once, not once per command."""
    caplog.set_level(logging.INFO)
    campaign, gm = await table.create_campaign("d12")
    log = table.server.log
    assert isinstance(log, SqliteLog)
    (pages,) = log.db.execute("PRAGMA page_count").fetchone()
    log.db.execute(f"PRAGMA max_page_count={pages}")  # the file may not grow: a full disk
    for _ in range(2000):
        try:
            await gm.call(core.Roll, expression="1d6")
        except CommandRejected as refusal:
            refused = refusal.code
            break
    else:
        raise AssertionError("the log never filled up")
    assert refused == "unavailable"
    head = log.head(campaign)
    for _ in range(20):
        with pytest.raises(CommandRejected) as raised:
            await gm.call(core.Roll, expression="1d6")
        assert raised.value.code == "unavailable"
    hub = table.server.hubs[campaign]
    assert hub.state is not None
    assert log.head(campaign) == head == hub.state.head
    assert hub.reloads == 1
    messages = [record.getMessage() for record in caplog.records]
    assert len([m for m in messages if m.startswith("append failing:")]) == 1
    assert len([m for m in messages if m.startswith("an append failed in")]) == 1
    status, body, _ = await get_health(table.url)
    assert status == 503
    assert "database or disk is full" in body


async def test_commands_are_refused_while_free_space_is_under_the_reserve(tmp_path: Path) -> None:
    """With less free disk space than the reserve, /health answers 503 and commands (and new
    campaigns) are refused ``unavailable`` in plain words, appending nothing."""
    db = tmp_path / "reserve.db"
    server = await start_server(db)
    admin = Client(server.url, ADMIN_TOKEN, reconnect=False)
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Tight", system="d12")
    await admin.close()
    await server.stop()
    server = Server(db, "127.0.0.1", 0, rng=random.Random(1), admin_token=ADMIN_TOKEN,
                    settings=Settings(disk_reserve_mb=2**40))
    await server.start()
    try:
        assert created.token is not None
        gm = Client(server.url, created.token, created.campaign, reconnect=False)
        await gm.connect()
        with pytest.raises(CommandRejected) as refusal:
            await gm.call(core.Roll, expression="1d6")
        assert refusal.value.code == "unavailable"
        assert "disk is nearly full" in refusal.value.message
        await gm.close()
        admin = Client(server.url, ADMIN_TOKEN, reconnect=False)
        await admin.connect()
        with pytest.raises(CommandRejected) as refusal:
            await admin.call(core.CreateCampaign, name="More", system="d12")
        assert refusal.value.code == "unavailable"
        await admin.close()
        assert created.campaign is not None
        assert server.log is not None
        assert server.log.head(created.campaign) == created.seqs[-1]
        status, body, _ = await get_health(server.url)
        assert status == 503
        assert body.startswith("failing: disk nearly full: ")
        assert "under the reserve" in body
    finally:
        await server.stop()


def _move_log_away(db: Path) -> Path:
    """Put a directory where the log was: every new connection to it (a checkpoint) fails,
    while the writer's open connection goes on."""
    moved = db.with_name("moved-" + db.name)
    db.rename(moved)
    db.mkdir()
    return moved


def _put_log_back(db: Path, moved: Path) -> None:
    db.rmdir()
    moved.rename(db)


async def test_a_failing_checkpoint_logs_one_line_and_shows_in_health(
        table: Table, caplog: pytest.LogCaptureFixture) -> None:
    """A checkpoint failing ten times a second logs one line without a traceback and turns
    /health to 503; when a checkpoint succeeds again both say so."""
    caplog.set_level(logging.INFO, logger="poolhall.server.writer")
    committer = table.server.committer
    moved = _move_log_away(table.db_path)
    try:
        assert committer is not None
        await until(lambda: committer.checkpoint_failures >= 5)
        status, body, _ = await get_health(table.url)
        assert status == 503
        assert body.startswith("failing: checkpoint failed:")
    finally:
        _put_log_back(table.db_path, moved)
    await until(lambda: table.server.health.ok)
    messages = [r.getMessage() for r in caplog.records if r.name == "poolhall.server.writer"]
    assert len([m for m in messages if m.startswith("checkpoint failing:")]) == 1
    assert any(m.startswith("checkpoint recovered after") for m in messages)
    assert all(r.exc_info is None for r in caplog.records if r.name == "poolhall.server.writer")


async def test_stop_finishes_every_step_when_the_last_checkpoint_fails(table: Table) -> None:
    """With the checkpoint failing, stop() still returns, a client gets its 1001 close, and
    the log is closed and released: the next server opens it with every acknowledged event."""
    campaign, gm = await table.create_campaign("d12")
    ack = await gm.call(core.Roll, expression="1d6")
    peer = await RawPeer.open(table.url)
    assert (await peer.join(table.admin_token, None))["type"] == "welcome"
    moved = _move_log_away(table.db_path)
    try:
        await asyncio.wait_for(table.server.stop(), 30)
        with pytest.raises(ConnectionClosed):
            await peer.recv()
        assert peer.connection.close_code == 1001
    finally:
        _put_log_back(table.db_path, moved)
    table.server = await start_server(table.db_path)
    hub = await table.server.load(campaign)
    assert hub is not None
    assert hub.state.head == ack.seqs[-1]


async def test_commands_received_but_not_carried_out_get_shutting_down(table: Table) -> None:
    """Every command the server received before a stop is answered: acknowledged, or refused
    ``shutting_down``; none is left with only the 1001 close, even those still waiting in the
    socket's buffers behind a connection whose reading was paused."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    assert (await peer.join(table.admin_token, campaign))["type"] == "welcome"
    ids = [f"burst-{n}" for n in range(3000)]
    frames: list[dict[str, Any]] = []

    async def read_answers() -> None:
        with pytest.raises(ConnectionClosed):
            await peer.read_all(frames, timeout=30)

    reading = asyncio.create_task(read_answers())
    for command_id in ids:
        await peer.send({"type": "roll", "id": command_id, "expression": "1d6"})
    transport = peer.connection.transport
    await until(lambda: transport.get_write_buffer_size() == 0)  # all in the kernel's hands
    stopping = asyncio.create_task(table.server.stop())
    await reading
    await stopping
    assert peer.connection.close_code == 1001
    answers = {frame["id"]: frame.get("code", "ack") for frame in frames
               if frame["type"] in ("ack", "error")}
    assert set(answers) == set(ids)
    assert set(answers.values()) <= {"ack", "shutting_down"}


def test_failure_log_writes_one_line_per_interval() -> None:
    """A failure repeating eight times a second logs when it starts, then once per interval
    with the count, then once when it recovers."""
    now = [0.0]
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("tests.failure_log")
    logger.addHandler(Collect())
    failures = FailureLog(logger, "checkpoint", interval=10, monotonic=lambda: now[0])
    for _ in range(240):  # 30 s of failures, at times exact in binary
        failures.failed(sqlite3.OperationalError("disk I/O error"))
        now[0] += 0.125
    failures.succeeded()
    assert records == [
        "checkpoint failing: disk I/O error",
        "checkpoint still failing: disk I/O error (80 failures in the last 10 s)",
        "checkpoint still failing: disk I/O error (80 failures in the last 10 s)",
        "checkpoint recovered after 240 failures",
    ]


async def _roll_until_the_connection_is_lost(gm: Client, codes: set[str]) -> None:
    """Roll and roll: the codes of the refusals go to ``codes``; the call that finds the
    connection gone raises ``ConnectionLost`` out of here."""
    for _ in range(100_000):
        try:
            await gm.call(core.Roll, expression="1d6")
        except CommandRejected as refusal:
            codes.add(refusal.code)


async def test_sigterm_on_a_full_disk_tells_clients_and_exits_cleanly(tmp_path: Path) -> None:
    """With the disk full (every file capped), commands are refused ``unavailable``, the fault
    is logged, and SIGTERM still exits 0 without a traceback, losing no acknowledged event."""
    port = free_port()
    db = tmp_path / "full.db"
    process = start_serve(db, port, file_size=192 * 1024)
    url = f"ws://127.0.0.1:{port}"
    admin = Client(url, (tmp_path / "full.db.admin-token").read_text().strip(), reconnect=False)
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Full", system="d12")
    await admin.close()
    assert created.token is not None
    gm = Client(url, created.token, created.campaign, reconnect=False)
    await gm.connect()
    acked: list[int] = list(created.seqs)
    try:
        for _ in range(20_000):
            try:
                acked.extend((await gm.call(core.Roll, expression="1d6", reason="x" * 100)).seqs)
            except CommandRejected as refusal:
                refused = refusal.code
                break
        else:
            raise AssertionError("the disk never filled up")
        assert refused == "unavailable"
        process.send_signal(signal.SIGTERM)
        codes: set[str] = set()
        with pytest.raises(ConnectionLost):  # told "unavailable", then "shutting_down", then 1001
            await _roll_until_the_connection_is_lost(gm, codes)
        assert codes <= {"unavailable", "shutting_down"}
    finally:
        process.send_signal(signal.SIGTERM)  # a second one is harmless: stop() runs once
        returncode = await asyncio.to_thread(process.wait, 30)
        await gm.close()
    output = process.stdout.read().decode() if process.stdout else ""
    assert returncode == 0, output
    assert "Traceback" not in output
    assert "append failing:" in output
    with sqlite3.connect(db) as connection:
        stored = {seq for (seq,) in connection.execute(
            "SELECT seq FROM events WHERE campaign = ?", [created.campaign])}
    assert set(acked) <= stored


def test_first_start_on_a_full_disk_says_it_cannot_write(tmp_path: Path) -> None:
    """A first start that cannot write the new log names the write failure, not a "not a
    SQLite database" that sends the operator looking for corruption."""
    result = poolhall("serve", "--db", str(tmp_path / "new.db"), "--port", "0",
                      cwd=tmp_path, check=False, file_size=2048)
    assert result.returncode == 1
    assert "cannot write" in result.stderr
    assert "is its disk full" in result.stderr
    assert "not a SQLite database" not in result.stderr


def test_an_unwritable_admin_token_file_is_named_at_start(tmp_path: Path) -> None:
    """When the admin token cannot be kept beside the log, ``serve`` says so, instead of
    blaming the address it would listen on."""
    (tmp_path / "tok.db.admin-token").mkdir()
    result = poolhall("serve", "--db", str(tmp_path / "tok.db"), "--port", "0",
                      cwd=tmp_path, check=False)
    assert result.returncode == 1
    assert "the token file" in result.stderr
    assert "tok.db.admin-token" in result.stderr
    assert "cannot listen" not in result.stderr


def test_open_errors_name_a_full_disk_and_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    """SQLite's "database or disk is full" reads as no space left; only a file that is not a
    database is called one."""
    connection = sqlite3.connect(tmp_path / "small.db")
    connection.execute("CREATE TABLE t (x)")
    (pages,) = connection.execute("PRAGMA page_count").fetchone()
    connection.execute(f"PRAGMA max_page_count={pages}")
    with pytest.raises(sqlite3.Error) as full:
        connection.execute("INSERT INTO t VALUES (zeroblob(100000))")
    connection.close()
    assert str(open_error(tmp_path / "small.db", full.value)).startswith(
        f"no space left on the disk to write {tmp_path / 'small.db'}")
    (tmp_path / "notes.txt").write_text("not a database, just notes " * 100)
    with pytest.raises(sqlite3.Error) as garbage:
        sqlite3.connect(tmp_path / "notes.txt").execute("PRAGMA journal_mode=wal")
    assert "is not a SQLite database" in str(open_error(tmp_path / "notes.txt", garbage.value))
