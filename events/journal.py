"""The write journal of an older release's log: read beside ``events``, and settled at open.

Logs written before the block layout (:mod:`events.event_blocks`) appended to table
``journal`` (the same columns and a unique ``(campaign, seq)`` key) and moved its rows into
``events`` in bulk every 16,384 rows: ``events`` was indexed by ``(campaign, seq)``, and each
commit would have rewritten a page of that index per campaign in it. What held, and what a
reader of such a file still relies on:

- every position in the journal is greater than every position in ``events``: the journal is
  the tail of the log's append order, so ``events`` then ``journal`` in position order is the
  log;
- a row is in exactly one of the two tables in any snapshot (a move copied every row and
  dropped the table in one transaction).

A reader of such a file (``poolhall verify`` of a log kept as evidence, opened read-only)
therefore reads both tables (``UNION ALL``, each arm on its own index: :func:`union`). A
server of this release opening it moves the journal's rows into ``events`` and drops the
journal, as it lays the file out by block (:func:`events.event_blocks.adopt`).
"""

from __future__ import annotations

import sqlite3

__all__ = ["COLUMNS", "has_journal", "move_rows", "union"]

COLUMNS = ("position, campaign, seq, type, version, payload, recorded_at, actor, command_id,"
           " hash")
"""The columns of both tables, in ``events``'s order."""

_MOVE = f"INSERT INTO events ({COLUMNS}) SELECT {COLUMNS} FROM journal ORDER BY position"


def has_journal(connection: sqlite3.Connection) -> bool:
    """Whether the file has a ``journal`` table: a file of the release before the block
    layout that no server of this one has opened yet (older files have none either)."""
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


def move_rows(connection: sqlite3.Connection) -> int:
    """Copy every row of the journal into ``events``, keeping their positions, inside the
    caller's transaction (which then drops the journal); the rows copied."""
    return int(connection.execute(_MOVE).rowcount)
