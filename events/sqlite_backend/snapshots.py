"""Stored snapshots in the SQLite file: table ``snapshots``, derived data beside the log.

One row per ``(campaign, seq)``: the encoded state after that event, the fingerprint of the
code that folded it and the chain hash of the event (``head_hash``). Deleting the table, or
any row, loses nothing: the next load folds from the log and writes them again. What a row
holds, and when it is trusted, is :mod:`poolhall.server.stored_snapshots`'s; this keeps the rows.

Rows are written on connections of their own with ``synchronous=OFF`` (a lost snapshot costs
a longer fold, never an event), in a worker thread, so a write holds the log's write lock
for the time of one small insert and never an fsync.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from poolhall.events.sqlite_backend.file import read_only_uri

__all__ = ["SqliteSnapshots", "read_only_rows"]

_CREATE = (
    "CREATE TABLE IF NOT EXISTS snapshots (campaign TEXT NOT NULL, seq INTEGER NOT NULL,"
    " fingerprint TEXT NOT NULL, head_hash TEXT NOT NULL, state BLOB NOT NULL,"
    " seal TEXT NOT NULL DEFAULT '', PRIMARY KEY (campaign, seq))")
_ADD_SEAL = "ALTER TABLE snapshots ADD COLUMN seal TEXT NOT NULL DEFAULT ''"
"""A table of a release before seals gains the column (its rows, unsealed, are refolded)."""
_SAVE = ("INSERT OR REPLACE INTO snapshots (campaign, seq, fingerprint, head_hash, state, seal)"
         " VALUES (?, ?, ?, ?, ?, ?)")
_LATEST = ("SELECT seq, head_hash, state, seal FROM snapshots WHERE campaign = ? AND seq <= ?"
           " AND fingerprint = ? ORDER BY seq DESC LIMIT 1")


def _create(connection: sqlite3.Connection) -> None:
    connection.execute(_CREATE)
    columns = {row[1] for row in connection.execute("PRAGMA table_info(snapshots)")}
    if "seal" not in columns:
        connection.execute(_ADD_SEAL)


def read_only_rows(path: str | Path) -> list[tuple[str, int, str, str, bytes]]:
    """Every row of the file's ``snapshots`` table as ``(campaign, seq, fingerprint,
    head_hash, state)``, by campaign and seq, read without changing the file (none if it has
    no such table): what ``verify`` compares with a fold of the log. Opened as a reader opens
    the file (:func:`~poolhall.events.sqlite_backend.file.read_only_uri`), so no -wal or -shm
    is left beside a copy that had none."""
    uri, held = read_only_uri(Path(path))
    try:
        connection = sqlite3.connect(uri, uri=True)
        try:
            return [(str(c), int(s), str(f), str(h), bytes(b)) for c, s, f, h, b in
                    connection.execute("SELECT campaign, seq, fingerprint, head_hash, state"
                                       " FROM snapshots ORDER BY campaign, seq")]
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return []
            raise
        finally:
            connection.close()
    finally:
        if held is not None:
            os.close(held)


class SqliteSnapshots:
    """The ``snapshots`` table of a log file
    (:class:`poolhall.events.log_contract.SnapshotRows`)."""

    def __init__(self, path: str | Path) -> None:
        self._uri = Path(path).resolve().as_uri()
        connection = self._connect()
        try:
            _create(connection)
        finally:
            connection.close()

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self._uri, uri=True, timeout=30, check_same_thread=False,
                                     isolation_level=None)
        connection.execute("PRAGMA synchronous=OFF")  # derived data: a lost row costs a fold
        return connection

    def save(self, campaign: str, fingerprint: str,
             rows: Iterable[tuple[int, str, bytes, str]]) -> None:
        """Store ``(seq, head_hash, state, seal)`` rows of a campaign, replacing any row at the
        same seq (whatever code wrote it)."""
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            _create(connection)  # again: an operator may have dropped the table
            connection.executemany(_SAVE, [(campaign, seq, fingerprint, digest, blob, seal)
                                           for seq, digest, blob, seal in rows])
            connection.execute("COMMIT")
        finally:
            connection.close()

    def latest(self, campaign: str, fingerprint: str, at_most: int
               ) -> tuple[int, str, bytes, str] | None:
        """The row of the greatest seq ``<= at_most`` with this fingerprint: ``(seq,
        head_hash, state, seal)``; ``None`` if none (or the table was deleted under a
        server)."""
        connection = self._connect()
        try:
            found = connection.execute(_LATEST, [campaign, at_most, fingerprint]).fetchone()
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return None
            raise
        finally:
            connection.close()
        return None if found is None else (int(found[0]), str(found[1]), bytes(found[2]),
                                           str(found[3]))

    def discard(self, campaign: str, seq: int) -> None:
        """Delete the campaign's row at ``seq`` (one the log does not vouch for)."""
        connection = self._connect()
        try:
            connection.execute("DELETE FROM snapshots WHERE campaign = ? AND seq = ?",
                               [campaign, seq])
        except sqlite3.OperationalError as error:
            if "no such table" not in str(error):
                raise
        finally:
            connection.close()
