"""Decisions of the ``sr3`` game system: Combat Turns, tests with pool dice, Karma Pool.

- **Combat** (GM): ``StartCombat`` fills every participant's pools and rolls initiative
  (Reaction + initiative d6s, no Rule of Six, less the wound modifier, never below 0; a
  character with a full Stun or Physical monitor rolls none and does not act);
  ``AdvanceCombatPass`` drops every score by 10 and gives the order of the next pass (without
  anyone knocked out since), or - when no one is left above 0 - ends the Combat Turn and
  starts the next one (pools full again, initiative rerolled); ``EndCombat``.
- **Tests** (the GM or the character's player): ``DeclarePoolTest`` shows the odds for each
  number of pool dice; ``RollPoolTest`` draws pool dice within every limit of the source
  (``sr3_limits``), buys karma dice, rolls and records every chain of faces. A test answers
  (``opposes``) only a test it may, a Dodge or damage resistance in the situation of the
  attack it answers (``sr3_answers``).
- **Karma Pool**: ``RerollWithKarma`` (1, then 2, then 3 points ... on the character's own
  test), ``EndScene`` (GM) gives spent points back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import msgspec

from poolhall.events import core
from poolhall.events import sr3 as vocabulary
from poolhall.events.base import Event
from poolhall.events.errors import Rejected
from poolhall.events.messages import View
from poolhall.events.sr3 import POOLS, Incapacity, PoolDie, Sr3Stats
from poolhall.projections.campaign import CampaignState
from poolhall.projections.sr3 import GameState, TestRecord
from poolhall.projections.sr3_pools import pool_sizes
from poolhall.projections.sr3_views import (
    OddsInput,
    combat_turn_view,
    odds_parts,
    odds_rows,
    sheets_view,
)
from poolhall.projections.sr3_wounds import incapacity, wound_modifier, wounded_initiative
from poolhall.server.rules import sr3_answers as answers
from poolhall.server.rules import sr3_dodge as dodge
from poolhall.server.rules import sr3_tests as tests
from poolhall.server.rules.base import Decision, no_such
from poolhall.server.rules.contract import Rules
from poolhall.server.rules.privacy import answer_as_private
from poolhall.server.rules.sr3_limits import Situation, check_draws, drawable, spent
from poolhall.server.views import Compute, ViewResult, ViewSpec

__all__ = ["RULES", "COMMANDS", "decide", "initiative_order", "standing_views", "about_declared",
           "declared_odds_rows", "views"]

COMMANDS = frozenset(vocabulary.COMMANDS)
MAX_PARTICIPANTS = 50


# ---- combat -------------------------------------------------------------------------------


def initiative_order(rolls: list[vocabulary.InitiativeRoll] | dict[str, tuple[int, int]]
                     ) -> tuple[str, ...]:
    """Who acts, highest score first; ties by higher Reaction, then by character id.

    **Decision**: the source gives no tie-break; higher Reaction first is the standard one, the
    id makes the order deterministic. Only scores above 0 act.
    """
    if isinstance(rolls, list):
        rolls = {r.character: (r.score, r.reaction) for r in rolls}
    ranked = sorted(rolls.items(), key=lambda item: (-item[1][0], -item[1][1], item[0]))
    return tuple(character for character, (score, _) in ranked if score > 0)


def _initiative(ctx: Decision, character: str, stats: Sr3Stats) -> vocabulary.InitiativeRoll:
    """Reaction + bonus + the initiative dice, less the wound modifier that also raises the
    character's target numbers (standard SR3's Damage Modifiers), never below 0; the roll
    records the modifier so the log says why the score is lower than the dice."""
    reaction = stats.natural_reaction + stats.reaction_bonus
    faces = tuple(ctx.rng.randint(1, 6) for _ in range(stats.initiative_dice))
    wounds = _wounds(ctx, character)
    return vocabulary.InitiativeRoll(character=character, reaction=reaction, faces=faces,
                                     score=wounded_initiative(reaction + sum(faces), wounds),
                                     wounds=wounds)


def _out(ctx: Decision, characters: Iterable[str]) -> dict[str, Incapacity]:
    """Who of ``characters`` cannot act (a full Stun or Physical monitor), and why."""
    out: dict[str, Incapacity] = {}
    for character in characters:
        found = ctx.state.characters.get(character)
        why = incapacity(found.conditions) if found is not None else None
        if why is not None:
            out[character] = why
    return out


def _new_turn(ctx: Decision, participants: list[str], turn: int) -> list[Event]:
    """A Combat Turn: every participant's pools full; initiative for those who can act (an
    unconscious or dying character rolls no dice and is named in ``out`` instead)."""
    pools: dict[str, Any] = {}
    rolls: list[vocabulary.InitiativeRoll] = []
    out = _out(ctx, participants)
    for character in participants:
        stats = ctx.stats(character, Sr3Stats)
        pools[character] = pool_sizes(stats)
        if character not in out:
            rolls.append(_initiative(ctx, character, stats))
    return [vocabulary.CombatTurnStarted(turn=turn, pools=pools),
            vocabulary.InitiativeScoresRolled(turn=turn, rolls=tuple(rolls),
                                              order=initiative_order(rolls), out=out)]


def _start_combat(ctx: Decision, command: vocabulary.StartCombat) -> list[Event]:
    ctx.require_gm("start a combat")
    if ctx.game(GameState).combat is not None:
        raise Rejected("conflict", "a combat is running; end it first", "$.type")
    participants = list(command.participants) or [
        cid for cid, c in ctx.state.characters.items() if isinstance(c.stats, Sr3Stats)]
    if not participants:
        raise Rejected("invalid", "no characters to fight: create some first", "$.participants")
    if len(participants) > MAX_PARTICIPANTS:
        raise Rejected("invalid", f"at most {MAX_PARTICIPANTS} characters in one combat; "
                       "name them", "$.participants")
    for index, character in enumerate(participants):
        path = f"$.participants[{index}]"
        ctx.stats(character, Sr3Stats, path)
        if character in participants[:index]:
            raise Rejected("invalid", f"{ctx.name_of(character)} is named twice", path)
    return [vocabulary.CombatEncounterStarted(participants=tuple(participants)),
            *_new_turn(ctx, participants, 1)]


def _advance(ctx: Decision, command: vocabulary.AdvanceCombatPass) -> list[Event]:
    ctx.require_gm("advance the combat")
    combat = ctx.game(GameState).combat
    if combat is None:
        raise Rejected("rule", "no combat is running", "$.type")
    scores = {who: c.score - 10 for who, c in combat.combatants.items()}
    out = _out(ctx, combat.combatants)  # knocked out since initiative: they act no more
    order = initiative_order({who: (scores[who], c.reaction)
                              for who, c in combat.combatants.items() if who not in out})
    if order:
        return [vocabulary.CombatPassAdvanced(turn=combat.turn, pass_number=combat.pass_number + 1,
                                              scores=scores, order=order, out=out)]
    participants = [c for c in combat.participants if c in ctx.state.characters]
    return [vocabulary.CombatTurnEnded(turn=combat.turn),
            *_new_turn(ctx, participants, combat.turn + 1)]


def _end_combat(ctx: Decision, command: vocabulary.EndCombat) -> list[Event]:
    ctx.require_gm("end the combat")
    combat = ctx.game(GameState).combat
    if combat is None:
        raise Rejected("rule", "no combat is running", "$.type")
    ended: list[Event] = [vocabulary.CombatTurnEnded(turn=combat.turn)] if combat.turn_running \
        else []
    return [*ended, vocabulary.CombatEncounterEnded(turns=combat.turn)]


# ---- tests --------------------------------------------------------------------------------

_SHARED = ("character", "kind", "skill", "attribute", "opposes", "surprised", "rigged", "astral",
           "magic", "elemental", "reason")

_SAME_TEST = tuple(name for name in _SHARED if name != "reason")
"""What makes a roll the declared test (with its base dice and target number): not the
reason, which says what the test is for and was typed afresh (the Declare form empties it)."""


class _Prepared(NamedTuple):
    """A test as the rules take it: the command with the situation it takes from the test it
    answers (:func:`answers.with_attack_situation`), the character's stats, the base dice, the
    situation the pool limits look at and the TN before wounds."""

    command: Any
    stats: Sr3Stats
    base: int
    situation: Situation
    tn: int | None


def _prepare(ctx: Decision, command: Any) -> _Prepared:
    """What a declared or rolled test is; refused when the rules (what may answer a test, a
    Dodge's) or the log's limit of TN 100 after wounds do not let it be rolled."""
    ctx.require_acts_for(command.character)
    stats: Sr3Stats = ctx.stats(command.character, Sr3Stats)
    base, skill = tests.resolve_base(stats, command, ctx.name_of(command.character))
    game = ctx.game(GameState)
    tn = tests.resolve_tn(game, command)
    answer_as_private(ctx, command.opposes, getattr(command, "visibility", None))
    dodge.check_answer(game, command)
    answers.check_answers(game, command)
    command = answers.with_attack_situation(game, command)
    tests.check_tn_limit(command, tn, _wounds(ctx, command.character))
    return _Prepared(command, stats, base, tests.situation_of(command, base, skill), tn)


def _wounds(ctx: Decision, character: str) -> int:
    """The wound modifier of the character's Condition Monitors: added to target numbers,
    taken off initiative."""
    return wound_modifier(ctx.character(character).conditions)


def _declare(ctx: Decision, typed: vocabulary.DeclarePoolTest) -> list[Event]:
    command, stats, base, situation, tn = _prepare(ctx, typed)
    left, _ = tests.pools_left(ctx, stats, command.character)
    full = tests.pools_full(ctx, stats, command.character)
    return [vocabulary.PoolTestDeclared(
        **{name: getattr(command, name) for name in _SHARED}, tn=tn, base_dice=base,
        limits=drawable(situation, stats, left), spent=spent(situation, stats, left, full),
        wounds=_wounds(ctx, command.character) if tn is not None else 0)]


def _leaves_declared(ctx: Decision, command: vocabulary.RollPoolTest, base: int,
                     tn: int | None) -> bool:
    """Whether a private roll leaves the character's declared test waiting: it does unless it
    rolls that test, every field the declaration recorded the same but its reason (kind, skill
    or attribute, base dice, target number before wounds, the test it answers, the situation:
    :data:`_SAME_TEST`). ``tn`` is the target number before wounds.

    Without it, the GM's secret Perception for a ganger whose shot was declared in front of
    the table took the shot's card off every table, though the shot was never rolled. A
    public roll still withdraws the declared test whatever it rolled: the table sees what was
    rolled, and no command withdraws a declaration otherwise."""
    if command.visibility == "public":
        return False
    declared = ctx.game(GameState).declared.get(command.character)
    if declared is None:
        return False
    return (declared.base_dice, declared.tn) != (base, tn) or any(
        getattr(declared, name) != getattr(command, name) for name in _SAME_TEST)


def _roll(ctx: Decision, typed: vocabulary.RollPoolTest) -> list[Event]:
    command, stats, base, situation, tn = _prepare(ctx, typed)
    leaves_declared = _leaves_declared(ctx, command, base, tn)
    if tn is not None:  # the wound modifiers raise every target number (standard SR3): the
        tn += _wounds(ctx, command.character)  # event records the target number rolled against
    left, depletes = tests.pools_left(ctx, stats, command.character)
    check_draws(command.pools, situation, stats, left)
    dodge.check_dice(command)
    cost = tests.karma_dice_cost(command.kind, command.karma_dice)
    karma = tests.karma_left(ctx, stats, command.character)
    if cost > karma:
        raise Rejected("rule", f"{command.karma_dice} karma dice cost {cost} Karma Pool "
                       f"point{'s' if cost != 1 else ''}, {karma} left: "
                       f'"{tests.KARMA_QUOTES["buy"]}"', "$.karma_dice")
    dice = tests.roll_dice(ctx.rng, base, command.pools, command.karma_dice)
    result = tests.result_of(dice, tn)
    game = ctx.game(GameState)
    after = {pool: left.get(pool, 0) - command.pools.get(pool, 0) for pool in POOLS}
    return [vocabulary.PoolTestRolled(
        **{name: getattr(command, name) for name in _SHARED}, tn=tn, test=game.next_test,
        base_dice=base, dice=dice, successes=result.successes, highest=result.highest,
        disastrous=result.disastrous, pools_left=after if depletes else None,
        karma_spent=cost, karma_left=karma - cost,
        outcome=tests.outcome_against(game, command.opposes, command.kind, tn, result, dice),
        leaves_declared=leaves_declared)]


def _check_rerollable(ctx: Decision, game: GameState, record: TestRecord,
                      character: str) -> None:
    """Refuse a Karma reroll of a test that is not the character's to reroll: a private one,
    another's, one of a scene that is over (it was paid from the pool the GM's EndScene had
    refreshed) or one another test answered (its result stands)."""
    if f"test:{record.test}" in ctx.state.private:
        raise Rejected("rule", f"test #{record.test} was rolled in private: it is not rerolled "
                       "with Karma, since the Karma Pool is the table's to see and its going "
                       "down would tell whose test it was", "$.test")
    if record.character != character:
        raise Rejected("rule", f"test #{record.test} is {ctx.name_of(record.character)}'s roll: "
                       f'"{tests.KARMA_QUOTES["own"]}"', "$.character")
    if record.scene != game.scene:
        raise Rejected("rule", f"test #{record.test} was rolled in scene {record.scene}, which "
                       f"is over: a scene that is over is settled, and none of its tests is "
                       f"rerolled with Karma in scene {game.scene}", "$.test")
    if record.opposed_by:
        raise Rejected("rule", f"test #{record.test} was answered by test "
                       f"#{record.opposed_by[-1]}; its result stands", "$.test")


def _reroll(ctx: Decision, command: vocabulary.RerollWithKarma) -> list[Event]:
    ctx.require_acts_for(command.character)
    game = ctx.game(GameState)
    record = game.tests.get(command.test)
    if record is None:
        raise no_such("test", command.test, "$.test")
    _check_rerollable(ctx, game, record, command.character)
    stats: Sr3Stats = ctx.stats(command.character, Sr3Stats)
    cost = record.rerolls + 1
    if cost > vocabulary.MAX_REROLLS:
        raise Rejected("rule", f"test #{record.test} has been rerolled "
                       f"{vocabulary.MAX_REROLLS} times, the most a test may be", "$.test")
    karma = tests.karma_left(ctx, stats, command.character)
    if cost > karma:
        raise Rejected("rule", f"reroll {cost} of test #{record.test} costs {cost} Karma Pool "
                       f"point{'s' if cost != 1 else ''}, {karma} left: "
                       f'"{tests.KARMA_QUOTES["reroll"]}"', "$.test")
    if record.tn is None:  # an open test rerolls every die; the earlier result is lost
        indices = list(range(len(record.dice)))
    else:  # a test with a TN rerolls the dice that failed
        indices = [i for i, die in enumerate(record.dice) if sum(die.faces) < record.tn]
    if not indices:
        raise Rejected("rule", "no failed dice to reroll: every die reached the target number",
                       "$.test")
    faces = tuple(tests.roll_chain(ctx.rng) for _ in indices)
    dice = list(record.dice)
    for index, chain in zip(indices, faces, strict=True):
        dice[index] = PoolDie(source=dice[index].source, faces=chain)
    result = tests.result_of(dice, record.tn)
    return [vocabulary.PoolTestRerolled(
        test=record.test, character=command.character, reroll=cost, cost=cost,
        karma_left=karma - cost, indices=tuple(indices), faces=faces,
        successes=result.successes, highest=result.highest, disastrous=result.disastrous,
        outcome=tests.outcome_against(game, record.opposes, record.kind, record.tn, result,
                                      dice))]


def _end_scene(ctx: Decision, command: vocabulary.EndScene) -> list[Event]:
    ctx.require_gm("end the scene")
    return [vocabulary.SceneEnded(refreshed=dict(ctx.game(GameState).karma_spent))]


def decide(ctx: Decision, command: Any) -> list[Event]:
    """Decide one of this system's commands."""
    match command:
        case vocabulary.StartCombat():
            return _start_combat(ctx, command)
        case vocabulary.AdvanceCombatPass():
            return _advance(ctx, command)
        case vocabulary.EndCombat():
            return _end_combat(ctx, command)
        case vocabulary.DeclarePoolTest():
            return _declare(ctx, command)
        case vocabulary.RollPoolTest():
            return _roll(ctx, command)
        case vocabulary.RerollWithKarma():
            return _reroll(ctx, command)
        case vocabulary.EndScene():
            return _end_scene(ctx, command)
    raise Rejected("unknown_type", f"unknown command {type(command).__name__}", "$.type")


