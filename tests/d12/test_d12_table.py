"""The d12 table end to end: a real server, real SQLite, real clients, seeded dice."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from poolhall.events import core, d12
from poolhall.events.base import Command
from poolhall.events.errors import CommandRejected
from poolhall.server.rules.d12 import about_test
from tests.typed import of_type


async def _campaign(table: Any) -> tuple[Any, Any, Any, Any]:
    """A d12 campaign: GM, Han's player, Leia's player and a spectator; Han, Leia, Vader."""
    _, gm = await table.create_campaign("d12")
    han = await table.invite(gm, "player", characters=("han",))
    leia = await table.invite(gm, "player", characters=("leia",))
    watcher = await table.invite(gm, "spectator")
    for character, ratings in (("han", {"CON": 2, "CHA": 1, "STR": 4}),
                               ("leia", {"CON": 3, "CHA": 5, "WIT": 4}),
                               ("vader", {"CON": 6, "CHA": 4, "STR": 8})):
        ack = await gm.call(core.CreateCharacter, character=character, name=character.title(),
                            stats=d12.D12Stats(ratings=ratings))
    for client in (gm, han, leia, watcher):
        await client.wait_for_seq(ack.seqs[-1])
    return gm, han, leia, watcher


async def _cantina_brawl(gm: Any, watcher: Any) -> Any:
    """The GM calls Han's extended STR+CON test against Vader's STR; the table's copy of it."""
    ack = await gm.call(d12.CallThresholdTest, character="han", stats=("STR", "CON"),
                        opponent="vader", opponent_stat="STR", extended=True, refresh="CON",
                        label="cantina brawl")
    await watcher.wait_for_seq(ack.seqs[-1])
    (test,) = watcher.state.game.tests.values()
    return test


async def test_an_extended_test_at_the_table(table: Any) -> None:
    """The GM calls a fight, Han's player rolls round after round, everyone sees the pool
    shrink and grow with the odds, the GM reads the result and ends it."""
    gm, han, leia, watcher = await _campaign(table)
    test = await _cantina_brawl(gm, watcher)
    assert (test.pool, test.threshold.dt, test.threshold.source) == (6, 8, "opponent")
    view = await watcher.wait_until(lambda: watcher.views.get(about_test(test.test)))
    assert (view.test, view.odds.dice, view.odds.dt) == (test.test, 6, 8)

    pool = 6
    for round_no in range(1, 4):
        ack = await han.call(d12.RollThresholdTest, test=test.test)
        await watcher.wait_for_seq(ack.seqs[-1])
        seen = watcher.state.game.tests[test.test]
        rolled = seen.rounds[-1]
        assert (rolled.round, rolled.pool, len(rolled.faces)) == (round_no, pool, pool)
        assert rolled.margin == rolled.successes - rolled.failures
        failed = sum(1 for v in rolled.values if v < 0)
        if pool == failed:
            assert not seen.open
            assert seen.ended == "pool_empty"
            break
        pool = pool - failed + 2
        assert seen.pool == pool == rolled.pool_after
        await gm.call(d12.InterpretThresholdResult, test=test.test, text=f"round {round_no}")
    if watcher.state.game.tests[test.test].open:
        ack = await gm.call(d12.EndThresholdTest, test=test.test, reason="the band stops")
        await leia.wait_for_seq(ack.seqs[-1])
    final = leia.state.game.tests[test.test]
    assert not final.open
    assert final.story[0].startswith("extended test (cantina brawl)")
    assert msgspec.to_builtins(leia.state.game) == msgspec.to_builtins(gm.state.game)
    name = about_test(test.test)
    await leia.wait_until(lambda: getattr(leia.views.get(name), "open", None) is False)


