"""The PostgreSQL log on a real PostgreSQL (a fresh schema per test): the shared contracts
(:class:`TestPostgresLog` and the side tables'), then what only a shared database has: two
processes' appends, the notifications, TRUNCATE refused on every table."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest

from poolhall.events.errors import ConcurrencyError, StoreError
from poolhall.events.log import GENESIS
from poolhall.events.log_contract import CommandRecord, EventLog, ServerLog
from poolhall.events.postgres_backend import PostgresLog
from poolhall.events.postgres_backend.append import (
    _RECORDED,
    LOCK_SPACE,
    _Batch,
    _hashed,
    lock_key,
)
from poolhall.events.postgres_backend.log import _HASHES_AT, _RECORDS_BY_CAMPAIGN
from poolhall.events.postgres_backend.schema import APPEND_ONLY_TABLES
from tests.events.side_tables_contract import (
    IssuedTokensContract,
    SealedTokensContract,
    SeedVaultContract,
    ServerLogContract,
    SnapshotRowsContract,
)
from tests.events.store_contract import Backend, LogContract, opened, request, rolled
from tests.postgres import fresh_database, server_url


def _url(log: EventLog) -> str:
    assert isinstance(log, PostgresLog)
    return log.url


class Postgres(Backend):
    """The contracts' hooks, on a real PostgreSQL database."""

    integrity_errors = (psycopg.errors.IntegrityError,)

    @pytest.fixture
    def log(self, postgres_url: str) -> Iterator[ServerLog]:
        store = PostgresLog(postgres_url)
        yield store
        store.close()

    def reopen(self, log: EventLog) -> EventLog:
        log.close()
        return PostgresLog(_url(log))

    def execute(self, log: EventLog, sql: str) -> None:
        with psycopg.connect(_url(log)) as connection:
            connection.execute(sql.encode())

    def tamper(self, log: EventLog, *statements: str) -> None:
        with psycopg.connect(_url(log)) as connection:
            for table in APPEND_ONLY_TABLES:
                connection.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}"
                                   .encode())
            for statement in statements:
                connection.execute(statement.encode())

    def database(self, log: EventLog) -> str:
        return _url(log)

    def overwrites(self, table: str, key: tuple[str, ...], columns: tuple[str, ...],
                   change: tuple[str, str]) -> list[str]:
        on = " AND ".join(f"t.{column} = v.{column}" for column in key)
        return [*super().overwrites(table, key, columns, change),
                f"MERGE INTO {table} AS t USING (SELECT {self._selected(columns, change)}"
                f" FROM {table}) AS v ON {on} WHEN MATCHED THEN UPDATE SET"
                f" {change[0]} = v.{change[0]}"]


class TestPostgresLog(Postgres, LogContract):
    """The log's contract, on a real PostgreSQL database."""


class TestPostgresIssuedTokens(Postgres, IssuedTokensContract):
    """Issued tokens in the database."""


class TestPostgresSealedTokens(Postgres, SealedTokensContract):
    """Sealed tokens in the database."""


class TestPostgresSnapshotRows(Postgres, SnapshotRowsContract):
    """Stored snapshots in the database."""


class TestPostgresSeedVault(Postgres, SeedVaultContract):
    """The seed vault in the database."""


class TestPostgresServerLog(Postgres, ServerLogContract):
    """The PostgreSQL log as a server opens it."""


@pytest.fixture
def log(postgres_url: str) -> Iterator[PostgresLog]:
    opened_log = PostgresLog(postgres_url)
    try:
        yield opened_log
    finally:
        opened_log.close()


@pytest.fixture
def other(postgres_url: str, log: PostgresLog) -> Iterator[PostgresLog]:
    """A second process's log on the same database."""
    opened_log = PostgresLog(postgres_url)
    try:
        yield opened_log
    finally:
        opened_log.close()


