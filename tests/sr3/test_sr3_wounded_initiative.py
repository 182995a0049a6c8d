"""Wounds and initiative, rule by rule: the wound modifier that raises a character's target
numbers also comes off their initiative score (never below 0), and a character whose Stun or
Physical monitor is full does not act. Hand-computed cases on real events, no mocks."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from poolhall.events import core, sr3
from poolhall.events.base import Recorded
from poolhall.events.codec import decode_stored
from poolhall.projections.sr3 import combat_view, describe
from poolhall.projections.sr3_views import sheets_view
from poolhall.projections.sr3_wounds import incapacity, wounded_initiative
from tests.sr3.sr3_support import Table, stats, street_sam

FIXTURES = Path(__file__).parents[1] / "fixtures" / "events"


def rook() -> sr3.Sr3Stats:
    """Reaction 5, 2 initiative dice (the trial's character)."""
    return stats(reaction=5, initiative_dice=2)


def hurt(table: Table, character: str, **monitors: int) -> None:
    """The GM fills ``character``'s monitors (``physical=3, stun=2``), each an event."""
    for condition, value in monitors.items():
        table.run("gm", core.SetCondition, character=character, condition=condition,
                  value=value)


def start(table: Table, *faces: int) -> sr3.InitiativeScoresRolled:
    """Start a combat with these initiative dice; the initiative event it records."""
    table.dice(*faces)
    *_, initiative = table.run("gm", sr3.StartCombat)
    assert isinstance(initiative, sr3.InitiativeScoresRolled)
    return initiative


def words(table: Table, event: sr3.InitiativeScoresRolled | sr3.CombatPassAdvanced) -> str:
    """What the log says of ``event``, as ``watch`` and ``replay`` print it."""
    recorded = Recorded(seq=1, at="2024-01-01T00:00:00Z", actor="gm", command="c",
                        event=event)
    return describe(recorded, table.state)


@pytest.mark.parametrize(("track", "boxes", "level", "modifier"), [
    ("physical", 1, "Light", 1), ("physical", 3, "Moderate", 2), ("physical", 6, "Serious", 3),
    ("stun", 1, "Light", 1), ("stun", 3, "Moderate", 2), ("stun", 9, "Serious", 3)])
def test_rule_each_wound_level_takes_its_modifier_off_the_initiative_score(
        track: str, boxes: int, level: str, modifier: int) -> None:
    """Standard SR3's Damage Modifiers: a Light wound is -1 initiative, Moderate -2, Serious
    -3, the same figure it adds to target numbers. Rook: Reaction 5 + 4 + 4 = 13."""
    table = Table(characters={"rook": rook()})
    hurt(table, "rook", **{track: boxes})
    initiative = start(table, 4, 4)
    (roll,) = initiative.rolls
    assert (roll.reaction, roll.faces, roll.wounds, roll.score) == (5, (4, 4), modifier,
                                                                     13 - modifier), level
    assert initiative.order == ("rook",)
    assert initiative.out == {}


def test_rule_physical_and_stun_modifiers_add_up_on_initiative() -> None:
    """The trial: Rook with Physical 3 (Moderate, 2) and Stun 2 (Light, 1) rolled 13 with no
    penalty; the two monitors add up, so his score is 13 - 3 = 10, and the log says why."""
    table = Table(characters={"rook": rook()})
    hurt(table, "rook", physical=3, stun=2)
    initiative = start(table, 4, 4)
    (roll,) = initiative.rolls
    assert (roll.score, roll.wounds) == (10, 3)
    assert words(table, initiative) == \
        "initiative for turn 1: rook 10 (5 + 4+4 - 3 for wounds); order: rook"
    assert table.game.combat is not None
    assert (table.game.combat.combatants["rook"].score,
            table.game.combat.combatants["rook"].wounds) == (10, 3)
    view = combat_view(table.game)
    assert view is not None
    assert (view["characters"]["rook"]["initiative"], view["characters"]["rook"]["wounds"]) \
        == (10, 3)


def test_rule_a_wounded_initiative_score_never_drops_below_zero() -> None:
    """Reaction 1 + a 1 = 2, less 6 for two Serious wounds: 0, not -4; a score of 0 does not
    act in the first pass (only scores above 0 act)."""
    table = Table(characters={"weak": stats(reaction=1), "sam": street_sam()})
    hurt(table, "weak", physical=6, stun=6)
    initiative = start(table, 1, 2, 2, 2)
    weak, sam = initiative.rolls
    assert (weak.reaction, weak.faces, weak.wounds, weak.score) == (1, (1,), 6, 0)
    assert sam.score == 9 + 6
    assert initiative.order == ("sam",)
    assert wounded_initiative(2, 6) == 0
    assert wounded_initiative(13, 3) == 10


def test_an_unwounded_character_rolls_as_before() -> None:
    """No wounds: the score is Reaction + dice, and the roll records no modifier (its payload
    is what it was before wounds counted)."""
    table = Table(characters={"rook": rook()})
    initiative = start(table, 4, 4)
    (roll,) = initiative.rolls
    assert (roll.score, roll.wounds) == (13, 0)
    assert words(table, initiative) == "initiative for turn 1: rook 13 (5 + 4+4); order: rook"
    assert "wounds" not in msgspec.to_builtins(roll)


def test_rule_an_unconscious_character_does_not_act() -> None:
    """A full Stun monitor (10 boxes): unconscious. Mara rolls no initiative and is left out
    of the order, the event says why; her dice are not drawn, so Rook's are the first two."""
    table = Table(characters={"mara": street_sam(), "rook": rook()})
    hurt(table, "mara", stun=10)
    initiative = start(table, 4, 4)
    (roll,) = initiative.rolls
    assert (roll.character, roll.faces, roll.score) == ("rook", (4, 4), 13)
    assert initiative.order == ("rook",)
    assert initiative.out == {"mara": "unconscious"}
    assert words(table, initiative) == ("initiative for turn 1: rook 13 (5 + 4+4); "
                                        "order: rook; not acting: mara (unconscious)")
    assert table.game.combat is not None
    mara = table.game.combat.combatants["mara"]
    assert (mara.score, mara.faces, mara.out) == (0, (), "unconscious")
    assert mara.pools_full["combat"] == 7  # the turn's pools are recorded; she acts with none
    view = combat_view(table.game)
    assert view is not None
    assert view["characters"]["mara"]["out"] == "unconscious"
    assert table.replay().game == table.game


def test_rule_a_dying_character_does_not_act() -> None:
    """A full Physical monitor (10 boxes, Deadly): dying, left out as well; with both monitors
    full the graver word wins."""
    table = Table(characters={"mara": street_sam(), "rook": rook(), "vex": rook()})
    hurt(table, "mara", physical=10)
    hurt(table, "vex", physical=10, stun=10)
    initiative = start(table, 4, 4)
    assert [r.character for r in initiative.rolls] == ["rook"]
    assert initiative.out == {"mara": "dying", "vex": "dying"}
    assert initiative.order == ("rook",)
    assert incapacity({"physical": 10}) == "dying"
    assert incapacity({"stun": 10}) == "unconscious"
    assert incapacity({"physical": 9, "stun": 9}) is None


def test_rule_no_one_acts_when_every_participant_is_out() -> None:
    """Everyone unconscious: no dice, no order; the log says so in words."""
    table = Table(characters={"rook": rook()})
    hurt(table, "rook", stun=10)
    initiative = start(table)
    assert (initiative.rolls, initiative.order, initiative.out) == ((), (),
                                                                    {"rook": "unconscious"})
    assert words(table, initiative) == ("initiative for turn 1: no one rolls; order: no one; "
                                        "not acting: rook (unconscious)")


def test_rule_knocked_out_during_a_turn_the_next_turn_leaves_them_out() -> None:
    """The trial: Mara is knocked out in turn 1 and, in turn 2, got a score and a full Combat
    Pool to act with. Now turn 2's initiative leaves her out; healed, she rolls again."""
    table = Table(characters={"mara": street_sam(), "rook": rook()})
    start(table, 1, 1, 1, 1, 1)  # mara 12, rook 7
    hurt(table, "mara", stun=10)
    table.dice(1, 1)  # rook 7
    ended, _, initiative = table.run("gm", sr3.AdvanceCombatPass)
    assert ended == sr3.CombatTurnEnded(turn=1)
    assert isinstance(initiative, sr3.InitiativeScoresRolled)
    assert initiative.turn == 2
    assert [r.character for r in initiative.rolls] == ["rook"]
    assert initiative.out == {"mara": "unconscious"}
    assert table.game.combat is not None
    assert table.game.combat.combatants["mara"].score == 0  # not turn 1's
    hurt(table, "mara", stun=9)
    table.dice(2, 2, 2, 6, 6)  # mara 9 + 6 - 3 (Serious) = 12; rook 5 + 12 = 17
    *_, again = table.run("gm", sr3.AdvanceCombatPass)
    assert isinstance(again, sr3.InitiativeScoresRolled)
    assert again.turn == 3
    assert [(r.character, r.score, r.wounds) for r in again.rolls] == [("mara", 12, 3),
                                                                       ("rook", 17, 0)]
    assert again.out == {}
    assert table.game.combat.combatants["mara"].out is None


def test_rule_knocked_out_during_a_pass_they_act_in_no_later_pass() -> None:
    """Mara (27) would act again in pass 2 with 17; knocked out in pass 1, she does not: the
    pass leaves her out and says why."""
    table = Table(characters={"mara": street_sam(), "rook": rook()})
    start(table, 6, 6, 6, 6, 6)  # mara 27, rook 17
    hurt(table, "mara", physical=10)
    (second,) = table.run("gm", sr3.AdvanceCombatPass)
    assert second == sr3.CombatPassAdvanced(turn=1, pass_number=2,
                                            scores={"mara": 17, "rook": 7}, order=("rook",),
                                            out={"mara": "dying"})
    assert words(table, second) == ("Combat Phase pass 2 of turn 1: rook; "
                                    "not acting: mara (dying)")
    assert table.game.combat is not None
    assert table.game.combat.combatants["mara"].out == "dying"
    assert table.replay().game == table.game


def test_an_old_initiative_event_decodes_and_reads_as_before() -> None:
    """A stored initiative event from before wounds counted: no modifier, no one out, and the
    same words."""
    stored = json.loads((FIXTURES / "initiative_scores_rolled.v1.json").read_text())
    event = decode_stored(json.dumps(stored["payload"]).encode(), stored["type"], 1)
    assert isinstance(event, sr3.InitiativeScoresRolled)
    assert [r.wounds for r in event.rolls] == [0, 0]
    assert event.out == {}
    table = Table(characters={})
    assert words(table, event) == ("initiative for turn 1: sam 15 (9 + 4+1+1), "
                                   "deck 5 (4 + 1); order: sam, deck")


def test_the_sheet_names_what_wounds_do_to_initiative() -> None:
    """The sheets view's initiative line says the modifier taken off, or that the character
    does not act, as the next initiative roll will apply it."""
    table = Table(characters={"sam": street_sam(), "rook": rook(), "mara": street_sam()})
    hurt(table, "rook", physical=3, stun=2)
    hurt(table, "mara", stun=10)
    sheets = sheets_view(table.state)
    assert sheets["sam"]["initiative"] == "Reaction 5 + 4 + 3d6"
    assert sheets["rook"]["initiative"] == "Reaction 5 + 2d6 - 3 for wounds"
    assert sheets["mara"]["initiative"] == "Reaction 5 + 4 + 3d6 (unconscious: does not act)"
