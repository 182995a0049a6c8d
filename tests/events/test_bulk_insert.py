"""Many rows in few statements: every row lands, in order, whatever the count."""

from __future__ import annotations

import sqlite3

import pytest

from poolhall.events.sqlite_backend.bulk_insert import insert_rows, insert_values


@pytest.mark.parametrize("count", [0, 1, 3, 100, 512, 513, 1100])
def test_every_row_lands_in_order(count: int) -> None:
    """Rows go as powers of two up to 512 a statement; none is lost, doubled or reordered."""
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t (n INTEGER, name TEXT)")
    statements: list[str] = []
    connection.set_trace_callback(statements.append)
    insert_rows(connection, "INSERT INTO t (n, name)", [(k, f"row {k}") for k in range(count)])
    assert connection.execute("SELECT n, name FROM t ORDER BY rowid").fetchall() == [
        (k, f"row {k}") for k in range(count)]
    inserts = [sql for sql in statements if sql.startswith("INSERT")]
    assert len(inserts) == (count // 512) + bin(count % 512).count("1")


@pytest.mark.parametrize("count", [0, 1, 3, 512, 513, 1100])
def test_flat_values_land_as_the_same_rows(count: int) -> None:
    """``insert_values`` takes the rows' values one after another; the rows are the same, in
    the same statements, as :func:`insert_rows` makes."""
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t (n INTEGER, name TEXT, half REAL)")
    statements: list[str] = []
    connection.set_trace_callback(statements.append)
    rows = [(k, f"row {k}", k / 2) for k in range(count)]
    insert_values(connection, "INSERT INTO t (n, name, half)", 3,
                  [value for row in rows for value in row])
    assert connection.execute("SELECT n, name, half FROM t ORDER BY rowid").fetchall() == rows
    inserts = [sql for sql in statements if sql.startswith("INSERT")]
    assert len(inserts) == (count // 512) + bin(count % 512).count("1")
