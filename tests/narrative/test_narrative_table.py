"""The narrative table end to end: a real server, real SQLite, real clients, seeded dice."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.events import narrative_encounter as e
from poolhall.events.errors import CommandRejected
from poolhall.projections.campaign import CampaignState
from poolhall.projections.narrative import initiative_waiting
from poolhall.server.rules.narrative_checks import (
    MAX_OPEN_CHECKS,
    MAX_OPEN_CHECKS_PER_PLAYER,
    MAX_OPEN_CHECKS_PLAYERS,
)
from poolhall.server.views import ViewSpec
from tests.narrative.narrative_support import HAN, LEIA, VADER


async def _campaign(table: Any) -> tuple[Any, Any, Any, Any]:
    """A narrative campaign: GM, Han's player, Leia's player and a spectator; Vader the GM's."""
    _, gm = await table.create_campaign("narrative")
    han = await table.invite(gm, "player", characters=("han",))
    leia = await table.invite(gm, "player", characters=("leia",))
    watcher = await table.invite(gm, "spectator")
    await han.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    await leia.call(core.CreateCharacter, character="leia", name="Leia", stats=LEIA)
    ack = await gm.call(core.CreateCharacter, character="vader", name="Vader", stats=VADER)
    for client in (gm, han, leia, watcher):
        await client.wait_for_seq(ack.seqs[-1])
    return gm, han, leia, watcher


async def test_a_check_built_by_the_table_and_rolled(table: Any) -> None:
    """Han's player opens a shot, the GM sets it, both sides add and spend destiny; everyone
    sees the pool with provenance and live odds, then each face and the result."""
    gm, han, leia, watcher = await _campaign(table)
    await gm.call(core.StartSession, title="Escape from Cloud City")
    ack = await gm.call(n.RollDestinyPool)
    await watcher.wait_for_seq(ack.seqs[-1])
    destiny = watcher.state.game.destiny
    assert len(destiny.rolled) == 2
    assert destiny.light + destiny.dark >= 2
    await gm.call(n.SetDestinyPool, light=2, dark=2, reason="a fair start")

    await han.call(n.OpenCheck, character="han", skill="Ranged (Light)", check="shot",
                   target="vader", reason="at the carbonite chamber")
    await gm.call(n.SetDifficulty, check="shot", level="hard")
    await han.call(n.AddDice, check="shot", kind="boost", reason="aiming")
    ack = await gm.call(n.FlipDestiny, side="dark", effect="upgrade_difficulty", check="shot",
                        reason="the Empire strikes back")
    view = await watcher.wait_until(lambda: (v := watcher.views.get("check:shot")) and
                        v.pool == "2y1g2p1r1b" and v)
    assert 0 < view.odds.p_success < 1
    assert n.CheckDie(kind="challenge",
                      notes=("Hard difficulty", "upgraded: GM destiny point")) in view.dice
    assert n.CheckDie(kind="boost", notes=("+1 Boost: aiming",)) in view.dice
    await watcher.wait_for_seq(ack.seqs[-1])
    assert watcher.state.game.destiny.light == 3

    ack = await han.call(n.RollCheck, check="shot")
    for client in (gm, leia, watcher):
        await client.wait_for_seq(ack.seqs[-1])
    check = watcher.state.game.checks["shot"]
    assert check.status == "rolled"
    assert check.pool == n.Pool(proficiency=2, ability=1, difficulty=2, challenge=1, boost=1)
    assert [d.kind for d in check.dice] == ["proficiency", "proficiency", "ability",
                                            "challenge", "difficulty", "difficulty", "boost"]
    assert check.result is not None
    assert check.result.succeeded == (check.result.successes > 0)
    assert watcher.state.game.history["han"][0].status == "rolled"
    view = await watcher.wait_until(lambda: watcher.views["check:shot"].status == "rolled" and
                        watcher.views["check:shot"])
    assert view.result is not None
    assert msgspec.to_builtins(view.result) == {"successes": check.result.successes,
                                                "advantages": check.result.advantages,
                                                "triumphs": check.result.triumphs,
                                                "despairs": check.result.despairs,
                                                "light": 0, "dark": 0,
                                                "succeeded": check.result.succeeded}


