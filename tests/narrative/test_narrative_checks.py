"""Checks as live objects: opened, difficulty set, modified by both sides, rolled, cancelled."""

from __future__ import annotations

import pytest

from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.events.errors import Rejected
from poolhall.projections.narrative import describe
from poolhall.server.rules.narrative import views
from poolhall.server.views import computed
from tests.narrative.narrative_support import FixedDice, Table


def refused(table: Table, member: str, command: type, **fields: object) -> Rejected:
    """The refusal of a command, which must change nothing."""
    head = table.seq
    with pytest.raises(Rejected) as error:
        table.run(member, command, **fields)
    assert table.seq == head
    return error.value


def test_opening_a_check_builds_the_base_pool_from_stats() -> None:
    """Han (Agility 3, Ranged (Light) 2) opens a shot: 1 Ability and 2 Proficiency dice."""
    table = Table()
    (event,) = table.run("han-player", n.OpenCheck, character="han", skill="ranged (light)",
                         check="shot", reason="at the stormtrooper")
    assert isinstance(event, n.CheckOpened)
    assert (event.skill, event.characteristic, event.characteristic_value, event.rank) == (
        "Ranged (Light)", "agility", 3, 2)
    assert (event.ability, event.proficiency) == (1, 2)
    check = table.game.checks["shot"]
    assert check.effective().pool == n.Pool(ability=1, proficiency=2)
    assert [d.notes for d in check.effective().dice] == [
        ("Agility 3", "upgraded: Ranged (Light) 2"), ("Agility 3", "upgraded: Ranged (Light) 2"),
        ("Agility 3",)]


def test_rule_skill_higher_than_characteristic_is_the_base() -> None:
    """Rule: "If your skill is higher than your characteristic, then use skill for the base and
    characteristic for the upgrade" (Piloting 4, Agility 3: 1 green, 3 yellow)."""
    table = Table()
    (event,) = table.run("han-player", n.OpenCheck, character="han", skill="Piloting (Space)")
    assert isinstance(event, n.CheckOpened)
    assert (event.ability, event.proficiency) == (1, 3)
    notes = table.game.checks[event.check].effective().dice[0].notes
    assert notes == ("Piloting (Space) 4", "upgraded: Agility 3")


def test_rule_untrained_check_uses_the_characteristic_named() -> None:
    """Rule: unskilled, "the character will rely solely on the appropriate characteristic"."""
    table = Table()
    error = refused(table, "han-player", n.OpenCheck, character="han", skill="Astrogation")
    assert (error.code, error.path) == ("invalid", "$.characteristic")
    (event,) = table.run("han-player", n.OpenCheck, character="han", skill="Astrogation",
                         characteristic="intellect")
    assert isinstance(event, n.CheckOpened)
    assert (event.ability, event.proficiency, event.rank) == (2, 0, 0)


def test_check_ids_are_generated_per_character_or_chosen() -> None:
    """Without an id a check is CHARACTER-N; a chosen id is unique at the table."""
    table = Table()
    first = table.run("han-player", n.OpenCheck, character="han", skill="Cool")[0]
    assert isinstance(first, n.CheckOpened)
    second = table.run("han-player", n.OpenCheck, character="han", skill="Cool")[0]
    assert isinstance(second, n.CheckOpened)
    assert (first.check, second.check) == ("han-1", "han-2")
    table.open("shot")
    error = refused(table, "leia-player", n.OpenCheck, character="leia", skill="Leadership",
                    check="shot")
    assert (error.code, error.path) == ("conflict", "$.check")


def test_several_checks_are_open_at_once() -> None:
    """Two players build their checks side by side; each keeps its own pool."""
    table = Table()
    table.open("shot", level=None)
    table.open("rally", character="leia", skill="Leadership", member="leia-player",
               level=None)
    table.run("gm", n.SetDifficulty, check="rally", level="hard")
    table.run("han-player", n.AddDice, check="shot", kind="boost", reason="aiming")
    pools = {c.check: c.effective().pool for c in table.game.open_checks()}
    assert pools == {"shot": n.Pool(ability=1, proficiency=2, boost=1),
                     "rally": n.Pool(ability=1, proficiency=3, difficulty=3)}


