"""Combat Turns: initiative, passes, the end of a turn, pools refreshed and never carried over."""

from __future__ import annotations

import pytest

from poolhall.events import sr3
from poolhall.events.errors import Rejected
from poolhall.projections.sr3 import combat_view
from poolhall.projections.sr3_pools import pool_sizes
from poolhall.server.rules.sr3 import initiative_order
from tests.sr3.sr3_support import Table, decker, rigger, stats, street_sam


def duel() -> Table:
    """Sam (Reaction 5 + 4, 3d6) against Deck (Reaction 4, 1d6)."""
    return Table(characters={"sam": street_sam(), "deck": decker()})


def test_rule_pools_are_full_at_the_first_combat_turn() -> None:
    """"Dice pools initially become available for use at full value as the first step of the
    first Combat Turn of any encounter."""
    table = duel()
    started, turn, initiative = table.run("gm", sr3.StartCombat)
    assert started == sr3.CombatEncounterStarted(participants=("sam", "deck"))
    assert isinstance(turn, sr3.CombatTurnStarted)
    assert turn.turn == 1
    assert turn.pools == {"sam": pool_sizes(street_sam()), "deck": pool_sizes(decker())}
    assert isinstance(initiative, sr3.InitiativeScoresRolled)
    assert table.game.combat is not None
    left = table.game.combat.combatants["sam"].pools_left
    assert left == table.game.combat.combatants["sam"].pools_full == pool_sizes(street_sam())


def test_rule_initiative_is_reaction_plus_initiative_dice_without_rule_of_six() -> None:
    """"Initiative: Reaction + initiative dice (d6s, no Rule of Six)": a 6 is not rerolled."""
    table = duel()
    table.dice(6, 6, 6, 2)
    *_, initiative = table.run("gm", sr3.StartCombat)
    assert isinstance(initiative, sr3.InitiativeScoresRolled)
    sam, deck = initiative.rolls
    assert (sam.reaction, sam.faces, sam.score) == (9, (6, 6, 6), 27)
    assert (deck.reaction, deck.faces, deck.score) == (4, (2,), 6)


def test_rule_characters_act_in_descending_order_of_initiative() -> None:
    """"Characters act in descending order"; decision: ties by higher Reaction, then by id."""
    table = Table(characters={"ann": stats(reaction=3), "bob": stats(reaction=5),
                              "cat": stats(reaction=5), "dan": stats(reaction=1)})
    table.dice(4, 2, 2, 6)  # ann 7, bob 7, cat 7, dan 7
    *_, initiative = table.run("gm", sr3.StartCombat)
    assert isinstance(initiative, sr3.InitiativeScoresRolled)
    assert initiative.order == ("bob", "cat", "ann", "dan")
    assert table.game.combat is not None
    assert table.game.combat.order == ["bob", "cat", "ann", "dan"]
    assert initiative_order({"x": (12, 1), "y": (20, 1), "z": (0, 9)}) == ("y", "x")


def test_rule_scores_drop_by_ten_each_pass_and_those_above_zero_act_again() -> None:
    """"After each Combat Phase pass every score drops by 10; a character acts again in the
    next pass while their score is above 0."""
    table = duel()
    table.dice(6, 6, 6, 5)  # sam 27, deck 9
    table.run("gm", sr3.StartCombat)
    (second,) = table.run("gm", sr3.AdvanceCombatPass)
    assert second == sr3.CombatPassAdvanced(turn=1, pass_number=2,
                                            scores={"sam": 17, "deck": -1}, order=("sam",))
    (third,) = table.run("gm", sr3.AdvanceCombatPass)
    assert isinstance(third, sr3.CombatPassAdvanced)
    assert (third.pass_number, third.scores["sam"], third.order) == (3, 7, ("sam",))
    assert table.game.combat is not None
    assert table.game.combat.pass_number == 3


def test_rule_turn_ends_when_no_one_is_above_zero_and_the_next_rerolls_initiative() -> None:
    """"When no one has a score above 0 the Combat Turn ends; the next Combat Turn rerolls
    initiative and refreshes the pools."""
    table = duel()
    table.dice(1, 1, 1, 1)  # sam 12, deck 5
    table.run("gm", sr3.StartCombat)
    table.run("gm", sr3.AdvanceCombatPass)  # sam 2 acts again
    table.dice(3, 3, 3, 4)
    ended, started, initiative = table.run("gm", sr3.AdvanceCombatPass)
    assert isinstance(initiative, sr3.InitiativeScoresRolled)
    assert isinstance(started, sr3.CombatTurnStarted)
    assert ended == sr3.CombatTurnEnded(turn=1)
    assert started.turn == 2
    assert initiative.turn == 2
    assert [r.score for r in initiative.rolls] == [18, 8]
    view = combat_view(table.game)
    assert view is not None
    assert (view["turn"], view["pass"], view["order"]) == (2, 1, ["sam", "deck"])