async def test_two_players_build_their_checks_at_once(table: Any) -> None:
    """Two open checks, each with its own live view; a change to one sends only its view."""
    gm, han, leia, watcher = await _campaign(table)
    await han.call(n.OpenCheck, character="han", skill="Cool", check="bluff")
    await leia.call(n.OpenCheck, character="leia", skill="Leadership", check="rally")
    await gm.call(n.SetDifficulty, check="rally", level="daunting")
    await gm.call(n.SetDifficulty, check="bluff", opponent="vader", opponent_skill="Vigilance")
    await watcher.wait_until(
        lambda: getattr(watcher.views.get("check:rally"), "pool", None) == "3y1g4p")
    await watcher.wait_until(
        lambda: getattr(watcher.views.get("check:bluff"), "pool", None) == "1y2g3p2r")
    await leia.call(n.UpgradeDice, check="rally", side="ability", reason="inspiring")
    await watcher.wait_until(lambda: watcher.views["check:rally"].pool == "4y4p")
    assert watcher.views["check:bluff"].pool == "1y2g3p2r"
    assert {c.check for c in watcher.state.game.open_checks()} == {"bluff", "rally"}


async def test_players_only_touch_their_own_checks_and_spectators_nothing(table: Any) -> None:
    """Leia's player may not change Han's check, a spectator may not open one; nothing is
    appended when they try."""
    gm, han, leia, watcher = await _campaign(table)
    ack = await han.call(n.OpenCheck, character="han", skill="Cool", check="bluff")
    await gm.wait_for_seq(ack.seqs[-1])
    head = gm.state.head
    with pytest.raises(CommandRejected) as error:
        await leia.call(n.AddDice, check="bluff", kind="boost")
    assert (error.value.code, error.value.path) == ("forbidden", "$.check")
    with pytest.raises(CommandRejected) as error:
        await leia.call(n.RollCheck, check="bluff")
    assert error.value.code == "forbidden"
    with pytest.raises(CommandRejected) as error:
        await watcher.call(n.OpenCheck, character="han", skill="Cool")
    assert error.value.code == "forbidden"
    with pytest.raises(CommandRejected) as error:
        await han.call(n.SetDifficulty, check="bluff", level="easy")
    assert error.value.code == "forbidden"
    with pytest.raises(CommandRejected) as error:
        await han.call(n.FlipDestiny, side="dark", effect="upgrade_difficulty", check="bluff")
    assert (error.value.code, error.value.path) == ("forbidden", "$.side")
    ack = await gm.call(core.StartSession)
    await gm.wait_for_seq(ack.seqs[-1])
    assert ack.seqs[0] == head + 1  # the session, then its epoch of rolls


async def refused_at(client: Any, watcher: Any, command: type, **fields: Any) -> CommandRejected:
    """The refusal of ``command`` sent by ``client``; nothing is appended for it."""
    head = watcher.state.head
    with pytest.raises(CommandRejected) as error:
        await client.call(command, **fields)
    assert watcher.state.head == head
    return error.value


