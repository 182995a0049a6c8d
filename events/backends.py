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
from poolhall.events.errors import NotALog, StoreError

if TYPE_CHECKING:
    from poolhall.events.log_contract import EventLog, ServerLog
    from poolhall.events.sqlite_backend.schema import Migrated

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


def migrate(database: str | Path, grant_to: str | None = None) -> tuple[str, Migrated | None]:
    """Create or bring up to date the schema of ``database``: what was done, in words, and
    what a SQLite file's migration did, if one ran. ``grant_to``: a PostgreSQL role that
    serves without owning the tables, granted what a serving process needs
    (:mod:`poolhall.events.postgres_backend.grants`); a SQLite file has no roles.

    A SQLite path with no file behind it is refused (:class:`NotALog`, as ``verify`` refuses
    it): ``migrate`` of a mistyped path created an empty log and said it was up to date, and
    the operator believed the upgrade done. ``serve`` creates a new file; ``migrate`` only
    brings one up to date.
    """
    if is_postgres_url(database):
        if grant_to is not None:  # a mistyped role is refused before anything is created
            _postgres().require_role(str(database), grant_to)
        log = _postgres().PostgresLog(str(database))
        log.close()
        done = log.schema_made or "already up to date"
        if grant_to is not None:
            done += "; " + _postgres().grant(str(database), grant_to)
        return done, None
    if grant_to is not None:
        raise NotALog(f"--grant-to is for a postgresql:// database: {database} is a SQLite"
                      " file, which has no roles")
    from poolhall.events.sqlite_backend import SqliteLog, SqliteReader

    if not Path(database).is_file():
        raise NotALog(f"no database at {database}")
    if not Path(database).stat().st_size:
        raise NotALog(f"{database} is empty: there is no log to bring up to date (`poolhall"
                      " serve` makes a new one)")
    SqliteReader(database).close()  # refuses a file that is not a log, leaving it untouched
    opened = SqliteLog(database)
    opened.close()
    if opened.migrated is None:
        return opened.schema_made or "already up to date", None
    return opened.migrated.words(), opened.migrated