async def test_the_roll_notation_is_a_basic_test(table: Any) -> None:
    """``5d12 dt7`` from the GM starts and rolls a basic test; from a player it rolls the
    basic test the GM called for their character."""
    gm, han, _, _ = await _campaign(table)
    parsed = of_type(d12.RollBasicTest, d12.parse_roll("5d12 dt7", None))
    command = msgspec.structs.replace(parsed, id="gm-roll-1")
    ack = await gm.send(command)
    await gm.wait_for_seq(ack.seqs[-1])
    test = gm.state.game.tests[1]
    assert (test.kind, test.open, len(test.rounds[0].faces), test.rounds[0].dt) == (
        "basic", False, 5, 7)
    assert test.rounds[0].succeeded == (test.rounds[0].margin > 0)

    parsed = of_type(d12.RollBasicTest, d12.parse_roll("4d12 dt6", "han"))
    with pytest.raises(CommandRejected) as refusal:
        await han.send(msgspec.structs.replace(parsed, id="h-1"))
    assert (refusal.value.code, refusal.value.path) == ("forbidden", "$.dt")
    await gm.call(d12.CallThresholdTest, character="han", stats=("STR",), dt=6)
    ack = await han.send(msgspec.structs.replace(parsed, id="h-2"))
    await han.wait_for_seq(ack.seqs[-1])
    assert len(han.state.game.tests[2].rounds) == 1
    assert not han.state.game.tests[2].open


async def test_the_roll_form_reads_the_notation_however_it_is_spaced(table: Any) -> None:
    """The page's roll form sends the text as typed: "5d12dt7" and "5 d 12 dt 7" are basic
    tests (they were refused "as in 5d12d6"); fullwidth digits are refused as plain dice
    refuse them, and nothing is appended."""
    gm, _, _, _ = await _campaign(table)
    for number, text in enumerate(("5d12dt7", "5 d 12 dt 7"), start=1):
        ack = await gm.call(core.Roll, expression=text)
        await gm.wait_for_seq(ack.seqs[-1])
        test = gm.state.game.tests[number]
        assert (test.kind, len(test.rounds[0].faces), test.rounds[0].dt) == ("basic", 5, 7)
    head = gm.head
    with pytest.raises(CommandRejected) as refusal:
        await gm.call(core.Roll, expression="\uff15d12 dt\uff17")
    assert refusal.value.message.startswith("unexpected '\uff15d12")
    assert refusal.value.path == "$.expression"
    ack = await gm.call(core.StartSession)
    assert ack.seqs[0] == head + 1


async def test_refusals_point_to_the_called_test_and_the_opponent_field(table: Any) -> None:
    """Over the wire: Han as his own opponent is refused naming ``$.opponent``; Han's player
    typing the pool of his extended test is told its number; and with 50 tests open the
    GM's one-shot "3d12 dt5" still rolls, as "3d6" does."""
    gm, han, _, _ = await _campaign(table)
    with pytest.raises(CommandRejected) as refusal:
        await gm.call(d12.CallThresholdTest, character="han", stats=("STR",),
                      opponent="han", opponent_stat="CON")
    assert (refusal.value.code, refusal.value.path) == ("rule", "$.opponent")
    ack = await gm.call(d12.CallThresholdTest, character="han", stats=("STR",), dt=12,
                        extended=True, refresh="CON")
    await han.wait_for_seq(ack.seqs[-1])
    campaign = gm.state.campaign
    assert campaign
    with pytest.raises(CommandRejected) as refusal:
        await han.call(core.Roll, expression="4d12 dt12")
    assert refusal.value.message.endswith(f"poolhall d12 roll {campaign} 1")
    for _ in range(d12.MAX_OPEN_TESTS - 1):
        ack = await gm.call(d12.CallThresholdTest, character="han", stats=("STR",), dt=7)
    await gm.wait_for_seq(ack.seqs[-1])
    ack = await gm.call(core.Roll, expression="3d12 dt5")
    await gm.wait_for_seq(ack.seqs[-1])
    rolled = gm.state.game.tests[d12.MAX_OPEN_TESTS + 1]
    assert (rolled.kind, rolled.open, len(rolled.rounds[0].faces)) == ("basic", False, 3)


