"""Decisions on narrative checks: open, set the difficulty, modify the pool, roll, cancel.

Who may do what (**decision**, also in docs/narrative.md):

- the GM may do anything, and alone sets the difficulty;
- the player of a check's character opens, rolls and cancels it, adds Boost and Setback dice
  (pointing out an advantage or an honest disadvantage, as the rules ask players to), and
  changes their own side: adds Ability dice, upgrades, downgrades and removes Ability-side
  dice; the rest of the difficulty side (adding, upgrading, downgrading or removing
  Difficulty, Challenge and Setback dice, a talent's removal of Setback included) is the GM's,
  the final arbiter of the pool;
- other players change someone else's check only by spending destiny (see
  :mod:`poolhall.server.rules.narrative_destiny`); spectators only watch.
"""

from __future__ import annotations

import msgspec

from poolhall.events import narrative as n
from poolhall.events.base import Event
from poolhall.events.errors import Rejected
from poolhall.events.suggest import did_you_mean
from poolhall.projections.narrative import CheckState, Difficulty, GameState
from poolhall.projections.narrative_dice import SIDES, rolled_die, tally
from poolhall.projections.narrative_pool import Modification, skill_dice
from poolhall.server.rules.base import Decision, no_such

__all__ = ["MAX_MODIFICATIONS", "MAX_OPEN_CHECKS", "MAX_OPEN_CHECKS_PER_PLAYER",
           "MAX_OPEN_CHECKS_PLAYERS", "SECRET_PREFIX", "game", "open_check", "resolve_skill",
           "check_fits", "open_", "set_difficulty", "modify", "roll", "cancel"]

MAX_OPEN_CHECKS = 50
"""Public checks a campaign may have open at once (the GM's secret checks count apart, as
private rolls: :data:`poolhall.projections.privacy.MAX_PENDING`)."""
MAX_OPEN_CHECKS_PLAYERS = 40
"""Of those, the ones players opened, together: the last 10 are the GM's, so that no player,
nor all of them, can leave the GM unable to open a check (one player once opened all 50, and
the GM's next check was refused), as the private rolls keep the GM room
(:mod:`poolhall.server.rules.privacy`)."""
MAX_OPEN_CHECKS_PER_PLAYER = 20
"""The open checks one player opened: one player cannot take the other players' share. An
honest player has a few open at once: a check is built and rolled in a minute."""
MAX_MODIFICATIONS = 40


def game(ctx: Decision) -> GameState:
    """This system's part of the campaign state."""
    return ctx.game(GameState)


SECRET_PREFIX = "secret-"
"""The ids of the GM's secret checks, ``secret-<the seq it was opened at>``; no other check
may take one."""


def open_check(ctx: Decision, check_id: str, path: str = "$.check") -> CheckState:
    """The open check ``check_id``, or the refusal that says why not."""
    check = game(ctx).checks.get(check_id)
    if check is None:
        raise no_such("check", check_id, path)
    if not check.is_open:
        raise Rejected("conflict", f"check {check_id!r} was already {check.status}", path)
    return check


def resolve_skill(stats: n.NarrativeStats, who: str, skill: str, characteristic: str | None,
                  path: str) -> tuple[str, str, int, int]:
    """``(skill name, characteristic, its value, rank)``; an unknown skill is untrained and
    needs ``characteristic`` (refused at ``path`` otherwise)."""
    found = stats.skill(skill)
    if found is None and characteristic is None:
        raise Rejected("invalid", f"{who} has no skill {skill!r}: name the characteristic "
                       "for an untrained check" + did_you_mean(skill, stats.skills), path)
    name, rank = (found[0], found[1].rank) if found else (skill, 0)
    linked = characteristic or (found[1].characteristic if found else "")
    return name, linked, stats.characteristic(linked), rank


def check_fits(check: CheckState, mod: Modification, path: str) -> None:
    """Refuse a modification that would take the pool past :data:`MAX_POOL_DICE`."""
    if len(check.modifications) >= MAX_MODIFICATIONS:
        raise Rejected("invalid", f"a check takes at most {MAX_MODIFICATIONS} modifications",
                       "$.check")
    probe = msgspec.structs.replace(check, modifications=[*check.modifications, mod])
    if probe.effective().pool.total > n.MAX_POOL_DICE:
        raise Rejected("invalid", f"a check's pool holds at most {n.MAX_POOL_DICE} dice", path)


def _generated_id(character: str, number: int) -> str:
    """The id of a check opened without one: ``<character>-<number>``, or
    ``check-<character>-<number>`` for a character whose id would make it look like a GM's
    secret check's (``secret-1``): skipping the GM's hidden ``secret-6`` told the player it
    was there."""
    generated = f"{character[:32]}-{number}"
    return f"check-{generated}" if generated.startswith(SECRET_PREFIX) else generated


