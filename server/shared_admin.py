"""The admin token of a deployment on a shared database (several processes, one PostgreSQL).

Its hash is kept in the database, so every process checks the same token and a second process
needs nothing copied to it. The first process started makes it (in the file named by
:func:`poolhall.server.auth.admin_token_path`, in its working directory), unless it was given one; a
token given that is not the one the deployment holds stops the server.
"""

from __future__ import annotations

import asyncio
from typing import NamedTuple

from poolhall.events.errors import StoreError
from poolhall.events.log_contract import Deployment
from poolhall.server.auth import admin_token_path, hash_token, load_or_create_admin_token

__all__ = ["SharedAdmin", "claim_shared_admin_token"]


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
    else the one the database holds, made here (and written beside the process) if none."""
    claim = shared.claim_admin_hash
    if given is not None:
        held = await asyncio.to_thread(claim, hash_token(given))
        if held != hash_token(given):
            raise StoreError("the admin token given is not this deployment's (the "
                             "database holds another's hash); start without one to use "
                             "the deployment's")
        return SharedAdmin(given, False, held)
    found = await asyncio.to_thread(shared.admin_hash)
    if found is None:
        path = admin_token_path(database)
        try:
            token, created = load_or_create_admin_token(path.with_suffix(""))
        except OSError as error:
            raise StoreError(f"cannot keep the admin token in {path}: "
                             f"{error.strerror or error}") from None
        held = await asyncio.to_thread(claim, hash_token(token))
        if held == hash_token(token):
            return SharedAdmin(token, created, held)
        if created:  # another process set the deployment's first: this one is no token
            path.unlink(missing_ok=True)
        return SharedAdmin("", False, held)
    return SharedAdmin("", False, found)
