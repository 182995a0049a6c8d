"""Shadowrun 3 at a real table: a real server, real SQLite, real clients over WebSockets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from poolhall.events import core, sr3
from poolhall.events.errors import CommandRejected
from poolhall.projections.sr3 import describe
from poolhall.server.rules.sr3_limits import QUOTES
from tests.sr3.sr3_support import decker, street_sam


async def _campaign(table: Any) -> tuple[Any, Any, Any, Any]:
    """A GM, Sam's player, Deck's player and a spectator, with both characters created."""
    _, gm = await table.create_campaign("sr3")
    sam = await table.invite(gm, "player", characters=("sam",))
    deck = await table.invite(gm, "player", characters=("deck",))
    watcher = await table.invite(gm, "spectator")
    await sam.call(core.CreateCharacter, character="sam", name="Sam", stats=street_sam())
    ack = await gm.call(core.CreateCharacter, character="deck", name="Deck", stats=decker())
    for client in (gm, sam, deck, watcher):
        await client.wait_for_seq(ack.seqs[-1])
    return gm, sam, deck, watcher


async def _settle(ack: Any, *clients: Any) -> None:
    for client in clients:
        await client.wait_for_seq(ack.seqs[-1])


async def _view(client: Any, about: str, check: Callable[[Any], bool]) -> Any:
    """The view about ``about``, as plain data (a sheets view: the sheets), once it satisfies
    ``check`` (views follow the events they derive from)."""
    def plain() -> Any:
        view = client.views.get(about)
        if view is None:
            return None
        data = msgspec.to_builtins(view)
        return data["sheets"] if about == "sheets" else data
    return await client.wait_until(lambda: (data := plain()) is not None and check(data) and data)


async def test_one_combat_turn_at_the_table(table: Any) -> None:
    """Combat starts, Sam shoots with Combat Pool dice, Deck dodges, the turn ends, the pools
    refresh: everyone sees the same dice, pools and order."""
    gm, sam, deck, watcher = await _campaign(table)
    sheets = await _view(watcher, "sheets", lambda v: "deck" in v)
    assert sheets["sam"]["pools"][0]["size"] == 7
    ack = await gm.call(sr3.StartCombat)
    await _settle(ack, gm, sam, deck, watcher)
    combat = await _view(sam, "combat", lambda v: v["in_combat"])
    assert (combat["turn"], combat["pass"]) == (1, 1)
    assert combat["characters"]["sam"]["pools"]["combat"] == {"full": 7, "left": 7}

    ack = await sam.call(sr3.DeclarePoolTest, character="sam", kind="combat", skill="pistols",
                         tn=4)
    await _settle(ack, sam, watcher)
    odds = await _view(watcher, "test:sam", lambda v: v["rows"] is not None)
    assert odds["limits"] == {"combat": 5}
    assert len(odds["rows"]) == 6

    with pytest.raises(CommandRejected) as refused:
        await sam.call(sr3.RollPoolTest, character="sam", kind="combat", skill="pistols", tn=4,
                       pools={"combat": 6})
    assert (refused.value.code, refused.value.path) == ("rule", "$.pools.combat")
    assert QUOTES["combat_offensive"] in refused.value.message

    ack = await sam.call(sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
                         tn=4, pools={"combat": 3})
    await _settle(ack, gm, sam, deck, watcher)
    attack = watcher.state.game.tests[1]
    assert len(attack.dice) == 8
    assert all(die.faces for die in attack.dice)
    await _view(watcher, "combat",
                lambda v: v["characters"]["sam"]["pools"]["combat"]["left"] == 4)

    ack = await deck.call(sr3.RollPoolTest, character="deck", kind="dodge", tn=4,
                          pools={"combat": 6}, opposes=1)
    await _settle(ack, gm, sam, deck, watcher)
    dodge = sam.state.game.tests[2]
    assert dodge.outcome is not None
    assert dodge.outcome.missed == (dodge.successes > attack.successes)

    turn = 1
    while turn == 1:
        ack = await gm.call(sr3.AdvanceCombatPass)
        await _settle(ack, gm, sam, deck, watcher)
        turn = sam.state.game.combat.turn
    combat = await _view(deck, "combat", lambda v: v["turn"] == 2)
    assert combat["characters"]["sam"]["pools"]["combat"] == {"full": 7, "left": 7}
    assert combat["characters"]["deck"]["pools"]["combat"] == {"full": 6, "left": 6}
    assert msgspec.to_builtins(gm.state.game) == msgspec.to_builtins(watcher.state.game)


async def test_karma_pool_at_the_table(table: Any) -> None:
    """Sam rerolls failures with Karma Pool and the sheet shows it spent until the scene ends."""
    gm, sam, deck, _ = await _campaign(table)
    failures = 0
    test = 0
    while failures == 0:  # seeded dice: roll until a test has a die to reroll
        ack = await sam.call(sr3.RollPoolTest, character="sam", skill="pistols", tn=5)
        await _settle(ack, sam)
        test = max(sam.state.game.tests)
        record = sam.state.game.tests[test]
        failures = sum(1 for d in record.dice if sum(d.faces) < 5)
    ack = await sam.call(sr3.RerollWithKarma, test=test, character="sam")
    await _settle(ack, sam, gm)
    sheets = await _view(sam, "sheets", lambda v: v["sam"]["karma"]["spent"] == 1)
    assert sheets["sam"]["karma"] == {"full": 4, "spent": 1, "left": 3,
                                      "formula": "human: karma 40 // 10 = 4"}
    with pytest.raises(CommandRejected) as refused:
        await deck.call(sr3.RerollWithKarma, test=test, character="deck")
    assert (refused.value.code, refused.value.path) == ("rule", "$.character")
    ack = await gm.call(sr3.EndScene)
    await _settle(ack, sam)
    await _view(sam, "sheets", lambda v: v["sam"]["karma"]["left"] == 4)


async def test_players_and_spectators_are_kept_to_their_part(table: Any) -> None:
    """Deck's player cannot roll for Sam, players cannot run the combat, a spectator cannot
    roll; a refusal appends nothing."""
    gm, sam, deck, watcher = await _campaign(table)
    head = gm.head
    for client, command, fields in (
        (deck, sr3.RollPoolTest, {"character": "sam", "dice": 3, "tn": 4}),
        (deck, sr3.DeclarePoolTest, {"character": "sam", "skill": "pistols", "tn": 4}),
        (sam, sr3.StartCombat, {}),
        (sam, sr3.EndScene, {}),
        (watcher, sr3.RollPoolTest, {"character": "sam", "dice": 3, "tn": 4}),
    ):
        with pytest.raises(CommandRejected) as refusal:
            await client.call(command, **fields)
        assert refusal.value.code == "forbidden"
    ack = await gm.call(core.StartSession)
    assert ack.seqs[0] == head + 1  # the session, then its epoch of rolls


async def test_bad_input_is_refused_with_its_path_and_appends_nothing(table: Any) -> None:
    """A TN of 1, a draw from a pool not allowed, an unknown skill and too many karma dice."""
    gm, sam, _, _ = await _campaign(table)
    head = gm.head
    cases = [
        ({"character": "sam", "dice": 3, "tn": 1}, "invalid", "$.tn"),
        ({"character": "sam", "dice": 3, "tn": 4, "pools": {"hacking": 1}}, "rule",
         "$.pools.hacking"),
        ({"character": "sam", "skill": "sorcery", "tn": 4}, "not_found", "$.skill"),
        ({"character": "sam", "dice": 3, "tn": 4, "karma_dice": 3}, "rule", "$.karma_dice"),
        ({"character": "sam", "dice": 3, "tn": 4, "karma_dice": 21}, "invalid",
         "$.karma_dice"),
        ({"character": "nobody", "dice": 3, "tn": 4}, "not_found", "$.character"),
    ]
    for fields, code, path in cases:
        with pytest.raises(CommandRejected) as refusal:
            await gm.call(sr3.RollPoolTest, **fields)
        assert (refusal.value.code, refusal.value.path) == (code, path), fields
    ack = await gm.call(core.StartSession)
    assert ack.seqs[0] == head + 1  # the session, then its epoch of rolls


async def test_the_roll_notation_runs_a_test(table: Any) -> None:
    """``6d6 tn5`` parsed by the system's notation rolls a test with six dice."""
    gm, sam, _, _ = await _campaign(table)
    command = sr3.parse_roll("pistols tn5 +2cp combat", "sam")
    assert command is not None
    ack = await sam.send(msgspec.structs.replace(command, id="notation-1"))
    await _settle(ack, sam)
    (record,) = sam.state.game.tests.values()
    assert [d.source for d in record.dice].count("combat") == 2
    assert record.base_dice == 5


