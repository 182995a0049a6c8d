"""Which campaign each issued token was issued for: a join's token checked before any load.

A join to a campaign not loaded used to load it (its latest snapshot and the events after it)
before its token was checked. A refused join then took milliseconds for a campaign that
exists and microseconds for one that does not, and an outsider timing refused joins could
learn which campaign ids exist. The server now first asks this table whether the token's hash
was ever issued for that campaign: one indexed lookup, the same work for any campaign id,
existing or not, loaded or not. Only a token issued there loads the campaign; the member's
exact check (still a member, the same hash) follows on the loaded state.

Table ``issued_tokens``: one row per token an event issued (``member_invited``,
``replay_shared``), ``(token_hash, campaign)``, written by the log's writer in the same
transaction as the event. It is derived from the events: a log from before it gets it filled
from its events once, at open; dropping it has it rebuilt at the next open. Part of the
SQLite store (the only I/O in ``events``).
"""

from __future__ import annotations

import sqlite3

from poolhall.events.issuing_events import ISSUING

__all__ = ["INSERT", "campaign_of", "create_table"]

INSERT = "INSERT OR IGNORE INTO issued_tokens (token_hash, campaign)"
"""The head of the writer's insert (:func:`~poolhall.events.sqlite_backend.bulk_insert.insert_rows`
adds the rows)."""

_CREATE = ("CREATE TABLE issued_tokens (token_hash TEXT PRIMARY KEY, campaign TEXT NOT NULL)"
           " WITHOUT ROWID")
_FILL = ("INSERT OR IGNORE INTO issued_tokens (token_hash, campaign)"
         " SELECT json_extract(payload, '$.token_hash'), campaign FROM events"
         f" WHERE type IN ({', '.join(repr(kind) for kind in sorted(ISSUING))})"
         " AND json_extract(payload, '$.token_hash') IS NOT NULL")
"""The rows of the events' issuing tokens: all in ``events`` (an older layout's file is
migrated before this table is created)."""


def create_table(connection: sqlite3.Connection) -> int | None:
    """Create the table if the log has none, filled from the events already there (one scan
    of the log, once); the rows filled, or ``None`` if the table was there."""
    exists = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'issued_tokens'").fetchone()
    if exists:
        return None
    connection.execute(_CREATE)
    return connection.execute(_FILL).rowcount


def campaign_of(connection: sqlite3.Connection, token_hash: str) -> str | None:
    """The campaign ``token_hash`` was issued for, if any token with that hash was issued."""
    row = connection.execute("SELECT campaign FROM issued_tokens WHERE token_hash = ?",
                             [token_hash]).fetchone()
    return None if row is None else str(row[0])
