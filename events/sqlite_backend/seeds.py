"""The seed vault in the log's SQLite file: table ``fair_seeds``, apart from the events' tables.

One row per (campaign, epoch) with the 32-byte seed, in a table the schema makes with the
log (:mod:`poolhall.events.sqlite_backend.schema`: its triggers refuse any change, removal or
replacement of a seed). Rows are written on the vault's own connection with
``synchronous=FULL`` (a seed must survive a power cut: its commitment is about to be
published) and never updated: an insert only where the epoch has no seed, then a read, so that
a second writer gets the first seed back (``INSERT OR IGNORE`` would meet the trigger that
refuses an insert at a stored key, and fail). A write happens once per epoch (a game session),
so it is done on the caller's thread.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from poolhall.events.errors import StoreError

__all__ = ["SqliteSeedVault"]

_PUT = ("INSERT INTO fair_seeds (campaign, epoch, seed) SELECT ?1, ?2, ?3 WHERE NOT EXISTS"
        " (SELECT 1 FROM fair_seeds WHERE campaign = ?1 AND epoch = ?2)")


class SqliteSeedVault:
    """:class:`poolhall.events.log_contract.SeedVault` in the log's SQLite file
    (:meth:`poolhall.events.sqlite_backend.log.SqliteLog.seed_vault`, which made the table)."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(path), timeout=30, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the seed vault in {path}: {error}") from None

    def put(self, campaign: str, epoch: int, seed: bytes) -> bytes:
        """Store ``seed`` for the epoch unless one is stored already; the stored one."""
        with self._lock:
            try:
                self._db.execute(_PUT, (campaign, epoch, seed))
            except sqlite3.Error as error:
                raise StoreError(f"the seed vault: cannot store the seed of epoch {epoch}:"
                                 f" {error}") from None
        stored = self.get(campaign, epoch)
        if stored is None:
            raise StoreError(f"the seed of epoch {epoch} of {campaign} was not stored")
        return stored

    def get(self, campaign: str, epoch: int) -> bytes | None:
        """The seed of the epoch, or ``None`` if none was stored."""
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT seed FROM fair_seeds WHERE campaign = ? AND epoch = ?",
                    (campaign, epoch)).fetchone()
            except sqlite3.Error as error:
                raise StoreError(f"the seed vault: cannot read the seed of epoch {epoch}:"
                                 f" {error}") from None
        return None if row is None else bytes(row[0])

    def close(self) -> None:
        """Close the vault's connection."""
        with self._lock:
            self._db.close()
