"""The narrative dice as data: each die's faces and their symbols, and how a roll is read.

The faces themselves, plain data, are in :mod:`poolhall.projections.narrative_faces` (re-exported
here); this module makes the events' dice and results from them. A triumph also counts as one
success and a despair as one failure, each counted exactly once, in :func:`face_vector` and
:func:`tally`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from poolhall.events.narrative import NarrativeResult, RolledDie
from poolhall.projections.narrative_faces import (
    DE,
    DK,
    FACE_VECTORS,
    FACES,
    LT,
    SIDES,
    TR,
    A,
    F,
    S,
    T,
    face_symbols,
    face_vector,
)

__all__ = ["FACES", "SIDES", "FACE_VECTORS", "face_symbols", "face_vector", "rolled_die",
           "tally", "cancel_text"]


def rolled_die(kind: str, face: int) -> RolledDie:
    """A die of ``kind`` showing ``face`` (1-based), with its symbols, as events record it."""
    return RolledDie(kind=kind, face=face, symbols=face_symbols(kind, face))  # type: ignore[arg-type]


def tally(dice: Iterable[RolledDie]) -> NarrativeResult:
    """Cancel a roll: successes against failures, advantage against threat.

    Triumphs and despairs never cancel each other, but the success of a triumph and the
    failure of a despair cancel like any other. The check succeeds with more successes than
    failures; equal or more failures fail it.
    """
    counts: Counter[str] = Counter()
    for die in dice:
        counts.update(face_symbols(die.kind, die.face))
    successes = counts[S] + counts[TR] - counts[F] - counts[DE]
    return NarrativeResult(
        successes=successes,
        advantages=counts[A] - counts[T],
        triumphs=counts[TR],
        despairs=counts[DE],
        light=counts[LT],
        dark=counts[DK],
        succeeded=successes > 0,
    )


def cancel_text(result: NarrativeResult) -> str:
    """The result as the table says it: ``"2 successes, 1 threat, 1 triumph"``."""
    parts: list[str] = []

    def counted(n: int, one: str, many: str) -> str:
        return f"{n} {one if n == 1 else many}"

    if result.successes > 0:
        parts.append(counted(result.successes, "success", "successes"))
    elif result.successes < 0:
        parts.append(counted(-result.successes, "failure", "failures"))
    else:
        parts.append("no net success")
    if result.advantages > 0:
        parts.append(counted(result.advantages, "advantage", "advantages"))
    elif result.advantages < 0:
        parts.append(counted(-result.advantages, "threat", "threats"))
    if result.triumphs:
        parts.append(counted(result.triumphs, "triumph", "triumphs"))
    if result.despairs:
        parts.append(counted(result.despairs, "despair", "despairs"))
    if result.light or result.dark:
        parts.append(f"{result.light} light / {result.dark} dark")
    return ", ".join(parts)
