"""Reaching the PostgreSQL database: its URL, its schema's creation, its NOTIFY channel, and
its errors in one line without the URL's password (shared by the log, its appender and the
listener)."""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from poolhall.events import one_creation
from poolhall.events.database_names import safe_name, schema_named
from poolhall.events.postgres_backend.schema import CHANNEL, SCHEMA_VERSION, STATEMENTS, UPGRADES

__all__ = ["TCP_DEFAULTS", "channel_for", "connect", "conninfo", "create_schema",
           "missing_schema", "reason", "upgrade_refused", "url_problem"]

logger = logging.getLogger("poolhall.events.postgres_backend")

TCP_DEFAULTS: dict[str, int] = {
    "keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}
"""libpq's TCP settings for every connection whose URL does not set its own: a database cut
off without a reset (a network partition drops packets; nothing says the connection is gone)
is given up after about 25 s of silence on an idle connection (the listener's) and 30 s of
unanswered data on a busy one (an append in flight), instead of the kernel's 15 minutes or
so. The append then fails and the command is answered ``unavailable`` (a retry with its id is
answered once), the listener reconnects and ``/health`` says why meanwhile. Unix-socket
connections ignore them."""

MAX_CHANNEL = 63
"""The longest NOTIFY channel PostgreSQL takes, in bytes (an identifier: NAMEDATALEN - 1)."""

_SCHEMA_LOCK = 7_366_001
"""The advisory lock taken while the schema is created, so processes starting together
create it once (a one-``bigint`` key: the campaigns' append locks take two ``integer``
keys, a space of their own, :mod:`.append`)."""


def conninfo(url: str) -> str:
    """``url`` with the :data:`TCP_DEFAULTS` it does not set itself (the URL's own win:
    ``?keepalives_idle=60``)."""
    given = conninfo_to_dict(url)
    return make_conninfo(url, **{key: value for key, value in TCP_DEFAULTS.items()
                                 if key not in given})


def url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a database URL, read without connecting (``None``: it
    reads as one).

    libpq reports a port out of range only when connecting, as an operational error like a
    database that is down: checked here, a malformed URL is told apart from a database that
    cannot be reached. The message never shows the URL's password.
    """
    try:
        given = conninfo_to_dict(url)
    except psycopg.ProgrammingError as error:
        return reason(error).replace(url, safe_name(url))
    for port in str(given.get("port") or "").split(","):
        if port and not (port.isdigit() and 1 <= int(port) <= 65535):
            return f"the port {port!r} is not a number from 1 to 65535"
    return None


def connect(url: str, **options: Any) -> psycopg.Connection[Any]:
    """A connection to ``url`` with the :data:`TCP_DEFAULTS` (``options``: psycopg's)."""
    return psycopg.connect(conninfo(url), **options)


def channel_for(connection: psycopg.Connection[Any], base: str = CHANNEL) -> str:
    """The NOTIFY channel ``base`` (the heads', or the presence's) of the schema this
    connection works in."""
    row = connection.execute("SELECT current_schema()").fetchone()
    schema = row[0] if row else None
    if schema in (None, "public"):
        return base
    channel = f"{base}_{schema}"
    if len(channel.encode()) <= MAX_CHANNEL:
        return channel
    # pg_notify refuses a longer channel ("channel name too long"), which failed every
    # append of a schema named with more than about 45 characters: name it by a digest
    return f"{base}_{hashlib.sha256(schema.encode()).hexdigest()[:32]}"


def create_schema(connection: psycopg.Connection[Any]) -> str | None:
    """Create the schema if it is not at :data:`SCHEMA_VERSION` (every statement idempotent;
    one transaction, under an advisory lock); one at an older version gets the statements of
    :data:`~poolhall.events.postgres_backend.schema.UPGRADES` only. What it did, in words
    (``poolhall migrate`` says it), or ``None`` when the schema was there.

    A schema already there is left alone, not created again: its triggers' DDL takes a lock
    on each table that deadlocked with the appends of the processes already serving, when a
    process restarted beside them."""
    if (_schema_version(connection) or 0) >= SCHEMA_VERSION:
        return None
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
        found = _schema_version(connection)  # another process may have made it meanwhile
        if (found or 0) >= SCHEMA_VERSION:
            return None
        for statement in STATEMENTS if found is None else UPGRADES[found]:
            connection.execute(statement.encode())
        _one_creation(connection)
    if found is None:
        return f"created the schema (version {SCHEMA_VERSION})"
    return f"upgraded the schema from version {found} to {SCHEMA_VERSION}"


def _one_creation(connection: psycopg.Connection[Any]) -> None:
    """Make the unique index of creations if the schema has none, leaving out the campaigns
    an earlier release let a command id create a second time
    (:mod:`poolhall.events.one_creation`)."""
    row = connection.execute("SELECT to_regclass(%s) IS NOT NULL",
                             [one_creation.INDEX]).fetchone()
    if row and row[0]:
        return
    strays = [str(found[0]) for found in connection.execute(one_creation.STRAYS.encode())]
    if strays:
        logger.warning("%s", one_creation.strays_warning(strays))
    connection.execute(one_creation.index_statement(strays).encode())


def _schema_version(connection: psycopg.Connection[Any]) -> int | None:
    row = connection.execute("SELECT to_regclass('deployment') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return None
    found = connection.execute(
        "SELECT value FROM deployment WHERE key = 'schema_version'").fetchone()
    return int(found[0]) if found else None


def missing_schema(url: str) -> str:
    """What to do when PostgreSQL selected no schema to create the tables in, in words: the
    schema the URL names is not there (``CREATE SCHEMA`` is a step of its own, which
    ``poolhall migrate`` does not take), or this role may not use it (a serving role its
    owner has not granted yet). Told apart by asking the database again: the first message
    said to run ``migrate --grant-to`` to the owner who had just run it."""
    schema = schema_named(url) or "public"
    name = schema if re.fullmatch(r"[a-z_][a-z0-9_$]*", schema) \
        else '"' + schema.replace('"', '""') + '"'
    create = (f"create it first, owned by the role that is to own the tables (`CREATE SCHEMA"
              f" {name} AUTHORIZATION that_role`, as a role that may), then run `poolhall"
              " migrate` as that role")
    grant = ("have the tables' owner run `poolhall migrate --db URL --grant-to ROLE` for a"
             " role that serves without owning them")
    try:
        with connect(url, autocommit=True, connect_timeout=10) as connection:
            row = connection.execute("SELECT EXISTS (SELECT FROM pg_namespace"
                                     " WHERE nspname = %s)", [schema]).fetchone()
    except psycopg.Error:
        row = None
    if row is None:
        return (f"The schema {schema} may not exist ({create}), or this role may not use it"
                f" ({grant})")
    if not row[0]:
        return f"The schema {schema} that the URL names does not exist: {create}"
    return f"This role may not use the schema {schema}: {grant}"


def upgrade_refused(url: str) -> str | None:
    """Why this role could not open the log, in words, when the cause is that the schema is
    at an older version which only the tables' owner may upgrade (``None``: not that, or the
    database does not say).

    A server of a new release started as the serving role before ``migrate``, or ``poolhall
    migrate`` run as that role, was told the role "may not create or read the log's tables",
    though it reads them: the version it found and the one this release needs were never
    named, nor the owner who upgrades it. Asked again on a connection of its own, as
    :func:`missing_schema` does (the failed statement ended the first)."""
    try:
        with connect(url, autocommit=True, connect_timeout=10) as connection:
            found = _schema_version(connection)
            row = connection.execute(
                "SELECT current_user, (SELECT tableowner FROM pg_tables WHERE"
                " schemaname = current_schema() AND tablename = 'events')").fetchone()
    except psycopg.Error:
        return None
    if found is None or found >= SCHEMA_VERSION or row is None:
        return None
    role, owner = str(row[0]), row[1]
    by = f"the tables' owner ({owner})" if owner and owner != role else "the tables' owner"
    return (f"The log's schema is at version {found} and this release needs version"
            f" {SCHEMA_VERSION}, which role {role} may not make: it does not own the tables."
            f" Run `poolhall migrate --db URL --grant-to {role}` of this release as {by},"
            f" not as {role}; then start the servers of this release")


def reason(error: BaseException) -> str:
    """A database error in one line, without the URL's password."""
    return " ".join(str(error).split()) or type(error).__name__