def open_(ctx: Decision, command: n.OpenCheck) -> list[Event]:
    """Open a check for a character's skill; the base pool comes from its stats now."""
    ctx.require_acts_for(command.character)
    stats = ctx.stats(command.character, n.NarrativeStats)
    state = game(ctx)
    check_id = command.check
    if check_id is not None and command.visibility != "public":
        raise Rejected("invalid", "a secret check is named by the server (secret-<number>): a "
                       "name the GM chose could be found by a player trying names; leave out "
                       "the check's id", "$.check")
    if check_id is not None and check_id.startswith(SECRET_PREFIX):
        raise Rejected("invalid", f"ids starting with {SECRET_PREFIX!r} are the GM's secret "
                       "checks'; choose another", "$.check")
    if check_id is None and command.visibility != "public":  # named by nothing the table
        number = ctx.state.head + 1  # sees of it: not its character (projections.privacy)
        while (check_id := f"{SECRET_PREFIX}{number}") in state.checks:
            number += 1
    if check_id is None:  # never a secret check's id, so none is skipped for one
        number = state.opened.get(command.character, 0) + 1
        while (check_id := _generated_id(command.character, number)) in state.checks:
            number += 1
    elif check_id in state.checks:
        raise Rejected("conflict", f"a check {check_id!r} exists; choose another id", "$.check")
    if command.visibility == "public":
        _require_room(ctx, state)
    if command.target is not None:
        ctx.character(command.target, "$.target")
    skill, characteristic, value, rank = resolve_skill(
        stats, ctx.name_of(command.character), command.skill, command.characteristic,
        "$.characteristic")
    ability, proficiency = skill_dice(value, rank)
    assert check_id is not None  # chosen, or generated by the loop above
    return [n.CheckOpened(
        check=check_id, character=command.character, skill=skill,
        characteristic=characteristic, characteristic_value=value,  # type: ignore[arg-type]
        rank=rank, ability=ability, proficiency=proficiency, target=command.target,
        reason=command.reason)]


def _require_room(ctx: Decision, state: GameState) -> None:
    """Refuse a public check past the bounds of those open: the campaign's, this player's and
    the players' together (the GM keeps room of their own, whatever the players open).

    Secret checks count apart (at most MAX_PENDING private rolls wait): counted here, the
    refusal told a player how many the GM had open. A check counts as its opener's: the
    GM's for a player's character is the GM's, a removed player's still the players'."""
    public = [c for c in state.open_checks() if f"check:{c.check}" not in ctx.state.private]
    if len(public) >= MAX_OPEN_CHECKS:
        raise Rejected("invalid", f"at most {MAX_OPEN_CHECKS} checks may be open at once: "
                       "roll or cancel one first", "$.type")
    if ctx.is_gm:
        return
    own = sum(1 for c in public if c.opened_by == ctx.actor.member)
    if own >= MAX_OPEN_CHECKS_PER_PLAYER:
        raise Rejected("rule", f"{own} checks you opened are open, the most one player may "
                       "have at once: roll or cancel one of them first", "$.type")
    members = ctx.state.members
    players = sum(1 for c in public
                  if (opener := members.get(c.opened_by)) is not None and opener.role != "gm")
    if players >= MAX_OPEN_CHECKS_PLAYERS:
        raise Rejected("rule", f"the players have {players} checks open, the most they may "
                       "have together (the rest are the GM's): roll or cancel one first, or "
                       "ask the GM to", "$.type")


def set_difficulty(ctx: Decision, command: n.SetDifficulty) -> list[Event]:
    """The GM sets the difficulty once: a level, or built from an opponent's stats."""
    ctx.require_gm("set a check's difficulty")
    check = open_check(ctx, command.check)
    if check.difficulty is not None:
        raise Rejected("rule", "the GM sets the difficulty level of the task once, prior to "
                       f"the roll: {check.check!r} is already {check.difficulty.level}",
                       "$.level")
    if command.opponent is None:
        if command.level is None or command.level == "opposed":
            path = "$.opponent" if command.level == "opposed" else "$.level"
            raise Rejected("invalid", "give a level (simple to formidable, or impossible) or "
                           "an opponent and their skill", path)
        if command.level == "impossible" and f"check:{check.check}" in ctx.state.private:
            # the attempt needs a point flipped for it, and a point flipped for a secret check
            # is refused (it would show the table which check it was): never rollable
            raise Rejected("rule", f"{check.check!r} is a secret check, and an Impossible "
                           "check is attempted only with a destiny point flipped for it, which "
                           "would show the table which check it was: it could never be "
                           "rolled; set formidable, or open the check in the open to make it "
                           "Impossible", "$.level")
        if command.level == "impossible" and {"light", "dark"} <= set(check.destiny):
            # attempted only with a point spent, and neither side has one left to spend on it
            raise Rejected("rule", f"both sides already spent their destiny point on "
                           f"{check.check!r}: an Impossible check is attempted only with a "
                           "destiny point spent on it, and each side spends one at most on a "
                           "check; cancel it and open it again to make it Impossible", "$.level")
        return [_fitting(check, n.DifficultySet(
            check=check.check, level=command.level, difficulty=n.DIFFICULTY_DICE[command.level],
            reason=command.reason), "$.level")]
    if command.level not in (None, "opposed"):
        raise Rejected("invalid", "an opposed check takes its difficulty from the opponent, "
                       "not a level", "$.level")
    if command.opponent_skill is None or not command.opponent_skill.strip():  # the page sends ""
        raise Rejected("invalid", "the opponent's skill is missing: name the skill they oppose "
                       "the check with", "$.opponent_skill")
    stats = ctx.stats(command.opponent, n.NarrativeStats, "$.opponent")
    skill, characteristic, value, rank = resolve_skill(
        stats, ctx.name_of(command.opponent), command.opponent_skill,
        command.opponent_characteristic, "$.opponent_characteristic")
    difficulty, challenge = skill_dice(value, rank)
    return [_fitting(check, n.DifficultySet(
        check=check.check, level="opposed", difficulty=difficulty, challenge=challenge,
        opponent=command.opponent, opponent_skill=skill,
        opponent_characteristic=characteristic,  # type: ignore[arg-type]
        opponent_value=value, opponent_rank=rank, reason=command.reason), "$.opponent")]


