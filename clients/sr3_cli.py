"""``poolhall`` subcommands of the sr3 system: exact odds offline, Combat Turns, tests, Karma.

::

    poolhall sr3-odds 5 --tn 6 --pool 4         P(successes) for 5 dice plus 0..4 pool dice
    poolhall sr3-odds 3 --open --pool 2         the open test's highest total
    poolhall sr3 start CAMPAIGN [CHARACTER ...] GM: combat starts, pools full, initiative
    poolhall sr3 pass CAMPAIGN                  GM: next pass (or the next Combat Turn)
    poolhall sr3 end CAMPAIGN                   GM: the combat is over
    poolhall sr3 declare CAMPAIGN sam "pistols tn4 combat"      the table sees the odds
    poolhall sr3 test CAMPAIGN sam "pistols tn4 +3cp combat"    roll it
    poolhall sr3 test CAMPAIGN "pistols tn4 +3cp"   the player's one character; a Combat
                                                Skill makes it a combat test
    poolhall sr3 karma CAMPAIGN sam 1           reroll test 1's failures with Karma Pool
    poolhall sr3 scene CAMPAIGN                 GM: end the scene, Karma Pool comes back
    poolhall sr3 sheet CAMPAIGN [CHARACTER]     pools with their formulas, Karma Pool
    poolhall sr3 combat CAMPAIGN                turn, pass, order, pools full and left
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from types import ModuleType
from typing import TYPE_CHECKING, Any

from poolhall.clients.contract import CliHooks, TableHooks, deferred
from poolhall.events.plural import plural

if TYPE_CHECKING:
    from poolhall.events import sr3


__all__ = ["CLI", "add_commands"]


def _percent(p: float | Fraction) -> str:
    """A chance to two decimals by the terminal's one rule (:mod:`poolhall.clients.percent`,
    the page's): one too small for them reads ``< 0.01%`` (it printed ``0.00%``, as if it could
    not happen), one too close to certain ``> 99.99%``."""
    from poolhall.clients.percent import percent

    return percent(p)


def _odds(args: argparse.Namespace, common: ModuleType) -> int:
    from rich.table import Table

    _check_odds_args(args, common)
    counts = [args.dice + extra for extra in range(args.pool + 1) if args.dice + extra > 0]
    if args.open:
        return _open_odds(args, common, counts)
    rows: list[dict[str, Any]] = []
    table = Table(title=f"{plural('die', args.dice, 'dice')} + 0..{args.pool} pool dice at TN "
                        f"{args.tn} (Rule of Six)")
    for column in ("dice", "P(>=1)", "mean", "P(>=2)", "P(>=3)", "P(>=4)", "all ones"):
        table.add_column(column, justify="right")
    if args.beat is not None:
        table.add_column(f"P(>{args.beat})", justify="right")
    for dice in counts:
        row, cells = _odds_row(args, dice)
        table.add_row(*cells)
        rows.append(row)
    common.emit(args, {"tn": args.tn, "rows": rows}, table)
    return int(common.EXIT_OK)


def _check_odds_args(args: argparse.Namespace, common: ModuleType) -> None:
    """Refuse dice a test cannot roll, and a test with neither a TN nor ``--open``."""
    from poolhall.events import sr3_dice as sr3  # not events.sr3: sr3-odds needs no msgspec

    if not 0 <= args.dice <= sr3.MAX_TEST_DICE or not 0 <= args.pool <= sr3.MAX_TEST_DICE:
        raise common.CliError(f"dice and --pool are 0 to {sr3.MAX_TEST_DICE}")
    if args.dice + args.pool < 1 or args.dice + args.pool > sr3.MAX_TEST_DICE:
        raise common.CliError(f"a test rolls 1 to {sr3.MAX_TEST_DICE} dice")
    if args.tn is None and not args.open:
        raise common.CliError("give --tn N (2 or more) or --open")
    if args.tn is not None and not 2 <= args.tn <= 100:
        raise common.CliError("the target number is 2 to 100")


def _odds_row(args: argparse.Namespace, dice: int) -> tuple[dict[str, Any], list[str]]:
    """The odds of ``dice`` dice at the TN: the row ``--json`` prints, and the table's cells."""
    from poolhall.projections.sr3_odds import at_least, rule_of_one, success_distribution
    from poolhall.projections.sr3_odds import mean as expected

    dist = success_distribution(dice, args.tn)
    cumulative = at_least(dist)
    mean = float(expected(dist))
    row: dict[str, Any] = {"dice": dice, "distribution": [float(p) for p in dist],
                           "at_least": [float(p) for p in cumulative], "mean": mean,
                           "rule_of_one": float(rule_of_one(dice))}
    if args.exact:
        row["exact"] = [str(p) for p in dist]
    cells = [str(dice)] + [_percent(cumulative[1])] + [f"{mean:.2f}"] + [
        _percent(cumulative[k]) if k <= dice else "-" for k in (2, 3, 4)] + [
        f"{float(rule_of_one(dice)):.2e}"]
    if args.beat is not None:
        beats = cumulative[args.beat + 1] if args.beat + 1 <= dice else Fraction(0)
        row["beats"] = float(beats)
        cells.append(_percent(beats))
    return row, cells


