"""``percent``: a chance in words, never rounded to a certainty (or an impossibility) it is not."""

from __future__ import annotations

from fractions import Fraction

import pytest

from poolhall.clients.percent import percent


@pytest.mark.parametrize(("chance", "places", "shown"), [
    (0.4530, 2, "45.30%"),
    (Fraction(1, 3), 1, "33.3%"),
    (1 - (3 / 12) ** 8, 2, "> 99.99%"),  # 8 dice at DT 3 are all lost once in 65,536 rounds
    (Fraction(1) - Fraction(3, 12) ** 8, 1, "> 99.9%"),
    (Fraction(1) - Fraction(1, 12**20), 2, "> 99.99%"),  # its float is 1.0: the exact value
    (Fraction(1, 12**5), 2, "< 0.01%"),
    (1e-9, 1, "< 0.1%"),
    (0.00004, 0, "< 1%"),
    (1, 2, "100.00%"),
    (Fraction(1), 1, "100.0%"),
    (0.0, 2, "0.00%"),
    (0.9999, 2, "99.99%"),
])
def test_a_chance_reads_certain_or_impossible_only_when_it_is(
        chance: float | Fraction, places: int, shown: str) -> None:
    """The page's rule (d12_odds.js ``chance``): "> 99.99%" and "< 0.01%" for what rounds to
    100% or 0% and is not; the CLI printed "100.00%" for a pool that could be lost."""
    assert percent(chance, places) == shown


def test_what_is_no_chance_is_refused() -> None:
    """A chance outside 0-1 is a mistake of the caller, said as such, not printed as "120%"."""
    with pytest.raises(ValueError, match="between 0 and 1"):
        percent(1.2)
    with pytest.raises(ValueError, match="between 0 and 1"):
        percent(Fraction(-1, 3))
