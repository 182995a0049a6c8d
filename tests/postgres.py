"""The PostgreSQL the tests run against, and a fresh schema of it for each test.

The server's URL comes from ``POOLHALL_TEST_POSTGRES`` (``sh tests/install-postgresql.sh``
installs and starts one and prints it); unset, the database ``poolhall_test`` on the local
socket is tried. Each test gets a schema of its own, named in the URL it is handed
(``options=-csearch_path=...``), so tests never see each other's tables and the URL is one a
real ``poolhall serve --db`` takes. No PostgreSQL answering skips the test on a developer's
machine, saying how to get one, and fails it in CI (``CI`` set): a PostgreSQL test is never
skipped there.
"""

from __future__ import annotations

import contextlib
import os
import time
import urllib.parse
import uuid
from collections.abc import Iterator

import psycopg
from psycopg import sql

from tests.missing import missing

__all__ = ["fresh_database", "fresh_schema", "server_url", "with_schema"]

DEFAULT_URL = "postgresql:///poolhall_test"


def server_url() -> str:
    """The URL of the tests' PostgreSQL database (no schema in it)."""
    return os.environ.get("POOLHALL_TEST_POSTGRES") or DEFAULT_URL


def with_schema(url: str, schema: str) -> str:
    """``url`` with its connections' search path set to ``schema``."""
    option = urllib.parse.quote(f"-csearch_path={schema}")
    return f"{url}{'&' if '?' in url else '?'}options={option}"


def _unreachable(error: Exception) -> None:
    message = (f"no PostgreSQL answers at {server_url()} ({str(error).strip()}); "
               "run `export POOLHALL_TEST_POSTGRES=$(sh tests/install-postgresql.sh)`")
    missing(message, "CI never skips a PostgreSQL test")


def fresh_schema() -> Iterator[str]:
    """A URL whose connections use a new empty schema, dropped (with what is in it) after."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    try:
        with psycopg.connect(server_url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("create schema {}").format(sql.Identifier(schema)))
    except psycopg.OperationalError as error:
        _unreachable(error)
    try:
        yield with_schema(server_url(), schema)
    finally:
        with psycopg.connect(server_url(), autocommit=True) as conn:
            conn.execute(sql.SQL("drop schema {} cascade").format(sql.Identifier(schema)))


@contextlib.contextmanager
def fresh_database(url: str) -> Iterator[str]:
    """The URL of a new empty database on the server at ``url``, dropped (its connections
    ended) after: what the benchmarks run on, so that a run starts from an empty log and
    leaves nothing behind, whatever schema other runs left in ``url``'s database."""
    name = f"poolhall_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    parts = urllib.parse.urlsplit(url)  # urlunsplit would drop the "//" of an empty host
    try:
        yield f"{parts.scheme}://{parts.netloc}/{name}" + (f"?{parts.query}" if parts.query
                                                           else "")
    finally:
        _drop_database(url, name)


def _drop_database(url: str, name: str) -> None:
    """Drop database ``name``, ending its connections. An autovacuum worker in it runs as a
    superuser, whose connection a role without ``pg_signal_backend`` may not end (the drop
    is refused: CI failed once on it); it leaves within moments, so the drop is tried again
    for up to 30 s."""
    drop = sql.SQL("drop database {} with (force)").format(sql.Identifier(name))
    deadline = time.monotonic() + 30
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            try:
                conn.execute(drop)
                return
            except psycopg.errors.InsufficientPrivilege:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
