"""Dice as data: the ``XdN`` notation of free rolls, parsed by a small grammar (never ``eval``).

Grammar (spaces allowed between tokens)::

    expression := term (("+" | "-") term)*
    term       := [count] "d" sides | number
    sides      := 4 | 6 | 8 | 10 | 12 | 20 | 100

``2d8+1d4+3`` is two d8, one d4 and a constant 3. Limits keep a typo or a prank from
rolling a million dice: at most :data:`MAX_DICE` dice in all, :data:`MAX_TERMS` terms,
and a constant within ``±MAX_CONSTANT``.
"""

from __future__ import annotations

import re
from typing import Annotated

from msgspec import Meta

from poolhall.events.base import Value
from poolhall.events.errors import NotationError

__all__ = [
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_EXPRESSION_LENGTH",
    "MAX_TERMS",
    "SIDES",
    "DiceExpression",
    "DiceTerm",
    "RolledTerm",
    "parse_dice",
    "total_of",
]

SIDES = (4, 6, 8, 10, 12, 20, 100)
MAX_DICE = 100
MAX_TERMS = 10
MAX_CONSTANT = 1000
MAX_EXPRESSION_LENGTH = 100

Sides = Annotated[int, Meta(ge=2, le=100)]
Face = Annotated[int, Meta(ge=1, le=100)]


class DiceTerm(Value, frozen=True, kw_only=True, gc=False):
    """``count`` dice of ``sides`` sides, added (sign 1) or subtracted (sign -1)."""

    count: Annotated[int, Meta(ge=1, le=MAX_DICE)]
    sides: Sides
    sign: Annotated[int, Meta(ge=-1, le=1)] = 1


class DiceExpression(Value, frozen=True, kw_only=True):
    """A parsed free roll: dice terms and a constant."""

    terms: tuple[DiceTerm, ...]
    constant: int = 0

    def __str__(self) -> str:
        parts: list[str] = []
        for term in self.terms:
            sign = "-" if term.sign < 0 else "+"
            parts.append(f"{sign}{term.count}d{term.sides}")
        if self.constant:
            parts.append(f"{'-' if self.constant < 0 else '+'}{abs(self.constant)}")
        text = "".join(parts)
        return text.removeprefix("+")


class RolledTerm(Value, frozen=True, kw_only=True, gc=False):
    """One term of a free roll as it came up: every face, in the order rolled."""

    sides: Sides
    faces: tuple[Face, ...]
    sign: Annotated[int, Meta(ge=-1, le=1)] = 1


_TOKEN = re.compile(  # ASCII digits only: int() would also read '١' or '６'
    r"\s*(?:(?P<op>[+-])|(?P<dice>(?P<count>[0-9]*)[dD](?P<sides>[0-9]+))|(?P<num>[0-9]+))")


def parse_dice(text: str) -> DiceExpression:
    """Parse ``XdN`` notation, raising :class:`NotationError` that says where and why."""
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise NotationError(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    stripped = text.rstrip()
    if not stripped.strip():
        raise NotationError("empty dice expression", 0)
    reading = _Reading()
    position = 0
    while position < len(stripped):
        match = _next_token(stripped, position)
        if match.group("op"):
            reading.operator(match.group("op"), position)
        else:
            reading.term(match, position)
        position = match.end()
    return reading.expression(position)


def _next_token(stripped: str, position: int) -> re.Match[str]:
    """The token at ``position``; what is not one is refused, a lone ``d`` by name (``3d``
    lacks its sides, the commonest slip)."""
    match = _TOKEN.match(stripped, position)
    if match is not None:
        return match
    rest = stripped[position:].strip()[:10]
    if re.match(r"d(?![0-9])", rest, re.IGNORECASE):  # "3d": the sides are missing
        raise NotationError(f"a die needs its number of sides after 'd', as in "
                            f"{stripped[:position]}d6", position)
    raise NotationError(f"unexpected {rest!r}", position)


class _Reading:
    """An expression read so far, token by token: its terms and constant, the sign the next
    term takes, and whether a term or an operator comes next."""

    def __init__(self) -> None:
        self.terms: list[DiceTerm] = []
        self.constant = 0
        self.sign = 1
        self.expect_term = True

    def operator(self, op: str, position: int) -> None:
        """A ``+`` or ``-``: it sets the sign of the term that must follow."""
        if self.expect_term:
            raise NotationError(f"expected a term before {op!r}", position)
        self.sign = 1 if op == "+" else -1
        self.expect_term = True

    def term(self, match: re.Match[str], position: int) -> None:
        """A dice term or a number, checked against the limits on the whole expression."""
        if not self.expect_term:
            raise NotationError("expected '+' or '-' between terms", position)
        if match.group("dice"):
            self.terms.append(_dice_term(match, self.sign, position))
            if sum(t.count for t in self.terms) > MAX_DICE:
                raise NotationError(f"at most {MAX_DICE} dice in one roll", position)
        else:
            self.constant += self.sign * int(match.group("num"))  # short: the text is bounded
            if abs(self.constant) > MAX_CONSTANT:
                raise NotationError(f"constant beyond ±{MAX_CONSTANT}", position)
        if len(self.terms) > MAX_TERMS:
            raise NotationError(f"at most {MAX_TERMS} dice terms", position)
        self.expect_term = False

    def expression(self, position: int) -> DiceExpression:
        """The expression read, once the text ends at ``position``."""
        if self.expect_term:
            raise NotationError("expression ends with an operator", position)
        if not self.terms:
            raise NotationError("no dice in the expression", 0)
        return DiceExpression(terms=tuple(self.terms), constant=self.constant)


def _dice_term(match: re.Match[str], sign: int, position: int) -> DiceTerm:
    """One ``XdN`` term, with every fault it has named at once (``1000000d1000000`` has
    two), so that a player fixes the term in one go."""
    count = int(match.group("count") or "1")
    sides = int(match.group("sides"))
    faults = []
    if count < 1:
        faults.append("a term needs at least one die")
    elif count > MAX_DICE:
        faults.append(f"{count} dice is too many: at most {MAX_DICE} in one roll")
    if sides not in SIDES:
        allowed = " ".join(f"d{s}" for s in SIDES)
        faults.append(f"d{sides} is not a die here; use {allowed}")
    if faults:
        raise NotationError("; ".join(faults), position)
    return DiceTerm(count=min(count, MAX_DICE + 1), sides=sides, sign=sign)


def total_of(rolled: tuple[RolledTerm, ...], constant: int) -> int:
    """The total the table sees: signed sum of every face plus the constant."""
    return sum(term.sign * sum(term.faces) for term in rolled) + constant