def _open_odds(args: argparse.Namespace, common: ModuleType, counts: list[int]) -> int:
    from rich.table import Table

    from poolhall.projections.sr3_odds import open_distribution

    table = Table(title=f"open test: P(highest >= t) for {plural('die', args.dice, 'dice')} "
                        f"+ 0..{args.pool}")
    table.add_column("t", justify="right")
    for dice in counts:
        table.add_column(plural("die", dice, "dice"), justify="right")
    rows: dict[str, Any] = {}
    tails: dict[int, list[Fraction]] = {}
    for dice in counts:
        exact, tail = open_distribution(dice)
        rows[str(dice)] = {str(t): float(p) for t, p in enumerate(exact) if p}
        rows[str(dice)]["above_18"] = float(tail)
        running, above = tail, []  # exact: a float sum can pass 1, which is no chance
        for p in reversed(exact):
            running += p
            above.append(running)
        tails[dice] = above[::-1]
    for t in range(1, 19):
        if t % 6:
            table.add_row(str(t), *(_percent(tails[d][t]) for d in counts))
    common.emit(args, {"open": True, "highest": rows}, table)
    return int(common.EXIT_OK)


async def _parse(args: argparse.Namespace, common: ModuleType) -> sr3.RollPoolTest:
    """The test as typed, for the character named or the one the player plays; a test on a
    Combat Skill with no kind given is a combat test (an offensive Combat Skill Test, which
    the Combat Pool helps)."""
    import msgspec

    from poolhall.events import sr3
    from poolhall.events.errors import NotationError

    try:
        command = sr3.parse_roll(args.notation, args.character or "someone")
    except NotationError as error:
        raise common.CliError(f"cannot read {args.notation!r}: {error.message}") from None
    if not isinstance(command, sr3.RollPoolTest):
        raise common.CliError(f"cannot read {args.notation!r}: write e.g. \"6d6 tn5\", "
                              "\"4d6 open\" or \"pistols tn4 +3cp combat\"")
    character = args.character
    if character is None or (command.skill is not None and command.kind == "other"):
        client = await common.fetch_table(args, args.campaign)
        character = common.own_character(client, character)
        stats = client.state.characters[character].stats
        skill = stats.skills.get(command.skill) if isinstance(stats, sr3.Sr3Stats) \
            and command.skill is not None else None
        if skill is not None and skill.kind == "combat" and command.kind == "other":
            command = msgspec.structs.replace(command, kind="combat")
    return msgspec.structs.replace(command, id=common.new_command_id(), character=character,
                                   reason=args.reason or "")


