"""The d12 system's dice as plain data: how many a pool holds, which stats refresh it, and
what a face counts.

The lower module of :mod:`poolhall.events.d12`, which re-exports these names and builds its
types on them. Kept apart, with no msgspec, because the exact odds
(:mod:`poolhall.projections.d12_odds`, ``poolhall d12-odds``) need these and none of the
events (nor does building ``poolhall d12``'s parser): importing msgspec and the events was a
fifth of that command's start (``tests/bench/cli_start.py``).
"""

from __future__ import annotations

__all__ = ["MAX_POOL", "REFRESH_STATS", "die_value"]

MAX_POOL = 100
"""**Decision**: a pool holds at most 100 dice; refresh dice beyond that are not added."""
REFRESH_STATS = ("CON", "CHA")
"""The stats whose dice join an extended test's pool after each round (the GM picks one)."""


def die_value(face: int, dt: int) -> int:
    """What one die counts: 12 two successes, 1 two failures, above the DT one success, else one
    failure (a 12 counts two successes even at DT 12)."""
    if face == 12:
        return 2
    if face == 1:
        return -2
    return 1 if face > dt else -1
