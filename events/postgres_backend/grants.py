"""What a serving role needs of the log's tables, for a deployment whose servers do not own them.

The tables' owner can switch the append-only triggers off (``ALTER TABLE … DISABLE TRIGGER``);
a role that owns nothing cannot. So an operator who wants the database to hold the log
append-only against the servers themselves migrates as the owner and serves as another role,
granted only what a ``poolhall serve`` process does (``poolhall migrate --grant-to ROLE``):

- read and append the log's append-only tables (``SELECT``, ``INSERT``): never ``UPDATE``,
  ``DELETE`` or ``TRUNCATE``, which the triggers refuse anyway;
- write the derived and passing tables as they are written: the snapshots (replaced and
  dropped), the presence tables (heartbeats and connection counts), the report pages'
  tickets (stored, extended, spent);
- read ``deployment`` and add to it (the admin token's SHA-256, once, by the first process);
- use the schema the tables are in. Advisory locks, ``LISTEN`` and ``NOTIFY`` need no grant.

``poolhall verify`` needs ``SELECT`` alone, which this role has too.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from poolhall.events.postgres_backend.schema import APPEND_ONLY_TABLES

__all__ = ["SERVING_PRIVILEGES", "grant", "grant_serving", "require_role"]

SERVING_PRIVILEGES: dict[str, tuple[str, ...]] = {
    **{table: ("SELECT", "INSERT") for table in APPEND_ONLY_TABLES},
    "deployment": ("SELECT", "INSERT"),
    "snapshots": ("SELECT", "INSERT", "UPDATE", "DELETE"),
    "presence_processes": ("SELECT", "INSERT", "UPDATE", "DELETE"),
    "presence": ("SELECT", "INSERT", "UPDATE", "DELETE"),
    "report_tickets": ("SELECT", "INSERT", "UPDATE", "DELETE"),
}
"""Each table, and what a serving process does to it (nothing else is granted)."""


def grant_serving(connection: psycopg.Connection[Any], role: str) -> str:
    """Grant ``role`` what a serving process needs (:data:`SERVING_PRIVILEGES`) in the schema
    the tables are in, in one transaction; what was granted, in words. Raises
    :class:`psycopg.errors.UndefinedObject` for a role the server does not have."""
    with connection.transaction():
        row = connection.execute("SELECT current_schema()").fetchone()
        schema = row[0] if row else "public"
        target = sql.Identifier(role)
        connection.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(
            sql.Identifier(schema), target))
        for table, privileges in SERVING_PRIVILEGES.items():
            connection.execute(sql.SQL("GRANT {} ON {} TO {}").format(
                sql.SQL(", ").join(sql.SQL(privilege) for privilege in privileges),
                sql.Identifier(table), target))
    return (f"granted {role} what a serving process needs ({len(SERVING_PRIVILEGES)} tables"
            f" of the schema {schema}: no UPDATE or DELETE of the log)")


def require_role(url: str, role: str) -> None:
    """Refuse (:class:`NotALog`, exit 2) a ``--grant-to`` role the server does not have,
    before ``migrate`` creates anything: checked only at the grant, a mistyped role was
    refused after the schema had been made, and the message did not say so."""
    from poolhall.events.database_names import safe_name
    from poolhall.events.errors import DatabaseUnreachable, NotALog, StoreError
    from poolhall.events.postgres_backend.database import connect, reason

    try:
        with connect(url, autocommit=True, connect_timeout=10) as connection:
            found = connection.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                                       [role]).fetchone()
    except psycopg.OperationalError as error:
        raise DatabaseUnreachable(f"cannot open {safe_name(url)}: {reason(error)}") from None
    except psycopg.Error as error:
        raise StoreError(f"cannot open {safe_name(url)}: {reason(error)}") from None
    if found is None:
        raise NotALog(f"--grant-to: {safe_name(url)} has no role named {role!r}; create it"
                      f" first (CREATE ROLE \"{role}\" LOGIN PASSWORD '…'); nothing was"
                      " created or changed")


def grant(url: str, role: str) -> str:
    """:func:`grant_serving` on the database at ``url`` (``poolhall migrate --grant-to``),
    its refusals in words: a role the server does not have (:class:`NotALog`: the command
    line's mistake, exit 2), a migrating role that may not grant (:class:`StoreError`)."""
    from poolhall.events.database_names import safe_name
    from poolhall.events.errors import DatabaseUnreachable, NotALog, StoreError
    from poolhall.events.postgres_backend.database import connect, reason

    try:
        with connect(url, autocommit=True, connect_timeout=10) as connection:
            return grant_serving(connection, role)
    except psycopg.errors.UndefinedObject:
        raise NotALog(f"--grant-to: {safe_name(url)} has no role named {role!r}; create it"
                      f" first (CREATE ROLE \"{role}\" LOGIN PASSWORD '…')") from None
    except psycopg.errors.InsufficientPrivilege as error:
        raise StoreError(f"--grant-to: this role may not grant on the log's tables"
                         f" ({reason(error)}); run `poolhall migrate` as their owner") from None
    except psycopg.OperationalError as error:
        raise DatabaseUnreachable(f"cannot open {safe_name(url)}: {reason(error)}") from None
