"""Decisions on destiny, Force dice and free narrative pools.

The destiny pool (``shared/rules/README.md``): at the start of a game session every player
rolls one Force die; each light pip is a light side point, each dark pip a dark side point.
Players spend light side points (which turn dark), the GM spends dark side points (which turn
light); each side may spend at most one destiny point on a given check.

What a point does (``effect``), reading the quick reference's list:

- ``upgrade_ability``: "upgrade your own or an ally's roll" - a player's light point on the
  check of a player character (their own or an ally's); the GM's dark point on any check
  (the NPCs' own rolls);
- ``upgrade_difficulty``: "downgrade an opponent's roll" - the GM's dark point on any check (a
  player's, typically); a player's light point only on a check made against their character
  (its ``target``, or its opponent in an opposed check);
- ``attempt_impossible``: an Impossible check may be attempted, as Formidable, once a destiny
  point is spent on it (the GM allowed it by setting Impossible); until then a point of either
  side goes to that attempt only (:func:`_impossible_first`);
- ``other``: activating an ability, or anything else the GM allows; no dice change.

The pool is rolled in a game session, once: a second roll would let the GM roll again until
the sides suit them. The GM may set it (``set_destiny_pool``, in the log like the roll).

**Decision**: the GM may also record a light side point spent for a player (the GM may do
anything); a player never spends a dark side point.
"""

from __future__ import annotations

from poolhall.events import narrative as n
from poolhall.events.base import Event
from poolhall.events.errors import Rejected
from poolhall.projections.narrative import CheckState
from poolhall.projections.narrative_dice import SIDES, face_symbols, rolled_die, tally
from poolhall.projections.narrative_pool import Modification
from poolhall.server.rules.base import Decision
from poolhall.server.rules.narrative_checks import check_fits, game, open_check

__all__ = ["roll_destiny_pool", "set_destiny_pool", "flip", "roll_force", "roll_pool"]


def roll_destiny_pool(ctx: Decision, command: n.RollDestinyPool) -> list[Event]:
    """Every player at the table rolls one Force die; the pool is what came up."""
    ctx.require_gm("roll the destiny pool")
    session = ctx.state.session
    if not ctx.state.in_session:
        raise Rejected("rule", "every player rolls one Force die for the destiny pool at the "
                       "start of a game session: start one first (or set the pool)", "$.type")
    if game(ctx).destiny.session == session:
        raise Rejected("rule", f"the destiny pool was rolled for game session {session} "
                       "already: it is rolled once, at the start of each session (set the "
                       "pool if it must change)", "$.type")
    players = [m.member for m in ctx.state.members.values() if m.active and m.role == "player"]
    if not players:
        raise Rejected("rule", "every player rolls one Force die for the destiny pool, and "
                       "there is no player at the table", "$.type")
    if len(players) > 20:
        raise Rejected("invalid", "the destiny pool is rolled by at most 20 players", "$.type")
    dice = []
    for member in players:
        face = ctx.rng.randrange(SIDES["force"]) + 1
        dice.append(n.DestinyDie(member=member, face=face,
                                 symbols=face_symbols("force", face)))  # type: ignore[arg-type]
    light = sum(d.symbols.count("light") for d in dice)
    dark = sum(d.symbols.count("dark") for d in dice)
    return [n.DestinyPoolRolled(dice=tuple(dice), light=light, dark=dark, session=session)]


def set_destiny_pool(ctx: Decision, command: n.SetDestinyPool) -> list[Event]:
    """The GM sets the points directly."""
    ctx.require_gm("set the destiny pool")
    return [n.DestinyPoolSet(light=command.light, dark=command.dark, reason=command.reason)]


def _may_spend_on(ctx: Decision, check: CheckState, effect: str) -> None:
    """A player's light point: own or ally's check, or a check against their character."""
    if ctx.is_gm:
        return
    if effect == "upgrade_ability" and ctx.state.owner_of(check.character) is None:
        raise Rejected("forbidden", "a light side point upgrades your own or an ally's check, "
                       f"and {ctx.name_of(check.character)} is no player's character", "$.check")
    if effect == "upgrade_difficulty":
        against = {check.target, check.difficulty.opponent if check.difficulty else None}
        if not any(c is not None and ctx.plays(c) for c in against):
            raise Rejected("forbidden", "a light side point upgrades the difficulty only of a "
                           "check made against your character", "$.check")
    if effect == "attempt_impossible" and not ctx.plays(check.character):
        raise Rejected("forbidden", f"only the player of {ctx.name_of(check.character)} or the GM "
                       "attempts the impossible with it", "$.check")


