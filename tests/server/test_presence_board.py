"""The presence board's contract (:mod:`tests.server.presence_contract`) on both boards: in
memory, and on a real PostgreSQL (a fresh schema per test) with its notifications heard by
the real listener; then what only the database has: its tables and column made by an
upgrade."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from poolhall.events.postgres_backend import PostgresLog
from poolhall.events.postgres_backend.database import channel_for
from poolhall.events.postgres_backend.listener import HeadListener
from poolhall.events.postgres_backend.presence import PostgresPresence
from poolhall.events.postgres_backend.schema import PRESENCE_CHANNEL, SCHEMA_VERSION
from poolhall.server.presence_board import MemoryPresence, PresenceBoard, PresenceSpace
from tests.server.presence_contract import Deployment, PresenceContract, until


class _MemoryDeployment:
    def __init__(self) -> None:
        self.heard: list[str] = []
        self.space = PresenceSpace()
        self.space.listen(self.heard.append)
        self.boards: list[MemoryPresence] = []

    def board(self, process: str, expiry: float = 30.0) -> PresenceBoard:
        self.boards.append(MemoryPresence(process, expiry=expiry, space=self.space))
        return self.boards[-1]

    def quiet(self) -> list[str]:
        heard, self.heard[:] = list(self.heard), []  # notified as they are sent
        return heard


class TestMemoryPresence(PresenceContract):
    """The contract, in memory."""

    @pytest.fixture
    def deployment(self) -> Iterator[Deployment]:
        deployment = _MemoryDeployment()
        yield deployment
        for board in deployment.boards:
            board.close()
        assert deployment.space.rows == {}  # every process withdrawn


class _PostgresDeployment:
    def __init__(self, url: str) -> None:
        self.url = url
        self.heard: list[str] = []
        self.boards: list[PostgresPresence] = []
        self.listener = HeadListener(url, on_head=lambda *_: None, on_lost=lambda _: None,
                                     on_back=lambda: None, on_presence=self.heard.append)

    def board(self, process: str, expiry: float = 30.0) -> PresenceBoard:
        self.boards.append(PostgresPresence(self.url, process, expiry=expiry))
        return self.boards[-1]

    def quiet(self) -> list[str]:
        """A marker notified after everything sent so far (delivered in commit order)."""
        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute("SELECT pg_notify(%s, '-marker-')",
                               [channel_for(connection, PRESENCE_CHANNEL)])
        until(lambda: "-marker-" in self.heard)
        heard = self.heard[:self.heard.index("-marker-")]
        del self.heard[:len(heard) + 1]
        return heard


class TestPostgresPresence(PresenceContract):
    """The contract on a real PostgreSQL, notifications heard on the listening connection
    the server uses."""

    @pytest.fixture
    def deployment(self, postgres_url: str) -> Iterator[Deployment]:
        PostgresLog(postgres_url).close()  # the schema
        deployment = _PostgresDeployment(postgres_url)
        deployment.listener.start()
        assert deployment.listener.listening.wait(10)
        try:
            yield deployment
        finally:
            deployment.listener.stop()
            for board in deployment.boards:
                board.close()


def test_an_older_schema_gets_the_presence_tables(postgres_url: str) -> None:
    """A database made by the previous release (schema version 1, no presence tables) is
    upgraded by the next process that opens it: the tables made, the version raised."""
    PostgresLog(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("DROP TABLE presence, presence_processes")
        connection.execute("UPDATE deployment SET value = '1' WHERE key = 'schema_version'")
    PostgresLog(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        version = connection.execute(
            "SELECT value FROM deployment WHERE key = 'schema_version'").fetchone()
        found = connection.execute("SELECT relname, relpersistence FROM pg_class WHERE relname"
                                   " IN ('presence', 'presence_processes') AND relkind = 'r'"
                                   " AND relnamespace = current_schema()::regnamespace"
                                   " ORDER BY relname").fetchall()
    assert version == (str(SCHEMA_VERSION),)
    assert found == [("presence", "u"), ("presence_processes", "u")]  # unlogged


def test_a_schema_of_version_2_gets_serving_since_and_its_processes_count_as_none(
        postgres_url: str) -> None:
    """A database of schema version 2 (the presence tables without ``serving_since``) is
    upgraded by the next process that opens it, while the processes made for version 2 beat on
    and write no time: a process entering beside only them serves since it opened the log
    (the careful side: an epoch open then is ended as one that may come from a backup)."""
    PostgresLog(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("ALTER TABLE presence_processes DROP COLUMN serving_since")
        connection.execute("UPDATE deployment SET value = '2' WHERE key = 'schema_version'")
        connection.execute("INSERT INTO presence_processes (process, expiry) VALUES ('old', 30)")
    PostgresLog(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        version = connection.execute(
            "SELECT value FROM deployment WHERE key = 'schema_version'").fetchone()
        old = connection.execute("SELECT serving_since FROM presence_processes"
                                 " WHERE process = 'old'").fetchone()
        connection.execute("INSERT INTO presence_processes (process, expiry) VALUES"
                           " ('old-again', 30)")  # as version 2's code revives its row
    assert version == (str(SCHEMA_VERSION),)
    assert old == (None,)
    board = PostgresPresence(postgres_url, "new", expiry=30.0)
    try:
        assert board.enter("2026-11-27T20:00:00.000Z") == "2026-11-27T20:00:00.000Z"
    finally:
        board.close()
