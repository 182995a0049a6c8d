"""Verdicts that mean something: the tests of one page of the report corrected together.

A page of the report asks many questions at once - is each player lucky, each character, the
table, is each kind of die fair, are there too many triumphs - and with twenty questions fair
dice answer "yes" to one of them most nights. So every test on a page is one **family**, and
its p-values are adjusted by **Holm's step-down method** (valid whatever the dependence between
the tests: a player's rolls are also the table's): sorted ascending, the ``i``-th of ``m`` is
multiplied by ``m - i + 1`` and made no smaller than the one before. A verdict is given only
when the adjusted p-value is below :data:`poolhall.projections.analytics_faces.ALPHA`, so fair dice
give a page with any verdict at all in at most 1 night of 20.

What a verdict means: fair dice would rarely give results this far from their odds, *given
everything else tested on the page*. What it does not: that anyone cheated, that the dice
are loaded (an unlikely night happens to fair dice too, one page in twenty at most), or, when
there is no verdict, that the dice are fair (few rolls can hide a loaded die: the power table
in the docs says how many it takes).

Rows that are the same rolls are one test (a player who rolled only for one character, who
was rolled for by no one else); a test without power (too few dice for fair dice ever to look
unusual) is shown without a p-value and is not in the family.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from poolhall.projections.analytics_faces import ALPHA
from poolhall.projections.analytics_model import CountTest, FaceTest, Luck, Section

__all__ = ["FAMILY_WORDS", "control", "holm", "luck_verdict"]

FAMILY_WORDS = ("{m} tests on this page are corrected together (Holm's method): a verdict "
                "is given only when fair dice would give one on fewer than 1 page in 20.")


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values, in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def luck_verdict(luck: Luck, adjusted: float | None) -> str:
    """The words of a luck row, read from its adjusted p-value."""
    if luck.rolls == 0:
        return "no rolls"
    if adjusted is None or adjusted >= ALPHA:
        return "as fair dice go"
    word = "lucky" if luck.mean_percentile > 0.5 else "unlucky"
    return f"very {word}: fair dice rarely do this" if adjusted < 0.001 else word


def _face_verdict(test: FaceTest, adjusted: float | None) -> str:
    if not test.powered:
        return "too few dice to tell"
    if adjusted is None or adjusted >= ALPHA:
        return "as fair dice go"
    ratios = [c / test.expected for c in test.faces]
    face = max(range(len(ratios)), key=lambda i: abs(ratios[i] - 1.0))
    more = "more" if ratios[face] > 1 else "less"
    return (f"unlike fair dice: face {face + 1} came up {test.faces[face]} times, "
            f"{more} than the {test.expected:.1f} expected")


def _count_verdict(test: CountTest, adjusted: float | None) -> str:
    if not test.powered:
        return "too few to tell"
    if adjusted is None or adjusted >= ALPHA:
        return "as fair dice go"
    return "more than fair dice give" if test.actual > test.expected else \
        "fewer than fair dice give"


def control(section: Section) -> Section:
    """The section with its family of tests corrected together and every verdict read from
    its adjusted p-value (the module docstring says why and what a verdict means)."""
    merged_characters = set(section.merged.values())
    luck_rows: list[tuple[str, str, Luck]] = [("table", "", section.luck)]
    luck_rows += [("player", m, luck) for m, luck in section.players.items()]
    luck_rows += [("character", c, luck) for c, luck in section.characters.items()
                  if c not in merged_characters]
    tested = [(where, key, luck) for where, key, luck in luck_rows if luck.rolls]
    p_values = [luck.p_value for _, _, luck in tested]
    faces = [t for t in section.faces if t.powered]
    counts = [t for t in section.counts if t.powered]
    p_values += [t.p_value for t in faces] + [t.p_value for t in counts]
    adjusted = holm(p_values)
    luck_adjusted = {(w, k): a for (w, k, _), a in zip(tested, adjusted, strict=False)}
    rest = iter(adjusted[len(tested):])
    face_adjusted = {id(t): next(rest) for t in faces}
    count_adjusted = {id(t): next(rest) for t in counts}

    def luck(where: str, key: str, row: Luck) -> Luck:
        a = luck_adjusted.get((where, key))
        if where == "character" and key in merged_characters:  # its player's row decides
            owner = next(m for m, c in section.merged.items() if c == key)
            a = luck_adjusted.get(("player", owner))
        return msgspec.structs.replace(row, adjusted=None if a is None else round(a, 6),
                                       verdict=luck_verdict(row, a))

    def rounded(a: float | None) -> float | None:
        return None if a is None else float(f"{a:.6g}")

    return msgspec.structs.replace(
        section,
        luck=luck("table", "", section.luck),
        players={m: luck("player", m, row) for m, row in section.players.items()},
        characters={c: luck("character", c, row) for c, row in section.characters.items()},
        faces=[msgspec.structs.replace(t, adjusted=rounded(face_adjusted.get(id(t))),
                                       verdict=_face_verdict(t, face_adjusted.get(id(t))))
               for t in section.faces],
        counts=[msgspec.structs.replace(t, adjusted=rounded(count_adjusted.get(id(t))),
                                        verdict=_count_verdict(t, count_adjusted.get(id(t))))
                for t in section.counts],
        family=FAMILY_WORDS.format(m=len(p_values)) if p_values else "")
