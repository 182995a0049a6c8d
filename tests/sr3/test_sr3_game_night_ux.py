"""The Shadowrun game night's rough edges that are the server's and the projections' to fix:
what a test's card, a sheet and a Conditions card need from the table and the views. Real
events decided and folded (``tests.sr3.sr3_support.Table``), no mocks."""

from __future__ import annotations

import msgspec

from poolhall.events import sr3
from poolhall.projections.sr3 import GameState
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