# ---- views --------------------------------------------------------------------------------

_COMBAT_EVENTS = (vocabulary.CombatEncounterStarted, vocabulary.CombatTurnStarted,
                  vocabulary.CombatPassAdvanced, vocabulary.CombatTurnEnded,
                  vocabulary.CombatEncounterEnded)
_SHEET_EVENTS = (core.CharacterCreated, core.CharacterUpdated, core.CharacterRetired,
                 vocabulary.PoolTestRolled,
                 vocabulary.PoolTestRerolled, vocabulary.SceneEnded,
                 core.ConditionChanged)  # the initiative line names the wound modifier


def about_declared(character: str) -> str:
    """What a declared test's view is about: ``test:<character>`` (one declared test each)."""
    return f"test:{character}"


def declared_odds_rows(odds_input: OddsInput) -> ViewResult:
    """The costly part of a declared test's view, computed in a worker: its rows of odds."""
    return {"rows": msgspec.convert(odds_rows(odds_input)["rows"], list[vocabulary.Sr3OddsRow])}


def _odds(declared: vocabulary.PoolTestDeclared, state: CampaignState) -> Compute:
    """A declared test's view (at the target number it will be rolled against, wounds
    included); its rows are computed by a worker."""
    data, odds_input = odds_parts(declared, state)
    return Compute(about=about_declared(declared.character),
                   data=msgspec.convert(data, vocabulary.Sr3TestOdds),
                   function=declared_odds_rows, input=odds_input)


