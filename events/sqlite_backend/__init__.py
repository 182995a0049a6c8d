"""The SQLite backend of the event log: the embedded default (one file, WAL, group commit).

- :mod:`~poolhall.events.sqlite_backend.schema`: the plain schema, its constraints, the migration;
- :mod:`~poolhall.events.sqlite_backend.log`: :class:`SqliteLog`, the file opened by its one server;
- :mod:`~poolhall.events.sqlite_backend.reader`: :class:`SqliteReader`, reads and ``verify``;
- :mod:`~poolhall.events.sqlite_backend.verify`: the walk of every chain;
- :mod:`~poolhall.events.sqlite_backend.file`, ``bulk_insert``, ``issued_tokens``: their helpers.

Nothing outside this package opens a connection to the file.
"""

from __future__ import annotations

from poolhall.events.sqlite_backend.file import open_error, writer_lock
from poolhall.events.sqlite_backend.log import JOURNAL_SIZE_LIMIT, SqliteLog
from poolhall.events.sqlite_backend.reader import SqliteReader

__all__ = ["JOURNAL_SIZE_LIMIT", "SqliteLog", "SqliteReader", "open_error", "writer_lock"]
