"""Tokens: generated from the OS CSPRNG, shown once, stored only as SHA-256 hashes.

The admin token is created at the first ``poolhall serve`` and kept in a file beside the
database (``<db>.admin-token``, readable by its owner only) so that the CLI run in the same
directory finds it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

__all__ = [
    "admin_token_path",
    "hash_token",
    "load_or_create_admin_token",
    "new_token",
    "tokens_match",
]

_PREFIX = "ph_"


def new_token() -> str:
    """A fresh bearer token with 256 bits from the OS CSPRNG."""
    return _PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The hex SHA-256 of a token: what the log keeps instead of the token."""
    return hashlib.sha256(token.encode()).hexdigest()


def tokens_match(token_hash: str, expected_hash: str) -> bool:
    """Compare two token hashes in constant time."""
    return hmac.compare_digest(token_hash, expected_hash)


def admin_token_path(db_path: str | Path) -> Path:
    """Where the admin token of a database lives: a file beside it."""
    db = Path(db_path)
    return db.with_name(db.name + ".admin-token")


def load_or_create_admin_token(db_path: str | Path) -> tuple[str, bool]:
    """The admin token of a database, created (owner-readable only) on first use.

    Returns the token and whether it was just created, so ``serve`` prints it only then.
    """
    path = admin_token_path(db_path)
    if path.exists():
        return path.read_text().strip(), False
    token = new_token()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(token + "\n")
    return token, True
