"""The narrative dice notation people type: ``2y1g 2p1r 1b1k``, ``yyg vs pp``, names too.

Colour letters ``y g p r b k w`` stand for proficiency, ability, difficulty, challenge, boost,
setback and force; counts are optional; spaces, commas, ``+`` and ``vs`` separate.

This module is the lower one: it knows the dice kinds and how people write them, and reads
text into counts. :mod:`poolhall.events.narrative` imports it and builds its ``Pool`` and
``RollPool`` from the counts (``narrative.parse_pool`` / ``parse_roll``), so the dependency is
one-way.
"""

from __future__ import annotations

import re

from poolhall.events.errors import NotationError
from poolhall.events.suggest import did_you_mean

__all__ = ["DIE_KINDS", "DIE_LETTERS", "read_pool"]

DIE_KINDS = ("proficiency", "ability", "difficulty", "challenge", "boost", "setback", "force")
DIE_LETTERS = {"y": "proficiency", "g": "ability", "p": "difficulty", "r": "challenge",
               "b": "boost", "k": "setback", "w": "force"}

_NAMES = {name: name for name in DIE_KINDS} | {
    "proficiencies": "proficiency", "abilities": "ability", "difficulties": "difficulty",
    "challenges": "challenge", "boosts": "boost", "setbacks": "setback", "forces": "force",
}
_TOKEN = re.compile(
    r"[\s,+]*(?:(?P<vs>vs\.?)(?![a-z])|(?P<count>\d{1,3})?\s*(?:(?P<name>"
    + "|".join(sorted(_NAMES, key=len, reverse=True))
    + r")(?![a-z])|(?P<letter>[ygprbkw])))",
    re.IGNORECASE,
)


_WORD = re.compile(r"\d*\s*(?P<word>[a-z]{3,})", re.IGNORECASE)


def _suggest(text: str, at: int) -> str:
    """``; did you mean 'ability'?`` when the unreadable word is a near miss of a die name."""
    found = _WORD.match(text, at)
    if found is None:
        return ""
    return did_you_mean(found.group("word"), DIE_KINDS)


def read_pool(text: str, limit: int) -> dict[str, int] | None:
    """Read a pool in the notation as dice per kind; None when the text does not start like one.

    ``"2y1g 2p1r 1b1k"``, ``"yyg vs pp"``, ``"2 proficiency, 1 ability + 1 boost"``; ``vs``
    (only a separator, for people) may stand between the two sides. Raises
    :class:`NotationError` (with the position) for text that starts like a pool but is not one,
    or holds more than ``limit`` dice.
    """
    counts = dict.fromkeys(DIE_KINDS, 0)
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
