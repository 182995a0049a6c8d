"""The faces of the narrative dice and how a roll is read (cancelling, triumph, despair)."""

from __future__ import annotations

from collections import Counter

from poolhall.events.narrative import RolledDie
from poolhall.projections.narrative_dice import (
    FACES,
    SIDES,
    cancel_text,
    face_symbols,
    rolled_die,
    tally,
)


def die(kind: str, face: int) -> RolledDie:
    """A die of ``kind`` showing face ``face`` (1-based)."""
    return rolled_die(kind, face)


README_TABLE = """
Ability (green)      | d8  | blank, S, S, SS, A, A, SA, AA
Proficiency (yellow) | d12 | blank, S, S, SS, SS, A, SA, SA, SA, AA, AA, Tr
Difficulty (purple)  | d8  | blank, F, FF, T, T, T, TT, FT
Challenge (red)      | d12 | blank, F, F, FF, FF, T, T, FT, FT, TT, TT, De
Boost (blue)         | d6  | blank, blank, S, SA, AA, A
Setback (black)      | d6  | blank, blank, F, F, T, T
Force (white)        | d12 | ●, ●, ●, ●, ●, ●, ●●, ○, ○, ○○, ○○, ○○
"""
_READ = {"S": "success", "A": "advantage", "F": "failure", "T": "threat", "Tr": "triumph",
         "De": "despair", "●": "dark", "○": "light"}


def _symbols(text: str) -> tuple[str, ...]:
    """``"SA"`` -> ("success", "advantage"); ``"Tr"`` -> ("triumph",); blank -> ()."""
    if text == "blank":
        return ()
    if text in ("Tr", "De"):
        return (_READ[text],)
    return tuple(_READ[c] for c in text)


def test_rule_faces_of_every_die_match_the_readme_table() -> None:
    """Rule (README face table): each die's sides and faces 1..n, transcribed from the table;
    a triumph also counts as one success, a despair as one failure, each exactly once."""
    for line in README_TABLE.strip().splitlines():
        name, sides, faces = (part.strip() for part in line.split("|"))
        kind = name.split()[0].lower()
        table = [_symbols(face.strip()) for face in faces.split(",")]
        assert SIDES[kind] == int(sides[1:]) == len(table)
        assert [face_symbols(kind, i) for i in range(1, SIDES[kind] + 1)] == table
    assert face_symbols("proficiency", 12) == ("triumph",)
    assert face_symbols("challenge", 12) == ("despair",)
    totals = Counter(s for face in FACES["proficiency"] for s in face)
    assert totals == Counter(success=9, advantage=8, triumph=1)


def test_rule_triumph_counts_as_one_success_and_a_triumph() -> None:
    """Rule: "A Triumph symbol on the die counts as both a Success and a Triumph" (once)."""
    result = tally([die("proficiency", 12)])
    assert (result.successes, result.triumphs, result.succeeded) == (1, 1, True)


def test_rule_despair_counts_as_one_failure_and_a_despair() -> None:
    """Rule: "A Despair symbol on the die counts as both a Failure and a Despair" (once)."""
    result = tally([die("challenge", 12), die("ability", 2)])
    assert (result.successes, result.despairs, result.succeeded) == (0, 1, False)


def test_rule_success_and_failure_cancel_advantage_and_threat_cancel() -> None:
    """Rule: "Advantage and Threat cancel each other out. Success and Failure cancel each other
    out"."""
    # ability SS (face 4) + SA (7); difficulty FF (3) + FT (8)
    result = tally([die("ability", 4), die("ability", 7), die("difficulty", 3),
                    die("difficulty", 8)])
    assert (result.successes, result.advantages) == (0, 0)
    result = tally([die("ability", 8), die("difficulty", 7), die("setback", 5)])
    assert result.advantages == -1      # AA against TT and T: one net threat


def test_rule_triumph_and_despair_do_not_cancel_but_their_success_and_failure_do() -> None:
    """Rule: "Triumph and Despair do NOT cancel each other out. The Success and Failure they
    generated do however count as regular Success and Failure, and can be cancelled"."""
    result = tally([die("proficiency", 12), die("challenge", 12)])
    assert (result.triumphs, result.despairs, result.successes) == (1, 1, 0)
    assert not result.succeeded


def test_rule_more_successes_than_failures_succeeds_equal_fails() -> None:
    """Rule: "If the roll generated more Success than Failure, you succeed. If it generated the
    same amount or more Failure, you fail"."""
    assert tally([die("ability", 2)]).succeeded
    assert not tally([die("ability", 2), die("difficulty", 2)]).succeeded
    assert not tally([]).succeeded


def test_force_pips_are_counted_light_and_dark() -> None:
    """A Force die's pips are counted and never touch success."""
    result = tally([die("force", 7), die("force", 10), die("force", 1)])
    assert (result.light, result.dark, result.successes) == (2, 3, 0)


def test_cancel_text_reads_like_the_table_says_it() -> None:
    """Net failures and threats are named as such, triumphs and despairs always shown."""
    result = tally([die("proficiency", 12), die("difficulty", 3), die("setback", 5)])
    assert cancel_text(result) == "1 failure, 1 threat, 1 triumph"
