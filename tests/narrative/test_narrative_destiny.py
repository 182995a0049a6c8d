"""The destiny pool, destiny points spent on checks, Force dice and free narrative rolls."""

from __future__ import annotations

import msgspec

from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.projections.narrative import CheckState
from tests.narrative.narrative_support import FixedDice, Table


def test_rule_destiny_pool_every_player_rolls_one_force_die() -> None:
    """Rule (README): "every player rolls one Force die: each light pip adds a light side
    point, each dark pip a dark side point"."""
    table = Table()
    table.run("gm", core.StartSession, title="One")
    table.rng = FixedDice([10, 7])       # han's player: two light; leia's: two dark
    (event,) = table.run("gm", n.RollDestinyPool)
    assert isinstance(event, n.DestinyPoolRolled)
    assert [(d.member, d.face, d.symbols) for d in event.dice] == [
        ("han-player", 10, ("light", "light")), ("leia-player", 7, ("dark", "dark"))]
    assert (event.light, event.dark) == (2, 2)
    assert (table.game.destiny.light, table.game.destiny.dark) == (2, 2)
    error = table.refused("han-player", n.RollDestinyPool)
    assert error.code == "forbidden"


def test_rule_destiny_pool_is_rolled_once_at_the_start_of_each_session() -> None:
    """Rule (README): "At the start of each game session every player rolls one Force die".
    Not outside a session, and not twice in one: a second roll would let the GM roll until
    the sides suit them. The next session rolls again; setting the pool stays the GM's."""
    table = Table()
    outside = table.refused("gm", n.RollDestinyPool)
    assert (outside.code, outside.path) == ("rule", "$.type")
    table.run("gm", core.StartSession, title="One")
    (first,) = table.run("gm", n.RollDestinyPool)
    assert isinstance(first, n.DestinyPoolRolled)
    assert first.session == table.game.destiny.session == 1
    again = table.refused("gm", n.RollDestinyPool)
    assert (again.code, again.path) == ("rule", "$.type")
    assert "game session 1" in again.message
    table.run("gm", n.SetDestinyPool, light=1, dark=1, reason="the GM's call")
    table.run("gm", core.EndSession)
    table.run("gm", core.StartSession, title="Two")
    (second,) = table.run("gm", n.RollDestinyPool)
    assert isinstance(second, n.DestinyPoolRolled)
    assert second.session == 2


def test_gm_sets_the_destiny_pool() -> None:
    """The GM may set the points directly; a player may not."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=3, dark=1, reason="house rule")
    assert (table.game.destiny.light, table.game.destiny.dark) == (3, 1)
    assert table.refused("leia-player", n.SetDestinyPool, light=9, dark=0).code == "forbidden"


def test_rule_players_spend_light_points_which_turn_dark() -> None:
    """Rule (README): "Players spend light side points (which then turn dark)"."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=2, dark=0)
    table.open("shot")
    events = table.run("han-player", n.FlipDestiny, side="light", effect="upgrade_ability",
                       check="shot", reason="heroic moment")
    flipped, upgraded = events
    assert isinstance(flipped, n.DestinyFlipped)
    assert (flipped.light, flipped.dark) == (1, 1)
    assert isinstance(upgraded, n.DiceUpgraded)
    assert upgraded.side == "ability"
    pool = table.game.checks["shot"].effective().pool
    assert (pool.proficiency, pool.ability) == (3, 0)
    error = table.refused("han-player", n.FlipDestiny, side="dark", effect="other")
    assert (error.code, error.path) == ("forbidden", "$.side")