def _combat(state: CampaignState) -> View:
    turn = combat_turn_view(state)
    data = (vocabulary.Sr3CombatTurn(in_combat=False) if turn is None
            else msgspec.convert(turn, vocabulary.Sr3CombatTurn))
    return View(about="combat", data=data)


def _sheets(state: CampaignState) -> View:
    return View(about="sheets", data=vocabulary.Sr3Sheets(
        sheets=msgspec.convert(sheets_view(state), dict[str, vocabulary.Sr3Sheet])))


def views(state: CampaignState, events: list[Event]) -> list[ViewSpec]:
    """The odds of a declared test, the combat turn, and the character sheets, when changed."""
    out: list[ViewSpec] = []
    for event in events:
        if isinstance(event, vocabulary.PoolTestDeclared):
            out.append(_odds(event, state))
        if isinstance(event, core.ConditionChanged):  # wounds change a declared test's odds
            declared = state.game_as(GameState).declared.get(event.character)
            if declared is not None:
                out.append(_odds(declared, state))
    if any(isinstance(e, _COMBAT_EVENTS) or (isinstance(e, vocabulary.PoolTestRolled)
                                              and e.pools_left is not None) for e in events):
        out.append(_combat(state))
    if any(isinstance(e, _SHEET_EVENTS) for e in events):
        out.append(_sheets(state))
    return out


def standing_views(state: CampaignState) -> list[ViewSpec]:
    """What a member joining now should see: declared tests' odds, the combat turn, sheets."""
    game = state.game
    if not isinstance(game, GameState):
        return []
    out: list[ViewSpec] = [_odds(declared, state) for declared in game.declared.values()]
    if game.combat is not None:
        out.append(_combat(state))
    if state.characters:
        out.append(_sheets(state))
    return out


RULES = Rules(system=vocabulary.SYSTEM_ID, commands=COMMANDS, decide=decide, views=views,
              standing_views=standing_views)
"""This system's rules (see :mod:`poolhall.server.rules.contract`)."""
