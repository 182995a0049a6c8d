"""The Shadowrun game night's rough edges that are the server's and the projections' to fix:
what a test's card, a sheet and a Conditions card need from the table and the views. Real
events decided and folded (``tests.sr3.sr3_support.Table``), no mocks."""

from __future__ import annotations

from poolhall.events import sr3
from poolhall.projections.sr3 import GameState
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
