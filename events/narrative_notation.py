"""The narrative dice notation people type: ``2y1g 2p1r 1b1k``, ``yyg vs pp``, names too.

Colour letters ``y g p r b k w`` stand for proficiency, ability, difficulty, challenge, boost,
setback and force; counts are optional; spaces, commas, ``+`` and ``vs`` separate.

The table page's roll form sends the text as typed, and the server reads it with this module
(:mod:`poolhall.events.free_roll`), as ``poolhall roll`` does.

This module is the lower one, plain data with no msgspec: it knows the dice kinds and the words
people type (difficulty levels, characteristics), reads text into counts (a :class:`Counts`)
and writes counts back as notation. :mod:`poolhall.events.narrative` imports it and builds its
``Pool`` and ``RollPool`` from the counts (``narrative.parse_pool`` / ``parse_roll``), so the
dependency is one-way; ``poolhall odds`` and the building of ``poolhall narrative``'s parser
need nothing else of the events (importing msgspec and the events was a fifth of ``odds``'
start, ``tests/bench/cli_start.py``).
"""

from __future__ import annotations

import re
from typing import Protocol

from poolhall.events.errors import NotationError
from poolhall.events.suggest import did_you_mean

__all__ = ["CHARACTERISTICS", "DIE_KINDS", "DIE_LETTERS", "DIFFICULTY_DICE", "MAX_FREE_DICE",
           "Counts", "DiceCounts", "pool_notation", "pool_total", "read_pool"]

DIE_KINDS = ("proficiency", "ability", "difficulty", "challenge", "boost", "setback", "force")
DIE_LETTERS = {"y": "proficiency", "g": "ability", "p": "difficulty", "r": "challenge",
               "b": "boost", "k": "setback", "w": "force"}
CHARACTERISTICS = ("brawn", "agility", "intellect", "cunning", "willpower", "presence")
DIFFICULTY_DICE = {"simple": 0, "easy": 1, "average": 2, "hard": 3, "daunting": 4,
                   "formidable": 5, "impossible": 5}
"""Difficulty dice per level; **Impossible** is rolled as Formidable, with a destiny point."""
MAX_FREE_DICE = 40
"""A free roll (``poolhall roll``) holds at most 40 dice."""


class DiceCounts(Protocol):
    """Anything that says how many dice of each kind it holds: the events' ``Pool``, or the
    :class:`Counts` that :func:`read_pool` reads (what the exact odds compute on)."""

    def count(self, kind: str) -> int:
        """The dice of one kind."""
        ...


class Counts(dict[str, int]):
    """Dice per kind, every kind of :data:`DIE_KINDS` a key: a plain value that reads like a
    ``Pool`` (:meth:`count`), for the odds of a pool typed at the command line."""

    def count(self, kind: str) -> int:
        """The dice of one kind."""
        return self[kind]


def pool_total(pool: DiceCounts) -> int:
    """All the dice of a pool."""
    return sum(pool.count(kind) for kind in DIE_KINDS)


def pool_notation(pool: DiceCounts) -> str:
    """A pool as colour letters with counts, ``"2y1g 2p1r"``; ``"-"`` for an empty pool."""
    letters = {kind: letter for letter, kind in DIE_LETTERS.items()}
    parts = [f"{pool.count(kind)}{letters[kind]}" for kind in DIE_KINDS if pool.count(kind)]
    return "".join(parts) or "-"

_NAMES = {name: name for name in DIE_KINDS} | {
    "proficiencies": "proficiency", "abilities": "ability", "difficulties": "difficulty",
    "challenges": "challenge", "boosts": "boost", "setbacks": "setback", "forces": "force",
}
_TOKEN = re.compile(
    r"[\s,+]*(?:(?P<vs>vs\.?)(?![a-z])|(?P<count>\d{1,3})?\s*(?:(?P<name>"
    + "|".join(sorted(_NAMES, key=len, reverse=True))
    + r")(?![a-z])|(?P<letter>[ygprbkw])))",
    re.IGNORECASE | re.ASCII,
)
"""ASCII only: no other script's digits (``٢g`` was read as 2 ability) or spaces, and no
Kelvin sign for ``k``."""


_WORD = re.compile(r"\d*\s*(?P<word>[a-z]{3,})", re.IGNORECASE | re.ASCII)


def _suggest(text: str, at: int) -> str:
    """``; did you mean 'ability'?`` when the unreadable word is a near miss of a die name."""
    found = _WORD.match(text, at)
    if found is None:
        return ""
    return did_you_mean(found.group("word"), DIE_KINDS)


def read_pool(text: str, limit: int) -> Counts | None:
    """Read a pool in the notation as dice per kind; None when the text does not start like one.

    ``"2y1g 2p1r 1b1k"``, ``"yyg vs pp"``, ``"2 proficiency, 1 ability + 1 boost"``; ``vs``
    (only a separator, for people) may stand between the two sides. Raises
    :class:`NotationError` (with the position) for text that starts like a pool but is not one,
    or holds more than ``limit`` dice.
    """
    counts = Counts(dict.fromkeys(DIE_KINDS, 0))
    position, read = 0, False
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None or match.end() == position:
            if not read and not _suggest(stripped, position):
                return None  # not this notation (a near miss of a die name is a mistake in it)
            at = position + len(stripped[position:]) - len(stripped[position:].lstrip(" ,+"))
            raise NotationError(f"cannot read {stripped[at:at + 10]!r} as narrative dice "
                                f"(letters y g p r b k w, or names){_suggest(stripped, at)}",
                                at)
        position = match.end()
        if match.group("vs"):
            continue
        kind = (_NAMES[match.group("name").lower()] if match.group("name")
                else DIE_LETTERS[match.group("letter").lower()])
        counts[kind] += int(match.group("count") or 1)
        read = True
    if not read:
        return None
    total = sum(counts.values())
    if total > limit:
        raise NotationError(f"a pool holds at most {limit} dice, not {total}", 0)
    return counts
