"""A pooled connection whose failures are the store's: shared by the side tables' classes;
and the check the pool makes of an idle connection before handing it out."""

from __future__ import annotations

import select
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from poolhall.events.errors import StoreError

__all__ = ["check_idle", "pooled"]


@contextmanager
def pooled(pool: ConnectionPool[Any], what: str) -> Iterator[psycopg.Connection[Any]]:
    """A connection of ``pool``; the database's errors (and a pool that gives none in time)
    as :class:`StoreError` naming ``what`` was being read or written, in one line."""
    try:
        with pool.connection() as connection:
            yield connection
    except (psycopg.Error, PoolTimeout) as error:
        raise StoreError(f"{what}: {' '.join(str(error).split())}") from None


def check_idle(connection: psycopg.Connection[Any]) -> None:
    """Raise if an idle pooled connection is dead, so that the pool drops it and hands out
    another (the pool's ``check``).

    A PostgreSQL that restarts (or ends a session) tells each client so before it closes the
    socket, and a closed socket reads as its end: either way an idle connection that has
    anything to read is asked once, with an empty query, whether it still works. Without
    this the pool handed out connections of the database before its restart, one failed read
    each (joins refused while ``/health`` said ok). An idle connection with nothing to read
    is handed out as it is: no round trip is added to a read.
    """
    readable, _, _ = select.select([connection.fileno()], [], [], 0)
    if readable:
        ConnectionPool.check_connection(connection)