def test_append_numbers_events_and_chains_them(log: PostgresLog) -> None:
    """Sequence numbers from 1 per campaign; the head's hash read in one query."""
    results = log.append_batch([
        request("a", 0, opened("a"), rolled(1), command="a1"),
        request("b", 0, opened("b"), command="b1"),
        request("a", 2, rolled(2), command="a2"),
    ])
    assert results == [[1, 2], [1], [3]]
    rows = list(log.rows("a"))
    assert [r.seq for r in rows] == [1, 2, 3]
    assert [r.hash for r in rows] == results[0].hashes + results[2].hashes  # type: ignore[union-attr]
    assert log.head_hash("a") == (3, rows[-1].hash)
    assert log.head_hash("z") == (0, GENESIS)
    assert log.campaigns() == ["a", "b"]
    assert log.verify() == (4, [])


def test_a_command_another_process_recorded_gets_its_answer(log: PostgresLog,
                                                              other: PostgresLog) -> None:
    """Two processes append one command id (a client's retry reaching another process):
    the second gets the first's recorded answer and appends nothing."""
    log.append_batch([request("a", 0, opened("a"), command="open")])
    assert other.append_batch([request("a", 1, rolled(2), command="once")]) == [[2]]
    (again,) = log.append_batch([request("a", 1, rolled(2), command="once")])
    assert again == CommandRecord("gm", 2, 2)
    assert log.head("a") == 2


@pytest.mark.parametrize("statement", [f"TRUNCATE {table}" for table in APPEND_ONLY_TABLES])
def test_the_log_is_append_only_in_the_database(log: PostgresLog, postgres_url: str,
                                                statement: str) -> None:
    """Triggers refuse TRUNCATE (which SQLite has not) on every table of the log; the
    contract tests hold the rest."""
    log.append_batch([request("a", 0, opened("a"))])
    with psycopg.connect(postgres_url) as connection, pytest.raises(
            psycopg.errors.RestrictViolation, match="append-only"):
        connection.execute(statement)


def test_two_processes_one_head_the_second_is_refused_alone(log: PostgresLog,
                                                             other: PostgresLog) -> None:
    """Two processes decide against the same head: the one that commits second gets a
    ConcurrencyError for that campaign, its other campaigns still commit."""
    log.append_batch([request("a", 0, opened("a"), command="a0")])
    assert other.append_batch([request("a", 1, rolled(1), command="theirs")]) == [[2]]
    results = log.append_batch([request("a", 1, rolled(2), command="mine"),
                                request("a", 2, rolled(3), command="mine-next"),
                                request("b", 0, opened("b"), command="b0")])
    assert isinstance(results[0], ConcurrencyError)
    assert isinstance(results[1], ConcurrencyError)  # chained from the refused one
    assert results[2] == [1]
    assert [r.command_id for r in log.rows("a")] == ["a0", "theirs"]
    retried = log.append_batch([request("a", 2, rolled(2), command="mine")])
    assert retried == [[3]]
    assert log.verify() == (4, [])


def test_an_append_waits_for_one_in_flight_on_its_campaign_rather_than_failing(
        log: PostgresLog, postgres_url: str) -> None:
    """While another process's append to a campaign is in flight (its lock held), a batch
    naming that campaign waits for it, then finds the head it made: that campaign's request
    is refused before anything is written, the batch's others commit, and the database
    refuses no statement."""
    log.append_batch([request("a", 0, opened("a"), command="a0")])
    with psycopg.connect(postgres_url) as in_flight:  # the lock another process's append holds
        in_flight.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_SPACE, lock_key("a")])
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(log.append_batch, [
                request("a", 1, rolled(2), command="mine"),
                request("b", 0, opened("b"), command="b0")])
            _wait_for_a_lock_wait(postgres_url, in_flight)
            theirs = request("a", 1, rolled(1), command="theirs")  # written as an append does
            rows = _Batch()
            rows.add(theirs, 2, _hashed(theirs, log.head_hash("a")[1]).hashes)
            for statement, params in rows.statements(log.channel):
                in_flight.execute(statement, params)
            assert not waiting.done()
            in_flight.commit()
            results = waiting.result(timeout=30)
    assert isinstance(results[0], ConcurrencyError)
    assert results[1] == [1]
    assert [r.command_id for r in log.rows("a")] == ["a0", "theirs"]
    assert log.verify() == (3, [])


