"""The table a replay link starts from: each system's standing state, nothing recorded before.

(The narrative system's start is tried against the real server in
``tests/server/test_replay_bounds.py``.)"""

from __future__ import annotations

from poolhall.events import core, d12, sr3
from poolhall.projections.d12 import GameState as D12State
from poolhall.projections.replay_start import replay_start
from poolhall.projections.sr3 import GameState as Sr3State
from tests.d12.d12_support import Table as D12Table
from tests.sr3.sr3_support import Table as Sr3Table


def test_sr3_keeps_the_combat_and_counters_but_no_test_or_initiative_faces() -> None:
    """A combat in progress stands (turn, order, scores, pools left); its initiative dice, the
    tests rolled and the test declared before the replay do not."""
    table = Sr3Table()
    table.run("gm", sr3.StartCombat)
    table.run("gm", sr3.RollPoolTest, character="sam", dice=4, tn=4)
    before = table.game
    assert isinstance(before, Sr3State)
    assert before.tests
    assert before.combat is not None
    start = replay_start(table.state)
    game = start.game
    assert isinstance(game, Sr3State)
    assert game.combat is not None
    assert (game.tests, game.declared) == ({}, {})
    assert game.next_test == before.next_test
    assert game.scene == before.scene
    assert game.combat.order == before.combat.order
    assert {name: c.score for name, c in game.combat.combatants.items()} == \
        {name: c.score for name, c in before.combat.combatants.items()}
    assert all(c.faces == () for c in game.combat.combatants.values())
    assert any(c.faces for c in before.combat.combatants.values())  # the original is intact


def test_d12_keeps_the_next_test_number_and_no_test() -> None:
    """Tests open or ended before the replay are not on its table; numbering goes on."""
    table = D12Table()
    table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=9)
    before = table.game
    assert isinstance(before, D12State)
    assert before.tests
    game = replay_start(table.state).game
    assert isinstance(game, D12State)
    assert game.tests == {}
    assert game.next_test == before.next_test


def test_the_campaign_keeps_members_and_sheets_but_no_roll_or_replay_link() -> None:
    """Members (without token hashes) and characters stand; free rolls and other replay links
    do not."""
    table = D12Table()
    table.run("gm", core.Roll, expression="2d6", reason="before")
    table.fold(core.ReplayShared(member="link", name="link", session=1, token_hash="1" * 64))
    assert table.state.rolls
    start = replay_start(table.state)
    assert start.rolls == []
    assert "link" not in start.members
    assert set(start.members) == set(table.state.members) - {"link"}
    assert all(member.token_hash == "" for member in start.members.values())
    assert start.tokens == {}
    assert start.characters.keys() == table.state.characters.keys()
    assert start.head == table.state.head
