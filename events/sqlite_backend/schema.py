"""The plain schema in SQLite, created on a new file, and the one migration to it.

Every promise of the log is a constraint SQLite enforces (see :mod:`poolhall.events.log_contract`):

- ``UNIQUE (campaign, seq)`` on ``events``: a second event at a sequence number is refused;
- ``PRIMARY KEY (campaign, command_id)`` on ``commands``: a command id is recorded once per
  campaign;
- triggers refuse UPDATE and DELETE on ``events``, ``commands``, ``sealed_tokens`` and
  ``fair_seeds``, and an insert at a key or a row number the table already holds: SQLite's
  ``INSERT OR REPLACE`` (or ``REPLACE INTO``) deletes the row in its way without firing a
  DELETE trigger (unless the *writing* connection turned ``recursive_triggers`` on), so
  without that trigger it rewrote a stored event, command, sealed token or seed (through
  the key, or through ``position``, the row number, with a key no row has);
- ``commands_one_creation``, a unique index on ``commands (command_id) WHERE first_seq = 1``:
  one command id creates one campaign at most (a retried ``create_campaign`` is answered
  with the campaign it made, never makes a second one); made at the first open for writing
  of a file from before it (:mod:`poolhall.events.one_creation`);
- ``CHECK`` s: sequence numbers from 1, a command's range in order, each payload valid JSON.

Beside them: ``sealed_tokens`` (the token a command issued, sealed under its retry key),
``issued_tokens`` (which campaign each token hash was issued for, derived from the events,
written in the same transaction), ``fair_seeds`` (the fair rolls' unrevealed seeds:
:mod:`poolhall.events.sqlite_backend.seeds`), ``write_probes`` (a row each time the log
recovered from failing writes) and, created by the snapshot store, ``snapshots``.

**The migration.** Files written before issue 28 kept the same columns in ``events`` but
no unique key the database enforced on ``(campaign, seq)`` (the *block layout*: an index
unique within a block only, with ``event_runs`` and a command index in generations), and
before that, for a few hours, a ``journal`` table beside ``events``. A file whose
``user_version`` is not :data:`PLAIN`, or whose tables are not the plain schema's (a migrated
file that release 0.1.0 opened again: :func:`is_plain`), is rewritten once, in one
transaction, when a server opens it for writing: the rows of ``events`` (then of
``journal``, the tail of that layout's append order) copied into the plain table in their
append order, the commands in the order they were recorded, every derived table of the old
layouts dropped (never a table of the plain schema: :data:`KEPT`). A row the old layout held
twice is refused by the new constraints, and the file is left as it was.

**The triggers** are checked at every open for writing and made again where the file's differ
(:func:`_create_triggers`), so a file of the plain schema written before one of them existed
gets it as it opens, with no new ``user_version`` (which would rewrite the file).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import NamedTuple

from poolhall.events import one_creation
from poolhall.events.sqlite_backend.issued_tokens import create_table

__all__ = ["APPEND_ONLY", "KEPT", "PLAIN", "Migrated", "Opened", "create_or_migrate",
           "is_plain"]

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

_SEEDS = """CREATE TABLE IF NOT EXISTS fair_seeds (
    campaign TEXT NOT NULL,
    epoch INTEGER NOT NULL CHECK (epoch >= 1),
    seed BLOB NOT NULL CHECK (length(seed) = 32),
    PRIMARY KEY (campaign, epoch)
) WITHOUT ROWID"""
"""The fair rolls' seeds (:mod:`poolhall.events.sqlite_backend.seeds`): made with the schema,
so that its triggers hold from the first open and no migration drops it."""

_APPEND_ONLY = ("CREATE TRIGGER {table}_no_{change} BEFORE {change} ON {table}"
                " BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END")

_NO_REPLACE = ("CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table}"
               " WHEN EXISTS (SELECT 1 FROM {table} WHERE {match}){row}"
               " BEGIN SELECT RAISE(ABORT, '{table} are append-only: {what} is stored"
               " already and is never replaced'); END")
"""Refuses an insert at a key the table holds, or at a row number it holds (a table with row
numbers: an explicit ``position`` or ``rowid``), before SQLite's REPLACE could delete the row
there (see the module's docstring); a plain duplicate gets this error instead of the key's.
An insert that leaves the row number to SQLite has ``NEW.rowid`` -1 here, which no row has."""

APPEND_ONLY: dict[str, tuple[tuple[str, ...], str]] = {
    "events": (("campaign", "seq"), "an event at this campaign and seq (or place)"),
    "commands": (("campaign", "command_id"), "a command with this id in this campaign (or place)"),
    "sealed_tokens": (("campaign", "command_id"), "a sealed token of this command (or place)"),
    "fair_seeds": (("campaign", "epoch"), "a seed of this epoch"),
}
"""The append-only tables, each with its key and what a row at that key is, in words."""

_WITHOUT_ROWID = frozenset({"fair_seeds"})
"""The append-only tables with no row number, which REPLACE cannot reach through one."""

KEPT = frozenset({*APPEND_ONLY, "issued_tokens", "write_probes", "snapshots"})
"""Tables a migration keeps: the plain schema's. Every other (the old layouts' derived tables)
is dropped; the seeds above all must never be (they cannot be made again)."""


def _tables(connection: sqlite3.Connection) -> set[str]:
    return {str(name) for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}


def is_plain(connection: sqlite3.Connection) -> bool:
    """Whether the file is in the plain schema (or empty): its ``user_version`` says so and
    its ``events`` and ``commands`` are the plain schema's (:data:`_PLAIN_TABLES`), with the
    index the server lists campaigns through.

    Not ``user_version`` alone: release 0.1.0 opens a migrated file without a word, lays it
    out by block again (a ``block`` column, ``commands`` rewritten, ``commands_created``
    gone) and leaves ``user_version`` as it was; trusted alone, that number had this release
    refuse the file ("no such index") and ``migrate`` call it up to date.
    """
    if "events" not in _tables(connection):
        return True
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    if int(version) != PLAIN:
        return False
    for table, (columns, key) in _PLAIN_TABLES.items():
        if tuple(str(row[1]) for row in connection.execute(
                f"PRAGMA table_xinfo({table})")) != columns:
            return False
        if key not in _unique_keys(connection, table):
            return False
    return connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND"
                              " name = 'commands_created' AND tbl_name = 'commands'"
                              ).fetchone() is not None


_PLAIN_TABLES = {
    "events": (("position", *COLUMNS.split(", ")), ("campaign", "seq")),
    "commands": (("campaign", "command_id", "actor", "first_seq", "last_seq"),
                 ("campaign", "command_id")),
}
"""What :func:`is_plain` requires of the plain tables: every column in order (SQLite's
``table_xinfo``, generated ones too) and the unique key."""


def _unique_keys(connection: sqlite3.Connection, table: str) -> set[tuple[str, ...]]:
    """The columns of each unique index of ``table`` (its keys and ``UNIQUE`` s)."""
    return {tuple(str(column[2]) for column in connection.execute(
                f"PRAGMA index_info('{name}')"))
            for _, name, unique, *_ in connection.execute(f"PRAGMA index_list({table})")
            if unique}


class Migrated(NamedTuple):
    """What a migration did (:func:`create_or_migrate`), for its log line and ``poolhall
    migrate`` to say."""

    path: str
    events: int
    campaigns: int
    layout: str
    """The layout it came from, in words: ``"the 0.1.0 layout"``, or an older one's."""
    seconds: float

    def words(self) -> str:
        """``migrated 349 events of 3 campaigns from the 0.1.0 layout in 0.0 s``."""
        return (f"migrated {self.events} events of {self.campaigns} campaigns from"
                f" {self.layout} in {self.seconds:.1f} s")


