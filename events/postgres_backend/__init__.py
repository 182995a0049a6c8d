"""The PostgreSQL backend of the event log: several server processes on one database.

:class:`PostgresLog` is the log (:mod:`.log`: its reads; :mod:`.append`: its appends, one
process at a time per campaign), :mod:`.schema` its tables and the promises the database keeps,
:mod:`.database` the URL, the schema's creation and the NOTIFY channel, :class:`HeadListener`
(:mod:`.listener`) the one connection per process that hears the heads the other processes
append; :mod:`.grants` what a serving role that does not own the tables is granted.
Nothing outside this package touches a PostgreSQL connection.
"""

from __future__ import annotations

from poolhall.events.postgres_backend.grants import grant, require_role
from poolhall.events.postgres_backend.log import PostgresLog

__all__ = ["PostgresLog", "grant", "require_role"]
