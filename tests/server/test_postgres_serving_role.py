"""Serving as a PostgreSQL role that does not own the log's tables: the owner migrates and
grants it what a serving process needs (``poolhall migrate --grant-to ROLE``), a table plays
through it, and it can neither change the log nor switch the append-only triggers off (the
owner can: docs/how-to/postgresql.md)."""

from __future__ import annotations

import random
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from poolhall.events import core
from poolhall.server.app import Server
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Table
from tests.missing import missing
from tests.postgres import server_url, with_schema
from tests.serve_process import poolhall


def as_role(url: str, role: str) -> str:
    """``url`` with its connections acting as ``role`` (``-c role=``: PostgreSQL checks every
    statement against that role's privileges alone), in the same schema."""
    base, _, query = url.partition("?")  # urlunsplit would drop the "//" of an empty host
    fields = dict(urllib.parse.parse_qsl(query))
    fields["options"] = f"{fields.get('options', '')} -crole={role}".strip()
    return f"{base}?{urllib.parse.urlencode(fields, quote_via=urllib.parse.quote)}"


@pytest.fixture
def serving_role(postgres_url: str) -> Iterator[str]:
    """A new role that owns nothing, which the tests' role may act as; dropped after (with
    the privileges it was granted)."""
    role = f"ph_serving_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url(), autocommit=True, connect_timeout=10) as connection:
        allowed = connection.execute("SELECT rolcreaterole OR rolsuper FROM pg_roles"
                                     " WHERE rolname = current_user").fetchone()
        if not allowed or not allowed[0]:
            missing("the tests' PostgreSQL role may not create roles (CREATEROLE):"
                    " sh tests/install-postgresql.sh gives it", "CI's role is created so")
        connection.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role)))
        connection.execute(sql.SQL("GRANT {} TO current_user").format(sql.Identifier(role)))
    try:
        yield role
    finally:
        with psycopg.connect(server_url(), autocommit=True) as connection:
            connection.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
            connection.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


