"""How a database is named: a ``postgresql://`` URL, or else a SQLite file's path; and the name
as it is printed or logged, with a URL's password hidden.

Plain functions that import no backend, so the CLI, the server, :mod:`poolhall.events.backends`
and the PostgreSQL backend's own messages share one reading of a name.
"""

from __future__ import annotations

import re

__all__ = ["is_postgres_url", "safe_name"]

_SCHEMES = ("postgresql://", "postgres://")

_PASSWORD = re.compile(r"(://[^:@/]*):[^@/]*@")
"""A URL's ``user:password@``: the password is what :func:`safe_name` hides."""


def is_postgres_url(database: object) -> bool:
    """Whether ``database`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(database, str) and database.startswith(_SCHEMES)


def safe_name(database: str) -> str:
    """A database's name to print or log: a URL's password hidden."""
    return _PASSWORD.sub(r"\1:***@", database)
