"""The narrative encounter and spending a check's result, rule by rule (decider and projection,
no server): initiative through the shared check, slots by successes then advantage, player and
NPC slots, rounds, and who spends which symbols in and out of combat."""

from __future__ import annotations

from poolhall.events import narrative as n
from poolhall.events import narrative_encounter as e
from poolhall.projections.narrative import describe
from tests.narrative.narrative_support import Table

VADER_COOL = n.NarrativeStats(willpower=3, presence=3,
                              skills={"Cool": n.Skill(rank=1, characteristic="presence")})


def rolled(table: Table, check: str, character: str, skill: str, *, successes: int = 1,
           advantages: int = 0, triumphs: int = 0, despairs: int = 0) -> None:
    """A check opened by the GM and rolled with the given result (the dice as data)."""
    linked = {"Cool": "presence", "Vigilance": "willpower"}.get(skill)
    table.run("gm", n.OpenCheck, character=character, skill=skill, check=check,
              **({"characteristic": linked} if linked else {}))
    table.run("gm", n.SetDifficulty, check=check, level="average")
    table.fold(n.CheckRolled(check=check, character=character, pool=n.Pool(ability=2),
                             dice=(), result=n.NarrativeResult(
                                 successes=successes, advantages=advantages,
                                 triumphs=triumphs, despairs=despairs,
                                 succeeded=successes > 0)))


def encounter_with_slots() -> Table:
    """Han (player, 2 successes), Vader (NPC, 2 successes 1 advantage), Leia (player, 1)."""
    table = Table()
    table.run("gm", e.StartEncounter, reason="ambush on the landing pad")
    rolled(table, "han-init", "han", "Cool", successes=2)
    rolled(table, "vader-init", "vader", "Vigilance", successes=2, advantages=1)
    rolled(table, "leia-init", "leia", "Vigilance", successes=1, advantages=3)
    table.run("han-player", e.EnterInitiative, check="han-init")
    table.run("gm", e.EnterInitiative, check="vader-init")
    table.run("leia-player", e.EnterInitiative, check="leia-init")
    return table


def test_initiative_is_a_cool_or_vigilance_check_rolled_through_the_shared_check() -> None:
    """Rule: each character rolls a Cool or Vigilance check; any other skill is refused, as
    is a check not yet rolled, and a second initiative for the same character."""
    table = Table()
    table.run("gm", e.StartEncounter)
    rolled(table, "shot", "han", "Ranged (Light)")
    assert "Cool or Vigilance" in table.refused("gm", e.EnterInitiative, check="shot").message
    table.run("han-player", n.OpenCheck, character="han", skill="Cool", check="cool")
    assert table.refused("han-player", e.EnterInitiative, check="cool").code == "rule"
    rolled(table, "cool-2", "han", "Cool")
    (entered,) = table.run("han-player", e.EnterInitiative, check="cool-2")
    assert isinstance(entered, e.InitiativeEntered)
    assert entered.side == "player"
    rolled(table, "cool-3", "han", "Cool")
    assert "one initiative per character" in table.refused(
        "gm", e.EnterInitiative, check="cool-3").message


def test_a_player_enters_only_their_own_characters_initiative() -> None:
    """Leia's player may not enter Han's check."""
    table = Table()
    table.run("gm", e.StartEncounter)
    rolled(table, "han-init", "han", "Cool")
    assert table.refused("leia-player", e.EnterInitiative, check="han-init").code == "forbidden"


def test_slots_are_ordered_by_successes_then_advantage() -> None:
    """Rule: slots by successes, then advantage: Vader (2, 1), Han (2, 0), Leia (1, 3); each
    slot a player slot or an NPC slot after who rolled it."""
    table = encounter_with_slots()
    encounter = table.game.encounter
    assert encounter is not None
    assert [(s.character, s.side) for s in encounter.slots] == [
        ("vader", "npc"), ("han", "player"), ("leia", "player")]


def test_a_tie_goes_to_triumphs_then_the_player_then_the_first_entered() -> None:
    """Decision: equal successes and advantage: more triumphs first, then a player's slot."""
    table = Table()
    table.run("gm", e.StartEncounter)
    rolled(table, "vader-init", "vader", "Vigilance", successes=1)
    rolled(table, "han-init", "han", "Cool", successes=1)
    rolled(table, "leia-init", "leia", "Vigilance", successes=1, triumphs=1)
    for check in ("vader-init", "han-init", "leia-init"):
        table.run("gm", e.EnterInitiative, check=check)
    assert table.game.encounter is not None
    assert [s.character for s in table.game.encounter.slots] == ["leia", "han", "vader"]


