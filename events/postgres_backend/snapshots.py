"""Stored snapshots on PostgreSQL: derived data, keyed by the chain hash they were folded at.

The same interface as :class:`poolhall.events.sqlite_backend.snapshots.SqliteSnapshots`,
in a table ``snapshots`` of the log's database that is not append-only: a row is replaced when
a newer code's fold is stored at the same seq. A row whose ``fingerprint`` (the code that
encoded it) is not the caller's is never read; the reader checks ``head_hash`` against the
log before trusting a state.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from poolhall.events.postgres_backend.pooled import pooled

__all__ = ["PostgresSnapshots"]



class PostgresSnapshots:
    """The ``snapshots`` table (a :class:`~poolhall.events.log_contract.SnapshotRows`), on the log's
    connection pool."""

    def __init__(self, pool: ConnectionPool[Any]) -> None:
        self._pool = pool

    def _connection(self) -> AbstractContextManager[psycopg.Connection[Any]]:
        """A pooled connection; the database's errors as :class:`StoreError`."""
        return pooled(self._pool, "stored snapshots")

    def save(self, campaign: str, fingerprint: str,
             rows: Iterable[tuple[int, str, bytes, str]]) -> None:
        """Store ``(seq, head_hash, state, seal)`` rows, replacing any row at the same seq."""
        with self._connection() as connection, connection.transaction():
            connection.cursor().executemany(
                "INSERT INTO snapshots (campaign, seq, fingerprint, head_hash, state, seal)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (campaign, seq) DO UPDATE SET"
                " fingerprint = excluded.fingerprint, head_hash = excluded.head_hash,"
                " state = excluded.state, seal = excluded.seal",
                [(campaign, seq, fingerprint, digest, blob, seal)
                 for seq, digest, blob, seal in rows])

    def latest(self, campaign: str, fingerprint: str, at_most: int
               ) -> tuple[int, str, bytes, str] | None:
        """``(seq, head_hash, state, seal)`` of the row of greatest seq ``<= at_most`` with
        this fingerprint, if any."""
        with self._connection() as connection:
            row = connection.execute(
                "SELECT seq, head_hash, state, seal FROM snapshots WHERE campaign = %s"
                " AND seq <= %s AND fingerprint = %s ORDER BY seq DESC LIMIT 1",
                [campaign, at_most, fingerprint]).fetchone()
        return None if row is None else (int(row[0]), str(row[1]), bytes(row[2]), str(row[3]))

    def discard(self, campaign: str, seq: int) -> None:
        """Delete the campaign's row at ``seq`` (one the log does not vouch for)."""
        with self._connection() as connection:
            connection.execute("DELETE FROM snapshots WHERE campaign = %s AND seq = %s",
                               [campaign, seq])