async def test_a_member_joining_mid_combat_sees_turn_sheets_and_odds_at_once(table: Any) -> None:
    """Someone who joins during a Combat Turn gets the turn, the sheets and the odds of a
    declared test without waiting for the next change."""
    gm, sam, deck, watcher = await _campaign(table)
    await gm.call(sr3.StartCombat)
    ack = await sam.call(sr3.DeclarePoolTest, character="sam", kind="combat", skill="pistols",
                         tn=4)
    await _settle(ack, gm, watcher)
    late = await table.invite(gm, "spectator", name="Fixer")
    combat = await _view(late, "combat", lambda v: v["in_combat"])
    assert (combat["turn"], combat["pass"]) == (1, 1)
    assert set(await _view(late, "sheets", bool)) == {"sam", "deck"}
    odds = await _view(late, "test:sam", lambda v: v["rows"] is not None)
    assert odds["limits"] == {"combat": 5}


async def test_two_declared_tests_each_keep_their_own_view(table: Any) -> None:
    """Sam and Deck each declare a test: the table, and a member who joins later, see the
    odds of both (once, every declared test shared one view and the last one won)."""
    gm, sam, deck, watcher = await _campaign(table)
    await sam.call(sr3.DeclarePoolTest, character="sam", kind="combat", skill="pistols", tn=4)
    ack = await deck.call(sr3.DeclarePoolTest, character="deck", kind="matrix",
                          skill="computer", tn=5)
    await _settle(ack, gm, watcher)
    await _view(watcher, "test:sam", lambda v: v["rows"] is not None)
    await _view(watcher, "test:deck", lambda v: v["rows"] is not None)
    late = await table.invite(gm, "spectator", name="Fixer")
    sam_odds = await _view(late, "test:sam", lambda v: v["rows"] is not None)
    deck_odds = await _view(late, "test:deck", lambda v: v["rows"] is not None)
    assert (sam_odds["character"], sam_odds["kind"]) == ("sam", "combat")
    assert (deck_odds["character"], deck_odds["kind"], deck_odds["tn"]) == ("deck", "matrix", 5)