async def test_players_and_spectators_are_kept_to_their_part(table: Any) -> None:
    """Leia's player cannot roll Han's test, nor call one; a spectator cannot roll; nothing
    is appended by a refusal."""
    gm, han, leia, watcher = await _campaign(table)
    ack = await gm.call(d12.CallThresholdTest, character="han", stats=("STR",), dt=7)
    await gm.wait_for_seq(ack.seqs[-1])
    head = gm.head
    for client, command, fields in (
        (leia, d12.RollThresholdTest, {"test": 1}),
        (leia, d12.CallThresholdTest, {"character": "leia", "stats": ("WIT",), "dt": 2}),
        (han, d12.EndThresholdTest, {"test": 1}),
        (watcher, d12.RollThresholdTest, {"test": 1}),
    ):
        with pytest.raises(CommandRejected) as refusal:
            await client.call(command, **fields)
        assert refusal.value.code == "forbidden"
    ack = await han.call(d12.RollThresholdTest, test=1)
    assert ack.seqs[0] == head + 1  # the session, then its epoch of rolls


async def test_bad_input_is_refused_with_its_path_and_appends_nothing(table: Any) -> None:
    """An unknown stat, a DT of 13 and stats without CHA are refused naming the field."""
    gm, _, _, _ = await _campaign(table)
    head = gm.head
    cases: list[tuple[type[Command], dict[str, Any], str, str]] = [
        (d12.CallThresholdTest, {"character": "han", "stats": ("STR", "WIT"), "dt": 7},
         "not_found", "$.stats[1]"),
        (d12.RollBasicTest, {"dice": 5, "dt": 13}, "invalid", "$.dt"),
        (d12.CallThresholdTest, {"character": "han", "stats": ("STR",), "dt": 7,
                                 "extended": True}, "invalid", "$.refresh"),
        (d12.RollThresholdTest, {"test": 4}, "not_found", "$.test"),
    ]
    for command, fields, code, path in cases:
        with pytest.raises(CommandRejected) as refusal:
            await gm.call(command, **fields)
        assert (refusal.value.code, refusal.value.path) == (code, path)
    stats = d12.D12Stats(ratings={"CON": 1, "CHA": 1})
    del stats.ratings["CHA"]  # the client would never build it; a hand-written frame could
    with pytest.raises(CommandRejected) as refusal:
        await gm.send(core.CreateCharacter(id="bad-stats", character="lando", name="Lando",
                                           stats=stats))
    assert (refusal.value.code, refusal.value.path) == ("invalid", "$.stats")
    ack = await gm.call(core.StartSession)
    assert ack.seqs[0] == head + 1  # the session, then its epoch of rolls


async def test_a_member_joining_during_a_test_sees_its_odds_at_once(table: Any) -> None:
    """Someone who joins while a test is open gets its odds without waiting for a change."""
    gm, han, leia, watcher = await _campaign(table)
    test = await _cantina_brawl(gm, watcher)
    late = await table.invite(gm, "spectator", name="Lando")
    view = await late.wait_until(lambda: late.views.get(about_test(test.test)), timeout=5)
    assert (view.open, view.odds.dice, view.odds.dt, view.round) == (True, 6, 8, 1)


async def test_a_called_test_rolled_after_twenty_later_ones_ended_stays_shown(table: Any
                                                                              ) -> None:
    """Rule (rules summary, "Basic test"): the player rolls the test the GM called and the
    table reads the margin. Han's test, called before twenty one-shot rolls of the GM (each
    ends at once), is still at the table once Han rolls it, and a member who joins then gets
    it first among the ended tests. The state kept the ended tests by number, so the roll that
    ended it dropped it: its result was never shown."""
    gm, han, leia, watcher = await _campaign(table)
    await gm.call(d12.CallThresholdTest, character="han", stats=("STR",), dt=5)
    for _ in range(20):
        await gm.call(d12.RollBasicTest, dice=2, dt=5, character="vader")
    ack = await han.call(d12.RollThresholdTest, test=1)
    await watcher.wait_for_seq(ack.seqs[-1])
    called = watcher.state.game.tests[1]
    assert (called.open, called.ended, called.ended_seq) == (False, "rolled", ack.seqs[-1])
    assert len(called.rounds) == 1

    late = await table.invite(gm, "spectator", name="Lando")
    await late.wait_for_seq(ack.seqs[-1])
    shown = late.state.game.tests
    assert sorted(shown, key=lambda number: -(shown[number].ended_seq or 0))[:3] == [1, 21, 20]