def test_rule_gm_sets_the_difficulty_once_prior_to_the_roll() -> None:
    """Rule: "The GM sets the difficulty level of the task once, prior to the roll"."""
    table = Table()
    table.open("shot", level=None)
    error = refused(table, "han-player", n.RollCheck, check="shot")
    assert (error.code, error.path) == ("rule", "$.check")
    error = refused(table, "han-player", n.SetDifficulty, check="shot", level="easy")
    assert error.code == "forbidden"
    table.run("gm", n.SetDifficulty, check="shot", level="hard")
    error = refused(table, "gm", n.SetDifficulty, check="shot", level="easy")
    assert (error.code, error.path) == ("rule", "$.level")
    assert "once, prior to the roll" in error.message
    assert table.game.checks["shot"].effective().pool.difficulty == 3


def test_rule_opposed_check_difficulty_from_opponent_characteristic_and_skill() -> None:
    """Rule (README): "Difficulty dice equal to the higher of the opponent's characteristic and
    skill, of which the lower number are upgraded to Challenge dice"."""
    table = Table()
    table.open("bluff", skill="Cool", level=None)
    (event,) = table.run("gm", n.SetDifficulty, check="bluff", opponent="vader",
                         opponent_skill="vigilance")
    assert isinstance(event, n.DifficultySet)
    assert (event.level, event.opponent_value, event.opponent_rank) == ("opposed", 5, 2)
    assert (event.difficulty, event.challenge) == (3, 2)
    check = table.game.checks["bluff"]
    assert check.effective().pool == n.Pool(ability=2, proficiency=1, difficulty=3,
                                            challenge=2)
    assert ("opposed: vader's Willpower 5", "upgraded: vader's Vigilance 2") in [
        d.notes for d in check.effective().dice]
    table.open("again", skill="Cool", level=None)
    error = refused(table, "gm", n.SetDifficulty, check="again", opponent="nobody",
                    opponent_skill="Cool")
    assert (error.code, error.path) == ("not_found", "$.opponent")


@pytest.mark.parametrize("skill", [None, "", "  "])
def test_an_opposed_check_with_no_opponent_skill_says_it_is_missing(skill: str | None) -> None:
    """The page sends "" when the GM names no skill: it read "the opponent skill '' is not a
    skill's name"; the opponent's skill is said to be missing, at its field."""
    table = Table()
    table.open("bluff", skill="Cool", level=None)
    error = refused(table, "gm", n.SetDifficulty, check="bluff", opponent="vader",
                    **({} if skill is None else {"opponent_skill": skill}))
    assert (error.code, error.path) == ("invalid", "$.opponent_skill")
    assert error.message.startswith("the opponent's skill is missing")


def test_rule_impossible_needs_a_destiny_point_and_rolls_as_formidable() -> None:
    """Rule: Impossible is attempted "only with the GM's permission and a destiny point spent;
    then it is rolled as Formidable"."""
    table = Table()
    table.open("jump", skill="Piloting (Space)", level="impossible")
    error = refused(table, "han-player", n.RollCheck, check="jump")
    assert (error.code, error.path) == ("rule", "$.check")
    assert "destiny point" in error.message
    table.run("gm", n.SetDestinyPool, light=1, dark=0)
    table.run("han-player", n.FlipDestiny, side="light", effect="attempt_impossible",
              check="jump", reason="never tell me the odds")
    (rolled,) = table.run("han-player", n.RollCheck, check="jump")
    assert isinstance(rolled, n.CheckRolled)
    assert rolled.pool.difficulty == 5
    assert rolled.pool.challenge == 0


def test_modifications_keep_who_how_many_which_side_and_why() -> None:
    """Each modification is its own event; the projection keeps its actor and reason."""
    table = Table()
    table.open("shot")
    (event,) = table.run("han-player", n.AddDice, check="shot", kind="boost", count=2,
                         reason="aiming")
    assert isinstance(event, n.DiceAdded)
    assert (event.kind, event.count, event.side, event.reason) == ("boost", 2, "ability",
                                                                   "aiming")
    table.run("gm", n.AddDice, check="shot", kind="setback", reason="smoke")
    mods = table.game.checks["shot"].modifications
    assert [(m.actor, m.op, m.kind, m.side, m.count, m.reason) for m in mods] == [
        ("han-player", "add", "boost", "ability", 2, "aiming"),
        ("gm", "add", "setback", "difficulty", 1, "smoke")]
    notes = [d.notes[-1] for d in table.game.checks["shot"].effective().dice]
    assert notes.count("+1 Boost: aiming") == 2
    assert "+1 Setback: smoke" in notes


