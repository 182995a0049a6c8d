"""The admin token of a deployment on a shared database (several processes, one PostgreSQL).

Its hash is kept in the database, so every process checks the same token and a second process
needs nothing copied to it. The first process started makes it (in the file named after the
deployment by :func:`poolhall.server.auth.admin_token_path`, in its working directory), unless
it was given one; a token given that is not the one the deployment holds stops the server.

The file is named after the deployment (database, schema, server) because a new deployment
takes the token of the file it finds: with one name for all, a second deployment started in the
first one's directory (another schema for another group of a club) stored the first one's hash,
and each group's organiser was GM of the other's campaigns. A file of the old single name
(:data:`~poolhall.server.auth.OLD_SHARED_TOKEN_FILE`) is never taken by a new deployment; it is
renamed to the deployment's name when its token is the one the database holds.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import NamedTuple

from poolhall.events.errors import StoreError
from poolhall.events.log_contract import Deployment
from poolhall.server.auth import (
    OLD_SHARED_TOKEN_FILE,
    AdminTokenError,
    admin_token_path,
    check_admin_token,
    hash_token,
    load_or_create_token_file,
    read_token_file,
    tokens_match,
)

__all__ = ["SharedAdmin", "claim_shared_admin_token", "token_on_file"]

logger = logging.getLogger(__name__)


class SharedAdmin(NamedTuple):
    """What this process knows of the deployment's admin token."""

    token: str
    """The token, or "" when another process made it: only its hash is known here, which is
    all a join needs."""
    created: bool
    """Whether this process made the token (and its file) just now."""
    hash: str
    """The hash every join is checked against."""


async def claim_shared_admin_token(shared: Deployment, given: str | None,
                                   database: str) -> SharedAdmin:
    """The deployment's admin token: ``given`` if the database holds its hash (or none yet),
    else the one the database holds, made here (and written beside the process, in the
    deployment's own file) if none."""
    claim = shared.claim_admin_hash
    if given is not None:
        held = await asyncio.to_thread(claim, hash_token(given))
        if held != hash_token(given):
            raise StoreError("the admin token given is not this deployment's (the "
                             "database holds another's hash); start without one to use "
                             "the deployment's")
        return SharedAdmin(given, False, held)
    found = await asyncio.to_thread(shared.admin_hash)
    path = admin_token_path(database)
    if found is not None:
        await asyncio.to_thread(_rename_old_file, path, found)
        return SharedAdmin("", False, found)
    if Path(OLD_SHARED_TOKEN_FILE).exists():
        logger.warning("%s here is not used for this new deployment (it may be another"
                       " deployment's token): its admin token is made in %s",
                       OLD_SHARED_TOKEN_FILE, path)
    try:
        token, created = load_or_create_token_file(path)
    except OSError as error:
        raise StoreError(f"cannot keep the admin token in {path}: "
                         f"{error.strerror or error}") from None
    held = await asyncio.to_thread(claim, hash_token(token))
    if held == hash_token(token):
        return SharedAdmin(token, created, held)
    if created:  # another process set the deployment's first: this one is no token
        path.unlink(missing_ok=True)
    return SharedAdmin("", False, held)


def token_on_file(database: str, held_hash: str) -> tuple[str | None, str]:
    """The deployment's admin token as its file here holds it, if its hash is the one the
    database holds (``serve --show-admin-token`` shows it); else ``None`` and why not, in
    words."""
    path = admin_token_path(database)
    if not (path.exists() or path.is_symlink()):
        return None, (f"no {path} here: the admin token is in that file in the working"
                      " directory of the process that made it")
    try:
        token = check_admin_token(read_token_file(path), str(path))
    except AdminTokenError as error:
        return None, str(error)
    if not tokens_match(hash_token(token), held_hash):
        return None, (f"{path} holds another token than the one this deployment's database"
                      " holds (replaced since?): it is no admin token here")
    return token, ""


def _rename_old_file(path: Path, held_hash: str) -> None:
    """Give the deployment's file its name if it has the old one: ``poolhall.admin-token``
    here whose token the database holds becomes ``path`` (another deployment's is left
    alone), so that the CLI, which looks for ``path``, finds it after an upgrade."""
    old = Path(OLD_SHARED_TOKEN_FILE)
    if path.exists() or not old.is_file():
        return
    try:
        token = check_admin_token(read_token_file(old), str(old))
    except AdminTokenError:
        return
    if not tokens_match(hash_token(token), held_hash):
        return
    try:
        os.link(old, path)
    except FileExistsError:  # another process of the deployment renamed it meanwhile
        pass
    except OSError as error:
        logger.warning("cannot rename %s (this deployment's admin token) to %s: %s; rename"
                       " it by hand for the CLI to find it", old, path,
                       error.strerror or error)
        return
    old.unlink(missing_ok=True)
    logger.warning("renamed %s to %s: the admin token's file is now named after its"
                   " deployment", old, path)
