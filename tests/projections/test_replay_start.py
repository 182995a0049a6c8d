"""The table a replay link starts from: each system's standing state, nothing recorded before.

(The narrative system's start, and an encounter or an extended test running across game
sessions, are tried against the real server in ``tests/server/test_replay_bounds.py``.)"""

from __future__ import annotations

from poolhall.events import core, d12, sr3
from poolhall.events import narrative_encounter as e
from poolhall.events.base import Recorded
from poolhall.projections.campaign import evolve
from poolhall.projections.d12 import GameState as D12State
from poolhall.projections.narrative import GameState as NarrativeState
from poolhall.projections.replay_start import replay_start
from poolhall.projections.sr3 import GameState as Sr3State
from tests.d12.d12_support import Table as D12Table
from tests.narrative.test_narrative_encounter import encounter_with_slots
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


def test_narrative_keeps_the_running_encounter_and_no_check() -> None:
    """An encounter in its round 1 stands (its slots and this round's claim), as an sr3
    combat does; the initiative checks it was built from do not. A round begun on the
    replay's start leaves the original state as it was."""
    table = encounter_with_slots()
    table.run("gm", e.AdvanceRound)
    table.run("han-player", e.ClaimSlot, slot=2, character="han")
    before = table.game
    assert before.encounter is not None
    assert before.checks
    start = replay_start(table.state)
    game = start.game
    assert isinstance(game, NarrativeState)
    assert game.encounter == before.encounter
    assert game.encounters == before.encounters == 1
    assert (game.checks, game.history, game.rolls) == ({}, {}, [])
    assert [entry.character for entry in game.encounter.slots] == ["vader", "han", "leia"]
    evolve(start, Recorded(seq=table.seq + 1, at="2024-01-01T00:00:00Z", actor="gm",
                           command="next", event=e.RoundStarted(round=2)))
    assert (game.encounter.round, game.encounter.claims) == (2, [])
    assert (before.encounter.round, len(before.encounter.claims)) == (1, 1)


def test_d12_keeps_an_extended_test_still_going_without_its_rounds() -> None:
    """An open extended test stands with its pool, DT and count of rounds, but not the
    rounds' faces or the story told before the replay; an ended one does not."""
    table = D12Table()
    for label in ("bar fight", "chase"):
        table.run("gm", d12.CallThresholdTest, character="han", stats=("STR", "CON"), dt=7,
                  extended=True, refresh="CON", label=label)
    fight, chase = sorted(table.game.tests)
    table.run("han-player", d12.RollThresholdTest, test=fight)
    table.run("gm", d12.EndThresholdTest, test=chase)
    before = table.game.tests[fight]
    assert before.open
    assert (before.rounds_rolled, len(before.rounds)) == (1, 1)
    game = replay_start(table.state).game
    assert isinstance(game, D12State)
    assert list(game.tests) == [fight]
    kept = game.tests[fight]
    assert (kept.pool, kept.threshold, kept.rounds_rolled, kept.start_pool, kept.label) == \
        (before.pool, before.threshold, 1, before.start_pool, "bar fight")
    assert (kept.rounds, kept.story) == ([], [])
    assert before.rounds  # the original is intact
    assert before.story
    assert game.next_test == table.game.next_test


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
