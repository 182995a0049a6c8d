"""The write journal of the SQLite log: where appends land before they are moved into ``events``.

Why: with a thousand campaigns growing at once, each commit of the group committer rewrote one
4 KiB page of the ``(campaign, seq)`` index of ``events`` per campaign in it, and the durable
rate fell by half within seconds (``tests/bench/index_pages.py``). Appends now go to table
``journal``: the same columns and unique ``(campaign, seq)`` key, but a few thousand rows at
most, so its index is a few pages that every campaign shares and a commit rewrites only those.
Once it holds :data:`JOURNAL_LIMIT` rows, the writer moves all of them into ``events`` in one
transaction (:func:`move`), and each campaign's index page of ``events`` is written once per move
instead of once per commit. The same transaction empties the journal by dropping the table and
creating it again: a ``DELETE`` row by row (any trigger on the table forces that) rewrote every
page of the journal into the WAL only to free it, zeroed too where SQLite deletes securely
(Debian builds it so); a dropped table's pages are freed whole, unwritten, and a move cost a
third less (``tests/bench/journal_settle.py``).

What holds, and what readers rely on:

- each row keeps its ``position``, given explicitly by the writer, and every position in the
  journal is greater than every position in ``events``: the journal is the tail of the log's
  append order, so ``events`` then ``journal`` in position order is the log;
- a row is in exactly one of the two tables in any snapshot: a move copies every row and drops
  the table in one transaction, and the triggers (:data:`TRIGGERS`) refuse an UPDATE of the
  journal and a DELETE of a row whose position is not already in ``events``, so rows leave
  the journal only by being moved;
- a log at rest has an empty journal: the log settles it (moves everything) at open, after a
  crash, and at close, so older releases and tools that read ``events`` alone read it all.

Every read of the events therefore reads both tables (``UNION ALL``, each arm on its own index:
:func:`union`) when the file has a journal, and ``events`` alone when it has none (a file of an
older release opened read-only: :func:`has_journal`). Part of the SQLite store, the only I/O in
``events``.
"""

from __future__ import annotations

import sqlite3

__all__ = ["COLUMNS", "CREATE", "INSERT", "JOURNAL_LIMIT", "TRIGGERS", "create", "has_journal",
           "move", "rows_in", "settle", "union"]

JOURNAL_LIMIT = 16_384
"""Rows in the journal that make the writer move them all. A move writes each campaign's index
page of ``events`` once whatever its size, so larger moves write fewer pages an event: at 1,000
submitters, moves of 16,384 rows held 47-48k events/s in the steady state against 40-44k for
8,192, alternately (``tests/bench/append_rate.py``, 10 s runs). A commit waiting behind a move
waits for it, every 16,384 events (``tests/bench/journal_settle.py`` times one)."""

COLUMNS = ("position, campaign, seq, type, version, payload, recorded_at, actor, command_id,"
           " hash")
"""The columns of both tables, in ``events``'s order."""

CREATE = (
    "CREATE TABLE IF NOT EXISTS journal (position INTEGER PRIMARY KEY, campaign TEXT NOT NULL,"
    " seq INTEGER NOT NULL, type TEXT NOT NULL, version INTEGER NOT NULL, payload TEXT NOT NULL,"
    " recorded_at TEXT NOT NULL, actor TEXT NOT NULL, command_id TEXT NOT NULL,"
    " hash TEXT NOT NULL, UNIQUE (campaign, seq))")
"""``position`` declared as the rowid, so a row keeps it when moved (``VACUUM`` never renumbers
a declared one)."""

TRIGGERS = (
    "CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal"
    " BEGIN SELECT RAISE(ABORT, 'journal rows are append-only'); END",
    "CREATE TRIGGER IF NOT EXISTS journal_only_moved BEFORE DELETE ON journal"
    " WHEN NOT EXISTS (SELECT 1 FROM events WHERE position = OLD.position)"
    " BEGIN SELECT RAISE(ABORT, 'journal rows leave only once moved into events'); END",
)
"""The journal is as append-only as ``events``: a row is deleted only once its position is in
``events``, never edited. (A move drops the whole table, which no trigger sees, once every row
is copied: :func:`move`.) One statement each, so that a move can run them inside its
transaction (``executescript`` would commit it first)."""

INSERT = f"INSERT INTO journal ({COLUMNS})"
"""The head of the writer's insert (:func:`events.bulk_insert.insert_values` adds the rows)."""

_MOVE = f"INSERT INTO events ({COLUMNS}) SELECT {COLUMNS} FROM journal ORDER BY position"


def has_journal(connection: sqlite3.Connection) -> bool:
    """Whether the file has a ``journal`` table (a file of an older release has none)."""
    return connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal'"
    ).fetchone() is not None


def union(select: str, journal: bool, order_by: str = "") -> str:
    """``select`` (its table written ``{table}``) on ``events``, and on ``journal`` too when
    the file has one, as one ``UNION ALL``: each arm is planned on its own table's index
    (a view over both tables would not be, for SQLite cannot push every constraint into it).
    Parameters must be numbered (``?1``) so that both arms share them. ``order_by`` (a result
    column) orders the whole: SQLite merges the two arms, each read in its index's order."""
    sql = select.replace("{table}", "events")  # not format(): SQL has braces of its own
    if journal:
        sql += " UNION ALL " + select.replace("{table}", "journal")
    return sql + (f" ORDER BY {order_by}" if order_by else "")


def create(connection: sqlite3.Connection) -> None:
    """Create the journal and its triggers if the file has none (inside the caller's
    transaction, if one is open)."""
    connection.execute(CREATE)
    for trigger in TRIGGERS:
        connection.execute(trigger)


def rows_in(connection: sqlite3.Connection) -> int:
    """Rows in the journal now (the writer counts them in memory from there)."""
    (count,) = connection.execute("SELECT count(*) FROM journal").fetchone()
    return int(count)


def move(connection: sqlite3.Connection) -> int:
    """Move every row of the journal into ``events``, keeping their positions, and empty it
    (drop it and create it again), all in one transaction: readers see every row move at
    once, or none; the rows moved.

    The caller chooses the transaction's durability: the rows were durable in the journal,
    and a move lost in a power cut leaves them there, to be moved again. Dropping the table
    changes the file's schema: each other connection reads it again once, at its next
    statement (SQLite prepares its statements again by itself)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        moved = int(connection.execute(_MOVE).rowcount)
        if moved:
            connection.execute("DROP TABLE journal")
            create(connection)
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return moved


def settle(connection: sqlite3.Connection) -> int:
    """Move every row of the journal into ``events``; the rows moved. Done at open (a crash
    leaves rows in it) and at close, so a log at rest reads as one table."""
    return move(connection)
