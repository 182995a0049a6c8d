"""The plain schema in SQLite, created on a new file, and the one migration to it.

Every promise of the log is a constraint SQLite enforces (see :mod:`poolhall.events.log_contract`):

- ``UNIQUE (campaign, seq)`` on ``events``: a second event at a sequence number is refused;
- ``PRIMARY KEY (campaign, command_id)`` on ``commands``: a command id is recorded once per
  campaign;
- triggers refuse UPDATE and DELETE on ``events``, ``commands`` and ``sealed_tokens``;
- ``CHECK`` s: sequence numbers from 1, a command's range in order, each payload valid JSON.

Beside them: ``sealed_tokens`` (the token a command issued, sealed under its retry key),
``issued_tokens`` (which campaign each token hash was issued for, derived from the events,
written in the same transaction), ``write_probes`` (a row each time the log recovered from
failing writes) and, created by the snapshot store, ``snapshots``.

**The migration.** Files written before issue 28 kept the same columns in ``events`` but
no unique key the database enforced on ``(campaign, seq)`` (the *block layout*: an index
unique within a block only, with ``event_runs`` and a command index in generations), and
before that, for a few hours, a ``journal`` table beside ``events``. A file whose
``user_version`` is not :data:`PLAIN` is rewritten once, in one transaction, when a server
opens it for writing: the rows of ``events`` (then of ``journal``, the tail of that layout's
append order) copied into the plain table in their append order, the commands in the order
they were recorded, every derived table of the old layouts dropped. A row the old layout
held twice is refused by the new constraints, and the file is left as it was.
"""

from __future__ import annotations

import logging
import sqlite3
import time

from poolhall.events.sqlite_backend.issued_tokens import create_table

__all__ = ["PLAIN", "create_or_migrate", "is_plain"]

logger = logging.getLogger("poolhall.events.sqlite_backend")

PLAIN = 28
"""``PRAGMA user_version`` of a file in the plain schema (the issue that made it)."""

COLUMNS = "campaign, seq, type, version, payload, recorded_at, actor, command_id, hash"
"""An event's columns, as the writer inserts them (``position`` is SQLite's rowid)."""

_EVENTS = """CREATE TABLE events (
    position INTEGER PRIMARY KEY,
    campaign TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    type TEXT NOT NULL,
    version INTEGER NOT NULL,
    payload TEXT NOT NULL CHECK (json_valid(payload)),
    recorded_at TEXT NOT NULL,
    actor TEXT NOT NULL,
    command_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    UNIQUE (campaign, seq))"""

_COMMANDS = """CREATE TABLE commands (
    campaign TEXT NOT NULL,
    command_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    first_seq INTEGER NOT NULL CHECK (first_seq >= 1),
    last_seq INTEGER NOT NULL CHECK (last_seq >= first_seq),
    PRIMARY KEY (campaign, command_id))"""

_CREATED = "CREATE INDEX commands_created ON commands (campaign) WHERE first_seq = 1"
"""Each campaign's creating command (its event 1): the server lists campaigns at start
through this small index, not through a scan of every command."""

_SEALED = ("CREATE TABLE IF NOT EXISTS sealed_tokens (campaign TEXT NOT NULL,"
           " command_id TEXT NOT NULL, sealed TEXT NOT NULL, PRIMARY KEY (campaign, command_id))")

_PROBES = "CREATE TABLE IF NOT EXISTS write_probes (at TEXT NOT NULL, room BLOB NOT NULL)"

_APPEND_ONLY = ("CREATE TRIGGER IF NOT EXISTS {table}_no_{change} BEFORE {change} ON {table}"
                " BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END")

_KEPT = {"events", "commands", "sealed_tokens", "issued_tokens", "write_probes", "snapshots"}
"""Tables a migration keeps; every other (the old layouts' derived tables) is dropped."""


def _tables(connection: sqlite3.Connection) -> set[str]:
    return {str(name) for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}


def is_plain(connection: sqlite3.Connection) -> bool:
    """Whether the file is in the plain schema (or empty)."""
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    return int(version) == PLAIN or "events" not in _tables(connection)


def create_or_migrate(connection: sqlite3.Connection) -> None:
    """Create the schema on a new file, or migrate an old one; in one transaction, on a
    connection in autocommit mode (``isolation_level=None``)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        tables = _tables(connection)
        if "events" not in tables:
            connection.execute(_EVENTS)
            connection.execute(_COMMANDS)
            connection.execute(_CREATED)
        elif not is_plain(connection):
            _migrate(connection, tables)
        connection.execute(_SEALED)
        connection.execute(_PROBES)
        filled = create_table(connection)
        for table in ("events", "commands", "sealed_tokens"):
            for change in ("update", "delete"):
                connection.execute(_APPEND_ONLY.format(table=table, change=change))
        connection.execute(f"PRAGMA user_version = {PLAIN}")
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    if filled:
        logger.info("%d issued tokens indexed from the log", filled)


def _migrate(connection: sqlite3.Connection, tables: set[str]) -> None:
    """Rewrite an old layout's ``events`` (and ``journal``) and ``commands`` into the plain
    tables (see the module's docstring)."""
    started = time.perf_counter()
    for table in ("events", "commands"):
        for trigger in ("no_update", "no_delete"):
            connection.execute(f"DROP TRIGGER IF EXISTS {table}_{trigger}")
    connection.execute("ALTER TABLE events RENAME TO old_events")
    connection.execute("ALTER TABLE commands RENAME TO old_commands")
    connection.execute(_EVENTS)
    connection.execute(_COMMANDS)
    source = f"SELECT position, {COLUMNS} FROM old_events"
    if "journal" in tables:
        source += f" UNION ALL SELECT position, {COLUMNS} FROM journal"
    moved = connection.execute(
        f"INSERT INTO events (position, {COLUMNS}) SELECT * FROM ({source}) ORDER BY position"
    ).rowcount
    connection.execute(
        "INSERT INTO commands (campaign, command_id, actor, first_seq, last_seq)"
        " SELECT campaign, command_id, actor, first_seq, last_seq FROM old_commands"
        " ORDER BY rowid")
    connection.execute(_CREATED)
    for table in sorted(t for t in _tables(connection) - _KEPT if not t.startswith("sqlite_")):
        connection.execute(f'DROP TABLE "{table}"')
    (path,) = [str(row[2]) for row in connection.execute("PRAGMA database_list")
               if row[1] == "main"]
    logger.info("%s: migrated to the plain schema, %d events in %.1f s", path, moved,
                time.perf_counter() - started)
