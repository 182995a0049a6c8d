"""What a refused frame costs its sender: seconds during which their connection is not read.

Reading on after a refusal would only refuse again. Without a cost, refused frames were free:
an outsider sending garbage 700 times a second raised another table's p99 to 260 ms. So a
``rate_limited`` frame waits out its retry time; a member's other refusals spend their command
rate (:meth:`poolhall.server.rates.Limits.charge_refusal`); and a connection that has not joined
reads one frame a second, each refused frame counting as a failed join of its address
(:meth:`poolhall.server.gate.Gate.join_failed`).
"""

from __future__ import annotations

from websockets.asyncio.server import ServerConnection

from poolhall.events.errors import Rejected
from poolhall.server.gate import Gate
from poolhall.server.rates import Limits, MemberKey

__all__ = ["REFUSED_PAUSE", "pause_after"]

REFUSED_PAUSE = 1.0
"""Most seconds a connection's frames go unread after a refusal: pausing until the retry time
(at most this) keeps a flood from one member from costing the server a decode and a refusal per
frame."""


def pause_after(refusal: Rejected, key: MemberKey | None, connection: ServerConnection, *,
                limits: Limits, gate: Gate) -> float:
    """Seconds to leave ``connection``'s frames unread after refusing one of them (``key``:
    the member who joined on it, ``None`` before a join)."""
    if refusal.retry_after is not None:
        return min(refusal.retry_after, REFUSED_PAUSE)
    if key is not None:
        return min(limits.charge_refusal(key), REFUSED_PAUSE)
    if refusal.code != "unauthorized":  # a wrong token was counted by Joins.join already
        gate.join_failed(connection)
    return REFUSED_PAUSE