async def _test(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.clients.cli_visibility import with_visibility

    command = with_visibility(args, await _parse(args, common))
    return int(await common.send_command(args, args.campaign, command))


async def _declare(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import sr3

    parsed = await _parse(args, common)
    fields = {name: getattr(parsed, name) for name in sr3.DeclarePoolTest.__struct_fields__}
    command = sr3.DeclarePoolTest(**fields)
    return int(await common.send_command(args, args.campaign, command))


async def _simple(args: argparse.Namespace, common: ModuleType, command: Any) -> int:
    return int(await common.send_command(args, args.campaign, command))


async def _state(args: argparse.Namespace, common: ModuleType) -> Any:
    from poolhall.projections.sr3 import GameState

    state = await common.fetch_state(args, args.campaign)
    if not isinstance(state.game, GameState):
        raise common.CliError(f"{args.campaign} does not play sr3")
    return state


async def _sheet(args: argparse.Namespace, common: ModuleType) -> int:
    from rich.console import Group
    from rich.table import Table

    from poolhall.projections.sr3_views import sheets_view

    state = await _state(args, common)
    sheets = sheets_view(state)
    if args.character:
        if args.character not in sheets:
            raise common.CliError(f"no sr3 character {args.character!r}")
        sheets = {args.character: sheets[args.character]}
    parts: list[Any] = []
    for cid, sheet in sheets.items():
        table = Table(title=f"{sheet['name']} ({cid}): initiative {sheet['initiative']}")
        table.add_column("pool")
        table.add_column("dice", justify="right")
        table.add_column("how")
        for line in sheet["pools"]:
            table.add_row(line["pool"].replace("_", " "),
                          str(line["size"]) if line["available"] else "-", line["formula"])
        karma = sheet["karma"]
        table.add_row("karma", f"{karma['left']}/{karma['full']}", karma["formula"])
        parts.append(table)
    common.emit(args, sheets, Group(*parts) if parts else "no sr3 character yet")
    return int(common.EXIT_OK)


async def _combat(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.projections.sr3 import combat_view

    state = await _state(args, common)
    view = combat_view(state.game)
    if view is None:
        common.emit(args, None, "no combat is running")
        return int(common.EXIT_OK)
    common.emit(args, view, lambda: _combat_table(view))
    return int(common.EXIT_OK)


def _combat_table(view: dict[str, Any]) -> Any:
    """The combat turn for people: the order, then each combatant's score and pools."""
    from rich.table import Table

    table = Table(title=f"Combat Turn {view['turn']}, pass {view['pass']}: "
                        + (" > ".join(view["order"]) or "no one left to act"))
    table.add_column("character")
    table.add_column("score", justify="right")
    table.add_column("pools left / full")
    for cid, c in view["characters"].items():
        pools = ", ".join(f"{p.replace('_', ' ')} {v['left']}/{v['full']}"
                          for p, v in c["pools"].items() if v["full"])
        table.add_row(cid, _score_words(c), pools or "-")
    return table


def _score_words(combatant: dict[str, Any]) -> str:
    """``7``, ``7 (-3 for wounds)`` when the wound modifier was taken off the initiative rolled,
    ``unconscious`` or ``dying`` for a combatant who does not act."""
    if combatant.get("out"):
        return str(combatant["out"])
    wounds = combatant.get("wounds", 0)
    return f"{combatant['score']} (-{wounds} for wounds)" if wounds else str(combatant["score"])


def _connected(actions: Any, common: ModuleType, name: str, help_text: str,
               *positionals: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = actions.add_parser(name, help=help_text)
    parser.add_argument("campaign")
    for positional in positionals:
        parser.add_argument(positional)
    common.add_connection_options(parser)
    return parser


def _sr3() -> ModuleType:
    """:mod:`poolhall.events.sr3`, imported when a table command runs, not when the parser is
    built: ``sr3-odds`` needs none of its types (nor msgspec)."""
    from poolhall.events import sr3

    return sr3


def add_commands(subparsers: Any, common: ModuleType) -> None:
    """Add ``sr3-odds`` and ``sr3 start|pass|end|declare|test|karma|scene|sheet|combat``."""
    odds = subparsers.add_parser("sr3-odds", help="exact odds of a Shadowrun 3 test")
    odds.add_argument("dice", type=int, help="base dice (skill or attribute)")
    target = odds.add_mutually_exclusive_group()
    target.add_argument("--tn", type=int, help="target number (2 or more)")
    target.add_argument("--open", action="store_true", help="an open test: highest total")
    odds.add_argument("--pool", type=int, default=0, help="up to this many pool dice (rows)")
    odds.add_argument("--beat", type=int, help="also P(more successes than this): a Dodge")
    odds.add_argument("--exact", action="store_true", help="also exact fractions (--json)")
    common.add_json_option(odds)
    odds.set_defaults(handler=lambda args: _odds(args, common))

    group = subparsers.add_parser("sr3", help="Shadowrun 3: combat turns, tests, karma pool")
    actions = group.add_subparsers(dest="action", required=True, metavar="ACTION")

    start = _connected(actions, common, "start", "GM: start a combat (default: everyone)")
    start.add_argument("participants", nargs="*", help="characters in the combat")
    start.set_defaults(handler=lambda a: _simple(a, common, _sr3().StartCombat(
        id=common.new_command_id(), participants=tuple(a.participants))))
    _connected(actions, common, "pass", "GM: next Combat Phase pass").set_defaults(
        handler=lambda a: _simple(a, common, _sr3().AdvanceCombatPass(id=common.new_command_id())))
    _connected(actions, common, "end", "GM: end the combat").set_defaults(
        handler=lambda a: _simple(a, common, _sr3().EndCombat(id=common.new_command_id())))
    _connected(actions, common, "scene", "GM: end the scene (Karma Pool back)").set_defaults(
        handler=lambda a: _simple(a, common, _sr3().EndScene(id=common.new_command_id())))
    for name, handler, help_text in (
        ("declare", _declare, "announce a test: the table sees the odds per pool die"),
        ("test", _test, 'roll a test, e.g. "pistols tn4 +3cp combat" or "6d6 tn5"'),
    ):
        parser = _connected(actions, common, name, help_text)
        parser.add_argument("character", nargs="?", help="whose (default: the one you play)")
        parser.add_argument("notation")
        parser.add_argument("--reason", help="why, in a few words")
        if name == "test":  # a private test draws no pool or Karma Pool dice
            from poolhall.clients.cli_visibility import add_visibility_option

            add_visibility_option(parser)
        parser.set_defaults(handler=lambda a, h=handler: h(a, common))
    karma = _connected(actions, common, "karma", "reroll a test with Karma Pool")
    karma.add_argument("character", nargs="?", help="whose (default: the one you play)")
    karma.add_argument("test", type=int)

    async def reroll(args: argparse.Namespace) -> int:
        character = await common.character_for(args, args.campaign, args.character)
        return await _simple(args, common, _sr3().RerollWithKarma(
            id=common.new_command_id(), test=args.test, character=character))

    karma.set_defaults(handler=reroll)
    sheet = _connected(actions, common, "sheet", "pools with how each was computed")
    sheet.add_argument("character", nargs="?")
    sheet.set_defaults(handler=lambda a: _sheet(a, common))
    _connected(actions, common, "combat", "turn, pass, order, pools full and left").set_defaults(
        handler=lambda a: _combat(a, common))


CLI = CliHooks(system="sr3", add_commands=add_commands, table=TableHooks(
    table_parts=deferred("poolhall.clients.sr3_table", "table_parts"),
    character_line=deferred("poolhall.clients.sr3_table", "character_line"),
    sheet_parts=deferred("poolhall.clients.sr3_table", "sheet_parts"),
    view_line=deferred("poolhall.clients.sr3_table", "view_line")))
"""This system's command-line hooks (see :mod:`poolhall.clients.contract`)."""