def test_a_writer_that_takes_no_lock_is_still_refused_by_the_database(
        log: PostgresLog, postgres_url: str) -> None:
    """A writer that takes no lock (a process of an older release) inserts the row at the
    seq a batch is about to write: the unique index makes the batch wait for it, the
    database refuses the batch once it commits, and the batch is made again from a fresh
    read: that campaign's request is refused, the others commit."""
    log.append_batch([request("a", 0, opened("a"), command="a0")])
    with psycopg.connect(postgres_url) as legacy:
        legacy.execute(
            "INSERT INTO events (campaign, seq, type, version, payload, recorded_at, actor,"
            " command_id, hash) VALUES ('a', 2, 'dice_rolled', 1, '{}', 'then', 'gm',"
            " 'legacy', 'h')")
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(log.append_batch, [
                request("a", 1, rolled(2), command="mine"),
                request("b", 0, opened("b"), command="b0")])
            _wait_for_a_lock_wait(postgres_url, legacy)
            legacy.commit()
            results = waiting.result(timeout=30)
    assert isinstance(results[0], ConcurrencyError)
    assert results[1] == [1]
    assert [r.command_id for r in log.rows("a")] == ["a0", "legacy"]


def _wait_for_a_lock_wait(url: str, holder: psycopg.Connection[Any]) -> None:
    """Until a session of the database waits for a lock ``holder`` holds (the append in a
    thread)."""
    with psycopg.connect(url, autocommit=True) as looking:
        for _ in range(500):
            row = looking.execute("SELECT count(*) FROM pg_stat_activity"
                                  " WHERE %s = ANY(pg_blocking_pids(pid))",
                                  [holder.info.backend_pid]).fetchone()
            if row and row[0]:
                return
            time.sleep(0.01)
    raise AssertionError("the append never waited")


def test_an_expected_head_past_the_log_is_refused(log: PostgresLog) -> None:
    """A request naming a head the campaign has not reached appends nothing (no gap)."""
    log.append_batch([request("a", 0, opened("a"))])
    (result,) = log.append_batch([request("a", 5, rolled(1), command="far")])
    assert isinstance(result, ConcurrencyError)
    assert log.head("a") == 1


def test_notify_carries_the_new_head_once_committed(log: PostgresLog, postgres_url: str) -> None:
    """Each append's transaction notifies every campaign's new head, on the schema's
    channel."""
    with psycopg.connect(postgres_url, autocommit=True) as listener:
        listener.execute(f'LISTEN "{log.channel}"')
        log.append_batch([request("a", 0, opened("a"), rolled(1)),
                          request("b", 0, opened("b"), command="b")])
        heard = sorted(n.payload for n in listener.notifies(timeout=5, stop_after=2))
    assert heard == ["1 b", "2 a"]


def test_an_unreachable_database_is_a_store_error() -> None:
    """Opening a log nobody serves fails with the URL in plain words, password hidden."""
    with pytest.raises(StoreError, match=r"cannot open postgresql://u:\*\*\*@127.0.0.1:1/x"):
        PostgresLog("postgresql://u:secret@127.0.0.1:1/x?connect_timeout=2")


def _race(url: str, name: str, campaigns: tuple[str, str], turns: int,
          out: Any) -> None:
    """One process's appends: a batch a turn naming both campaigns, at their heads now."""
    store = PostgresLog(url)
    stored: list[str] = []
    failed: list[str] = []
    try:
        for turn in range(turns):
            heads = {c: store.head(c) for c in campaigns}
            batch = [request(c, heads[c], rolled(turn % 6 + 1), command=f"{name}-{c}-{turn}")
                     for c in campaigns]
            for req, result in zip(batch, store.append_batch(batch), strict=True):
                if isinstance(result, ConcurrencyError):
                    continue  # lost the race: the hub decides it again
                if isinstance(result, StoreError):
                    failed.append(str(result))
                else:
                    stored.append(req.command_id)
    finally:
        store.close()
    out.put((stored, failed))