async def test_rule_wounds_come_off_initiative_and_the_unconscious_do_not_act_at_the_table(
        table: Any) -> None:
    """Through the real server: the GM marks Sam Physical 3 + Stun 2 (+3 to his target
    numbers) and Deck a full Stun monitor. Sam's sheet says so; the combat rolls Sam's
    initiative 3 lower than his Reaction 9 + dice, leaves unconscious Deck out of the order,
    and every member reads the same event, view and words."""
    gm, sam, deck, watcher = await _campaign(table)
    for character, condition, value in (("sam", "physical", 3), ("sam", "stun", 2),
                                        ("deck", "stun", 10)):
        ack = await gm.call(core.SetCondition, character=character, condition=condition,
                            value=value)
    await _settle(ack, gm, watcher)
    sheets = await _view(watcher, "sheets", lambda v: "unconscious" in v["deck"]["initiative"])
    assert sheets["sam"]["initiative"] == "Reaction 5 + 4 + 3d6 - 3 for wounds"
    assert sheets["deck"]["initiative"] == "Reaction 4 + 1d6 (unconscious: does not act)"

    ack = await gm.call(sr3.StartCombat)
    await _settle(ack, gm, sam, deck, watcher)
    (recorded,) = [r for r in await watcher.history(before=ack.seqs[-1] + 1)
                   if isinstance(r.event, sr3.InitiativeScoresRolled)]
    initiative = recorded.event
    assert isinstance(initiative, sr3.InitiativeScoresRolled)
    (roll,) = initiative.rolls
    assert (roll.character, roll.reaction, roll.wounds) == ("sam", 9, 3)
    assert roll.score == 9 + sum(roll.faces) - 3  # at least 9 + 3 - 3: above the floor
    assert initiative.out == {"deck": "unconscious"}
    assert initiative.order == ("sam",)
    faces = "+".join(map(str, roll.faces))
    assert describe(recorded, watcher.state) == (
        f"initiative for turn 1: sam {roll.score} (9 + {faces} - 3 for wounds); order: sam; "
        "not acting: deck (unconscious)")

    combat = await _view(deck, "combat", lambda v: v["in_combat"])
    assert combat["characters"]["sam"]["wounds"] == 3
    assert combat["characters"]["sam"]["initiative"] == roll.score
    assert combat["characters"]["deck"]["out"] == "unconscious"
    assert "deck" not in combat["order"]
    assert msgspec.to_builtins(gm.state.game) == msgspec.to_builtins(watcher.state.game)
