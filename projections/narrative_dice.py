"""The narrative dice as data: each die's faces and their symbols, and how a roll is read.

The face tables are those of ``shared/rules/README.md`` (five public implementations agree on
them); faces are numbered from 1 in the order listed there, and events keep that number, since
some talents turn a die to another face. A triumph also counts as one success and a despair as
one failure, each counted exactly once, in :func:`face_vector` and :func:`tally`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from poolhall.events.narrative import NarrativeResult, RolledDie

__all__ = ["FACES", "SIDES", "FACE_VECTORS", "face_symbols", "face_vector", "rolled_die",
           "tally", "cancel_text"]

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
