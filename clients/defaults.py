"""What a command line needs before it connects anywhere: the default server address and
fresh command ids.

Kept apart from :mod:`poolhall.clients.client` so that building the ``poolhall`` parser, or printing
a command's ``--help``, imports neither asyncio nor websockets nor the message types.
"""

from __future__ import annotations

__all__ = ["DEFAULT_URL", "new_command_id"]

DEFAULT_URL = "ws://127.0.0.1:8765"


def new_command_id() -> str:
    """A fresh client-generated command id."""
    import secrets  # here: hashlib and random are no part of a --help

    return "c-" + secrets.token_hex(8)
