"""The narrative table as a terminal shows it: open checks with odds, destiny, sheets, views.

Used by ``poolhall state``, ``poolhall sheet`` and ``poolhall watch`` through
:mod:`poolhall.clients.table_text`; each function returns plain data and lines for people. Odds come
from the server's ``check:<check>`` view when the client holds one, else from the same
projection code the server runs (:func:`poolhall.projections.narrative_odds.summary`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from rich.text import Text

from poolhall.clients.cli_support import styled
from poolhall.clients.narrative_encounter_cli import encounter_data, encounter_lines
from poolhall.clients.percent import percent
from poolhall.events import narrative as n
from poolhall.projections.campaign import CampaignState, Character
from poolhall.projections.narrative import CheckState, GameState
from poolhall.projections.narrative_dice import cancel_text
from poolhall.projections.narrative_odds import summary

__all__ = ["character_line", "sheet_parts", "table_parts", "view_line"]

SHOWN_CHECKS = 10
"""Open checks listed at most (a table with more says how many more)."""
LIVE_ODDS_DICE = 20
"""Pools of more dice get no locally computed odds (the server's limit for live odds)."""
_SHORT = {"brawn": "Br", "agility": "Ag", "intellect": "Int", "cunning": "Cun",
          "willpower": "Will", "presence": "Pr"}


def odds_words(odds: Mapping[str, Any]) -> str:
    """``success 45.2%, advantage 60.1%, triumph 8.0%, despair 0.0%`` from an odds summary
    (a view's, whose integer keys came over JSON as text, or one computed here)."""
    advantage = odds.get("p_advantage") or {}
    first = advantage.get(1, advantage.get("1", 0.0))
    return (f"success {percent(odds['p_success'], 1)}, advantage {percent(first, 1)}, "
            f"triumph {percent(odds['p_triumph'], 1)}, despair {percent(odds['p_despair'], 1)}")


def view_line(about: str, data: Mapping[str, Any]) -> str | None:
    """One line for a check's odds view; ``None`` for a view that is not narrative."""
    if data.get("view") != "narrative_check_odds":
        return None
    head = (f"check {data.get('check')}: {data.get('character')}'s {data.get('skill')}, "
            f"{data.get('difficulty') or 'no difficulty yet'}, {data.get('pool')}")
    if data.get("status") != "open":
        return f"{head}: {data.get('status')}"
    if data.get("odds"):
        return f"{head}: {odds_words(data['odds'])}"
    return f"{head}: {data.get('note') or 'odds being computed'}"


def _check_odds(check: CheckState, views: Mapping[str, Any]) -> str:
    view = views.get(f"check:{check.check}")
    if isinstance(view, Mapping) and view.get("odds"):
        return odds_words(view["odds"])
    pool = check.effective().pool
    if pool.total > LIVE_ODDS_DICE:
        return f"more than {LIVE_ODDS_DICE} dice: try poolhall odds \"{pool.notation()}\""
    return odds_words(msgspec.to_builtins(summary(pool)))


def table_parts(state: CampaignState, views: Mapping[str, Any]
                ) -> tuple[dict[str, Any], list[str | Text]]:
    """The destiny pool, the encounter if one runs, and the open checks (pool, difficulty,
    odds), as data and lines."""
    game = state.game
    if not isinstance(game, GameState):
        return {}, []
    destiny = game.destiny
    shown: list[str | Text] = [styled("destiny pool: [bold]{}[/bold] light, [bold]{}[/bold] "
                                      "dark", destiny.light, destiny.dark)]
    encounter = encounter_data(game)
    if encounter["encounter"] is not None:
        shown += encounter_lines(encounter)
    open_checks = [c for c in game.checks.values() if c.is_open]
    checks = []
    for check in open_checks[-SHOWN_CHECKS:]:
        pool = check.effective().pool.notation()
        level = check.difficulty.level if check.difficulty else "no difficulty yet"
        odds = _check_odds(check, views)
        checks.append({"check": check.check, "character": check.character,
                       "skill": check.skill, "difficulty": level, "pool": pool, "odds": odds})
        shown.append(styled("check [bold]{}[/bold]: {}'s {}, {}: [bold]{}[/bold]",
                            check.check, check.character, check.skill, level, pool))
        shown.append(f"  odds: {odds}")
    if len(open_checks) > SHOWN_CHECKS:
        shown.append(f"... and {len(open_checks) - SHOWN_CHECKS} more open checks "
                     "(poolhall narrative checks)")
    if not open_checks:
        shown.append("no open check")
    return {"destiny": {"light": destiny.light, "dark": destiny.dark},
            "encounter": encounter["encounter"], "open_checks": checks,
            "open_check_count": len(open_checks)}, shown


def character_line(character: Character) -> str:
    """``Br 3 Ag 3 Int 2 Cun 2 Will 2 Pr 2; Ranged (Light) 2, Piloting 1``."""
    stats = character.stats
    if not isinstance(stats, n.NarrativeStats):
        return ""
    traits = " ".join(f"{_SHORT[c]} {stats.characteristic(c)}" for c in n.CHARACTERISTICS)
    skills = ", ".join(f"{name} {skill.rank}" for name, skill in stats.skills.items())
    return f"{traits}; {skills or 'no skills'}"


def _skill_pool(stats: n.NarrativeStats, skill: n.Skill) -> str:
    value = stats.characteristic(skill.characteristic)
    return n.Pool(proficiency=min(value, skill.rank),
                  ability=max(value, skill.rank) - min(value, skill.rank)).notation()


def sheet_parts(character: Character, state: CampaignState
                ) -> tuple[dict[str, Any], list[str | Text]]:
    """Characteristics, each skill with its rank and the dice it rolls, open checks and the
    last few checks rolled."""
    stats = character.stats
    if not isinstance(stats, n.NarrativeStats):
        return {}, []
    game = state.game
    skills = {name: {"rank": s.rank, "characteristic": s.characteristic,
                     "pool": _skill_pool(stats, s)} for name, s in stats.skills.items()}
    shown: list[str | Text] = [
        styled("[bold]{}[/bold] ({})", character.name, character.character),
        "  " + "  ".join(f"{c.title()} {stats.characteristic(c)}" for c in n.CHARACTERISTICS)]
    for name, skill in skills.items():
        shown.append(f"  {name:<24} rank {skill['rank']}  {skill['characteristic']:<10} "
                     f"rolls {skill['pool']}")
    if not skills:
        shown.append("  no skills (an untrained check names its characteristic)")
    history = game.history.get(character.character, []) if isinstance(game, GameState) else []
    recent = []
    for record in history[-5:]:
        verdict = (cancel_text(record.result) if record.result is not None else record.status)
        recent.append({"check": record.check, "skill": record.skill, "result": verdict})
        shown.append(styled("  #{} {} ({}): {}", record.seq, record.skill, record.check,
                            verdict))
    return {"character": character.character, "name": character.name,
            "characteristics": {c: stats.characteristic(c) for c in n.CHARACTERISTICS},
            "skills": skills, "recent_checks": recent}, shown
