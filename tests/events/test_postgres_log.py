"""The PostgreSQL log on a real PostgreSQL (a fresh schema per test): the promises the
database itself keeps, and the conflict path between two processes' appends."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from events.errors import ConcurrencyError, StoreError
from events.log import GENESIS
from events.postgres_backend import PostgresLog
from tests.events.store_contract import opened, request, rolled


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
    """Sequence numbers from 1 per campaign; each result carries its events' hashes."""
    results = log.append_batch([
        request("a", 0, opened("a"), rolled(1), command="a1"),
        request("b", 0, opened("b"), command="b1"),
        request("a", 2, rolled(2), command="a2"),
    ])
    assert results == [[1, 2], [1], [3]]
    rows = list(log.rows("a"))
    assert [r.seq for r in rows] == [1, 2, 3]
    assert [r.hash for r in rows] == results[0].hashes + results[2].hashes  # type: ignore[union-attr]
    assert log.head_hash("a") == (3, rows[-1].hash) and log.head_hash("z") == (0, GENESIS)
    assert log.campaigns() == ["a", "b"]
    assert log.verify() == (4, [])


def test_the_database_refuses_a_second_event_at_a_seq(log: PostgresLog,
                                                      postgres_url: str) -> None:
    """UNIQUE (campaign, seq) holds in the database, whoever writes."""
    log.append_batch([request("a", 0, opened("a"))])
    with psycopg.connect(postgres_url) as connection, pytest.raises(
            psycopg.errors.UniqueViolation, match="events_campaign_seq"):
        connection.execute(
            "INSERT INTO events (campaign, seq, type, version, payload, recorded_at, actor,"
            " command_id, hash) VALUES ('a', 1, 'x', 1, '{}', '', 'gm', 'other', '')")


def test_the_database_refuses_a_reused_command_id(log: PostgresLog, postgres_url: str) -> None:
    """UNIQUE (campaign, command_id) holds in the database: a retry appends nothing."""
    log.append_batch([request("a", 0, opened("a"), command="once")])
    results = log.append_batch([request("a", 1, rolled(2), command="once")])
    assert isinstance(results[0], ConcurrencyError) and "once" in str(results[0])
    assert log.head("a") == 1
    with psycopg.connect(postgres_url) as connection, pytest.raises(
            psycopg.errors.UniqueViolation, match="commands_campaign_command_id"):
        connection.execute("INSERT INTO commands VALUES ('a', 'once', 'gm', 2, 2)")


@pytest.mark.parametrize("statement", [
    "UPDATE events SET actor = 'mallory'",
    "DELETE FROM events",
    "TRUNCATE events",
    "UPDATE commands SET actor = 'mallory'",
    "DELETE FROM commands",
    "TRUNCATE issued_tokens",
    "TRUNCATE sealed_tokens",
])
def test_the_log_is_append_only_in_the_database(log: PostgresLog, postgres_url: str,
                                                statement: str) -> None:
    """Triggers refuse every change but an insert, on every table of the log."""
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


def test_an_expected_head_past_the_log_is_refused(log: PostgresLog) -> None:
    """A request naming a head the campaign has not reached appends nothing (no gap)."""
    log.append_batch([request("a", 0, opened("a"))])
    (result,) = log.append_batch([request("a", 5, rolled(1), command="far")])
    assert isinstance(result, ConcurrencyError) and log.head("a") == 1


def test_verify_detects_an_edited_dropped_or_reordered_event(log: PostgresLog,
                                                             postgres_url: str) -> None:
    """verify reports an edited payload and a missing event (triggers bypassed by a
    superuser's session_replication_role, as an attacker with the disk would)."""
    log.append_batch([request("a", 0, opened("a"), rolled(1), rolled(2), rolled(3))])
    with psycopg.connect(postgres_url) as connection:
        try:
            connection.execute("SET session_replication_role = replica")
        except psycopg.errors.InsufficientPrivilege:
            pytest.skip("needs a superuser to bypass the triggers")
        connection.execute("UPDATE events SET payload = replace(payload::text, '\"total\":3',"
                           " '\"total\":6')::json WHERE seq = 4")
        connection.execute("DELETE FROM events WHERE seq = 2 AND campaign = 'a'")
    checked, problems = log.verify()
    assert checked == 3
    assert [(p.seq, p.problem.split(":")[0]) for p in problems] == [
        (3, "expected event 2, found 3"), (4, "hash does not chain")]


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
