"""The fair rolls' seed vault on PostgreSQL: table ``fair_seeds``, apart from the events.

The same interface as :class:`poolhall.server.seed_vault.SeedVault` (and its SQLite twin,
:mod:`poolhall.server.seed_vault_sqlite`): one row per (campaign, epoch) with the 32-byte secret
seed, never changed (a trigger refuses it). ``INSERT … ON CONFLICT DO NOTHING`` then a read, so that
when two server processes open the same epoch at once both use the seed stored first. The
write is committed (durable) before the epoch's ``seed_committed`` event is appended.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from poolhall.events.errors import StoreError
from poolhall.events.postgres_backend.pooled import pooled

__all__ = ["PostgresSeedVault"]


class PostgresSeedVault:
    """The ``fair_seeds`` table, on the log's connection pool."""

    def __init__(self, pool: ConnectionPool[Any]) -> None:
        self._pool = pool

    def _connection(self) -> AbstractContextManager[psycopg.Connection[Any]]:
        """A pooled connection; the database's errors as :class:`StoreError`."""
        return pooled(self._pool, "the seed vault")

    def put(self, campaign: str, epoch: int, seed: bytes) -> bytes:
        """Store ``seed`` for the epoch unless one is stored already; the stored one."""
        with self._connection() as connection:
            connection.execute(
                "INSERT INTO fair_seeds (campaign, epoch, seed) VALUES (%s, %s, %s)"
                " ON CONFLICT (campaign, epoch) DO NOTHING", [campaign, epoch, seed])
        stored = self.get(campaign, epoch)
        if stored is None:
            raise StoreError(f"the seed of epoch {epoch} of {campaign} was not stored")
        return stored

    def get(self, campaign: str, epoch: int) -> bytes | None:
        """The seed of the epoch, or ``None`` if none was stored."""
        with self._connection() as connection:
            row = connection.execute(
                "SELECT seed FROM fair_seeds WHERE campaign = %s AND epoch = %s",
                [campaign, epoch]).fetchone()
        return None if row is None else bytes(row[0])

    def close(self) -> None:
        """Nothing of its own to release: the pool is the log's."""
