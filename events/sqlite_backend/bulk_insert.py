"""Many rows in few statements: a multi-row ``INSERT`` per power of two of rows.

The writer thread lets go of the GIL around every ``sqlite3_step``, and ``executemany`` steps
once per row. With the event loop busy on the other core, each of those steps could wait for
the GIL to come back (up to the 5 ms switch interval), so a batch of a hundred events paid
for a hundred hand-offs. A ``VALUES (...), (...), ...`` statement inserts its rows in one step.
Statement texts are kept to one per power of two (at most ten a table, all in the sqlite3
module's statement cache): 100 rows go as 64 + 32 + 4.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import cache
from itertools import chain

__all__ = ["insert_rows", "insert_values"]

_LARGEST = 512
"""Rows in the largest statement: 512 rows of 9 columns stay far below SQLite's limit of
32,766 parameters."""


@cache
def _statement(head: str, width: int, rows: int) -> str:
    one = "(" + ", ".join("?" * width) + ")"
    return f"{head} VALUES {', '.join([one] * rows)}"


def insert_rows(connection: sqlite3.Connection, head: str,
                rows: Sequence[tuple[object, ...]]) -> None:
    """Insert ``rows`` (tuples of equal width) with ``head``, e.g. ``INSERT INTO t (a, b)``."""
    if not rows:
        return
    width = len(rows[0])
    start = 0
    while start < len(rows):
        left = len(rows) - start
        size = _LARGEST if left >= _LARGEST else 1 << (left.bit_length() - 1)
        chunk = rows[start:start + size]
        connection.execute(_statement(head, width, size), list(chain.from_iterable(chunk)))
        start += size


def insert_values(connection: sqlite3.Connection, head: str, width: int,
                  values: list[object]) -> None:
    """Insert rows given flat, ``width`` values a row one after another: what
    :func:`insert_rows` does without the list it builds of every row's values (the writer's
    thread builds its rows flat, and holds the interpreter lock a little less)."""
    rows = len(values) // width
    start = 0
    while start < rows:
        left = rows - start
        size = _LARGEST if left >= _LARGEST else 1 << (left.bit_length() - 1)
        connection.execute(_statement(head, width, size),
                           values[start * width:(start + size) * width])
        start += size