def test_rule_gm_spends_dark_points_which_turn_light() -> None:
    """Rule (README): "the GM spends dark side points (which then turn light)"; the upgrade is
    shown as the GM's destiny point."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=0, dark=1)
    table.open("shot")
    table.run("gm", n.FlipDestiny, side="dark", effect="upgrade_difficulty", check="shot")
    assert (table.game.destiny.light, table.game.destiny.dark) == (1, 0)
    dice = table.game.checks["shot"].effective().dice
    assert ("Average difficulty", "upgraded: GM destiny point") in [d.notes for d in dice]


def test_rule_each_side_at_most_one_destiny_point_per_check() -> None:
    """Rule (README): "Each side may spend at most one destiny point on a given check"."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=3, dark=3)
    table.open("shot")
    table.run("han-player", n.FlipDestiny, side="light", effect="upgrade_ability", check="shot")
    table.run("gm", n.FlipDestiny, side="dark", effect="upgrade_difficulty", check="shot")
    error = table.refused("leia-player", n.FlipDestiny, side="light",
                          effect="upgrade_ability", check="shot")
    assert (error.code, error.path) == ("rule", "$.side")
    assert "at most one destiny point" in error.message
    assert table.refused("gm", n.FlipDestiny, side="dark", effect="upgrade_difficulty",
                         check="shot").code == "rule"
    assert table.game.checks["shot"].destiny == ["light", "dark"]


def test_rule_a_check_both_sides_spent_on_is_not_made_impossible() -> None:
    """Rules (README): Impossible is attempted "Only with the GM's permission and a destiny
    point spent", and "Each side may spend at most one destiny point on a given check": once
    both sides spent theirs, an Impossible check could never be attempted, so it is not set."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=3, dark=3)
    table.open("shot", level=None)
    table.run("han-player", n.FlipDestiny, side="light", effect="upgrade_ability", check="shot")
    table.run("gm", n.FlipDestiny, side="dark", effect="upgrade_difficulty", check="shot")
    error = table.refused("gm", n.SetDifficulty, check="shot", level="impossible")
    assert (error.code, error.path) == ("rule", "$.level")
    assert "both sides already spent their destiny point on 'shot'" in error.message
    assert table.game.checks["shot"].difficulty is None
    table.run("gm", n.SetDifficulty, check="shot", level="formidable")  # another level may be
    difficulty = table.game.checks["shot"].difficulty
    assert difficulty is not None
    assert difficulty.level == "formidable"


def test_rule_a_secret_check_is_not_made_impossible() -> None:
    """Rules (README): Impossible is attempted "Only with the GM's permission and a destiny
    point spent", and a point flipped for a GM's secret check is refused (it would show the
    table which check it was): a secret Impossible check could never be rolled, and the
    session could not end until it was cancelled, so it is not set."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=3, dark=3)
    table.run("gm", n.OpenCheck, character="vader", skill="Discipline", visibility="gm")
    (ambush,) = table.game.checks
    error = table.refused("gm", n.SetDifficulty, check=ambush, level="impossible")
    assert (error.code, error.path) == ("rule", "$.level")
    assert f"{ambush!r} is a secret check" in error.message
    assert "could never be rolled" in error.message
    assert table.game.checks[ambush].difficulty is None
    table.run("gm", n.SetDifficulty, check=ambush, level="formidable")  # another level may be
    table.run("gm", n.RollCheck, check=ambush)
    assert table.game.checks[ambush].status == "rolled"


def test_a_check_keeps_what_each_sides_point_was_spent_to_do() -> None:
    """The check state keeps each side's effect, so the card lists a destiny upgrade once (as
    the upgrade) and names any other spend; a check from a snapshot made before it was kept
    loads with none."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=3, dark=3)
    table.open("shot")
    table.run("han-player", n.FlipDestiny, side="light", effect="other", check="shot")
    table.run("gm", n.FlipDestiny, side="dark", effect="upgrade_difficulty", check="shot")
    check = table.game.checks["shot"]
    assert check.destiny_effects == {"light": "other", "dark": "upgrade_difficulty"}
    older = msgspec.to_builtins(check)
    del older["destiny_effects"]
    loaded = msgspec.convert(older, CheckState)
    assert (loaded.destiny, loaded.destiny_effects) == (["light", "dark"], {})


def test_rule_no_point_of_that_side_left_is_a_clear_error() -> None:
    """A flip with no point of that side left is refused, saying what the pool holds."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=0, dark=2)
    table.open("shot")
    error = table.refused("han-player", n.FlipDestiny, side="light", effect="upgrade_ability",
                          check="shot")
    assert (error.code, error.path) == ("rule", "$.side")
    assert error.message == ("no light side destiny point left to spend (the pool holds "
                             "0 light, 2 dark)")


