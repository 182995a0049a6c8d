"""One ``create_campaign`` sent to three processes of one deployment at once makes one
campaign, and every process answers it with that campaign and its GM token.

That is what a client does when it resends a creation after reconnecting through a proxy
that is not sticky, while the first process is still committing it. Each process used to
look for the command's campaign once, before its try: one that lost the race then took the
next free id (``x-2``, a second campaign with a GM token nobody holds), refused its own
campaign's id for good (``conflict: exists``), or answered ``unavailable``. The log's unique
index of creations now refuses a second campaign whoever appends it, and a process that
loses the race looks again and answers with the first."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import psycopg.errors
import pytest

from poolhall.events import core
from poolhall.events.backends import open_log
from poolhall.events.errors import ConcurrencyError
from poolhall.events.log import Appended, AppendRequest, CommandRecord, prepare
from tests.server.raw import RawPeer
from tests.server.several_processes import admin_token, processes

CREATIONS = 12
"""Creations sent to all three processes, each at the same moment, half of them naming
their campaign's id: each process creates one at a time, so the three work through the
same command together, every one a race."""


def _bodies() -> list[dict[str, Any]]:
    bodies = []
    for n in range(CREATIONS):
        body = {"type": "create_campaign", "id": f"create-{n}-{secrets.token_hex(4)}",
                "name": f"Race {secrets.token_hex(3)}", "system": "d12",
                "retry_key": secrets.token_urlsafe(24)}
        if n % 2:
            body["campaign"] = f"race-{secrets.token_hex(4)}"
        bodies.append(body)
    return bodies


async def _answers(port: int, token: str, bodies: list[dict[str, Any]]
                   ) -> dict[str, dict[str, Any]]:
    """Send every body through one admin connection without waiting; each answer by id."""
    peer = await RawPeer.open(f"ws://127.0.0.1:{port}")
    try:
        welcome = await peer.join(token, None)
        assert welcome["type"] == "welcome", welcome
        for body in bodies:
            await peer.send(body)
        answers: dict[str, dict[str, Any]] = {}
        while len(answers) < len(bodies):
            frame = await peer.recv(timeout=30)
            if frame["type"] in ("ack", "error"):
                answers[frame["id"]] = frame
        return answers
    finally:
        await peer.close()


async def test_a_creation_sent_to_three_processes_at_once_makes_one_campaign(
        postgres_url: str, tmp_path: Path) -> None:
    with processes(postgres_url, tmp_path) as ports:
        token = admin_token(tmp_path)
        bodies = _bodies()
        answered = await asyncio.gather(*[_answers(port, token, bodies) for port in ports])
    with psycopg.connect(postgres_url) as connection:
        created = connection.execute(
            "SELECT command_id, array_agg(campaign ORDER BY campaign) FROM commands"
            " WHERE first_seq = 1 GROUP BY command_id").fetchall()
    assert {command_id: campaigns for command_id, campaigns in created
            if len(campaigns) > 1} == {}, "one command created several campaigns"
    for body in bodies:
        acks = [answers[body["id"]] for answers in answered]
        assert [ack["type"] for ack in acks] == ["ack"] * 3, acks
        assert len({(ack["campaign"], ack["token"]) for ack in acks}) == 1, acks
        if "campaign" in body:
            assert acks[0]["campaign"] == body["campaign"]
    assert len(created) == CREATIONS


def _creation(campaign: str, command_id: str) -> AppendRequest:
    return AppendRequest(campaign=campaign, expected_head=0, actor="admin",
                         command_id=command_id, at="2026-11-01T08:00:00.000Z",
                         events=(prepare(core.CampaignCreated(campaign=campaign, name=campaign,
                                                              system="d12")),))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_database_refuses_a_second_campaign_of_one_creating_command(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Whoever writes: a second creation (event 1) with a command id that created a campaign
    is refused by the database itself, on both backends, and the batch's other requests are
    stored; a command id used again in another campaign past its event 1 is not refused
    (ids are unique per campaign only)."""
    database = (str(tmp_path / "log.db") if backend == "sqlite"
                else request.getfixturevalue("postgres_url"))
    log = open_log(database)
    try:
        (first,) = log.append_batch([_creation("first", "make-it")])
        assert isinstance(first, Appended)
        again, other, later = log.append_batch([
            _creation("second", "make-it"), _creation("other", "make-other"),
            AppendRequest(campaign="first", expected_head=1, actor="gm",
                          command_id="make-other", at="2026-11-01T08:01:00.000Z",
                          events=(prepare(core.GameSessionStarted(session=1, title="One")),))])
        assert isinstance(again, ConcurrencyError), again
        assert isinstance(other, Appended)
        assert isinstance(later, Appended)
        assert [c.campaign for c in log.directory()] == ["first", "other"]
        assert log.creation("make-it") == ("first", CommandRecord("admin", 1, 1))
    finally:
        log.close()
    raw = (sqlite3.connect(database) if backend == "sqlite"
           else psycopg.connect(database, autocommit=True))
    with contextlib.closing(raw) as connection, \
            pytest.raises((sqlite3.IntegrityError, psycopg.errors.UniqueViolation)):
        connection.execute("INSERT INTO commands (campaign, command_id, actor, first_seq,"
                           " last_seq) VALUES ('third', 'make-it', 'admin', 1, 1)")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_log_from_before_the_index_keeps_its_strays_and_refuses_new_ones(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A log written before the unique index may hold a second campaign of one creating
    command (the defect it prevents): opening it makes the index all the same (PostgreSQL:
    upgraded from schema version 3, with the report tickets' table), leaving that campaign
    out by name, and refuses every new one."""
    database = (str(tmp_path / "log.db") if backend == "sqlite"
                else request.getfixturevalue("postgres_url"))
    log = open_log(database)
    log.append_batch([_creation("first", "make-it")])
    log.close()
    raw = (sqlite3.connect(database, isolation_level=None) if backend == "sqlite"
           else psycopg.connect(database, autocommit=True))
    with contextlib.closing(raw) as connection:
        connection.execute("DROP INDEX commands_one_creation")
        if backend == "postgresql":
            connection.execute("DROP TABLE report_tickets")
            connection.execute("UPDATE deployment SET value = '3'"
                               " WHERE key = 'schema_version'")
        connection.execute("INSERT INTO events (campaign, seq, type, version, payload,"
                           " recorded_at, actor, command_id, hash) VALUES ('first-2', 1,"
                           " 'campaign_created', 1, '{}', '2026-11-01T08:00:00.000Z', 'admin',"
                           " 'make-it', 'unchained')")
        connection.execute("INSERT INTO commands (campaign, command_id, actor, first_seq,"
                           " last_seq) VALUES ('first-2', 'make-it', 'admin', 1, 1)")
    log = open_log(database)
    try:
        (again,) = log.append_batch([_creation("third", "make-it")])
        assert isinstance(again, ConcurrencyError), again
        assert log.creation("make-it") is not None
        if backend == "postgresql":
            tickets = log.deployment()
            assert tickets is not None
            assert tickets.report_tickets().find("0" * 64) is None  # the table is there
    finally:
        log.close()
    raw = (sqlite3.connect(database) if backend == "sqlite"
           else psycopg.connect(database, autocommit=True))
    with contextlib.closing(raw) as connection:
        row = connection.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'commands_one_creation'"
            if backend == "sqlite" else
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'commands_one_creation'"
            " AND schemaname = current_schema()").fetchone()
    assert row is not None
    assert "first-2" in row[0]
