"""The sr3 system's dice as plain data: how many one test rolls.

The lower module of :mod:`poolhall.events.sr3_values` (and so of :mod:`poolhall.events.sr3`),
which re-export it and build their types on it. Kept apart, with no msgspec, because
``poolhall sr3-odds`` checks its arguments against it and needs none of the events: importing
msgspec and the events was a fifth of that command's start (``tests/bench/cli_start.py``).
"""

from __future__ import annotations

__all__ = ["MAX_TEST_DICE"]

MAX_TEST_DICE = 100
"""The most dice one test rolls, its pool dice included."""
