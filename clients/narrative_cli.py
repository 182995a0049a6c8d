"""``poolhall`` subcommands of the narrative system: exact odds offline, checks, destiny.

::

    poolhall odds "yyg vs pp" [--exact] [--joint] [--json]     no server needed
    poolhall narrative open CAMPAIGN [han] "Ranged (Light)" --id shot --reason "at the guard"
    poolhall narrative open CAMPAIGN vader Perception --visibility gm   GM: a secret check
    poolhall narrative difficulty CAMPAIGN shot hard            GM: a level ...
    poolhall narrative difficulty CAMPAIGN duel --opposed vader:Discipline   ... or opposed
    poolhall narrative add CAMPAIGN shot boost --reason aiming  [COUNT]
    poolhall narrative upgrade CAMPAIGN shot ability 2 --reason "talent"
    poolhall narrative downgrade|remove CAMPAIGN shot ...
    poolhall narrative checks CAMPAIGN [--all]                  pools, provenance, live odds
    poolhall narrative roll CAMPAIGN shot
    poolhall narrative cancel CAMPAIGN shot --reason "he ducked"
    poolhall narrative destiny CAMPAIGN [--roll | --set LIGHT DARK]
    poolhall narrative flip CAMPAIGN light upgrade_ability --check shot --reason "heroic"
    poolhall narrative force CAMPAIGN luke 2 --reason "Move"

The encounter and the spending of results: :mod:`poolhall.clients.narrative_encounter_cli`.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from types import ModuleType
from typing import TYPE_CHECKING, Any

from poolhall.clients.cli_support import lines, styled
from poolhall.clients.cli_visibility import add_visibility_option
from poolhall.clients.contract import CliHooks, TableHooks, deferred
from poolhall.clients.narrative_actions import action_parser, send_as
from poolhall.clients.narrative_encounter_cli import add_encounter_commands
from poolhall.clients.percent import percent
from poolhall.events.plural import plural

if TYPE_CHECKING:
    from rich.text import Text

    from poolhall.events.narrative_notation import DiceCounts
    from poolhall.projections.narrative import CheckState, GameState


__all__ = ["CLI", "MODIFIERS", "add_commands", "odds_data"]


def odds_data(pool: DiceCounts, with_exact: bool = False, joint: bool = False
              ) -> dict[str, Any]:
    """The odds of a pool as plain data (what ``poolhall odds --json`` prints): computed on
    plain counts, with neither msgspec nor the events imported."""
    from poolhall.projections.narrative_odds import distribution, exact, summary_fields

    data: dict[str, Any] = {"odds": summary_fields(pool)}
    dist = distribution(pool)
    if with_exact:
        means = dist.means()
        data["exact"] = {
            "outcomes": str(dist.total),
            "p_success": exact(dist.p_success()),
            "p_advantage": {k: exact(dist.p_advantage_at_least(k)) for k in (1, 2, 3)},
            "p_triumph": exact(dist.p_triumph()),
            "p_despair": exact(dist.p_despair()),
            "means": dict(zip(("successes", "advantages", "triumphs", "despairs"),
                              map(exact, means), strict=True)),
            "net_successes": {s: exact(Fraction(c, dist.total))
                              for s, c in sorted(dist.success_counts().items())},
        }
    if joint:
        data["joint"] = {"outcomes": str(dist.total), "counts": [
            [s, a, tr, de, str(c)] for (s, a, tr, de), c in sorted(dist.joint().items())]}
    return data


def _odds_text(pool: DiceCounts, data: dict[str, Any]) -> Any:
    from rich.console import Group
    from rich.table import Table

    odds = data["odds"]
    exacts = data.get("exact", {})
    head = Table(title=f"{odds['pool']}: {plural('die', odds['dice'], 'dice')}",
                 show_header=False)
    head.add_column("what")
    head.add_column("P", justify="right")
    if exacts:
        head.add_column("exact")

    def row(what: str, p: float, fraction: str = "") -> None:
        head.add_row(what, percent(p), *([fraction] if exacts else []))

    row("succeeds (net success >= 1)", odds["p_success"], exacts.get("p_success", ""))
    for k, p in odds["p_advantage"].items():
        row(f"net advantage >= {k}", p, exacts.get("p_advantage", {}).get(k, ""))
    row("net threat >= 1", odds["p_threat"])
    row("at least one triumph", odds["p_triumph"], exacts.get("p_triumph", ""))
    row("at least one despair", odds["p_despair"], exacts.get("p_despair", ""))
    means = (f"means: {odds['mean_successes']:+.3f} net successes, "
             f"{odds['mean_advantages']:+.3f} net advantage, {odds['mean_triumphs']:.3f} "
             f"triumphs, {odds['mean_despairs']:.3f} despairs")
    if pool.count("force"):
        means += (f"\nforce dice (not in the success odds): {odds['mean_light']:.3f} light, "
                  f"{odds['mean_dark']:.3f} dark pips on average")
    spread = Table(title="net successes (negative: net failures)")
    spread.add_column("net", justify="right")
    spread.add_column("P(=)", justify="right")
    spread.add_column("P(>=)", justify="right")
    at_least = 1.0
    for value, p in odds["net_successes"].items():
        spread.add_row(f"{value:+d}", percent(p), percent(at_least))
        at_least -= p
    return Group(head, means, spread)


def _odds(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events.errors import NotationError
    from poolhall.events.narrative_notation import MAX_FREE_DICE, read_pool

    try:  # plain counts, as events.narrative.parse_pool reads them before making its Pool
        pool = read_pool(" ".join(args.pool), MAX_FREE_DICE)
    except NotationError as error:
        raise common.CliError(f"cannot read {' '.join(args.pool)!r}: {error.message}") from None
    if pool is None:
        raise common.CliError("write a pool with colour letters y g p r b k w and counts, "
                              'e.g. "2y1g vs 2p1r 1b" (or the dice by name)')
    data = odds_data(pool, args.exact, args.joint)
    common.emit(args, data, _odds_text(pool, data))
    return int(common.EXIT_OK)


def _opposed(text: str) -> tuple[str, str]:
    opponent, _, skill = text.partition(":")
    if not opponent or not skill:
        raise argparse.ArgumentTypeError("write OPPONENT:SKILL, e.g. vader:Discipline")
    return opponent, skill


async def _difficulty(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import narrative as n

    if (args.level is None) == (args.opposed is None):
        raise common.CliError("give a LEVEL or --opposed OPPONENT:SKILL")
    fields: dict[str, Any] = {"check": args.check, "reason": args.reason or ""}
    if args.opposed:
        fields |= {"opponent": args.opposed[0], "opponent_skill": args.opposed[1],
                   "opponent_characteristic": args.characteristic}
    else:
        fields["level"] = args.level
    return await send_as(args, common, n.SetDifficulty, **fields)


async def _game(args: argparse.Namespace, common: ModuleType) -> GameState:
    # --all shows every closed check: the whole log; else the table's snapshot is enough
    from poolhall.projections.narrative import GameState

    game = (await common.fetch_state(args, args.campaign,
                                     whole=getattr(args, "all", False))).game
    if not isinstance(game, GameState):
        raise common.CliError(f"{args.campaign} does not play narrative dice")
    return game


def _check_text(check: CheckState) -> Text:
    from poolhall.projections.narrative_dice import cancel_text
    from poolhall.projections.narrative_odds import summary

    built = check.effective()
    level = check.difficulty.level if check.difficulty else "no difficulty yet"
    shown: list[str | Text] = [styled(
        "[bold]{}[/bold] {}'s {}, {}, {}: [bold]{}[/bold]", check.check, check.character,
        check.skill, level, check.status, (check.pool or built.pool).notation())]
    if check.result is not None:
        verdict = "success" if check.result.succeeded else "failure"
        shown.append(f"  result: {cancel_text(check.result)}: {verdict}")
    elif built.pool.total <= 20:
        odds = summary(built.pool)
        shown.append(f"  odds: success {percent(odds.p_success)}, advantage "
                     f"{percent(odds.p_advantage[1])}, triumph "
                     f"{percent(odds.p_triumph)}, despair "
                     f"{percent(odds.p_despair)}")
    if check.is_open:
        shown += [f"  {die.kind:<11} {' / '.join(die.notes)}" for die in built.dice]
        shown += [styled("  [dim]{}[/dim]", note) for note in built.ignored]
    return lines(*shown)


async def _checks(args: argparse.Namespace, common: ModuleType) -> int:
    game = await _game(args, common)
    checks = [c for c in game.checks.values() if args.all or c.is_open]
    data = {"checks": [common.to_plain(c) | {"effective": common.to_plain(c.effective().pool)}
                       for c in checks]}
    common.emit(args, data, lines(*(_check_text(c) for c in checks)) if checks
                else "no open check")
    return int(common.EXIT_OK)


async def _destiny(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import narrative as n

    if args.roll:
        return await send_as(args, common, n.RollDestinyPool)
    if args.set is not None:
        return await send_as(args, common, n.SetDestinyPool, light=args.set[0], dark=args.set[1],
                           reason=args.reason or "")
    destiny = (await _game(args, common)).destiny
    common.emit(args, common.to_plain(destiny),
                common.styled("destiny pool: [bold]{}[/bold] light side, [bold]{}[/bold] dark "
                              "side", destiny.light, destiny.dark))
    return int(common.EXIT_OK)


MODIFIERS = (
    ("add", "AddDice", "kind", ("ability", "difficulty", "boost", "setback")),
    ("remove", "RemoveDice", "kind", ("ability", "difficulty", "boost", "setback")),
    ("upgrade", "UpgradeDice", "side", ("ability", "difficulty")),
    ("downgrade", "DowngradeDice", "side", ("ability", "difficulty")),
)
"""``narrative ACTION``s that change a check's dice: the command type each sends (named, so that
building the parser imports no event), the field its die kind or side goes in, and the choices
(a test holds each to :mod:`poolhall.events.narrative`)."""


def _modifier(actions: Any, common: ModuleType, name: str, command: str, field: str,
              what: str, choices: tuple[str, ...]) -> None:
    """``narrative NAME CAMPAIGN CHECK FIELD [COUNT]``: sends the narrative ``command`` (its
    type named, imported when sent: building the parser imports no message type)."""

    async def handler(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative as n

        return await send_as(args, common, getattr(n, command), check=args.check,
                             count=args.count, reason=args.reason or "",
                             **{field: getattr(args, field)})

    parser = action_parser(actions, common, name, f"{what} dice of a check", handler)
    parser.add_argument("check")
    parser.add_argument(field, choices=choices)
    parser.add_argument("count", type=int, nargs="?", default=1, help="how many (default 1)")
    parser.add_argument("--reason", help="why, in a few words (shown beside each die)")


def add_commands(subparsers: Any, common: ModuleType) -> None:
    """Add ``odds`` and ``narrative ...`` to the ``poolhall`` CLI.

    Its vocabulary comes from :mod:`poolhall.events.narrative_notation` (plain data), and each
    handler imports the events it sends: ``poolhall odds`` builds this parser, and imports
    neither msgspec nor an event type (``tests/clients/test_cli_start.py``).
    """
    from poolhall.events.narrative_notation import CHARACTERISTICS, DIFFICULTY_DICE

    odds = subparsers.add_parser("odds", help='exact odds of a narrative pool: "yyg vs pp"')
    odds.add_argument("pool", nargs="+", help="colour letters y g p r b k w with counts")
    odds.add_argument("--exact", action="store_true", help="also print exact fractions")
    odds.add_argument("--joint", action="store_true",
                      help="with --json: the whole joint distribution (s, a, tr, de, count)")
    common.add_json_option(odds)
    odds.set_defaults(handler=lambda args: _odds(args, common))

    group = subparsers.add_parser("narrative", help="narrative dice: checks, destiny, Force")
    actions = group.add_subparsers(dest="action", required=True, metavar="ACTION")

    async def open_(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative as n

        character = await common.character_for(args, args.campaign, args.character)
        return await send_as(args, common, n.OpenCheck, character=character,
                           skill=args.skill, check=args.id,
                           characteristic=args.characteristic, target=args.target,
                           reason=args.reason or "", visibility=args.visibility)

    parser = action_parser(actions, common, "open", "open a check for a character's skill", open_)
    parser.add_argument("character", nargs="?", help="whose (default: the one you play)")
    parser.add_argument("skill", help='e.g. "Ranged (Light)"')
    parser.add_argument("--id", help="the check's id (default: CHARACTER-N)")
    parser.add_argument("--characteristic", choices=CHARACTERISTICS,
                        help="instead of the skill's linked one (needed when untrained)")
    parser.add_argument("--target", help="the character the check is against")
    parser.add_argument("--reason")
    add_visibility_option(parser, gm_only=True)

    parser = action_parser(actions, common, "difficulty", "GM: set a check's difficulty",
                     _difficulty)
    parser.add_argument("check")
    parser.add_argument("level", nargs="?", choices=tuple(DIFFICULTY_DICE))
    parser.add_argument("--opposed", type=_opposed, metavar="OPPONENT:SKILL")
    parser.add_argument("--characteristic", choices=CHARACTERISTICS,
                        help="the opponent's, when their skill is untrained")
    parser.add_argument("--reason")

    for name, command, field, choices in MODIFIERS:
        _modifier(actions, common, name, command, field, name, choices)

    async def roll(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative as n

        return await send_as(args, common, n.RollCheck, check=args.check)

    action_parser(actions, common, "roll", "roll an open check", roll).add_argument("check")

    async def cancel(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative as n

        return await send_as(args, common, n.CancelCheck, check=args.check,
                           reason=args.reason or "")

    parser = action_parser(actions, common, "cancel", "withdraw an open check", cancel)
    parser.add_argument("check")
    parser.add_argument("--reason")

    parser = action_parser(actions, common, "checks", "checks with pools, provenance and odds",
                     _checks)
    parser.add_argument("--all", action="store_true", help="rolled and cancelled ones too")

    parser = action_parser(actions, common, "destiny", "the destiny pool; GM: --roll or --set",
                     _destiny)
    either = parser.add_mutually_exclusive_group()
    either.add_argument("--roll", action="store_true", help="GM: every player rolls a Force die")
    either.add_argument("--set", type=int, nargs=2, metavar=("LIGHT", "DARK"),
                        help="GM: set the pool to LIGHT light side and DARK dark side points")
    parser.add_argument("--reason")

    async def flip(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative as n

        return await send_as(args, common, n.FlipDestiny, side=args.side, effect=args.effect,
                           check=args.check, reason=args.reason or "")

    parser = action_parser(actions, common, "flip", "spend a destiny point", flip)
    parser.add_argument("side", choices=("light", "dark"))
    parser.add_argument("effect", choices=("upgrade_ability", "upgrade_difficulty",
                                           "attempt_impossible", "other"))
    parser.add_argument("--check")
    parser.add_argument("--reason")

    async def force(args: argparse.Namespace, common: ModuleType) -> int:
        from poolhall.events import narrative as n

        character = await common.character_for(args, args.campaign, args.character)
        return await send_as(args, common, n.RollForceDice, character=character,
                           count=args.count, reason=args.reason or "")

    parser = action_parser(actions, common, "force", "roll Force dice for a power", force)
    parser.add_argument("character", nargs="?", help="whose (default: the one you play)")
    parser.add_argument("count", type=int, help="Force rating: dice to roll")
    parser.add_argument("--reason", help="the power")
    add_encounter_commands(actions, common)


CLI = CliHooks(system="narrative", add_commands=add_commands, table=TableHooks(
    table_parts=deferred("poolhall.clients.narrative_table", "table_parts"),
    character_line=deferred("poolhall.clients.narrative_table", "character_line"),
    sheet_parts=deferred("poolhall.clients.narrative_table", "sheet_parts"),
    view_line=deferred("poolhall.clients.narrative_table", "view_line")))
"""This system's command-line hooks (see :mod:`poolhall.clients.contract`)."""
