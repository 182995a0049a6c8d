"""The Shadowrun 3 table as a terminal shows it: combat turn, declared tests, sheets, views.

Used by ``poolhall state``, ``poolhall sheet`` and ``poolhall watch`` through
:mod:`poolhall.clients.table_text`. A declared test's odds come from the server's ``sr3.odds`` view
when the client holds the one for that character, else from the projection code the server
runs (:func:`poolhall.projections.sr3_views.odds_view`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from poolhall.clients.cli_support import styled
from poolhall.clients.percent import percent
from poolhall.events.plural import plural
from poolhall.events.sr3 import Sr3Stats
from poolhall.projections.campaign import CampaignState, Character
from poolhall.projections.sr3 import GameState, combat_view, what_rolled
from poolhall.projections.sr3_views import odds_view, sheet_of

__all__ = ["character_line", "combat_words", "sheet_parts", "table_parts", "view_line"]

SHOWN_ROWS = 6
"""Rows of odds (0, 1, 2 ... pool dice) on one line."""
_ATTRIBUTES = (("body", "B"), ("quickness", "Q"), ("strength", "S"), ("charisma", "C"),
               ("intelligence", "I"), ("willpower", "W"))


def _pct(p: float) -> str:
    """A chance to one decimal by the terminal's one rule (:mod:`poolhall.clients.percent`):
    ``< 0.1%`` and ``> 99.9%``, never 0.0% or 100.0% for what can happen or fail."""
    return percent(p, 1)


def odds_words(data: Mapping[str, Any]) -> str:
    """``sam pistols (combat) tn 4: +0 62.1%, +1 70.0% ...``: P(success), or P(beating the
    attack) for a Dodge, per number of pool dice; the highest total's mean for an open test.

    The odds are those of the target number the test will be rolled against; when wounds raise
    it, the view's ``note`` says so beside the TN typed, as the page does: ``tn 4 (against
    target number 7: 4 + 3 for wounds)`` (the line read "tn 4" beside TN 7's odds)."""
    what = data.get("skill") or data.get("attribute") or "dice"
    target = f"tn {data['tn']}" if data.get("tn") is not None else "open"
    head = f"{data.get('character')} {what} ({data.get('kind')}) {target}"
    rows = data.get("rows")
    if not rows:
        return f"{head}: {data.get('note') or 'odds being computed'}"
    if data.get("note"):
        head += f" ({data['note']})"
    key, label = ("beats", f"beats {data['beat']}") if data.get("beat") is not None \
        else ("success", "success")
    if data.get("tn") is None:
        return f"{head}: {len(rows)} choices of pool dice (poolhall sr3-odds --open)"
    cells = ", ".join(f"+{row['pool_dice']} {_pct(row[key])}" for row in rows[:SHOWN_ROWS])
    more = " ..." if len(rows) > SHOWN_ROWS else ""
    return f"{head}: {label} with pool dice {cells}{more}"


def combat_words(view: Mapping[str, Any] | None) -> str:
    """``Combat Turn 1, pass 1: sam > deck; not acting: rook (unconscious); pools sam combat
    4/7, deck combat 6/6``."""
    if not view:
        return "no combat running"
    order = " > ".join(view.get("order") or []) or "no one left to act"
    pools = ", ".join(
        f"{who} " + " ".join(f"{pool.replace('_', ' ')} {p['left']}/{p['full']}"
                             for pool, p in c["pools"].items() if p["full"])
        for who, c in view.get("characters", {}).items())
    out = ", ".join(f"{who} ({c['out']})" for who, c in view.get("characters", {}).items()
                    if c.get("out"))
    return (f"Combat Turn {view['turn']}, pass {view['pass']}: {order}"
            + (f"; not acting: {out}" if out else "") + f"; pools {pools or '-'}")


def view_line(about: str, data: Mapping[str, Any]) -> str | None:
    """One line for a test's odds and the combat turn; ``None`` for the sheets and others."""
    if data.get("view") == "sr3_test_odds":
        return "odds: " + odds_words(data)
    if data.get("view") == "sr3_combat_turn":
        return combat_words(data if data.get("in_combat") else None)
    return None


def table_parts(state: CampaignState, views: Mapping[str, Any]
                ) -> tuple[dict[str, Any], list[str | Text]]:
    """The combat turn, the declared tests with their odds, and the last tests rolled."""
    game = state.game
    if not isinstance(game, GameState):
        return {}, []
    combat = combat_view(game)
    shown: list[str | Text] = [combat_words(combat), f"scene {game.scene}"]
    declared = []
    for character, test in game.declared.items():
        view = views.get(f"test:{character}")
        odds = view if isinstance(view, Mapping) and view.get("rows") \
            else odds_view(test, state)
        declared.append(odds_words(odds))
        shown.append("declared: " + odds_words(odds))
    tests = []
    for record in list(game.tests.values())[-3:]:
        result = (plural("success", record.successes) if record.successes is not None
                  else f"highest {record.highest}")
        line = (f"test #{record.test} {record.character} {what_rolled(record)} "
                f"({record.kind}): {result}"
                + (" (disaster: all ones)" if record.disastrous else ""))
        tests.append(line)
        shown.append(line)
    return {"combat": combat, "scene": game.scene, "declared": declared,
            "last_tests": tests}, shown


def character_line(character: Character) -> str:
    """``B5 Q6 S5 C2 I5 W3; pistols 6, etiquette 2``."""
    stats = character.stats
    if not isinstance(stats, Sr3Stats):
        return ""
    traits = " ".join(f"{short}{getattr(stats, name)}" for name, short in _ATTRIBUTES)
    skills = ", ".join(f"{name} {skill.rating}" for name, skill in stats.skills.items())
    return f"{traits} M{stats.magic}; {skills or 'no skills'}"


def sheet_parts(character: Character, state: CampaignState
                ) -> tuple[dict[str, Any], list[str | Text]]:
    """Attributes, skills (rating, linked attribute, kind), pools with their formulas, Karma
    Pool, initiative and the pools left in the combat running."""
    stats = character.stats
    if not isinstance(stats, Sr3Stats):
        return {}, []
    game = state.game
    spent = game.karma_spent.get(character.character, 0) if isinstance(game, GameState) else 0
    sheet = sheet_of(stats, spent, character.conditions)
    shown: list[str | Text] = [
        styled("[bold]{}[/bold] ({}): initiative {}", character.name, character.character,
               sheet["initiative"]),
        "  " + "  ".join(f"{name.title()} {getattr(stats, name)}" for name, _ in _ATTRIBUTES)
        + f"  Essence {stats.essence:g}  Magic {stats.magic}  Reaction "
        f"{stats.natural_reaction}"]
    for name, skill in stats.skills.items():
        shown.append(f"  {name:<20} {skill.rating:>2}  {skill.attribute:<12} {skill.kind}")
    for line in sheet["pools"]:
        size = str(line["size"]) if line["available"] else "-"
        shown.append(f"  {line['pool'].replace('_', ' ') + ' pool':<20} {size:>2}  "
                     f"{line['formula']}")
    karma = sheet["karma"]
    shown.append(f"  {'karma pool':<20} {karma['left']:>2}  of {karma['full']} "
                 f"({karma['formula']})")
    combat = combat_view(game) if isinstance(game, GameState) else None
    if combat and character.character in combat["characters"]:
        shown.append("  in combat: " + combat_words(
            {**combat, "characters": {character.character:
                                      combat["characters"][character.character]}}))
    return {"character": character.character, "name": character.name,
            "stats": {name: getattr(stats, name) for name, _ in _ATTRIBUTES},
            "skills": {name: {"rating": s.rating, "attribute": s.attribute, "kind": s.kind}
                       for name, s in stats.skills.items()}, **sheet}, shown