async def test_a_role_granted_by_migrate_serves_and_cannot_change_the_log(
        postgres_url: str, serving_role: str, tmp_path: Path) -> None:
    """The owner migrates and grants; a server connected as the granted role plays a table
    (campaign, invite, rolls, snapshots, presence); that role's own statements cannot update
    or delete an event, nor switch the triggers off; it verifies the log."""
    said = poolhall("migrate", "--db", postgres_url, "--grant-to", serving_role,
                    cwd=tmp_path).stdout
    assert "created the schema (version 4); granted " + serving_role in said, said
    serving = as_role(postgres_url, serving_role)
    server = Server(serving, "127.0.0.1", 0, rng=random.Random(7), admin_token=ADMIN_TOKEN,
                    settings=Settings(snapshot_every=2))
    await server.start()
    table = Table(server, Path("."))
    try:
        campaign, gm = await table.create_campaign("narrative")
        invite = await gm.call(core.Invite, role="player", name="Ana")
        assert invite.token
        ana = await table.connect(campaign, invite.token)
        ack = await ana.call(core.Roll, expression="3d6")
        await gm.wait_for_seq(ack.seqs[-1])
        assert [roll.expression for roll in gm.state.rolls] == ["3d6"]
    finally:
        await table.close_clients()
        await server.stop()
    with psycopg.connect(serving, autocommit=True) as connection:
        assert connection.execute("SELECT current_user").fetchone() == (serving_role,)
        assert connection.execute("SELECT count(*) FROM snapshots").fetchone() != (0,)
        for statement in ("UPDATE events SET actor = 'mallory' WHERE seq = 2",
                          "DELETE FROM commands",
                          "ALTER TABLE events DISABLE TRIGGER events_append_only",
                          "DROP TRIGGER events_append_only ON events",
                          "TRUNCATE fair_seeds"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                connection.execute(statement)
    checked = poolhall("verify", serving, cwd=tmp_path)
    assert "ok:" in checked.stdout, checked.stdout


def test_grant_to_a_role_the_server_lacks_is_refused_in_words(
        postgres_url: str, tmp_path: Path) -> None:
    """A mistyped role: exit 2, naming it and how to create it, before anything is created
    (the schema's tables were made, and the message did not say so)."""
    result = poolhall("migrate", "--db", postgres_url, "--grant-to", "no_such_role_here",
                      cwd=tmp_path, check=False)
    assert result.returncode == 2, result
    assert "has no role named 'no_such_role_here'; create it first" in result.stderr
    assert "nothing was created or changed" in result.stderr
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT to_regclass('events')").fetchone() == (None,)


def test_migrate_into_a_schema_not_created_says_to_create_it(tmp_path: Path) -> None:
    """A deployment's schema named in the URL but not created: the owner's ``migrate
    --grant-to`` says the schema is missing and how to create it, not to run the command it
    ran."""
    schema = f"t_missing_{uuid.uuid4().hex[:12]}"
    url = with_schema(server_url(), schema)
    with psycopg.connect(server_url()) as connection:
        row = connection.execute("SELECT current_user").fetchone()
    assert row is not None
    result = poolhall("migrate", "--db", url, "--grant-to", row[0], cwd=tmp_path,
                      check=False)
    assert result.returncode != 0, result
    assert (f"The schema {schema} that the URL names does not exist: create it first"
            in result.stderr), result.stderr
    assert f"CREATE SCHEMA {schema} AUTHORIZATION" in result.stderr
    assert "--grant-to ROLE" not in result.stderr


def test_grant_to_on_a_sqlite_file_is_refused_and_leaves_it_alone(tmp_path: Path) -> None:
    """A SQLite file has no roles: exit 2, and the file is not opened (a 0.1.0 file is not
    migrated by a command that was refused)."""
    database = tmp_path / "old.db"
    database.write_bytes(b"")
    result = poolhall("migrate", "--db", str(database), "--grant-to", "someone",
                      cwd=tmp_path, check=False)
    assert result.returncode == 2, result
    assert "--grant-to is for a postgresql:// database" in result.stderr
    assert database.read_bytes() == b""


async def test_a_role_not_granted_is_told_to_migrate_as_the_owner(
        postgres_url: str, serving_role: str, tmp_path: Path) -> None:
    """Serving as a role that may not create the tables (nor read them): the server says which
    command the owner runs, and does not start."""
    result = poolhall("serve", "--db", as_role(postgres_url, serving_role), "--port", "0",
                      cwd=tmp_path, check=False)
    assert result.returncode != 0
    assert "poolhall migrate --db URL --grant-to ROLE" in result.stderr, result.stderr


def _at_schema_version_3(url: str) -> None:
    """Take the schema this release made back to version 3, as release 27f0b80 left it: no
    report tickets' table, no unique index of creations."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP INDEX commands_one_creation")
        connection.execute("DROP TABLE report_tickets")
        connection.execute("UPDATE deployment SET value = '3' WHERE key = 'schema_version'")


def test_the_serving_role_on_an_older_schema_is_told_the_versions_and_the_owner(
        postgres_url: str, serving_role: str, tmp_path: Path) -> None:
    """A server of this release started as the serving role before the owner's ``migrate``,
    and ``migrate`` run as that role: both refuse (exit 1, nothing changed), naming the
    schema's version and the one this release needs, and saying the owner runs ``migrate
    --grant-to`` (they said the role "may not create or read the log's tables", which reads
    them, and never why)."""
    poolhall("migrate", "--db", postgres_url, "--grant-to", serving_role, cwd=tmp_path)
    _at_schema_version_3(postgres_url)
    with psycopg.connect(postgres_url) as connection:
        row = connection.execute("SELECT current_user").fetchone()
    assert row is not None
    owner = row[0]
    serving = as_role(postgres_url, serving_role)
    for command in (("serve", "--db", serving, "--port", "0"), ("migrate", "--db", serving)):
        result = poolhall(*command, cwd=tmp_path, check=False)
        assert result.returncode == 1, result
        said = " ".join(result.stderr.split())
        assert ("The log's schema is at version 3 and this release needs version 4, which"
                f" role {serving_role} may not make: it does not own the tables") in said, said
        assert (f"Run `poolhall migrate --db URL --grant-to {serving_role}` of this release"
                f" as the tables' owner ({owner}), not as {serving_role}") in said, said
        assert "may not create or read" not in said
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT value FROM deployment WHERE key ="
                                  " 'schema_version'").fetchone() == ("3",)
        assert connection.execute("SELECT to_regclass('report_tickets')").fetchone() == (None,)
