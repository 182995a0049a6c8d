"""Deciding the narrative encounter and the spending of results
(:mod:`poolhall.events.narrative_encounter`).

Each refusal names the rule it enforces, in the sources' words where they have them:

- initiative: a Cool or Vigilance check, rolled after the encounter began (a check rolled
  before, in this session or an earlier one, was rolled for something else:
  :func:`~poolhall.projections.narrative_encounter.rolled_before`), once per character and
  encounter;
- slots: "any player character may claim a player slot" (one who has not acted this round),
  "the GM fills NPC slots"; each slot once per round, in order or not (the table decides);
- spending (quick reference): "In combat, you spend the advantage and triumph and the GM
  spends the threat and despair. Out of combat, the GM spends it all."

**Decision**: "in combat" is an encounter running when the symbols are spent; the player of
a check is the player of its character, and the GM for a character no player plays (an NPC).
"""

from __future__ import annotations

from poolhall.events import narrative_encounter as e
from poolhall.events.base import Event
from poolhall.events.errors import Rejected
from poolhall.projections.narrative import CheckState, GameState
from poolhall.projections.narrative_encounter import Encounter, available, rolled_before
from poolhall.server.rules.base import Decision, no_such

__all__ = ["IN_COMBAT", "OUT_OF_COMBAT", "decide_encounter", "player_characters"]

IN_COMBAT = ("in combat, the player spends the advantage and triumph and the GM spends the "
             "threat and despair")
OUT_OF_COMBAT = "out of combat, the GM spends it all"


def player_characters(ctx: Decision) -> set[str]:
    """The characters some active player plays (the others are NPCs)."""
    return {character for member in ctx.state.members.values()
            if member.active and member.role == "player" for character in member.characters}


def decide_encounter(ctx: Decision, command: object) -> list[Event]:
    """Decide one encounter or spending command."""
    game = ctx.game(GameState)
    match command:
        case e.StartEncounter():
            ctx.require_gm("start an encounter")
            if game.encounter is not None:
                raise Rejected("rule", f"encounter {game.encounter.encounter} is still running;"
                               " end it first", "$.type")
            return [e.EncounterStarted(encounter=game.encounters + 1, reason=command.reason)]
        case e.EnterInitiative():
            return _enter_initiative(ctx, game, command)
        case e.AdvanceRound():
            ctx.require_gm("advance the round")
            encounter = _running(game)
            if not encounter.entries:
                raise Rejected("rule", "initiative comes first: enter at least one rolled Cool"
                               " or Vigilance check", "$.type")
            return [e.RoundStarted(round=encounter.round + 1)]
        case e.ClaimSlot():
            return _claim(ctx, game, command)
        case e.EndEncounter():
            ctx.require_gm("end the encounter")
            encounter = _running(game)
            return [e.EncounterEnded(encounter=encounter.encounter, rounds=encounter.round,
                                     reason=command.reason)]
        case e.SpendResult():
            return _spend(ctx, game, command)
    raise Rejected("unknown_type", f"unknown command {type(command).__name__}", "$.type")


def _running(game: GameState) -> Encounter:
    if game.encounter is None:
        raise Rejected("rule", "no encounter is running; the GM starts one", "$.type")
    return game.encounter


def _rolled(game: GameState, check_id: str) -> CheckState:
    check = game.checks.get(check_id)
    if check is None:
        raise no_such("check", check_id, "$.check")
    if check.status != "rolled" or check.result is None:
        raise Rejected("rule", f"check {check_id!r} has not been rolled", "$.check")
    return check


