"""The PostgreSQL backend of the event log: several server processes on one database.

:class:`PostgresLog` is the log (:mod:`.log`), :mod:`.schema` its tables and the promises the
database keeps, :class:`HeadListener` (:mod:`.listener`) the one connection per process that
hears the heads the other processes append. Nothing outside this package touches a
PostgreSQL connection.
"""

from __future__ import annotations

from events.postgres_backend.log import PostgresLog, is_postgres_url, safe_url

__all__ = ["PostgresLog", "is_postgres_url", "safe_url"]
