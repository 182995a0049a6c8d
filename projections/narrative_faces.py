"""The narrative dice's faces as plain data: each die's faces and their symbols, and what a
face adds up to.

The face tables are those of ``shared/rules/README.md`` (five public implementations agree on
them); faces are numbered from 1 in the order listed there, and events keep that number, since
some talents turn a die to another face. A triumph also counts as one success and a despair as
one failure, counted exactly once, in :func:`face_vector` (and in
:func:`poolhall.projections.narrative_dice.tally`).

The lower module of :mod:`poolhall.projections.narrative_dice`, which re-exports these names and
makes the events' dice and results with them. Kept apart, with no msgspec, because the exact
odds (:mod:`poolhall.projections.narrative_odds`, ``poolhall odds``) need only the faces: importing
msgspec and the events was a fifth of that command's start (``tests/bench/cli_start.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

__all__ = ["A", "DE", "DK", "F", "FACES", "FACE_VECTORS", "LT", "S", "SIDES", "T", "TR",
           "face_symbols", "face_vector"]

S, A, TR = "success", "advantage", "triumph"
F, T, DE = "failure", "threat", "despair"
DK, LT = "dark", "light"

FACES: dict[str, tuple[tuple[str, ...], ...]] = {
    "ability": ((), (S,), (S,), (S, S), (A,), (A,), (S, A), (A, A)),
    "proficiency": ((), (S,), (S,), (S, S), (S, S), (A,), (S, A), (S, A), (S, A), (A, A),
                    (A, A), (TR,)),
    "difficulty": ((), (F,), (F, F), (T,), (T,), (T,), (T, T), (F, T)),
    "challenge": ((), (F,), (F,), (F, F), (F, F), (T,), (T,), (F, T), (F, T), (T, T), (T, T),
                  (DE,)),
    "boost": ((), (), (S,), (S, A), (A, A), (A,)),
    "setback": ((), (), (F,), (F,), (T,), (T,)),
    "force": ((DK,), (DK,), (DK,), (DK,), (DK,), (DK,), (DK, DK), (LT,), (LT,), (LT, LT),
              (LT, LT), (LT, LT)),
}
"""Each die's faces, in order: face ``n`` (1-based) is ``FACES[kind][n - 1]``."""

SIDES: dict[str, int] = {kind: len(faces) for kind, faces in FACES.items()}


def face_symbols(kind: str, face: int) -> tuple[str, ...]:
    """The symbols on face ``face`` (1-based) of a die."""
    return FACES[kind][face - 1]


def face_vector(symbols: Iterable[str]) -> tuple[int, int, int, int]:
    """``(net success, net advantage, triumphs, despairs)`` of a face; Force pips count 0."""
    counts = Counter(symbols)
    return (
        counts[S] + counts[TR] - counts[F] - counts[DE],
        counts[A] - counts[T],
        counts[TR],
        counts[DE],
    )


FACE_VECTORS: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    kind: tuple(face_vector(face) for face in faces) for kind, faces in FACES.items()
}
"""Each face as ``(net success, net advantage, triumphs, despairs)``: what the odds add up."""
