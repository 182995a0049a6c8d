"""The d12 table as a terminal shows it: open tests with their odds, sheets, views.

Used by ``poolhall state``, ``poolhall sheet`` and ``poolhall watch`` through
:mod:`poolhall.clients.table_text`. Odds come from the server's ``d12.odds.<test>`` view when the
client holds one, else from the projection code the server runs
(:func:`poolhall.projections.d12_odds.odds_summary`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from poolhall.clients.cli_support import styled
from poolhall.clients.percent import percent
from poolhall.events import d12
from poolhall.events.plural import plural
from poolhall.projections.campaign import CampaignState, Character
from poolhall.projections.d12 import GameState, TestState
from poolhall.projections.d12_odds import odds_summary

__all__ = ["character_line", "kind_words", "margins_text", "sheet_parts", "table_parts",
           "view_line"]

SHOWN_TESTS = 10
"""Open tests listed at most (a table with more says how many more)."""
ODDS_ROUNDS = 5


def odds_words(odds: Mapping[str, Any]) -> str:
    """``5d12 at DT 7: success 62.1%, mean margin +0.83`` (and an extended pool's survival:
    ``pool survives 1 round > 99.9%, 2 rounds 99.8%, ...``, never "100.0%" for what may fail,
    as the page says it)."""
    words = (f"{odds['dice']}d12 at DT {odds['dt']}: success {percent(odds['success'], 1)}, "
             f"mean margin {odds['expected_margin']:+.2f}")
    survival = odds.get("survival")
    if survival:
        words += ", pool survives " + ", ".join(
            f"{plural('round', k)} {percent(p, 1)}" for k, p in enumerate(survival, start=1))
    return words


def view_line(about: str, data: Mapping[str, Any]) -> str | None:
    """One line for a d12 test's odds view; ``None`` for a view that is not d12's."""
    if data.get("view") != "d12_test_odds":
        return None
    head = f"test {data.get('test')} ({data.get('kind')}, {data.get('character') or 'no one'})"
    if not data.get("open"):
        return f"{head}: over"
    if not data.get("odds"):
        return f"{head}, round {data.get('round')}: {data.get('note') or 'odds being computed'}"
    return f"{head}, round {data.get('round')}: {odds_words(data['odds'])}"


def kind_words(test: TestState) -> str:
    """``basic``, or ``basic in secret`` for the GM's secret test (only the GM holds one
    before the session's end reveals it), as the GM's card on the page marks it."""
    if test.visibility == "public":
        return test.kind
    return f"{test.kind} in {'secret' if test.visibility == 'gm' else 'private'}"


def margins_text(test: TestState) -> str:
    """The margins of the rounds the table keeps, "…" first when earlier ones are only in the
    log (:data:`poolhall.projections.d12.ROUNDS_KEPT`)."""
    margins = " ".join(f"{m:+d}" for m in test.margins) or "none yet"
    return f"… {margins}" if test.rounds_rolled > len(test.rounds) else margins


def _test_odds(state: CampaignState, test: TestState, views: Mapping[str, Any]) -> str:
    view = views.get(f"test:{test.test}")
    if isinstance(view, Mapping) and view.get("odds"):
        return odds_words(view["odds"])
    if test.pool < 1:
        return "no dice left"
    add = None
    if test.kind == "extended" and test.refresh and test.character in state.characters:
        stats = state.characters[test.character].stats
        add = stats.ratings.get(test.refresh, 0) if isinstance(stats, d12.D12Stats) else 0
    return odds_words(odds_summary(test.pool, test.threshold.dt, add, ODDS_ROUNDS))


def table_parts(state: CampaignState, views: Mapping[str, Any]
                ) -> tuple[dict[str, Any], list[str | Text]]:
    """The open tests: pool, DT, rounds, margins so far and the odds of the next roll."""
    game = state.game
    if not isinstance(game, GameState):
        return {}, []
    open_tests = [t for t in game.tests.values() if t.open]
    shown: list[str | Text] = []
    tests = []
    for test in open_tests[-SHOWN_TESTS:]:
        odds = _test_odds(state, test, views)
        margins = margins_text(test)
        tests.append({"test": test.test, "kind": test.kind, "character": test.character,
                      "label": test.label, "visibility": test.visibility,
                      "pool": test.pool, "dt": test.threshold.dt,
                      "rounds": test.rounds_rolled, "margins": test.margins, "odds": odds})
        shown.append(styled("test [bold]{}[/bold]{}: {} for {}, pool {}, DT {}, margins {}",
                            test.test, f" {test.label}" if test.label else "",
                            kind_words(test),
                            test.character or "no one", test.pool, test.threshold.dt, margins))
        shown.append(f"  odds: {odds}")
    if len(open_tests) > SHOWN_TESTS:
        shown.append(f"... and {len(open_tests) - SHOWN_TESTS} more open tests "
                     "(poolhall d12 tests)")
    if not open_tests:
        shown.append("no open test")
    return {"open_tests": tests, "open_test_count": len(open_tests)}, shown


def character_line(character: Character) -> str:
    """``CON 3 CHA 2 STR 4``."""
    stats = character.stats
    if not isinstance(stats, d12.D12Stats):
        return ""
    return " ".join(f"{stat} {rating}" for stat, rating in stats.ratings.items())


def sheet_parts(character: Character, state: CampaignState
                ) -> tuple[dict[str, Any], list[str | Text]]:
    """The stats and their ratings, and the character's open and last tests."""
    stats = character.stats
    if not isinstance(stats, d12.D12Stats):
        return {}, []
    shown: list[str | Text] = [
        styled("[bold]{}[/bold] ({})", character.name, character.character),
        *(f"  {stat:<10} {rating}" for stat, rating in stats.ratings.items())]
    game = state.game
    theirs = [t for t in game.tests.values() if t.character == character.character] \
        if isinstance(game, GameState) else []
    recent = []
    for test in theirs[-5:]:
        status = "open" if test.open else f"over ({test.ended})"
        margins = " ".join(f"{m:+d}" for m in test.margins) or "no roll yet"
        recent.append({"test": test.test, "label": test.label, "status": status,
                       "margins": test.margins})
        shown.append(styled("  test {} {}: {}, margins {}", test.test, test.label or "-",
                            status, margins))
    return {"character": character.character, "name": character.name,
            "ratings": dict(stats.ratings), "recent_tests": recent}, shown
