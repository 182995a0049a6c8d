"""Conditions on the sheet, rule by rule: who sets them, which each system has, their ranges,
and SR3's wound modifiers reaching the target number of every test and its odds."""

from __future__ import annotations

import pytest

from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.events import sr3 as vocabulary
from poolhall.events.errors import Rejected
from poolhall.projections.sr3_wounds import wound_level, wound_modifier
from poolhall.server.rules.sr3 import views
from poolhall.server.views import computed
from tests.rules_table import RulesTable


def table(system: str, stats: object) -> RulesTable:
    return RulesTable(system, [("gm", "gm", ()), ("ana", "player", ("hero",)),
                               ("bo", "player", ("other",)), ("cy", "spectator", ())],
                      {"hero": stats, "other": stats})


NARRATIVE = n.NarrativeStats()
SAM = vocabulary.Sr3Stats(body=4, quickness=5, strength=3, charisma=3, intelligence=5,
                          willpower=4, skills={"pistols": vocabulary.Sr3Skill(
                              rating=5, attribute="quickness", kind="combat")})


def refused(game: RulesTable, member: str, **fields: object) -> Rejected:
    head = game.seq
    with pytest.raises(Rejected) as error:
        game.run(member, core.SetCondition, **fields)
    assert game.seq == head
    return error.value


def test_the_gm_and_the_characters_player_set_conditions_and_the_sheet_keeps_them() -> None:
    """Ana sets her hero's strain, the GM the wounds: each an event, the sheet shows both;
    Bo (another player) and Cy (a spectator) may not."""
    game = table("narrative", NARRATIVE)
    (event,) = game.run("ana", core.SetCondition, character="hero", condition="strain", value=3)
    assert isinstance(event, core.ConditionChanged)
    assert (event.was, event.value) == (0, 3)
    game.run("gm", core.SetCondition, character="hero", condition="wounds", value=5,
             reason="blaster bolt")
    assert game.state.characters["hero"].conditions == {"strain": 3, "wounds": 5}
    assert refused(game, "bo", character="hero", condition="strain", value=1).code == "forbidden"
    assert refused(game, "cy", character="hero", condition="strain", value=1).code == "forbidden"


def test_a_condition_set_to_the_value_it_has_is_refused_and_logs_nothing() -> None:
    """Set pressed on the form as it came (it starts at the current value) logged "3 -> 3";
    now the value is named as the one already there, and nothing is appended."""
    game = table("narrative", NARRATIVE)
    game.run("ana", core.SetCondition, character="hero", condition="strain", value=3)
    error = refused(game, "ana", character="hero", condition="strain", value=3)
    assert (error.code, error.path) == ("invalid", "$.value")
    assert "strain is already 3: nothing to change" in str(error)
    error = refused(game, "gm", character="hero", condition="wounds", value=0)
    assert "wounds is already 0" in str(error)


def test_narrative_characters_have_thresholds_soak_and_defence() -> None:
    """Narrative: wound and strain thresholds and values, soak, melee and ranged defence;
    not a Condition Monitor; defence at most 4."""
    game = table("narrative", NARRATIVE)
    for condition in ("wound_threshold", "strain_threshold", "soak", "melee_defence",
                      "ranged_defence"):
        game.run("gm", core.SetCondition, character="hero", condition=condition, value=2)
    assert refused(game, "gm", character="hero", condition="physical", value=1).path == \
        "$.condition"
    assert refused(game, "gm", character="hero", condition="ranged_defence",
                   value=5).path == "$.value"


def test_sr3_condition_monitors_have_ten_boxes() -> None:
    """SR3: Physical and Stun monitors of 10 boxes; no strain, no eleventh box."""
    game = table("sr3", SAM)
    game.run("gm", core.SetCondition, character="hero", condition="stun", value=10)
    assert "at most 10" in refused(game, "gm", character="hero", condition="physical",
                                   value=11).message
    assert refused(game, "gm", character="hero", condition="strain", value=1).path == \
        "$.condition"


def test_d12_characters_have_no_conditions_the_sources_do_not_give() -> None:
    """d12: nothing invented: every condition is refused, saying why."""
    from poolhall.events.d12 import Stats as D12Stats
    game = table("d12", D12Stats(ratings={"CON": 3, "CHA": 2}))
    assert "give none" in refused(game, "gm", character="hero", condition="wounds",
                                  value=1).message


@pytest.mark.parametrize(("boxes", "level", "modifier"), [
    (0, "unhurt", 0), (1, "light", 1), (2, "light", 1), (3, "moderate", 2), (5, "moderate", 2),
    (6, "serious", 3), (9, "serious", 3), (10, "deadly", 3)])
def test_sr3_wound_levels_light_moderate_serious_deadly(boxes: int, level: str,
                                                          modifier: int) -> None:
    """Standard SR3 wound levels: 1 box Light +1, 3 Moderate +2, 6 Serious +3, 10 Deadly."""
    assert wound_level(boxes) == (level, modifier)


def test_sr3_physical_and_stun_modifiers_add_up() -> None:
    """A Light physical wound and a Moderate stun wound: +3 to every target number."""
    assert wound_modifier({"physical": 1, "stun": 3}) == 3


def test_sr3_wound_modifier_raises_the_tests_target_number_and_its_odds() -> None:
    """Rule: wound modifiers apply to target numbers. Sam (3 physical boxes: Moderate, +2)
    declares Pistols against TN 4: its odds are those of TN 6, saying why, and rolling it
    with TN 4 is against 6; without wounds it stays 4."""
    game = table("sr3", SAM)
    game.run("gm", core.SetCondition, character="hero", condition="physical", value=3)
    (declared,) = game.run("ana", vocabulary.DeclarePoolTest, character="hero",
                           skill="pistols", kind="other", tn=4)
    assert isinstance(declared, vocabulary.PoolTestDeclared)
    assert declared.tn == 4
    (view,) = computed(views(game.state, [declared]))
    assert isinstance(view.data, vocabulary.Sr3TestOdds)
    assert view.data.note == "against target number 6: 4 + 2 for wounds"
    unhurt = table("sr3", SAM)
    (plain,) = unhurt.run("ana", vocabulary.DeclarePoolTest, character="hero",
                          skill="pistols", kind="other", tn=6)
    unhurt_view = computed(views(unhurt.state, [plain]))[0]
    assert isinstance(unhurt_view.data, vocabulary.Sr3TestOdds)
    assert view.data.rows == unhurt_view.data.rows
    (rolled,) = game.run("ana", vocabulary.RollPoolTest, character="hero", skill="pistols",
                         kind="other", tn=4)
    assert isinstance(rolled, vocabulary.PoolTestRolled)
    assert rolled.tn == 6
    (unhurt_roll,) = unhurt.run("ana", vocabulary.RollPoolTest, character="hero",
                                skill="pistols", kind="other", tn=4)
    assert isinstance(unhurt_roll, vocabulary.PoolTestRolled)
    assert unhurt_roll.tn == 4


def test_a_wound_taken_after_declaring_changes_the_declared_tests_odds() -> None:
    """The GM marks a Light wound on Sam after he declared: his test's odds are recomputed
    against TN 5."""
    game = table("sr3", SAM)
    game.run("ana", vocabulary.DeclarePoolTest, character="hero", skill="pistols",
             kind="other", tn=4)
    events = game.run("gm", core.SetCondition, character="hero", condition="physical", value=1)
    (view,) = [v for v in computed(views(game.state, events)) if v.about == "test:hero"]
    assert isinstance(view.data, vocabulary.Sr3TestOdds)
    assert view.data.note == "against target number 5: 4 + 1 for wounds"
