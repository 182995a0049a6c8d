"""A chance in words for people: ``percent(0.453)`` -> "45.30%", never a false certainty.

A chance rounded to a few decimals can read as certain when it is not: 8 d12s at DT 3 are all
lost once in 65,536 rounds, and "pool lasts 1 round 100.00%" told the table it could not
happen. So a chance short of 1 that would round to 100% reads "> 99.99%", one above 0 that
would round to 0% reads "< 0.01%", and 100% and 0% are printed only for a chance that is
exactly 1 or 0. This is the page's rule (``chance`` in ``clients/web/systems/d12_odds.js``),
one helper for every odds table of the terminal, so they all say it the same way.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["percent"]


def percent(chance: float | Fraction, places: int = 2) -> str:
    """``chance`` (0 to 1) as a percentage with ``places`` decimals: ``"62.07%"``.

    A chance that is not 0 or 1 but would round to it reads ``"< 0.01%"`` or ``"> 99.99%"``
    (with ``places`` 1: ``"< 0.1%"``, ``"> 99.9%"``). Give the exact :class:`Fraction` when
    there is one: a float of a chance within 1e-16 of 1 is 1.0, and would print as certain.
    Raises :class:`ValueError` for a chance outside 0-1, which is no chance.
    """
    if places < 0:
        raise ValueError("places is 0 or more")
    if not 0 <= chance <= 1:
        raise ValueError(f"a chance is between 0 and 1, not {chance}")
    shown = f"{100 * float(chance):.{places}f}"
    if chance > 0 and float(shown) == 0:
        return f"< {10**-places:.{places}f}%"
    if chance < 1 and float(shown) == 100:
        return f"> {100 - 10**-places:.{places}f}%"
    return f"{shown}%"