def test_live_pool_applies_rulebook_order_whatever_the_arrival_order() -> None:
    """Decision (live pools): a removal recorded before an addition still comes after it."""
    table = Table()
    table.open("shot", level="easy")
    table.run("gm", n.RemoveDice, check="shot", kind="setback", reason="Brace talent")
    table.run("gm", n.AddDice, check="shot", kind="setback", count=2, reason="darkness")
    table.run("gm", n.DowngradeDice, check="shot", side="difficulty", reason="talent")
    table.run("gm", n.UpgradeDice, check="shot", side="difficulty", count=2, reason="cover")
    built = table.game.checks["shot"].effective()
    # easy 1p; add 2k; upgrade x2: 1r, +1p; downgrade: last r -> p; remove 1k
    assert built.pool == n.Pool(ability=1, proficiency=2, difficulty=2, setback=1)
    assert built.ignored == ()


def test_authorization_player_changes_their_side_gm_the_difficulty_side() -> None:
    """Decision: the player adds Boost/Setback and changes their own side; the difficulty side
    is the GM's; other players and spectators may not touch the check."""
    table = Table()
    table.open("shot")
    table.run("han-player", n.AddDice, check="shot", kind="setback", reason="honest: smoke")
    table.run("han-player", n.UpgradeDice, check="shot", side="ability", reason="talent")
    table.run("han-player", n.RemoveDice, check="shot", kind="boost")
    for command, fields, path in (
        (n.AddDice, {"kind": "difficulty"}, "$.kind"),
        (n.UpgradeDice, {"side": "difficulty"}, "$.side"),
        (n.RemoveDice, {"kind": "setback"}, "$.kind"),
    ):
        error = refused(table, "han-player", command, check="shot", **fields)
        assert (error.code, error.path) == ("forbidden", path)
    error = refused(table, "leia-player", n.AddDice, check="shot", kind="boost")
    assert (error.code, error.path) == ("forbidden", "$.check")
    error = refused(table, "watcher", n.AddDice, check="shot", kind="boost")
    assert error.code == "forbidden"
    error = refused(table, "leia-player", n.RollCheck, check="shot")
    assert error.code == "forbidden"
    error = refused(table, "leia-player", n.OpenCheck, character="han", skill="Cool")
    assert (error.code, error.path) == ("forbidden", "$.character")


def test_pool_size_is_bounded() -> None:
    """A modification that would take the pool past 60 dice is refused at its count."""
    table = Table()
    table.open("shot")
    for _ in range(5):
        table.run("gm", n.AddDice, check="shot", kind="setback", count=10)
    error = refused(table, "gm", n.AddDice, check="shot", kind="boost", count=10)
    assert (error.code, error.path) == ("invalid", "$.count")


def test_rolling_records_each_face_and_the_cancelled_result() -> None:
    """The roll keeps each die's kind, face index and symbols, and the result as read."""
    table = Table()
    table.open("shot", level="average")
    table.run("han-player", n.AddDice, check="shot", kind="boost", reason="aiming")
    # base order: y, y, g, p, p, then the boost: Tr, SA, A, FF, T, AA
    table.rng = FixedDice([12, 7, 5, 3, 4, 5])
    (rolled,) = table.run("han-player", n.RollCheck, check="shot")
    assert isinstance(rolled, n.CheckRolled)
    assert [(d.kind, d.face) for d in rolled.dice] == [
        ("proficiency", 12), ("proficiency", 7), ("ability", 5), ("difficulty", 3),
        ("difficulty", 4), ("boost", 5)]
    assert rolled.dice[0].symbols == ("triumph",)
    result = rolled.result
    assert (result.successes, result.advantages, result.triumphs) == (0, 3, 1)
    assert not result.succeeded
    check = table.game.checks["shot"]
    assert check.status == "rolled"
    assert check.result == result
    error = refused(table, "han-player", n.RollCheck, check="shot")
    assert (error.code, error.path) == ("conflict", "$.check")
    line = describe(table.log[-1], table.state)
    assert "y[Tr] y[SA] g[A] p[FF] p[T] b[AA]" in line
    assert "failure" in line


