"""The steps of a shutdown that must all run, and the answer owed to commands never read.

A shutdown on a failing disk used to stop at the first step that raised (the last checkpoint),
skipping the queued frames, the 1001 closes and the release of the log: clients were cut off
and the next server found the file still locked. :func:`run_steps` runs every step whatever
the ones before it did, and logs each failure in one line.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

from websockets.asyncio.server import ServerConnection

__all__ = ["QUIET_ROUNDS", "answer_unread", "run_steps"]

logger = logging.getLogger(__name__)

Step = tuple[str, Callable[[], Awaitable[object]]]

QUIET_ROUNDS = 3
"""Loop turns with no unread frame anywhere before the unread commands count as answered:
a connection whose reading was paused (its buffer full) gets the rest of its frames from the
kernel a turn or two after its handler drained the buffer."""


async def run_steps(*steps: Step) -> int:
    """Run each ``(what, step)`` in order, going on past a failure; return how many failed."""
    failed = 0
    for what, step in steps:
        try:
            await step()
        except Exception as error:
            failed += 1
            logger.error("shutdown: %s failed: %s", what, error)
    return failed


def _unread(connection: ServerConnection) -> int:
    """Frames this connection received that its handler has not read yet."""
    assembler = getattr(connection, "recv_messages", None)
    frames = getattr(assembler, "frames", None)
    return len(frames) if frames is not None else 0


async def answer_unread(connections: Iterable[ServerConnection], limit: int = 10_000) -> None:
    """Let each connection's handler read the frames it has already received.

    Once the hubs are closing, a handler answers every command it reads with
    ``shutting_down``; without this pause the 1001 close came first and the commands still
    in the connection's buffer got no answer at all. Bounded: at most ``limit`` loop turns.
    """
    live = list(connections)
    quiet = 0
    for _ in range(limit):
        await asyncio.sleep(0)
        if any(_unread(connection) for connection in live):
            quiet = 0
        else:
            quiet += 1
            if quiet >= QUIET_ROUNDS:
                return
