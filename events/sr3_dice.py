"""The sr3 system's dice as plain data: how many one test rolls, and what its dice come to.

The lower module of :mod:`poolhall.events.sr3_values` (and so of :mod:`poolhall.events.sr3`),
which re-export it and build their types on it. Kept apart, with no msgspec, because
``poolhall sr3-odds`` checks its arguments against it and needs none of the events: importing
msgspec and the events was a fifth of that command's start (``tests/bench/cli_start.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["MAX_TEST_DICE", "Result", "result_of"]

MAX_TEST_DICE = 100
"""The most dice one test rolls, its pool dice included."""


class _Chain(Protocol):
    """A die as a test rolled it: each face of its Rule-of-Six chain (a ``PoolDie``)."""

    @property
    def faces(self) -> Sequence[int]: ...


class Result:
    """The result of a set of dice: successes (None when open), highest, Rule of One.

    Here, beside the dice, so that the rules that roll a test and ``poolhall verify``, which
    checks what a recorded test says its dice came to, count them one way."""

    __slots__ = ("successes", "highest", "disastrous")

    def __init__(self, successes: int | None, highest: int, disastrous: bool) -> None:
        self.successes = successes
        self.highest = highest
        self.disastrous = disastrous


def result_of(dice: Sequence[_Chain], tn: int | None) -> Result:
    """Count successes against ``tn`` (None: open test), the highest value, and all ones."""
    totals = [sum(die.faces) for die in dice]
    successes = None if tn is None else sum(1 for total in totals if total >= tn)
    return Result(successes, max(totals), all(total == 1 for total in totals))