def test_rule_light_point_upgrades_your_own_or_an_allys_check() -> None:
    """Rule (quick reference): "Upgrade your own or an ally's roll" - not an NPC's."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=3, dark=0)
    table.open("shot")
    table.run("leia-player", n.FlipDestiny, side="light", effect="upgrade_ability",
              check="shot", reason="for Han")
    table.open("choke", character="vader", skill="Discipline", member="gm")
    error = table.refused("han-player", n.FlipDestiny, side="light", effect="upgrade_ability",
                          check="choke")
    assert (error.code, error.path) == ("forbidden", "$.check")


def test_rule_light_point_upgrades_the_difficulty_of_a_check_against_you() -> None:
    """Rule (quick reference): "Downgrade an opponent's roll" - a light point upgrades the
    difficulty of a check made against the player's character, and no other."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=3, dark=0)
    table.run("gm", n.OpenCheck, character="vader", skill="Discipline", check="choke",
              target="han")
    table.run("gm", n.SetDifficulty, check="choke", level="hard")
    error = table.refused("leia-player", n.FlipDestiny, side="light",
                          effect="upgrade_difficulty", check="choke")
    assert error.code == "forbidden"
    table.run("han-player", n.FlipDestiny, side="light", effect="upgrade_difficulty",
              check="choke", reason="I resist")
    assert table.game.checks["choke"].effective().pool.challenge == 1


def test_destiny_for_an_ability_needs_no_check() -> None:
    """Rule (quick reference): "Activate an ability you have": a flip with no dice changed."""
    table = Table()
    table.run("gm", n.SetDestinyPool, light=1, dark=0)
    (event,) = table.run("han-player", n.FlipDestiny, side="light", effect="other",
                         reason="a contact on Tatooine")
    assert isinstance(event, n.DestinyFlipped)
    assert event.check is None
    assert table.game.destiny.dark == 1
    spend = table.game.destiny.spent[-1]
    assert (spend.actor, spend.side, spend.reason) == ("han-player", "light",
                                                       "a contact on Tatooine")
    error = table.refused("gm", n.FlipDestiny, side="dark", effect="upgrade_difficulty")
    assert (error.code, error.path) == ("invalid", "$.check")


def test_force_dice_rolled_for_a_power() -> None:
    """Force dice for a power: each face, light and dark pips, for the player's character."""
    table = Table()
    table.rng = FixedDice([1, 12])
    (event,) = table.run("han-player", n.RollForceDice, character="han", count=2,
                         reason="Sense")
    assert isinstance(event, n.ForceDiceRolled)
    assert [(d.face, d.symbols) for d in event.dice] == [(1, ("dark",)), (12, ("light",
                                                                                "light"))]
    assert (event.light, event.dark) == (2, 1)
    assert table.refused("leia-player", n.RollForceDice, character="han").code == "forbidden"


def test_free_pool_roll_from_notation() -> None:
    """``2y1g 2p1r 1b1k`` rolls a free pool: each face and the cancelled result."""
    table = Table()
    command = n.parse_roll("2y1g 2p1r 1b1k", "han")
    assert command is not None
    (event,) = table.run("han-player", n.RollPool, pool=command.pool, character="han")
    assert isinstance(event, n.PoolRolled)
    assert [d.kind for d in event.dice] == ["proficiency", "proficiency", "ability",
                                           "difficulty", "difficulty", "challenge", "boost",
                                           "setback"]
    assert table.game.rolls[-1].pool == "2y1g2p1r1b1k"
    error = table.refused("han-player", n.RollPool, pool=n.Pool())
    assert (error.code, error.path) == ("invalid", "$.pool")
    assert table.refused("watcher", n.RollPool, pool=n.Pool(ability=1)).code == "forbidden"
