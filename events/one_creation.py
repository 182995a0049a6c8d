"""One campaign per creating command, in the database itself: the unique index both backends
make on ``commands (command_id) WHERE first_seq = 1``.

A ``create_campaign`` retried through another process while the first try was still being
committed could make a second campaign (``x-2``) with its own GM token, since a command id is
unique only within a campaign. The index has the database refuse the second creation,
whichever process appends it; the server then finds the first and answers with it
(:mod:`poolhall.server.campaign_creation`).

A log written before the index may already hold such a second campaign (a *stray*): the
append-only log never drops it, so the index leaves the strays out by name, and every
creation after them is checked against the rest.
"""

from __future__ import annotations

__all__ = ["INDEX", "STRAYS", "index_statement", "strays_warning"]

INDEX = "commands_one_creation"
"""The index's name, the same in both backends."""

STRAYS = ("SELECT c.campaign FROM commands c JOIN events e ON e.campaign = c.campaign"
          " AND e.seq = 1 WHERE c.first_seq = 1 AND EXISTS (SELECT 1 FROM commands d"
          " JOIN events f ON f.campaign = d.campaign AND f.seq = 1 WHERE d.first_seq = 1"
          " AND d.command_id = c.command_id AND f.position < e.position) ORDER BY c.campaign")
"""The campaigns created by a command id that had created another campaign before."""


def index_statement(strays: list[str]) -> str:
    """``CREATE UNIQUE INDEX`` of creations, leaving out the ``strays`` (quoted as SQL
    literals: the same text in SQLite and PostgreSQL)."""
    quoted = ", ".join("'" + stray.replace("'", "''") + "'" for stray in strays)
    kept = f" AND campaign NOT IN ({quoted})" if strays else ""
    return (f"CREATE UNIQUE INDEX IF NOT EXISTS {INDEX} ON commands (command_id)"
            f" WHERE first_seq = 1{kept}")


def strays_warning(strays: list[str]) -> str:
    """The log line saying which strays the index leaves out."""
    return (f"{len(strays)} campaigns were each created by a command id that had created"
            f" another campaign before (a create retried through another process, before"
            f" the database refused it): {', '.join(strays)}; they are kept as they are")