def test_cancelled_and_rolled_checks_are_each_characters_history() -> None:
    """A character's history lists its checks with their status and result."""
    table = Table()
    table.open("shot")
    table.run("han-player", n.RollCheck, check="shot")
    table.open("bluff", skill="Cool")
    table.run("han-player", n.CancelCheck, check="bluff", reason="he left")
    history = table.game.history["han"]
    assert [(h.check, h.status) for h in history] == [("shot", "rolled"), ("bluff", "cancelled")]
    assert history[0].result is not None
    assert history[0].pool == "2y1g2p"
    assert table.game.open_checks() == []
    error = refused(table, "gm", n.AddDice, check="bluff", kind="boost")
    assert error.code == "conflict"


def test_views_send_the_odds_of_each_changed_check() -> None:
    """After a change, one ``odds:<check>`` view per changed check, with pool and odds."""
    table = Table()
    table.open("shot")
    table.open("rally", character="leia", skill="Leadership", member="leia-player")
    events = table.run("han-player", n.AddDice, check="shot", kind="boost", reason="aiming")
    (view,) = computed(views(table.state, events))
    assert view.about == "check:shot"
    assert isinstance(view.data, n.NarrativeCheckOdds)
    assert view.data.odds is not None
    assert view.data.pool == "2y1g2p1b"
    assert view.data.status == "open"
    assert 0 < view.data.odds.p_success < 1
    assert n.CheckDie(kind="boost", notes=("+1 Boost: aiming",)) in view.data.dice
    events = table.run("han-player", n.RollCheck, check="shot")
    (view,) = computed(views(table.state, events))
    assert isinstance(view.data, n.NarrativeCheckOdds)
    assert view.data.status == "rolled"
    assert view.data.odds is None
    assert view.data.result is not None
    assert view.data.result.succeeded in (True, False)


def test_views_skip_odds_of_huge_pools() -> None:
    """A pool past the live-odds limit gets a note instead of a long computation."""
    table = Table()
    table.open("shot")
    events = table.run("gm", n.AddDice, check="shot", kind="setback", count=10)
    events += table.run("gm", n.AddDice, check="shot", kind="boost", count=10)
    (view,) = computed(views(table.state, events))
    assert isinstance(view.data, n.NarrativeCheckOdds)
    assert view.data.odds is None
    assert "poolhall odds" in view.data.note


def test_an_open_check_keeps_the_base_it_was_opened_with() -> None:
    """Events record facts: new stats change later checks, never an open check's base."""
    table = Table()
    table.open("shot")
    better = n.NarrativeStats(agility=5, skills={
        "Ranged (Light)": n.Skill(rank=3, characteristic="agility")})
    table.fold(core.CharacterUpdated(character="han", stats=better))
    table.open("second")
    assert table.game.checks["shot"].effective().pool == n.Pool(ability=1, proficiency=2,
                                                                difficulty=2)
    assert table.game.checks["second"].effective().pool == n.Pool(ability=2, proficiency=3,
                                                                  difficulty=2)


def test_a_difficulty_that_would_overfill_the_pool_is_refused() -> None:
    """**Decision** (at most 60 dice in a check): the GM's difficulty counts too; a level
    that would take the pool past 60 is refused at ``$.level``, a smaller one still fits."""
    table = Table()
    table.open(level=None)  # Han's Ranged (Light): 3 dice
    for _ in range(6):
        table.run("han-player", n.AddDice, check="shot", kind="ability", count=9)
    assert table.game.checks["shot"].effective().pool.total == 57
    error = refused(table, "gm", n.SetDifficulty, check="shot", level="formidable")
    assert (error.code, error.path) == ("invalid", "$.level")
    assert f"at most {n.MAX_POOL_DICE} dice" in error.message
    assert "62" in error.message
    table.run("gm", n.SetDifficulty, check="shot", level="average")
    assert table.game.checks["shot"].effective().pool.total == 59