def _fitting(check: CheckState, event: n.DifficultySet, path: str) -> n.DifficultySet:
    """The difficulty, if the pool it completes stays within :data:`MAX_POOL_DICE`."""
    probe = msgspec.structs.replace(check, difficulty=Difficulty(
        level=event.level, difficulty=event.difficulty, challenge=event.challenge))
    total = probe.effective().pool.total
    if total > n.MAX_POOL_DICE:
        raise Rejected("invalid", f"a check's pool holds at most {n.MAX_POOL_DICE} dice; this "
                       f"difficulty would make it {total}", path)
    return event


_OPS: dict[type, str] = {n.AddDice: "add", n.UpgradeDice: "upgrade",
                         n.DowngradeDice: "downgrade", n.RemoveDice: "remove"}


def _may_modify(ctx: Decision, check: CheckState, op: str, side: str, kind: str | None) -> None:
    ctx.require_participant("change a check")
    if ctx.is_gm:
        return
    if not ctx.plays(check.character):
        raise Rejected("forbidden", f"you do not play {ctx.name_of(check.character)}, whose check "
                       f"{check.check!r} is; spend a destiny point to help an ally", "$.check")
    if side == "ability" or (op == "add" and kind == "setback"):
        return
    path = "$.kind" if kind else "$.side"
    raise Rejected("forbidden", "the difficulty side is the GM's: a player adds Boost or "
                   "Setback dice and changes their own side", path)


def modify(ctx: Decision, command: n.AddDice | n.UpgradeDice | n.DowngradeDice | n.RemoveDice
           ) -> list[Event]:
    """Add, upgrade, downgrade or remove dice; recorded now, applied in rulebook order."""
    check = open_check(ctx, command.check)
    op = _OPS[type(command)]
    kind = getattr(command, "kind", None)
    side = n.side_of(kind) if kind else command.side  # type: ignore[union-attr]
    _may_modify(ctx, check, op, side, kind)
    mod = Modification(seq=ctx.state.head + 1, actor=ctx.actor.member, op=op, side=side,
                       count=command.count, kind=kind, reason=command.reason)
    check_fits(check, mod, "$.count")
    match command:
        case n.AddDice():
            return [n.DiceAdded(check=check.check, kind=command.kind, count=command.count,
                                side=side, reason=command.reason)]
        case n.RemoveDice():
            return [n.DiceRemoved(check=check.check, kind=command.kind, count=command.count,
                                  side=side, reason=command.reason)]
        case n.UpgradeDice():
            return [n.DiceUpgraded(check=check.check, side=command.side, count=command.count,
                                   reason=command.reason)]
    return [n.DiceDowngraded(check=check.check, side=command.side, count=command.count,
                             reason=command.reason)]


def roll(ctx: Decision, command: n.RollCheck) -> list[Event]:
    """Roll the effective pool: each die's face from ``ctx.rng``, then the cancelled result."""
    check = open_check(ctx, command.check)
    ctx.require_participant("roll")
    if not ctx.plays(check.character):
        raise Rejected("forbidden", f"only the player of {ctx.name_of(check.character)} or the"
                       f" GM rolls {check.check!r}", "$.check")
    if check.difficulty is None:
        raise Rejected("rule", "the GM sets the difficulty level of the task prior to the "
                       "roll (simple for no difficulty dice)", "$.check")
    if check.difficulty.level == "impossible" and not check.impossible_allowed:
        raise Rejected("rule", "an impossible task is attempted only with the GM's permission "
                       "and a destiny point spent; then it is rolled as Formidable", "$.check")
    built = check.effective()
    dice = tuple(rolled_die(die.kind, ctx.rng.randrange(SIDES[die.kind]) + 1)
                 for die in built.dice)
    return [n.CheckRolled(check=check.check, character=check.character, pool=built.pool,
                          dice=dice, result=tally(dice))]


def cancel(ctx: Decision, command: n.CancelCheck) -> list[Event]:
    """Withdraw an open check (the player of its character, or the GM)."""
    check = open_check(ctx, command.check)
    ctx.require_acts_for(check.character, "$.check")
    return [n.CheckCancelled(check=check.check, reason=command.reason)]
