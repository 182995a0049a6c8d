"""What the processes of one deployment share besides the log: the admin token's hash.

The admin token is never stored, only its SHA-256, in table ``deployment`` (key
``admin_token_sha256``). The first process started on an empty database sets it (from the
token it was given, or one it made and wrote to a file for the operator); every later process
reads it from there, so a second process needs nothing copied to it to check the admin
token. Setting it is ``INSERT ... ON CONFLICT DO NOTHING`` and a read back: of three processes
starting at once, one sets it and all three use that one.
"""

from __future__ import annotations

from typing import Any

import psycopg

__all__ = ["ADMIN_KEY", "admin_hash", "claim_admin_hash"]

ADMIN_KEY = "admin_token_sha256"


def admin_hash(connection: psycopg.Connection[Any]) -> str | None:
    """The deployment's admin token hash, if one was set."""
    row = connection.execute("SELECT value FROM deployment WHERE key = %s",
                             [ADMIN_KEY]).fetchone()
    return None if row is None else str(row[0])


def claim_admin_hash(connection: psycopg.Connection[Any], token_hash: str) -> str:
    """Set the admin token hash unless one is set; the one the deployment uses now."""
    connection.execute("INSERT INTO deployment (key, value) VALUES (%s, %s)"
                       " ON CONFLICT (key) DO NOTHING", [ADMIN_KEY, token_hash])
    found = admin_hash(connection)
    assert found is not None
    return found
