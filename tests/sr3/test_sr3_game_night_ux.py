"""The Shadowrun game night's rough edges that are the server's and the projections' to fix:
what a test's card, a sheet and a Conditions card need from the table and the views. Real
events decided and folded (``tests.sr3.sr3_support.Table``), no mocks."""

from __future__ import annotations

import msgspec
import pytest

from poolhall.events import core, sr3
from poolhall.events.base import Recorded
from poolhall.projections.sr3 import GameState, describe
from poolhall.projections.sr3_views import sheets_view
from tests.sr3.sr3_support import Table


def test_a_rolled_test_keeps_its_reason_for_its_card() -> None:
    """Sam "shoots Ganger One": the log said so, the Latest tests card could not (the table's
    test record had no reason). The record now carries it, in the fold the server keeps and
    in a fresh fold of the log (a page's after a reload); a test given none has ""."""
    table = Table()
    table.run("sam-player", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
              tn=4, reason="shoots Ganger One")
    table.run("sam-player", sr3.RollPoolTest, character="sam", attribute="body", tn=4)
    for game in (table.game, table.replay().game_as(GameState)):
        assert game.tests[1].reason == "shoots Ganger One"
        assert game.tests[2].reason == ""


def test_a_sheet_lists_attributes_and_skills_as_a_player_looks_them_up() -> None:
    """Players looked for "Pistols 6" on their sheet and found pools only. The ``sheets`` view
    now lists each character's attributes (Body to Willpower, Essence, Magic for a magician
    only) and skills with rating and linked attribute, in the sheet's order."""
    table = Table()
    sheets = msgspec.to_builtins(sheets_view(table.state))
    sam = sheets["sam"]
    assert sam["attributes"] == {"body": 6, "quickness": 6, "strength": 5, "charisma": 2,
                                 "intelligence": 5, "willpower": 4, "essence": 6.0}
    assert sam["skills"][0] == {"skill": "pistols", "rating": 5, "attribute": "quickness"}
    assert [s["skill"] for s in sam["skills"]] == ["pistols", "etiquette", "electronics"]
    assert sheets["mage"]["attributes"]["magic"] == 6
    sent = msgspec.convert(sheets, dict[str, sr3.Sr3Sheet])  # as the server sends the view
    assert sent["sam"].skills[0] == sr3.SheetSkill(skill="pistols", rating=5,
                                                   attribute="quickness")


@pytest.mark.parametrize(("physical", "stun", "wounds"), [
    (0, 0, {"physical": "unhurt", "stun": "unhurt", "modifier": 0, "out": None}),
    (6, 0, {"physical": "serious", "stun": "unhurt", "modifier": 3, "out": None}),
    (3, 1, {"physical": "moderate", "stun": "light", "modifier": 3, "out": None}),
    (9, 5, {"physical": "serious", "stun": "moderate", "modifier": 5, "out": None}),
    (2, 10, {"physical": "light", "stun": "deadly", "modifier": 4, "out": "unconscious"}),
    (10, 10, {"physical": "deadly", "stun": "deadly", "modifier": 6, "out": "dying"}),
])
def test_a_sheet_says_what_the_wounds_do(physical: int, stun: int,
                                         wounds: dict[str, object]) -> None:
    """The Conditions card gave boxes ("Physical boxes 6") but not what they do. The sheets
    view says it from the functions the rules apply: 1 box Light (+1), 3 Moderate (+2), 6
    Serious (+3), 10 Deadly (still +3), the two monitors added up; a full Stun monitor is
    unconscious, a full Physical one dying (which wins). Hand-computed from the Damage
    Modifiers table in ``projections/sr3_wounds.py``."""
    table = Table()
    for condition, value in (("physical", physical), ("stun", stun)):
        if value:  # a monitor is empty to begin with
            table.run("gm", core.SetCondition, character="sam", condition=condition,
                      value=value)
    assert sheets_view(table.state)["sam"]["wounds"] == wounds
    sent = msgspec.convert(sheets_view(table.state), dict[str, sr3.Sr3Sheet])
    assert msgspec.to_builtins(sent["sam"].wounds) == wounds


def test_a_dodge_is_declared_as_pool_dice_only() -> None:
    """A Dodge rolls Combat Pool dice alone: the log read "tn 4, 0 dice", as if the test had
    nothing to roll. It now reads "pool dice only" (a test with base dice still counts them)."""
    table = Table()
    (dodge,) = table.run("sam-player", sr3.DeclarePoolTest, character="sam", kind="dodge", tn=4)
    assert isinstance(dodge, sr3.PoolTestDeclared)
    assert dodge.base_dice == 0
    (shot,) = table.run("sam-player", sr3.DeclarePoolTest, character="sam", kind="combat",
                        skill="pistols", tn=4)
    said = [describe(Recorded(seq=n, at="2026-11-27T21:00:00Z", actor="sam-player",
                              command="c", event=event), table.state)
            for n, event in enumerate((dodge, shot), 1)]
    assert "tn 4, pool dice only; may draw: combat 7" in said[0]
    assert "tn 4, 5 dice; may draw: combat 5" in said[1]


def test_a_declaration_names_the_pools_spent_this_turn() -> None:
    """A ganger with Combat Pool 0 of 5 declaring Damage Resistance was told "No pool may help
    this test": the declaration left out pools with no die left, so a page could not tell
    "spent" from "no use". It now names them (``spent``). Sam draws 5 Combat Pool dice on
    Pistols 5 and his last 2 on a Dodge; his Damage Resistance may draw nothing, with Combat
    spent. A test the Combat Pool never helps (Etiquette) names no pool spent; out of combat
    nothing is ever spent; and a declaration logged before ``spent`` reads as none spent."""
    table = Table()
    (calm,) = table.run("sam-player", sr3.DeclarePoolTest, character="sam",
                        kind="damage_resistance", tn=4)
    assert isinstance(calm, sr3.PoolTestDeclared)
    assert (calm.limits, calm.spent) == ({"combat": 7}, ())
    table.run("gm", sr3.StartCombat, participants=("sam", "deck"))
    table.run("sam-player", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
              tn=4, pools={"combat": 5})
    (dodge,) = table.run("sam-player", sr3.DeclarePoolTest, character="sam", kind="dodge", tn=4)
    assert isinstance(dodge, sr3.PoolTestDeclared)
    assert (dodge.limits, dodge.spent) == ({"combat": 2}, ())
    table.run("sam-player", sr3.RollPoolTest, character="sam", kind="dodge", tn=4,
              pools={"combat": 2})
    (soak,) = table.run("sam-player", sr3.DeclarePoolTest, character="sam",
                        kind="damage_resistance", tn=4)
    assert isinstance(soak, sr3.PoolTestDeclared)
    assert (soak.limits, soak.spent) == ({}, ("combat",))
    said = describe(Recorded(seq=9, at="2026-11-27T21:00:00Z", actor="sam-player",
                             command="c", event=soak), table.state)
    assert said.endswith("may draw: no pool; spent this turn: combat")
    (talk,) = table.run("sam-player", sr3.DeclarePoolTest, character="sam", kind="other",
                        skill="etiquette", tn=4)
    assert isinstance(talk, sr3.PoolTestDeclared)
    assert (talk.limits, talk.spent) == ({}, ())

    old = msgspec.json.encode(soak).replace(b',"spent":["combat"]', b"")
    assert b"spent" not in old
    assert msgspec.json.decode(old, type=sr3.PoolTestDeclared).spent == ()
