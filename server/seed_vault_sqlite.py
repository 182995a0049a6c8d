"""The seed vault in the log's SQLite file: table ``fair_seeds``, apart from the events' tables.

One row per (campaign, epoch) with the 32-byte seed. Rows are written on the vault's own
connection with ``synchronous=FULL`` (a seed must survive a power cut: its commitment is about
to be published) and never updated: ``INSERT OR IGNORE`` then a read, so that a second writer
gets the first seed back. A write happens once per epoch (a game session), so it is done on
the caller's thread.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from poolhall.events.errors import StoreError

__all__ = ["SqliteSeedVault"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS fair_seeds (
    campaign TEXT NOT NULL,
    epoch INTEGER NOT NULL CHECK (epoch >= 1),
    seed BLOB NOT NULL CHECK (length(seed) = 32),
    PRIMARY KEY (campaign, epoch)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS fair_seeds_no_update BEFORE UPDATE ON fair_seeds
BEGIN SELECT RAISE(ABORT, 'a seed is never changed'); END;
"""


class SqliteSeedVault:
    """:class:`poolhall.server.seed_vault.SeedVault` in a SQLite file (the log's, by default)."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(path), timeout=30, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the seed vault in {path}: {error}") from None

    def put(self, campaign: str, epoch: int, seed: bytes) -> bytes:
        with self._lock:
            try:
                self._db.execute("INSERT OR IGNORE INTO fair_seeds (campaign, epoch, seed) "
                                 "VALUES (?, ?, ?)", (campaign, epoch, seed))
            except sqlite3.Error as error:
                raise StoreError(f"cannot store the seed of epoch {epoch}: {error}") from None
        stored = self.get(campaign, epoch)
        assert stored is not None
        return stored

    def get(self, campaign: str, epoch: int) -> bytes | None:
        with self._lock:
            row = self._db.execute("SELECT seed FROM fair_seeds WHERE campaign = ? AND epoch = ?",
                                   (campaign, epoch)).fetchone()
        return None if row is None else bytes(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