class Opened(NamedTuple):
    """What opening a file for writing did to it (:func:`create_or_migrate`)."""

    migrated: Migrated | None
    """The migration from an older layout, if one ran."""
    made: str | None
    """What else it added to a file of the plain schema, in words (``poolhall migrate``
    says it), or ``None``: the unique index of creations, which a file written by a
    0.2.0.dev0 build lacks (``poolhall migrate`` said "already up to date" as it built it)."""


def create_or_migrate(connection: sqlite3.Connection) -> Opened:
    """Create the schema on a new file, or migrate an old one; in one transaction, on a
    connection in autocommit mode (``isolation_level=None``). What a migration did, once it
    is committed (and logged then: logged before, a migration a full disk then refused read
    as done), and what else the file was given."""
    migrated = None
    made = None
    connection.execute("BEGIN IMMEDIATE")
    try:
        tables = _tables(connection)
        if "events" not in tables:
            connection.execute(_EVENTS)
            connection.execute(_COMMANDS)
            connection.execute(_CREATED)
        elif not is_plain(connection):
            migrated = _migrate(connection, tables)
        connection.execute(_SEALED)
        connection.execute(_PROBES)
        connection.execute(_SEEDS)
        filled = create_table(connection)
        _create_triggers(connection)
        strays = _one_creation(connection)
        if strays is not None and migrated is None and "events" in tables:
            made = _index_words(strays)
        connection.execute(f"PRAGMA user_version = {PLAIN}")
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    if migrated is not None:
        logger.info("%s: migrated to the plain schema, %d events of %d campaigns from %s in"
                    " %.1f s", *migrated)
    if made is not None:
        logger.info("%s", made)
    if filled:
        logger.info("%d issued tokens indexed from the log", filled)
    return Opened(migrated, made)


