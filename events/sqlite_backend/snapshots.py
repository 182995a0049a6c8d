"""Stored snapshots in the SQLite file: table ``snapshots``, derived data beside the log.

One row per ``(campaign, seq)``: the encoded state after that event, the fingerprint of the
code that folded it and the chain hash of the event (``head_hash``). Deleting the table, or
any row, loses nothing: the next load folds from the log and writes them again. What a row
holds, and when it is trusted, is :mod:`server.stored_snapshots`'s; this keeps the rows.

Rows are written on connections of their own with ``synchronous=OFF`` (a lost snapshot costs
a longer fold, never an event), in a worker thread, so a write holds the log's write lock
for the time of one small insert and never an fsync.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

__all__ = ["SqliteSnapshots"]

_CREATE = (
    "CREATE TABLE IF NOT EXISTS snapshots (campaign TEXT NOT NULL, seq INTEGER NOT NULL,"
    " fingerprint TEXT NOT NULL, head_hash TEXT NOT NULL, state BLOB NOT NULL,"
    " PRIMARY KEY (campaign, seq))")
_SAVE = ("INSERT OR REPLACE INTO snapshots (campaign, seq, fingerprint, head_hash, state)"
         " VALUES (?, ?, ?, ?, ?)")
_LATEST = ("SELECT seq, head_hash, state FROM snapshots WHERE campaign = ? AND seq <= ?"
           " AND fingerprint = ? ORDER BY seq DESC LIMIT 1")


class SqliteSnapshots:
    """The ``snapshots`` table of a log file (:class:`events.log_contract.SnapshotRows`)."""

    def __init__(self, path: str | Path) -> None:
        self._uri = Path(path).resolve().as_uri()
        connection = self._connect()
        try:
            connection.execute(_CREATE)
        finally:
            connection.close()

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self._uri, uri=True, timeout=30, check_same_thread=False,
                                     isolation_level=None)
        connection.execute("PRAGMA synchronous=OFF")  # derived data: a lost row costs a fold
        return connection

    def save(self, campaign: str, fingerprint: str,
             rows: Iterable[tuple[int, str, bytes]]) -> None:
        """Store ``(seq, head_hash, state)`` rows of a campaign, replacing any row at the same
        seq (whatever code wrote it)."""
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(_CREATE)  # again: an operator may have dropped the table
            connection.executemany(_SAVE, [(campaign, seq, fingerprint, digest, blob)
                                           for seq, digest, blob in rows])
            connection.execute("COMMIT")
        finally:
            connection.close()

    def latest(self, campaign: str, fingerprint: str, at_most: int
               ) -> tuple[int, str, bytes] | None:
        """The row of the greatest seq ``<= at_most`` with this fingerprint: ``(seq,
        head_hash, state)``; ``None`` if none (or the table was deleted under a server)."""
        connection = self._connect()
        try:
            found = connection.execute(_LATEST, [campaign, at_most, fingerprint]).fetchone()
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return None
            raise
        finally:
            connection.close()
        return None if found is None else (int(found[0]), str(found[1]), bytes(found[2]))