async def test_players_cannot_take_the_gms_room_for_checks(table: Any) -> None:
    """One player opens at most 20 checks, the players together 40 of the campaign's 50: the
    GM can open a check whatever the players opened (one player once opened all 50, and the
    GM's next check was refused). The refusals name the share, in words, at ``$.type``."""
    gm, han, leia, watcher = await _campaign(table)
    luke = await table.invite(gm, "player", characters=("luke",))
    ack = await luke.call(core.CreateCharacter, character="luke", name="Luke", stats=LEIA)
    for number in range(MAX_OPEN_CHECKS_PER_PLAYER):
        await han.call(n.OpenCheck, character="han", skill="Cool", check=f"han{number}")
        ack = await leia.call(n.OpenCheck, character="leia", skill="Leadership",
                              check=f"leia{number}")
    await watcher.wait_for_seq(ack.seqs[-1])
    own = await refused_at(han, watcher, n.OpenCheck, character="han", skill="Cool")
    assert (own.code, own.path) == ("rule", "$.type")
    assert own.message.startswith("20 checks you opened are open, the most one player may")
    assert MAX_OPEN_CHECKS_PLAYERS == 2 * MAX_OPEN_CHECKS_PER_PLAYER
    together = await refused_at(luke, watcher, n.OpenCheck, character="luke",
                                skill="Leadership")
    assert (together.code, together.path) == ("rule", "$.type")
    assert together.message.startswith("the players have 40 checks open, the most they may")
    for number in range(MAX_OPEN_CHECKS - MAX_OPEN_CHECKS_PLAYERS):  # the GM's room, for a
        ack = await gm.call(n.OpenCheck, character="han" if number == 0 else "vader",  # PC
                            skill="Cool" if number == 0 else "Vigilance")  # too
    await watcher.wait_for_seq(ack.seqs[-1])
    assert len(watcher.state.game.open_checks()) == MAX_OPEN_CHECKS
    full = await refused_at(gm, watcher, n.OpenCheck, character="vader", skill="Vigilance")
    assert (full.code, full.path) == ("invalid", "$.type")
    assert full.message == "at most 50 checks may be open at once: roll or cancel one first"
    await han.call(n.CancelCheck, check="han0")  # a freed place is the players' again
    await luke.call(n.OpenCheck, character="luke", skill="Leadership")


async def test_bad_input_is_refused_with_its_path_and_appends_nothing(table: Any) -> None:
    """Absurd counts, unknown checks and an empty destiny side are refused at the field."""
    gm, han, leia, watcher = await _campaign(table)
    ack = await han.call(n.OpenCheck, character="han", skill="Cool", check="bluff")
    await gm.wait_for_seq(ack.seqs[-1])
    head = gm.state.head
    with pytest.raises(CommandRejected) as error:
        await han.call(n.AddDice, check="bluff", kind="boost", count=500)
    assert error.value.path == "$.count"
    with pytest.raises(CommandRejected) as error:
        await han.call(n.AddDice, check="nope", kind="boost")
    assert (error.value.code, error.value.path) == ("not_found", "$.check")
    with pytest.raises(CommandRejected) as error:
        await han.call(n.FlipDestiny, side="light", effect="upgrade_ability", check="bluff")
    assert (error.value.code, error.value.path) == ("rule", "$.side")
    assert "no light side destiny point left" in error.value.message
    with pytest.raises(CommandRejected) as error:
        await han.call(n.RollPool, pool=n.Pool(ability=1000))
    assert error.value.path == "$.pool.ability"
    ack = await gm.call(core.StartSession)
    await gm.wait_for_seq(ack.seqs[-1])
    assert ack.seqs[0] == head + 1  # the session, then its epoch of rolls


async def test_a_member_joining_mid_check_sees_its_odds_at_once(table: Any) -> None:
    """Someone who joins while a check is being built gets its pool and odds without waiting
    for the next change; a check already rolled is not resent."""
    gm, han, leia, watcher = await _campaign(table)
    await han.call(n.OpenCheck, character="han", skill="Cool", check="bluff")
    await gm.call(n.SetDifficulty, check="bluff", level="easy")
    await han.call(n.RollCheck, check="bluff")
    await han.call(n.OpenCheck, character="han", skill="Ranged (Light)", check="shot")
    await gm.call(n.SetDifficulty, check="shot", level="hard")
    late = await table.invite(gm, "spectator", name="Lando")
    view = await late.wait_until(lambda: late.views.get("check:shot"), timeout=5)
    assert view.pool == "2y1g3p"
    assert view.status == "open"
    assert 0 < view.odds.p_success < 1
    assert "check:bluff" not in late.views