def test_any_player_character_may_claim_a_player_slot_each_round() -> None:
    """Rule: Leia (slot 3 by her roll) claims the first player slot (2); Han takes slot 3;
    neither may act twice in the round; in round 2 Han claims slot 2."""
    table = encounter_with_slots()
    assert table.refused("leia-player", e.ClaimSlot, slot=2, character="leia").code == "rule"
    table.run("gm", e.AdvanceRound)
    (claim,) = table.run("leia-player", e.ClaimSlot, slot=2, character="leia")
    assert isinstance(claim, e.SlotClaimed)
    assert (claim.round, claim.side) == (1, "player")
    assert "taken" in table.refused("han-player", e.ClaimSlot, slot=2, character="han").message
    assert "acted this round" in table.refused("leia-player", e.ClaimSlot, slot=3,
                                               character="leia").message
    table.run("han-player", e.ClaimSlot, slot=3, character="han")
    table.run("gm", e.AdvanceRound)
    encounter = table.game.encounter
    assert encounter is not None
    assert encounter.round == 2
    assert encounter.claims == []
    table.run("han-player", e.ClaimSlot, slot=2, character="han")


def test_a_player_may_not_claim_for_another_players_character() -> None:
    """Han's player may not put Leia in a slot."""
    table = encounter_with_slots()
    table.run("gm", e.AdvanceRound)
    assert table.refused("han-player", e.ClaimSlot, slot=2, character="leia").code == "forbidden"


def test_the_gm_fills_npc_slots_with_npcs() -> None:
    """Rule: the GM fills NPC slots; a player may not, and the GM may not put a player
    character in one (nor an NPC in a player slot)."""
    table = encounter_with_slots()
    table.run("gm", e.AdvanceRound)
    assert table.refused("han-player", e.ClaimSlot, slot=1, character="han").code == "forbidden"
    assert "player character" in table.refused("gm", e.ClaimSlot, slot=1,
                                               character="han").message
    assert "NPC" in table.refused("gm", e.ClaimSlot, slot=2, character="vader").message
    table.run("gm", e.ClaimSlot, slot=1, character="vader")


def test_rounds_advance_and_the_encounter_ends() -> None:
    """The GM advances rounds (not before initiative) and ends the encounter; a second may
    start then, numbered 2."""
    table = Table()
    table.run("gm", e.StartEncounter)
    assert "initiative comes first" in table.refused("gm", e.AdvanceRound).message
    assert table.refused("gm", e.StartEncounter).code == "rule"
    assert table.refused("han-player", e.AdvanceRound).code == "forbidden"
    rolled(table, "han-init", "han", "Cool")
    table.run("gm", e.EnterInitiative, check="han-init")
    table.run("gm", e.AdvanceRound)
    table.run("gm", e.AdvanceRound)
    (ended,) = table.run("gm", e.EndEncounter)
    assert isinstance(ended, e.EncounterEnded)
    assert ended.rounds == 2
    assert table.game.encounter is None
    (started,) = table.run("gm", e.StartEncounter)
    assert isinstance(started, e.EncounterStarted)
    assert started.encounter == 2


def test_in_combat_the_player_spends_advantage_and_triumph() -> None:
    """Rule (quick reference): in combat, you spend the advantage and triumph: Han's player
    spends 2 of 3 advantage; the GM may not spend Han's advantage; what is left is kept."""
    table = encounter_with_slots()
    rolled(table, "shot", "han", "Ranged (Light)", successes=1, advantages=3, triumphs=1)
    (spent,) = table.run("han-player", e.SpendResult, check="shot", symbol="advantage",
                         count=2, on="recover 2 strain")
    assert isinstance(spent, e.ResultSpent)
    assert spent.in_combat
    assert spent.left == 1
    rule = table.refused("gm", e.SpendResult, check="shot", symbol="advantage",
                         on="the GM's idea")
    assert "in combat, the player spends the advantage and triumph" in rule.message
    assert rule.path == "$.symbol"
    table.run("han-player", e.SpendResult, check="shot", symbol="triumph", on="a critical hit")
    assert table.game.checks["shot"].left == {"advantage": 1, "triumph": 0, "threat": 0,
                                              "despair": 0}
    assert "1 advantage left" in table.refused("han-player", e.SpendResult, check="shot",
                                               symbol="advantage", count=2, on="more").message


