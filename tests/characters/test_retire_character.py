"""Retiring a character (``retire_character``), decided and folded without a server: what it
appends, who may, what it refuses in each game system, and how the table and the log before
it still name the character."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from poolhall.events import core, d12, sr3
from poolhall.events import narrative as n
from poolhall.events import narrative_encounter as e
from poolhall.events.character_io import CharacterFile
from poolhall.events.errors import Rejected
from poolhall.projections.analytics import report
from poolhall.projections.campaign import evolve, fold
from poolhall.projections.describe import describe
from poolhall.projections.replay_start import replay_start
from poolhall.projections.snapshot import SERVER_DECODER, observable, snapshot_of, state_from
from poolhall.server import rules
from poolhall.server.rules.base import Decision
from poolhall.server.rules.sr3 import views as sr3_views
from poolhall.server.stored_snapshots import decode_state, encode_state
from tests.d12.d12_support import Table as D12Table
from tests.narrative.narrative_support import Table as NarrativeTable
from tests.rules_table import RulesTable
from tests.sr3.sr3_support import Table as Sr3Table


def refused(table: RulesTable, by: str, command: type, **fields: Any) -> Rejected:
    """The refusal of a command (sent by member ``by``), which must append nothing."""
    head = table.seq
    ctx = Decision(table.state, table.state.members[by], table.rng, lambda: "t" * 32)
    with pytest.raises(Rejected) as error:
        rules.decide(ctx, command(id="x", **fields))
    assert table.seq == head
    return error.value


def test_the_gm_retires_a_character_and_its_player_no_longer_plays_it() -> None:
    """Han leaves the table: his player is given the list without him first (so the log says
    it), then he is retired by name; no sheet, no roll, no player, no new Han."""
    table = D12Table()
    events = table.run("gm", core.RetireCharacter, character="han", reason="left the group")
    assert events == [
        core.CharactersAssigned(member="han-player", characters=()),
        core.CharacterRetired(character="han", name="Han", reason="left the group"),
    ]
    state = table.state
    assert "han" not in state.characters
    assert state.retired == {"han": "Han"}
    assert state.members["han-player"].characters == []
    assert list(state.characters) == ["leia", "vader"]
    gm_roll = refused(table, "gm", core.Roll, expression="1d12", character="han")
    assert (gm_roll.code, gm_roll.message, gm_roll.path) == (
        "not_found", "Han is retired: no longer at this table", "$.character")
    assert refused(table, "han-player", core.UpdateCharacter, character="han",
                   name="Solo").message == "you do not play Han"
    assert refused(table, "gm", d12.CallThresholdTest, character="han", stats=("STR",),
                   dt=5).message == "Han is retired: no longer at this table"
    assert [line for line in (describe(r, state) for r in table.log[-2:])] == [
        "han-player now plays no character",
        "retired character Han (han) (left the group)",
    ]


def test_a_retired_id_is_never_given_to_another_character_nor_to_a_player() -> None:
    """The log, replays and the report tell characters apart by id: a new "han" is refused,
    and so is giving Han to a player, at an invite or later; an import picks another id."""
    table = D12Table()
    table.run("gm", core.RetireCharacter, character="han")
    created = refused(table, "gm", core.CreateCharacter, character="han", name="Han Again",
                      stats=d12.D12Stats(ratings={"CON": 1, "CHA": 1}))
    assert created.code == "conflict"
    assert created.message.startswith("'han' was the id of Han, retired")
    assigned = refused(table, "gm", core.AssignCharacters, member="leia-player",
                       characters=["leia", "han"])
    assert (assigned.code, assigned.message, assigned.path) == (
        "invalid", "Han is retired: no one plays a retired character", "$.characters[1]")
    assert refused(table, "gm", core.Invite, role="player",
                   characters=["han"]).path == "$.characters[0]"
    file = msgspec.convert({"format": "poolhall.character", "version": 1, "name": "Han",
                            "character": "han",
                            "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1}}},
                           CharacterFile)
    imported = table.run("gm", core.ImportCharacter, file=file)
    assert isinstance(imported[0], core.CharacterCreated)
    assert imported[0].character == "han-2"
    assert refused(table, "gm", core.ImportCharacter, file=file,
                   character="han").code == "conflict"


@pytest.mark.parametrize("member", ["han-player", "leia-player", "watcher"])
def test_only_the_gm_retires(member: str) -> None:
    """A player (even Han's own), a spectator: refused, nothing appended."""
    refusal = refused(D12Table(), member, core.RetireCharacter, character="han")
    assert (refusal.code, refusal.message) == ("forbidden", "only the GM may retire characters")


def test_an_unknown_or_already_retired_character_is_refused_by_name() -> None:
    """No such id: said so; retired already: named, and nothing appended either time."""
    table = D12Table()
    unknown = refused(table, "gm", core.RetireCharacter, character="chewie")
    assert (unknown.code, unknown.message, unknown.path) == (
        "not_found", "no character 'chewie' in this campaign", "$.character")
    table.run("gm", core.RetireCharacter, character="vader")
    again = refused(table, "gm", core.RetireCharacter, character="vader")
    assert (again.code, again.message) == ("not_found", "Vader is retired already")


def test_the_log_before_the_retirement_keeps_the_character() -> None:
    """``state --at`` before it (a fold up to there) still has Han on his player's sheet;
    after it the table names him in lines from before (his rolls), as the report does."""
    table = D12Table()
    table.run("han-player", core.Roll, expression="1d12", character="han")
    before = table.seq
    table.run("gm", core.RetireCharacter, character="han")
    earlier = fold(table.log, upto=before)
    assert earlier.characters["han"].name == "Han"
    assert earlier.members["han-player"].characters == ["han"]
    assert table.state.character_name("han") == "Han"
    now = table.state
    assert describe(table.log[before - 1], now).startswith("rolled 1d12 for han")
    assert fold(table.log).retired == {"han": "Han"}  # the fold is one function of the log
    assert report(table.log).characters["han"] == "Han"  # the post-game report names him
    assert replay_start(table.state).retired == {"han": "Han"}  # a replay from after, too


def test_narrative_a_character_in_an_open_check_or_encounter_is_not_retired() -> None:
    """Han rolls an open check, Vader is its target: both refused until it is cancelled; Leia
    has an initiative slot: refused until the encounter ends."""
    table = NarrativeTable()
    table.run("han-player", n.OpenCheck, character="han", skill="Ranged (Light)", check="shot",
              target="vader")
    for who, name in (("han", "Han"), ("vader", "Vader")):
        refusal = refused(table, "gm", core.RetireCharacter, character=who)
        assert (refusal.code, refusal.message) == (
            "rule", f"{name} is in the open check 'shot': roll or cancel it first")
    table.run("gm", n.CancelCheck, check="shot")
    table.run("gm", core.RetireCharacter, character="vader")

    table.run("gm", e.StartEncounter)
    table.run("gm", n.OpenCheck, character="leia", skill="Cool", characteristic="presence",
              check="leia-init")
    table.run("gm", n.SetDifficulty, check="leia-init", level="average")
    table.fold(n.CheckRolled(check="leia-init", character="leia", pool=n.Pool(ability=1),
                             dice=(), result=n.NarrativeResult(successes=1, advantages=0,
                                                               succeeded=True)))
    table.run("leia-player", e.EnterInitiative, check="leia-init")
    assert refused(table, "gm", core.RetireCharacter, character="leia").message == \
        "Leia is in the open encounter 1: end it first"
    table.run("gm", e.EndEncounter)
    table.run("gm", core.RetireCharacter, character="leia")


def test_sr3_a_combatant_is_not_retired_and_a_declared_test_is_withdrawn() -> None:
    """Sam in the combat running: refused until it ends. Deck's declared test (the odds of a
    test not rolled) goes with him, the scene's end gives him no Karma Pool back, and the
    sheets view is sent again without him."""
    table = Sr3Table(characters={"sam": Sr3Table.CHARACTERS["sam"](),
                                 "deck": Sr3Table.CHARACTERS["deck"]()})
    table.run("gm", sr3.StartCombat)
    refusal = refused(table, "gm", core.RetireCharacter, character="sam")
    assert (refusal.code, refusal.message) == ("rule", "Sam is in the open combat: end it first")
    table.run("gm", sr3.EndCombat)
    table.run("deck-player", sr3.DeclarePoolTest, character="deck", kind="task",
              attribute="intelligence", tn=4)
    assert "deck" in table.game.declared
    rolled = table.run("deck-player", sr3.RollPoolTest, character="deck", kind="task",
                       attribute="intelligence", tn=12)[0]
    assert isinstance(rolled, sr3.PoolTestRolled)
    table.run("deck-player", sr3.RerollWithKarma, test=rolled.test, character="deck")
    assert table.game.karma_spent["deck"] > 0
    table.run("deck-player", sr3.DeclarePoolTest, character="deck", kind="task",
              attribute="intelligence", tn=4)
    retiring = table.run("gm", core.RetireCharacter, character="deck")
    assert table.game.declared == {}
    assert "deck" not in table.state.characters
    (sheets,) = [spec for spec in sr3_views(table.state, retiring) if spec.about == "sheets"]
    assert isinstance(sheets.data, sr3.Sr3Sheets)
    assert list(sheets.data.sheets) == ["sam"]
    assert table.run("gm", sr3.EndScene) == [sr3.SceneEnded(refreshed={})]
    table.run("gm", core.RetireCharacter, character="sam")


def test_d12_a_character_in_an_open_test_is_not_retired() -> None:
    """Han's extended test is going on: refused, naming it, until the GM ends it."""
    table = D12Table()
    started = table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=5)[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    refusal = refused(table, "gm", core.RetireCharacter, character="han")
    assert refusal.message == f"Han is in the open test #{started.test}: end it first"
    table.run("gm", d12.EndThresholdTest, test=started.test)
    table.run("gm", core.RetireCharacter, character="han")


def test_d12_the_opponent_of_an_open_test_is_not_retired() -> None:
    """Leia's extended test takes its DT from Han's STR: Han is refused, naming the test, as a
    narrative check's opponent is (the next round's DT may be derived from him again)."""
    table = D12Table()
    started = table.run("gm", d12.CallThresholdTest, character="leia", stats=("CHA",),
                        opponent="han", opponent_stat="STR", extended=True, refresh="CHA")[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    refusal = refused(table, "gm", core.RetireCharacter, character="han")
    assert (refusal.code, refusal.message, refusal.path) == (
        "rule", f"Han is in the open test #{started.test}: end it first", "$.character")
    table.run("gm", d12.EndThresholdTest, test=started.test)
    table.run("gm", core.RetireCharacter, character="han")


def test_snapshots_from_before_and_after_a_retirement_both_load() -> None:
    """A snapshot without ``retired`` (an older server's) loads with none retired; one after
    a retirement carries the name; the stored state round-trips; and a snapshot with the
    retirement folded onto it answers the table as the full fold does."""
    table = D12Table()
    old = msgspec.to_builtins(snapshot_of(table.state, "h", []))
    old.pop("retired", None)  # as a server from before retiring wrote it
    loaded = state_from(SERVER_DECODER.decode(msgspec.json.encode(old)))
    assert loaded.retired == {}
    assert "han" in loaded.characters
    head = table.seq
    table.run("gm", core.RetireCharacter, character="han")
    for recorded in table.log[head:]:
        evolve(loaded, recorded)
    assert observable(loaded) == observable(table.state)
    after = state_from(SERVER_DECODER.decode(msgspec.json.encode(
        snapshot_of(table.state, "h", []))))
    assert after.retired == {"han": "Han"}
    assert "han" not in after.characters
    assert decode_state(encode_state(table.state)).retired == {"han": "Han"}
