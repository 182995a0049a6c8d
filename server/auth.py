"""Tokens: generated from the OS CSPRNG, shown once, stored only as SHA-256 hashes.

The admin token is created at the first ``poolhall serve`` and kept in a file beside the
database (``<db>.admin-token``, readable by its owner only; for a PostgreSQL deployment, a file
named after it in the working directory) so that the CLI run in the same directory finds it.
The file is written atomically (a temporary file, fsynced, renamed into place): a crash or a
full disk leaves either no file or a whole one, never an empty file whose empty string would
become the admin token. A file that is there but empty, too short or unreadable stops the
server with :class:`AdminTokenError` rather than being replaced, since its owner may hold the
token it once held.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import stat
from pathlib import Path

from poolhall.events.database_names import deployment_token_file, is_postgres_url
from poolhall.events.errors import PoolhallError

__all__ = [
    "MIN_TOKEN_LENGTH",
    "OLD_SHARED_TOKEN_FILE",
    "AdminTokenError",
    "admin_token_path",
    "check_admin_token",
    "hash_token",
    "load_or_create_admin_token",
    "load_or_create_token_file",
    "new_token",
    "read_token_file",
    "token_file_mode",
    "tokens_match",
]

logger = logging.getLogger(__name__)

_PREFIX = "ph_"

MIN_TOKEN_LENGTH = 32
"""The shortest token anything opens with: every token poolhall issues has 46 characters
(256 bits); an operator's own admin token must have at least 32 (``openssl rand -hex 16``)."""

_NO_TOKEN_HASH = "-" * 64
"""What a string too short to be a token hashes to: never a hex digest, so it matches no
member's hash and no admin's, whatever the comparison (``==``, a dict, compare_digest)."""


class AdminTokenError(PoolhallError):
    """The admin token file is unusable: empty, too short, unreadable, or not writable."""


def new_token() -> str:
    """A fresh bearer token with 256 bits from the OS CSPRNG."""
    return _PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The hex SHA-256 of a token: what the log keeps instead of the token.

    A string shorter than :data:`MIN_TOKEN_LENGTH` (the empty string above all) is no token
    poolhall issued or accepts as admin token, so it gets a hash that matches nothing.
    """
    if len(token) < MIN_TOKEN_LENGTH:
        return _NO_TOKEN_HASH
    return hashlib.sha256(token.encode()).hexdigest()


def tokens_match(token_hash: str, expected_hash: str) -> bool:
    """Compare two token hashes in constant time; the hash of no token matches nothing."""
    return hmac.compare_digest(token_hash, expected_hash) and expected_hash != _NO_TOKEN_HASH


OLD_SHARED_TOKEN_FILE = "poolhall.admin-token"
"""The one name every PostgreSQL deployment's token file had before it was named after its
deployment: such a file is used only by the deployment whose database holds its token's hash
(:mod:`poolhall.server.shared_admin`), never taken by a new one."""


def admin_token_path(db_path: str | Path) -> Path:
    """Where the admin token of a database lives: a file beside it (for a ``postgresql://``
    URL, the file named after the deployment in the working directory,
    :func:`~poolhall.events.database_names.deployment_token_file`, so that two deployments
    run from one directory never share a token)."""
    if is_postgres_url(str(db_path)):
        return Path(deployment_token_file(str(db_path)))
    db = Path(db_path)
    return db.with_name(db.name + ".admin-token")


def check_admin_token(token: str, source: str) -> str:
    """``token`` if it can serve as an admin token, else :class:`AdminTokenError` naming
    ``source`` (where it came from) and what is wrong with it."""
    if not token:
        raise AdminTokenError(f"{source} is empty; delete it to have a new admin token made,"
                              " or write the token back into it")
    if len(token) < MIN_TOKEN_LENGTH:
        raise AdminTokenError(f"the admin token in {source} has {len(token)} characters; it"
                              f" needs at least {MIN_TOKEN_LENGTH}")
    if not token.isprintable() or any(c.isspace() for c in token):
        raise AdminTokenError(f"the admin token in {source} holds spaces or control"
                              " characters; a token is one printable word")
    return token


def read_token_file(path: str | Path) -> str:
    """The token kept in a file (one line; surrounding whitespace ignored).

    Raises :class:`AdminTokenError` if the file cannot be read as text; the caller checks
    what it holds.
    """
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise AdminTokenError(f"cannot read the token file {path}: {reason}") from None


def load_or_create_admin_token(db_path: str | Path) -> tuple[str, bool]:
    """The admin token of a database, created (owner-readable only) on first use.

    Returns the token and whether it was just created. Raises :class:`AdminTokenError` if
    the file exists but holds no usable token, or cannot be written.
    """
    return load_or_create_token_file(admin_token_path(db_path))


def load_or_create_token_file(path: Path) -> tuple[str, bool]:
    """The admin token kept in ``path``, made there (owner-readable only) if it is not
    there; as :func:`load_or_create_admin_token`."""
    if path.exists() or path.is_symlink():
        token = check_admin_token(read_token_file(path), str(path))
        _warn_if_readable(path)
        return token, False
    token = new_token()
    try:
        _write_atomically(path, token + "\n")
    except FileExistsError:  # another process made it meanwhile: theirs stands
        return check_admin_token(read_token_file(path), str(path)), False
    except OSError as error:
        raise AdminTokenError(f"cannot write the admin token file {path}: "
                              f"{error.strerror or error}") from None
    return token, True


def token_file_mode(path: Path) -> int | None:
    """The permission bits of the token file, or ``None`` if they cannot be read."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None


def _warn_if_readable(path: Path) -> None:
    """Warn if others may read the admin token file (written back by hand under umask 022,
    say): whoever reads it is GM of every campaign."""
    mode = token_file_mode(path)
    if mode is not None and mode & 0o077:
        logger.warning("the admin token file %s is readable by other users (mode %04o): whoever"
                       " reads it is GM of every campaign; `chmod 600` it", path, mode)


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a new file ``path``, mode 0600, whole or not at all.

    The text goes to a temporary file (0600 from its creation) in the same directory, which
    is fsynced, then linked to ``path`` (``os.link`` fails if ``path`` exists: never
    overwrites) and the directory fsynced, so that after a crash the name is either absent
    or names the whole token.
    """
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            data = text.encode()
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
