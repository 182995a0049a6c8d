"""Reading the server's frames, tolerant of what a newer server adds.

A server newer than this client may send a message type it does not know, or a view of a kind
it does not know (views are derived data). Both are skipped with a debug line: an older client
keeps working beside a newer server. Anything else it cannot read is an error.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from poolhall.projections.snapshot import SERVER_DECODER

__all__ = ["read_server_frame"]

logger = logging.getLogger(__name__)


class _AnyMessage(msgspec.Struct):
    """Only the ``type`` of a server message, whatever else it holds."""

    type: str = ""


_ANY_MESSAGE = msgspec.json.Decoder(_AnyMessage)


def read_server_frame(frame: str | bytes) -> Any | None:
    """The server message in ``frame``, or ``None`` for one newer than this client; raises
    :class:`msgspec.ValidationError` (or ``DecodeError``) for a frame that is wrong."""
    try:
        return SERVER_DECODER.decode(frame)
    except msgspec.ValidationError as error:
        if str(error).endswith("- at `$.type`"):
            logger.debug("skipping a server message of unknown type: %s", error)
            return None
        if "- at `$.data" in str(error) and _is_view(frame):
            logger.debug("skipping a view this client cannot read: %s", error)
            return None
        raise


def _is_view(frame: str | bytes) -> bool:
    """Whether a frame the client could not read is a ``view`` (and not an event)."""
    try:
        return _ANY_MESSAGE.decode(frame).type == "view"
    except msgspec.DecodeError:
        return False
