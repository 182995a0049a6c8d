"""One read transaction around several statements: WAL gives them all the same view of the file.

Part of the SQLite store, the only I/O in ``events``. Each statement alone sees the file as
it is when it starts; the readers of the log need several to agree:

- the layout asked, then read (:mod:`events.event_blocks`): a server laying out a file of an
  older release drops its journal for good between two statements;
- the command index's generations listed, then probed (:mod:`events.command_lookup`): a merge
  drops tables once it has unlisted them;
- ``verify``'s walk of ``events`` then of an older release's journal, which a move empties
  (:mod:`events.store_verify`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["read_transaction"]


@contextmanager
def read_transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """Statements run inside see one snapshot; within a transaction already open, that one.
    Ended by a rollback: it only read, so nothing is kept or undone."""
    if connection.in_transaction:
        yield
        return
    connection.execute("BEGIN")
    try:
        yield
    finally:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
