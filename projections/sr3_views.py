"""Views of the ``sr3`` system: character sheets, the odds of a declared test, the combat turn.

Pure functions of the campaign state: the server broadcasts them after each change (see
``server/rules/sr3.py``'s ``views``) and any client can compute them from its own fold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from poolhall.events.sr3 import MAX_TEST_DICE, PoolTestDeclared, Sr3Stats
from poolhall.projections.sr3 import GameState, combat_view
from poolhall.projections.sr3_odds import odds_table
from poolhall.projections.sr3_pools import character_sheet
from poolhall.projections.sr3_wounds import incapacity, wound_level, wound_modifier

if TYPE_CHECKING:
    from poolhall.projections.campaign import CampaignState

__all__ = ["OddsInput", "ATTRIBUTES", "attributes_of", "wounds_of", "sheet_of", "sheets_view",
           "odds_parts", "odds_rows", "odds_view", "combat_turn_view"]

OddsInput = tuple[int, int | None, int, int | None]
"""What a declared test's odds depend on: base dice, TN, most pool dice, successes to beat."""


def sheet_of(stats: Sr3Stats, karma_spent: int = 0,
             conditions: Mapping[str, int] | None = None) -> dict[str, Any]:
    """One character's pools with their formulas, Karma Pool full / spent / left, initiative.

    The initiative formula names what ``conditions`` (the Condition Monitors) do to it, as
    the rules apply them when a Combat Turn's initiative is rolled: ``- 3 for wounds``, or
    that the character does not act.
    """
    sheet = character_sheet(stats)
    return {
        "pools": [msgspec.to_builtins(line) for line in sheet.pools],
        "karma": {"full": sheet.karma.size, "spent": karma_spent,
                  "left": max(sheet.karma.size - karma_spent, 0),
                  "formula": sheet.karma.formula},
        "initiative": sheet.initiative + _wounded(conditions or {}),
    }


ATTRIBUTES = ("body", "quickness", "strength", "charisma", "intelligence", "willpower",
              "essence", "magic")
"""The attributes a sheet lists, in its order (Reaction is on the initiative line)."""


def attributes_of(stats: Sr3Stats) -> dict[str, int | float]:
    """The character's attribute ratings as a sheet lists them; Magic only for a character who
    has it."""
    return {name: getattr(stats, name) for name in ATTRIBUTES
            if name != "magic" or stats.magic > 0}


def wounds_of(conditions: Mapping[str, int]) -> dict[str, Any]:
    """Each Condition Monitor's wound level, their modifier and why the character does not
    act: the very functions the rules apply (:mod:`poolhall.projections.sr3_wounds`), so a
    page shows "Serious: +3 TN, -3 initiative" without a copy of the rule."""
    return {"physical": wound_level(conditions.get("physical", 0))[0],
            "stun": wound_level(conditions.get("stun", 0))[0],
            "modifier": wound_modifier(conditions), "out": incapacity(conditions)}


def _wounded(conditions: Mapping[str, int]) -> str:
    why = incapacity(conditions)
    if why is not None:
        return f" ({why}: does not act)"
    wounds = wound_modifier(conditions)
    return f" - {wounds} for wounds" if wounds else ""


def sheets_view(campaign: CampaignState) -> dict[str, Any]:
    """Every sr3 character's sheet, by character id: :func:`sheet_of` with the attributes and
    skills a player looks up on a sheet ("Pistols 6"), and what their wounds do
    (:func:`wounds_of`, for the Conditions card)."""
    game = campaign.game_as(GameState)
    return {
        cid: {"name": c.name, **sheet_of(c.stats, game.karma_spent.get(cid, 0), c.conditions),
              "attributes": attributes_of(c.stats),
              "skills": [{"skill": name, "rating": skill.rating, "attribute": skill.attribute}
                         for name, skill in c.stats.skills.items()],
              "wounds": wounds_of(c.conditions)}
        for cid, c in campaign.characters.items() if isinstance(c.stats, Sr3Stats)
    }


def odds_view(declared: PoolTestDeclared, campaign: CampaignState) -> dict[str, Any]:
    """The odds of a declared test for each number of pool dice the player may commit.

    For a Dodge against a known attack, ``beats`` is the chance of more successes than the
    attack: a complete miss.
    """
    data, odds_input = odds_parts(declared, campaign)
    return {**data, **odds_rows(odds_input)}


def odds_rows(odds_input: OddsInput) -> dict[str, Any]:
    """The costly part of :func:`odds_view`: one row of odds per number of pool dice."""
    return {"rows": odds_table(*odds_input)}


def odds_parts(declared: PoolTestDeclared, campaign: CampaignState
               ) -> tuple[dict[str, Any], OddsInput]:
    """:func:`odds_view` in two parts: what the table sees of the test, and the input of
    :func:`odds_rows` (so the server can compute the rows off its event loop).

    The odds are those of the target number the test will be rolled against: raised by the
    character's wound modifier as it stands, which ``note`` then says ("against target number
    7: 4 + 3 for wounds"; ``tn`` stays the one typed). The server's view and a client's own
    computation (``poolhall state`` before the view arrives) are the same function."""
    game = campaign.game_as(GameState)
    beat: int | None = None
    if declared.opposes is not None and declared.opposes in game.tests:
        other = game.tests[declared.opposes]
        if declared.kind == "dodge" and other.successes is not None:
            beat = other.successes
    extra = min(sum(declared.limits.values()), MAX_TEST_DICE - declared.base_dice)
    data: dict[str, Any] = {
        "character": declared.character,
        "kind": declared.kind,
        "skill": declared.skill,
        "attribute": declared.attribute,
        "tn": declared.tn,
        "base_dice": declared.base_dice,
        "limits": dict(declared.limits),
        "beat": beat,
    }
    found = campaign.characters.get(declared.character)
    wounds = wound_modifier(found.conditions) if found is not None else 0
    tn = declared.tn
    if wounds and tn is not None:  # the odds of the target number it will roll against
        data["note"] = f"against target number {tn + wounds}: {tn} + {wounds} for wounds"
        tn += wounds
    return data, (declared.base_dice, tn, extra, beat)


def combat_turn_view(campaign: CampaignState) -> dict[str, Any] | None:
    """Turn, pass, order, and each combatant's pools full and left."""
    return combat_view(campaign.game_as(GameState))