def test_two_processes_racing_on_two_campaigns_never_deadlock(log: PostgresLog,
                                                               postgres_url: str) -> None:
    """Two processes append to the same two campaigns at once, each batch naming them in the
    other's order. Rows go in in one order (by campaign), so the two never wait for each other
    in a cycle (PostgreSQL broke such cycles by failing a batch: "deadlock detected"); a lost
    race is a ConcurrencyError, decided again by the hub, never a failed append."""
    import multiprocessing

    log.append_batch([request("a", 0, opened("a"), command="a0"),
                      request("b", 0, opened("b"), command="b0")])
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    racers = [context.Process(target=_race, args=(postgres_url, name, order, 1000, out))
              for name, order in (("one", ("a", "b")), ("two", ("b", "a")))]
    for racer in racers:
        racer.start()
    results = [out.get(timeout=120) for _ in racers]
    for racer in racers:
        racer.join(30)
    assert [failed for _, failed in results] == [[], []]
    stored = sorted(command for commands, _ in results for command in commands)
    in_log = sorted(row.command_id for c in ("a", "b") for row in log.rows(c)
                    if row.command_id not in ("a0", "b0"))
    assert in_log == stored
    assert stored
    assert log.verify()[1] == []


@pytest.mark.parametrize("statement", ["recorded", "records_by_campaign", "hashes_at"])
def test_batch_look_ups_stay_look_ups_on_a_young_table(log: PostgresLog, statement: str) -> None:
    """A batch's look-ups of command ids (and of chain hashes) use the unique keys, one probe
    an entry, whatever the planner believes of a table no ``ANALYZE`` has seen: written as
    ``IN (SELECT unnest ...)`` or as a join, PostgreSQL hashed the ids and scanned every
    command (2.7 ms a batch of 100 on 50,000 commands, more than the batch's writes)."""
    campaigns = [f"young-{k}" for k in range(100)]
    for turn in range(40):
        results = log.append_batch([request(campaign, turn, rolled(turn),
                                            command=f"cmd-{turn}" if turn else campaign)
                                    for campaign in campaigns])  # one creation a command
        assert all(isinstance(result, list) for result in results)
    queries: dict[str, tuple[str, list[list[Any]]]] = {
        "recorded": (_RECORDED, [campaigns, [f"new-{k}" for k in range(100)]]),
        "records_by_campaign": (_RECORDS_BY_CAMPAIGN, [campaigns, ["cmd-3"] * 100]),
        "hashes_at": (_HASHES_AT, [campaigns, [7] * 100]),
    }
    sql, params = queries[statement]
    with psycopg.connect(log.url) as connection:
        plan = "\n".join(row[0] for row in psycopg.ClientCursor(connection).execute(
            "EXPLAIN " + sql.replace("%b", "%s"), params))
    assert "Seq Scan" not in plan, plan
    assert "Hash" not in plan, plan
    assert "Index" in plan, plan


def _end_sessions_of(database: str) -> None:
    """End every session of ``database`` (the URL of a database of its own: the test
    databases' other sessions belong to other tests, run at the same time), as a restart of
    PostgreSQL ends them all (the database tells each client, then closes its socket)."""
    name = database.rsplit("/", 1)[1].split("?", 1)[0]
    with psycopg.connect(server_url(), autocommit=True) as admin:
        ended = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s"
            " AND pid <> pg_backend_pid() AND usename = current_user",  # not an autovacuum's
            [name]).fetchall()
    assert ended, "no session was ended: the test proves nothing"
    time.sleep(0.2)  # the terminated backends' farewells reach the sockets


def test_reads_and_appends_after_the_database_ended_the_sessions_succeed() -> None:
    """After a restart of PostgreSQL the pool's idle connections and the writer's are dead:
    the first read and the first append take new ones instead of failing (a join was refused
    "the log cannot be read" while ``/health`` said ok, once per dead connection)."""
    with fresh_database(server_url()) as database:
        log = PostgresLog(database)
        try:
            assert log.append_batch([request("restarted", 0, opened("restarted"))])[0] == [1]
            assert log.head("restarted") == 1
            _end_sessions_of(database)
            assert log.head("restarted") == 1
            assert [row.seq for row in log.read("restarted")] == [1]
            assert log.append_batch([request("restarted", 1, rolled(4),
                                                 command="c2")])[0] == [2]
        finally:
            log.close()