async def test_standing_views_are_computed_once_per_change(table: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of joins (a table reconnecting) computes the open checks' odds once, not once
    per member; a change to the table computes them again at the next join."""
    import dataclasses

    from poolhall.server import rules

    calls: list[int] = []
    real = rules.RULES["narrative"]

    def standing_views(state: CampaignState) -> list[ViewSpec]:
        calls.append(state.head)
        return real.standing_views(state)

    monkeypatch.setitem(rules.RULES, "narrative", dataclasses.replace(
        real, standing_views=standing_views))
    gm, han, leia, watcher = await _campaign(table)
    await han.call(n.OpenCheck, character="han", skill="Cool", check="bluff")
    before = len(calls)
    for _ in range(3):
        await table.invite(gm, "spectator")  # each invite changes the table, then one joins
    assert len(calls) == before + 3
    for _ in range(3):  # no change since the last join: the views are reused
        late = await table.connect(gm.campaign, gm._token)
        await late.wait_until(lambda late=late: late.views.get("check:bluff"), timeout=5)
    assert len(calls) == before + 3
    await han.call(n.AddDice, check="bluff", kind="boost")
    late = await table.connect(gm.campaign, gm._token)
    await late.wait_until(lambda: getattr(late.views.get("check:bluff"), "pool", "")
                          .endswith("1b"), timeout=5)
    assert len(calls) == before + 4


async def _rolled_check(client: Any, gm: Any, check: str, character: str, skill: str) -> None:
    """A check opened by ``client``, set Average by the GM and rolled by ``client``."""
    await client.call(n.OpenCheck, character=character, skill=skill, check=check)
    await gm.call(n.SetDifficulty, check=check, level="average")
    await client.call(n.RollCheck, check=check)


async def test_initiative_is_a_check_rolled_after_its_encounter_began(table: Any) -> None:
    """Han's Cool check from last session, and Vader's Vigilance rolled before the ambush
    began, are refused as initiative, naming the check and changing nothing; checks rolled
    after the encounter began are entered. An initiative of encounter 1 is no initiative of
    encounter 2 either."""
    gm, han, leia, watcher = await _campaign(table)
    await gm.call(core.StartSession, title="Cloud City")
    await _rolled_check(han, gm, "han-cool", "han", "Cool")
    await gm.call(core.EndSession)
    await gm.call(core.StartSession, title="The ambush")
    await _rolled_check(gm, gm, "vader-watch", "vader", "Vigilance")
    ack = await gm.call(e.StartEncounter, reason="the ambush")
    await han.wait_for_seq(ack.seqs[-1])
    head = gm.state.head
    for client, check in ((han, "han-cool"), (gm, "vader-watch")):
        with pytest.raises(CommandRejected) as error:
            await client.call(e.EnterInitiative, check=check)
        assert (error.value.code, error.value.path) == ("rule", "$.check")
        assert (f"check {check!r} was rolled before encounter 1 began: roll initiative "
                "again") in error.value.message
    assert gm.state.head == head
    assert initiative_waiting(gm.state.game) == set()  # neither is offered

    await _rolled_check(han, gm, "han-init", "han", "Cool")
    await _rolled_check(gm, gm, "vader-init", "vader", "Vigilance")
    assert initiative_waiting(gm.state.game) == {"han-init", "vader-init"}
    await han.call(e.EnterInitiative, check="han-init")
    ack = await gm.call(e.EnterInitiative, check="vader-init")
    await watcher.wait_for_seq(ack.seqs[-1])
    encounter = watcher.state.game.encounter
    assert sorted(entry.check for entry in encounter.entries) == ["han-init", "vader-init"]

    await gm.call(e.EndEncounter)
    await gm.call(e.StartEncounter, reason="the second wave")
    with pytest.raises(CommandRejected) as error:
        await han.call(e.EnterInitiative, check="han-init")
    assert "'han-init' was rolled before encounter 2 began" in error.value.message


async def test_a_check_closed_after_ten_later_ones_stays_to_be_spent(table: Any) -> None:
    """Rule (quick reference): "Spend advantage, triumph, threat and despair ... Out of combat,
    the GM spends it all." Han's ``old`` check, opened before ten others that were rolled or
    cancelled first, is still at the table once it is rolled: the GM spends its result, and
    a member who joins then gets it among the latest results, the last closed first. It was
    kept by opening order, so the roll that closed it dropped it ("no check 'old' at this
    table") and its advantage could never be spent."""
    gm, han, leia, watcher = await _campaign(table)
    await han.call(n.OpenCheck, character="han", skill="Ranged (Light)", check="old")
    await gm.call(n.SetDifficulty, check="old", level="simple")
    await han.call(n.AddDice, check="old", kind="boost", count=4, reason="all the time needed")
    for number in range(9):
        await _rolled_check(gm, gm, f"quick{number}", "vader", "Discipline")
    await gm.call(n.OpenCheck, character="vader", skill="Discipline", check="dropped")
    await gm.call(n.CancelCheck, check="dropped")
    ack = await han.call(n.RollCheck, check="old")
    await watcher.wait_for_seq(ack.seqs[-1])
    old = watcher.state.game.checks["old"]
    assert (old.status, old.closed_seq) == ("rolled", ack.seqs[-1])
    symbol = next(s for s in ("advantage", "triumph", "threat", "despair") if old.left.get(s))
    ack = await gm.call(e.SpendResult, check="old", symbol=symbol, count=1, on="a lucky break")
    await watcher.wait_for_seq(ack.seqs[-1])
    assert watcher.state.game.checks["old"].spends[0].on == "a lucky break"

    late = await table.connect(gm.campaign, watcher._token)
    await late.wait_for_seq(ack.seqs[-1])
    shown = [key for key, check in late.state.game.checks.items() if not check.is_open]
    assert sorted(shown, key=lambda key: -(late.state.game.checks[key].closed_seq or 0)) == [
        "old", "dropped", "quick8"]


async def test_an_impossible_checks_destiny_point_goes_to_attempting_it_first(
        table: Any) -> None:
    """Rule (README): Impossible "Only with the GM's permission and a destiny point spent;
    then it is rolled as Formidable", and "Each side may spend at most one destiny point on a
    given check". Before an Impossible check is attempted, a point of either side spent on
    anything else is refused, naming the effect, and nothing is appended: Leia's player spent
    her side's one point on upgrade_ability, and then neither the attempt nor the roll was
    ever allowed. Once it is attempted, the other side's point does what it likes."""
    gm, han, leia, watcher = await _campaign(table)
    await gm.call(n.SetDestinyPool, light=2, dark=2)
    for check in ("imp", "imp2"):
        await leia.call(n.OpenCheck, character="leia", skill="Leadership", check=check)
        await gm.call(n.SetDifficulty, check=check, level="impossible")
    for client, side, effect in ((leia, "light", "upgrade_ability"), (leia, "light", "other"),
                                 (gm, "dark", "upgrade_difficulty"),
                                 (gm, "light", "upgrade_ability")):
        error = await refused_at(client, watcher, n.FlipDestiny, side=side, effect=effect,
                                 check="imp")
        assert (error.code, error.path) == ("rule", "$.effect")
        assert error.message.startswith(
            "'imp' is Impossible: its destiny point goes to attempting it first (effect "
            f"attempt_impossible, not {effect})")
    await leia.call(n.FlipDestiny, side="light", effect="attempt_impossible", check="imp")
    await gm.call(n.FlipDestiny, side="dark", effect="upgrade_difficulty", check="imp")
    ack = await leia.call(n.RollCheck, check="imp")
    await watcher.wait_for_seq(ack.seqs[-1])
    assert watcher.state.game.checks["imp"].pool == n.Pool(ability=1, proficiency=3,
                                                           difficulty=4, challenge=1)

    await gm.call(n.FlipDestiny, side="dark", effect="attempt_impossible", check="imp2")
    await leia.call(n.FlipDestiny, side="light", effect="upgrade_ability", check="imp2")
    ack = await leia.call(n.RollCheck, check="imp2")
    await watcher.wait_for_seq(ack.seqs[-1])
    assert watcher.state.game.checks["imp2"].status == "rolled"