def _enter_initiative(ctx: Decision, game: GameState, command: e.EnterInitiative) -> list[Event]:
    encounter = _running(game)
    check = _rolled(game, command.check)
    assert check.result is not None
    ctx.require_acts_for(check.character, "$.check")
    if f"check:{check.check}" in ctx.state.private:
        raise Rejected("rule", "initiative is rolled in front of the table: a secret check's "
                       "slot would show where it ranks; roll the NPC's Cool or Vigilance in "
                       "the open", "$.check")
    if check.skill not in e.INITIATIVE_SKILLS:
        raise Rejected("rule", "initiative is a Cool or Vigilance check; "
                       f"{check.check!r} is {check.skill}", "$.check")
    if rolled_before(encounter, check.rolled_seq):
        raise Rejected("rule", f"check {check.check!r} was rolled before encounter "
                       f"{encounter.encounter} began: roll initiative again (a Cool or "
                       "Vigilance check rolled at the encounter's start)", "$.check")
    if any(entry.character == check.character for entry in encounter.entries):
        raise Rejected("rule", f"{ctx.name_of(check.character)} has a slot already: one "
                       "initiative per character and encounter", "$.check")
    if any(entry.check == check.check for entry in encounter.entries):
        raise Rejected("conflict", f"check {check.check!r} is entered already", "$.check")
    side: e.SlotSide = "player" if check.character in player_characters(ctx) else "npc"
    return [e.InitiativeEntered(character=check.character, check=check.check,
                                skill=check.skill, side=side,
                                successes=check.result.successes,
                                advantages=check.result.advantages,
                                triumphs=check.result.triumphs)]


def _claim(ctx: Decision, game: GameState, command: e.ClaimSlot) -> list[Event]:
    encounter = _running(game)
    if encounter.round == 0:
        raise Rejected("rule", "the first round has not started; the GM starts it",
                       "$.type")
    slots = encounter.slots
    if command.slot > len(slots):
        raise Rejected("not_found", f"there are {len(slots)} slots this round", "$.slot")
    side: e.SlotSide = "player" if slots[command.slot - 1].side == "player" else "npc"
    if any(claim.slot == command.slot for claim in encounter.claims):
        raise Rejected("rule", f"slot {command.slot} is taken this round", "$.slot")
    ctx.character(command.character)
    pcs = player_characters(ctx)
    if side == "player":
        ctx.require_acts_for(command.character)
        if command.character not in pcs:
            raise Rejected("rule", "any player character may claim a player slot; "
                           f"{ctx.name_of(command.character)} is an NPC", "$.character")
    else:
        if not ctx.is_gm:
            raise Rejected("forbidden", "the GM fills NPC slots", "$.slot")
        if command.character in pcs:
            raise Rejected("rule", "the GM fills NPC slots with NPCs; "
                           f"{ctx.name_of(command.character)} is a player character", "$.character")
    if any(claim.character == command.character for claim in encounter.claims):
        raise Rejected("rule", f"{ctx.name_of(command.character)} has acted this round already",
                       "$.character")
    return [e.SlotClaimed(round=encounter.round, slot=command.slot, side=side,
                          character=command.character)]


def _spend(ctx: Decision, game: GameState, command: e.SpendResult) -> list[Event]:
    ctx.require_participant("spend symbols")
    check = _rolled(game, command.check)
    assert check.result is not None
    in_combat = game.encounter is not None
    npc = check.character not in player_characters(ctx)
    if in_combat:
        players_symbol = command.symbol in ("advantage", "triumph")
        spender_is_player = ctx.plays(check.character) and (not ctx.is_gm or npc)
        if players_symbol and not spender_is_player:
            raise Rejected("rule", f"{IN_COMBAT}: the {command.symbol} of {check.check!r} is"
                           f" {ctx.name_of(check.character)}'s player's to spend", "$.symbol")
        if not players_symbol and not ctx.is_gm:
            raise Rejected("rule", f"{IN_COMBAT}: the {command.symbol} is the GM's to spend",
                           "$.symbol")
    elif not ctx.is_gm:
        raise Rejected("rule", f"{OUT_OF_COMBAT}", "$.symbol")
    held = check.left.get(command.symbol, available(check.result, command.symbol))
    if command.count > held:
        raise Rejected("rule", f"{check.check!r} has {held} {command.symbol} left to spend",
                       "$.count")
    return [e.ResultSpent(check=check.check, symbol=command.symbol, count=command.count,
                          on=command.on, in_combat=in_combat, left=held - command.count)]