def _impossible_first(check: CheckState, effect: str) -> None:
    """On an Impossible check not attempted yet, a point of either side goes to the attempt:
    spent on anything else it used up its side's one point on the check, and the players could
    never attempt it ("Only with the GM's permission and a destiny point spent"; "Each side may
    spend at most one destiny point on a given check")."""
    if (effect != "attempt_impossible" and check.difficulty is not None
            and check.difficulty.level == "impossible" and not check.impossible_allowed):
        raise Rejected("rule", f"{check.check!r} is Impossible: its destiny point goes to "
                       f"attempting it first (effect attempt_impossible, not {effect}): each "
                       "side spends one point at most on a check, and once attempted it is "
                       "rolled as Formidable", "$.effect")


def flip(ctx: Decision, command: n.FlipDestiny) -> list[Event]:
    """Spend a destiny point: it flips to the other side; an upgrade effect upgrades once."""
    ctx.require_participant("spend destiny points")
    if command.side == "dark" and not ctx.is_gm:
        raise Rejected("forbidden", "players spend light side points; the GM spends dark side "
                       "points", "$.side")
    destiny = game(ctx).destiny
    left = destiny.light if command.side == "light" else destiny.dark
    if left == 0:
        raise Rejected("rule", f"no {command.side} side destiny point left to spend (the pool "
                       f"holds {destiny.light} light, {destiny.dark} dark)", "$.side")
    check: CheckState | None = None
    if command.check is not None:
        check = open_check(ctx, command.check)
    elif command.effect != "other":
        raise Rejected("invalid", f"{command.effect.replace('_', ' ')} needs the check it is "
                       "spent on", "$.check")
    extra: list[Event] = []
    if check is not None:
        if command.side in check.destiny:
            raise Rejected("rule", "each side may spend at most one destiny point on a given "
                           f"check; the {command.side} side already did on {check.check!r}",
                           "$.side")
        _may_spend_on(ctx, check, command.effect)
        _impossible_first(check, command.effect)
        if command.effect == "attempt_impossible" and (
                check.difficulty is None or check.difficulty.level != "impossible"):
            raise Rejected("rule", "only an Impossible check needs a destiny point to be "
                           f"attempted; {check.check!r} is not Impossible", "$.effect")
        if command.effect.startswith("upgrade_"):
            side = "ability" if command.effect == "upgrade_ability" else "difficulty"
            label = ("GM destiny point" + (" (light side)" if command.side == "light" else "")
                     if ctx.is_gm else f"{ctx.actor.name}'s destiny point")
            mod = Modification(seq=ctx.state.head + 2, actor=ctx.actor.member, op="upgrade",
                               side=side, count=1, reason=label)
            check_fits(check, mod, "$.effect")
            extra.append(n.DiceUpgraded(check=check.check, side=side,  # type: ignore[arg-type]
                                        count=1, reason=label[:120]))
    light, dark = destiny.light, destiny.dark
    light, dark = (light - 1, dark + 1) if command.side == "light" else (light + 1, dark - 1)
    if max(light, dark) > n.MAX_DESTINY:
        raise Rejected("invalid", f"a destiny pool side holds at most {n.MAX_DESTINY} points",
                       "$.side")
    return [n.DestinyFlipped(side=command.side, effect=command.effect, check=command.check,
                             reason=command.reason, light=light, dark=dark), *extra]


def roll_force(ctx: Decision, command: n.RollForceDice) -> list[Event]:
    """Roll Force dice for a character's power."""
    ctx.require_acts_for(command.character)
    ctx.character(command.character)
    dice = tuple(rolled_die("force", ctx.rng.randrange(SIDES["force"]) + 1)
                 for _ in range(command.count))
    light = sum(d.symbols.count("light") for d in dice)
    dark = sum(d.symbols.count("dark") for d in dice)
    return [n.ForceDiceRolled(character=command.character, dice=dice, light=light, dark=dark,
                              reason=command.reason)]


def roll_pool(ctx: Decision, command: n.RollPool) -> list[Event]:
    """Roll a free pool, not tied to a check."""
    ctx.require_participant("roll")
    if command.character is not None:
        ctx.character(command.character)
        ctx.require_acts_for(command.character)
    total = command.pool.total
    if not 1 <= total <= n.MAX_FREE_DICE:
        raise Rejected("invalid", f"a free roll holds 1 to {n.MAX_FREE_DICE} dice, not {total}",
                       "$.pool")
    dice = tuple(rolled_die(kind, ctx.rng.randrange(SIDES[kind]) + 1)
                 for kind in n.DIE_KINDS for _ in range(command.pool.count(kind)))
    return [n.PoolRolled(character=command.character, pool=command.pool, dice=dice,
                         result=tally(dice), reason=command.reason)]
