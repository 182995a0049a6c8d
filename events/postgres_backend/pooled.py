"""A pooled connection whose failures are the store's: shared by the side tables' classes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from poolhall.events.errors import StoreError

__all__ = ["pooled"]


@contextmanager
def pooled(pool: ConnectionPool[Any], what: str) -> Iterator[psycopg.Connection[Any]]:
    """A connection of ``pool``; the database's errors (and a pool that gives none in time)
    as :class:`StoreError` naming ``what`` was being read or written, in one line."""
    try:
        with pool.connection() as connection:
            yield connection
    except (psycopg.Error, PoolTimeout) as error:
        raise StoreError(f"{what}: {' '.join(str(error).split())}") from None