def test_rule_pools_refresh_each_turn_and_unused_dice_do_not_carry_over() -> None:
    """"At the start of each Combat Turn, all dice pools refresh to their original, full value
    ... Unused pool dice do not carry over from one Combat Turn to the next."""
    table = duel()
    table.dice(1, 1, 1, 1)
    table.run("gm", sr3.StartCombat)
    table.run("gm", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols", tn=4,
              pools={"combat": 5})
    assert table.game.combat is not None
    assert table.game.combat.combatants["sam"].pools_left["combat"] == 2
    table.run("gm", sr3.AdvanceCombatPass)
    table.run("gm", sr3.AdvanceCombatPass)  # turn 2
    sam = table.game.combat.combatants["sam"]
    assert sam.pools_left["combat"] == sam.pools_full["combat"] == 7  # not 7 + 2 unused
    assert table.game.combat.combatants["deck"].pools_left["hacking"] == 7


def test_combat_turn_projection_gives_turn_pass_order_and_pools_full_and_left() -> None:
    """The combat view: turn number, pass, order, each character's pools full and left."""
    table = duel()
    table.dice(2, 2, 2, 6)  # sam 15, deck 10
    table.run("gm", sr3.StartCombat)
    table.run("gm", sr3.RollPoolTest, character="deck", kind="matrix", skill="computer", tn=5,
              pools={"hacking": 4})
    view = combat_view(table.game)
    assert view is not None
    assert view["turn"] == 1
    assert view["pass"] == 1
    assert view["order"] == ["sam", "deck"]
    assert view["characters"]["deck"]["score"] == 10
    assert view["characters"]["deck"]["pools"]["hacking"] == {"full": 7, "left": 3}
    assert view["characters"]["sam"]["pools"]["combat"] == {"full": 7, "left": 7}
    assert table.replay().game == table.game


def test_combat_ends_and_pools_no_longer_deplete() -> None:
    """After the GM ends the combat, tests draw up to the full pool again (decision)."""
    table = duel()
    table.run("gm", sr3.StartCombat)
    ended, finished = table.run("gm", sr3.EndCombat)
    assert isinstance(finished, sr3.CombatEncounterEnded)
    assert ended == sr3.CombatTurnEnded(turn=1)
    assert finished.turns == 1
    assert table.game.combat is None
    (event,) = table.run("gm", sr3.RollPoolTest, character="sam", kind="dodge", tn=4,
                         pools={"combat": 7})
    assert isinstance(event, sr3.PoolTestRolled)
    assert event.pools_left is None
    (again,) = table.run("gm", sr3.RollPoolTest, character="sam", kind="dodge", tn=4,
                         pools={"combat": 7})
    assert isinstance(again, sr3.PoolTestRolled)
    assert again.pools_left is None


def test_only_the_gm_runs_the_combat() -> None:
    """Players and spectators may not start, advance or end a combat."""
    table = duel()
    for member in ("sam-player", "watcher"):
        for command in (sr3.StartCombat, sr3.AdvanceCombatPass, sr3.EndCombat, sr3.EndScene):
            with pytest.raises(Rejected) as refused:
                table.decide(member, command)
            assert refused.value.code == "forbidden"


def test_combat_commands_refuse_the_wrong_moment_and_unknown_participants() -> None:
    """No second combat at once, no pass without a combat, no participant who does not exist."""
    table = Table(characters={"sam": street_sam(), "rig": rigger()})
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.AdvanceCombatPass)
    assert refused.value.code == "rule"
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.StartCombat, participants=("sam", "ghost"))
    assert (refused.value.code, refused.value.path) == ("not_found", "$.participants[1]")
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.StartCombat, participants=("sam", "sam"))
    assert refused.value.path == "$.participants[1]"
    table.run("gm", sr3.StartCombat, participants=("rig",))
    assert table.game.combat is not None
    assert list(table.game.combat.combatants) == ["rig"]
    with pytest.raises(Rejected) as refused:
        table.decide("gm", sr3.StartCombat)
    assert refused.value.code == "conflict"
