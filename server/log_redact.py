"""Frames stay out of the server's log, even at debug level.

With ``poolhall -v serve`` websockets logs every frame it reads or writes (``< TEXT '{"type":
"join","token":"ph_…'``), shortened in the middle: a join's token, or the tail of the token an
``invite`` ack carries, was written to the log file in clear. Tokens must never reach a log
(they are bearer secrets; the log keeps only their hashes), so frames are logged by kind and
size only: ``< TEXT [87 bytes]``. Everything else websockets says at debug level (handshakes,
closes, keepalives) is kept.
"""

from __future__ import annotations

import logging

from websockets.frames import Frame

__all__ = ["FrameRedactor", "redact_frames"]


class FrameRedactor(logging.Filter):
    """Rewrites websockets' frame records (``"< %s"`` / ``"> %s"`` with a frame) to the
    frame's kind and length."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 1 and isinstance(args[0], Frame):
            frame = args[0]
            record.args = (f"{frame.opcode.name} [{len(frame.data)} bytes]",)
        return True


def redact_frames(logger: logging.Logger | None = None) -> logging.Logger:
    """``logger`` (websockets' server logger by default) with a :class:`FrameRedactor`, added
    once however often the server starts."""
    logger = logger if logger is not None else logging.getLogger("websockets.server")
    if not any(isinstance(existing, FrameRedactor) for existing in logger.filters):
        logger.addFilter(FrameRedactor())
    return logger