def _triggers() -> dict[str, str]:
    """Every append-only trigger by name, as ``sqlite_master`` keeps its text."""
    made: dict[str, str] = {}
    for table, (key, what) in APPEND_ONLY.items():
        for change in ("update", "delete"):
            made[f"{table}_no_{change}"] = _APPEND_ONLY.format(table=table, change=change)
        match = " AND ".join(f"{column} = NEW.{column}" for column in key)
        row = ("" if table in _WITHOUT_ROWID
               else f" OR EXISTS (SELECT 1 FROM {table} WHERE rowid = NEW.rowid)")
        made[f"{table}_no_replace"] = _NO_REPLACE.format(table=table, match=match, row=row,
                                                         what=what)
    return made


def _one_creation(connection: sqlite3.Connection) -> list[str] | None:
    """Make the unique index of creations if the file has none (see the module's docstring):
    the campaigns it leaves out, or ``None`` if the file had it already."""
    if connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                          [one_creation.INDEX]).fetchone():
        return None
    strays = [str(row[0]) for row in connection.execute(one_creation.STRAYS)]
    if strays:
        logger.warning("%s", one_creation.strays_warning(strays))
    connection.execute(one_creation.index_statement(strays))
    return strays


def _index_words(strays: list[str]) -> str:
    """What building the index on a file of the plain schema did, in words."""
    left = (f", leaving out {len(strays)} campaigns an earlier create_campaign made a second"
            " time (kept as they are)" if strays else "")
    return (f"added the unique index {one_creation.INDEX} (one campaign per"
            f" create_campaign){left}")


def _create_triggers(connection: sqlite3.Connection) -> None:
    """The append-only triggers, each made again unless the file holds it as it is now.

    ``CREATE TRIGGER IF NOT EXISTS`` goes by name only: a trigger of an earlier definition was
    kept, and so was one that followed its table through ``ALTER TABLE … RENAME`` (the table
    made again under the old name then had none, and took UPDATE and DELETE)."""
    held = dict(connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))
    for name, statement in _triggers().items():
        if held.get(name) == statement:
            continue
        if name in held:
            connection.execute(f'DROP TRIGGER "{name}"')
        connection.execute(statement)


def _migrate(connection: sqlite3.Connection, tables: set[str]) -> Migrated:
    """Rewrite an old layout's ``events`` (and ``journal``) and ``commands`` into the plain
    tables (see the module's docstring); said in the log as it starts (a large file takes
    seconds, and nothing else shows the server or ``migrate`` at work)."""
    started = time.perf_counter()
    (path,) = [str(row[2]) for row in connection.execute("PRAGMA database_list")
               if row[1] == "main"]
    layout = "the 0.1.0 layout" if "event_runs" in tables else "an older layout"
    logger.info("%s: migrating from %s to the plain schema, in one transaction", path, layout)
    for table in ("events", "commands"):
        for trigger in ("no_update", "no_delete", "no_replace"):
            connection.execute(f"DROP TRIGGER IF EXISTS {table}_{trigger}")  # see _triggers
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
    for table in sorted(t for t in _tables(connection) - KEPT if not t.startswith("sqlite_")):
        connection.execute(f'DROP TABLE "{table}"')
    (campaigns,) = connection.execute(
        "SELECT count(*) FROM commands INDEXED BY commands_created WHERE first_seq = 1"
    ).fetchone()
    return Migrated(path, moved, int(campaigns), layout, time.perf_counter() - started)