def test_in_combat_the_gm_spends_threat_and_despair() -> None:
    """Rule: in combat the GM spends the threat and despair; the player may not."""
    table = encounter_with_slots()
    rolled(table, "shot", "han", "Ranged (Light)", successes=1, advantages=-2, despairs=1)
    rule = table.refused("han-player", e.SpendResult, check="shot", symbol="threat",
                         on="nothing")
    assert "the GM spends the threat and despair" in rule.message
    table.run("gm", e.SpendResult, check="shot", symbol="threat", count=2,
              on="Han's blaster runs low")
    table.run("gm", e.SpendResult, check="shot", symbol="despair", on="the blaster jams")
    assert table.refused("han-player", e.SpendResult, check="shot", symbol="advantage",
                         on="none").message == "'shot' has 0 advantage left to spend"


def test_the_gm_spends_an_npcs_advantage_in_combat() -> None:
    """Decision: an NPC's player is the GM, who spends its advantage in combat."""
    table = encounter_with_slots()
    rolled(table, "saber", "vader", "Discipline", successes=1, advantages=2)
    table.run("gm", e.SpendResult, check="saber", symbol="advantage", count=2, on="a second hit")


def test_out_of_combat_the_gm_spends_it_all() -> None:
    """Rule: out of combat the GM spends advantage and threat alike; a player spends none."""
    table = Table()
    rolled(table, "charm", "leia", "Leadership", successes=2, advantages=2, triumphs=1)
    assert "out of combat, the GM spends it all" in table.refused(
        "leia-player", e.SpendResult, check="charm", symbol="advantage",
        on="a friend").message
    (spent,) = table.run("gm", e.SpendResult, check="charm", symbol="triumph",
                         on="the senator owes her")
    assert isinstance(spent, e.ResultSpent)
    assert not spent.in_combat


def test_a_spectator_spends_nothing_and_an_open_check_has_nothing_to_spend() -> None:
    """A spectator only watches; symbols come only from a rolled check."""
    table = Table()
    table.run("han-player", n.OpenCheck, character="han", skill="Cool", check="open")
    assert table.refused("watcher", e.SpendResult, check="open", symbol="advantage",
                         on="x").code == "forbidden"
    assert "not been rolled" in table.refused("gm", e.SpendResult, check="open",
                                              symbol="advantage", on="x").message


def test_every_encounter_event_reads_as_a_line() -> None:
    """The log describes each new event in words, not by its type name (one success is
    "1 success")."""
    table = encounter_with_slots()
    table.run("gm", e.AdvanceRound)
    table.run("gm", e.ClaimSlot, slot=1, character="vader")
    rolled(table, "shot", "han", "Ranged (Light)", successes=1, advantages=1)
    table.run("han-player", e.SpendResult, check="shot", symbol="advantage", on="aim")
    table.run("gm", e.EndEncounter)
    for recorded in table.log:
        if type(recorded.event) in e.ENCOUNTER_EVENTS:
            line = describe(recorded, table.state)
            assert line != type(recorded.event).__name__
            assert line
    lines = [describe(recorded, table.state) for recorded in table.log]
    assert "leia's initiative: 1 success, 3 advantages (Vigilance, player slot)" in lines


def test_every_initiative_waiting_to_be_entered_stays_on_the_table() -> None:
    """The table a page gets keeps only the latest closed checks, but never drops a rolled
    Cool or Vigilance check the running encounter has not entered: four initiatives rolled
    one after another all stay enterable, and an entered one leaves with the older checks."""
    from poolhall.projections.narrative import CLOSED_CHECKS, table_of

    table = Table()
    table.run("gm", e.StartEncounter)
    rolls = [("i1", "han", "Cool"), ("i2", "leia", "Vigilance"), ("i3", "vader", "Cool"),
             ("i4", "han", "Vigilance"), ("shot", "han", "Ranged (Light)")]
    for check, character, skill in rolls:
        rolled(table, check, character, skill)
    assert len(rolls) > CLOSED_CHECKS
    assert set(table_of(table.game).game.checks) == {"i1", "i2", "i3", "i4", "shot"}
    table.run("han-player", e.EnterInitiative, check="i1")
    assert set(table_of(table.game).game.checks) == {"i2", "i3", "i4", "shot"}
    table.run("gm", e.EndEncounter)
    assert set(table_of(table.game).game.checks) == {"i3", "i4", "shot"}
