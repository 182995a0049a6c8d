"""Which backend a database name opens: a ``postgresql://`` URL, or else a SQLite file.

The one place that chooses, so that ``serve``, ``verify``, ``migrate`` and the report worker
agree. PostgreSQL's modules (and psycopg) are imported only for a URL: the embedded default
needs neither installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolhall.events.database_names import is_postgres_url, safe_name
from poolhall.events.errors import StoreError

if TYPE_CHECKING:
    from poolhall.events.log_contract import EventLog, ServerLog

__all__ = ["is_postgres_url", "migrate", "open_log", "reading", "safe_name"]

def _postgres() -> Any:
    try:
        from poolhall.events import postgres_backend
    except ImportError as error:
        raise StoreError(f"a postgresql:// database needs psycopg ({error.name} is not "
                         "installed): pip install 'poolhall[postgres]'") from None
    return postgres_backend


def open_log(database: str | Path) -> ServerLog:
    """The log for a server to write: created if it is not there."""
    if is_postgres_url(database):
        log: ServerLog = _postgres().PostgresLog(str(database))
        return log
    from poolhall.events.sqlite_backend import SqliteLog

    return SqliteLog(database)


@contextmanager
def reading(database: str | Path) -> Iterator[EventLog]:
    """The log to read only (``verify``, reports), closed after: never created, never
    written."""
    if is_postgres_url(database):
        log: EventLog = _postgres().PostgresLog(str(database), create=False)
        try:
            yield log
        finally:
            log.close()
        return
    from poolhall.events.sqlite_backend import SqliteReader

    reader = SqliteReader(database)
    try:
        yield reader
    finally:
        reader.close()


def migrate(database: str | Path) -> str:
    """Create or bring up to date the schema of ``database``; what was done, in words."""
    if is_postgres_url(database):
        log = _postgres().PostgresLog(str(database))
        log.close()
        return "the schema is up to date"
    from poolhall.events.sqlite_backend import SqliteLog

    SqliteLog(database).close()
    return "the file is up to date"
