"""``poolhall`` subcommands of the d12 system: exact odds offline, and running threshold tests.

::

    poolhall d12-odds 5 --dt 7                  margin distribution, P(success), mean margin
    poolhall d12-odds 5 --dt 7 --add 2 --rounds 6 --exact
                                                and P(an extended pool survives 1..6 rounds)
    poolhall d12 call CAMPAIGN han STR CON --dt 7 --extended CON --label "bar fight"
    poolhall d12 call CAMPAIGN han WIT --against vader:WIL
    poolhall d12 roll CAMPAIGN 1                roll test 1 (the player of its character)
    poolhall d12 dt CAMPAIGN 1 --dt 9           the DT of the next round (GM)
    poolhall d12 say CAMPAIGN 1 "the guard staggers"
    poolhall d12 end CAMPAIGN 1 --reason "he surrenders"
    poolhall d12 tests CAMPAIGN [--all]         open tests: pool, rounds, margins, story
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import TYPE_CHECKING, Any

from poolhall.clients.cli_support import lines, styled
from poolhall.clients.cli_visibility import add_visibility_option
from poolhall.clients.contract import CliHooks, TableHooks, deferred
from poolhall.clients.percent import percent
from poolhall.events.plural import plural

if TYPE_CHECKING:
    from rich.text import Text

    from poolhall.projections.d12 import TestState


__all__ = ["CLI", "add_commands"]


def _odds(args: argparse.Namespace, common: ModuleType) -> int:
    from fractions import Fraction

    from rich.table import Table

    from poolhall.events import d12_dice as d12  # not events.d12: no msgspec, no events
    from poolhall.projections.d12_odds import (
        expected_margin,
        margin_distribution,
        success_probability,
        survival,
    )

    if not 1 <= args.dice <= d12.MAX_POOL:
        raise common.CliError(f"a pool holds 1 to {d12.MAX_POOL} dice")
    if (args.add is not None and not 0 <= args.add <= d12.MAX_POOL) or not 1 <= args.rounds <= 100:
        raise common.CliError(f"--add is 0 to {d12.MAX_POOL} and --rounds 1 to 100")
    dist = margin_distribution(args.dice, args.dt)
    success = success_probability(args.dice, args.dt)
    mean = expected_margin(args.dice, args.dt)
    data: dict[str, Any] = {
        "dice": args.dice, "dt": args.dt, "success": float(success),
        "expected_margin": float(mean),
        "distribution": {str(m): float(p) for m, p in dist.items()},
    }
    if args.exact:
        data["exact"] = {"success": str(success), "expected_margin": str(mean),
                         "distribution": {str(m): str(p) for m, p in dist.items()}}
    table = Table(title=f"{args.dice}d12 at DT {args.dt}: margin of success")
    table.add_column("margin", justify="right")
    table.add_column("P(=)", justify="right")
    table.add_column("P(>=)", justify="right")
    if args.exact:
        table.add_column("exact")
    at_least = Fraction(1)  # exact: a float sum reads 1.0 (certain) a few rows on
    for margin, p in dist.items():
        row = [f"{margin:+d}", percent(p), percent(at_least)]
        table.add_row(*(row + [str(p)] if args.exact else row))
        at_least -= p
    shown: list[Any] = [table, styled("basic test succeeds (margin > 0): [bold]{}[/bold]{}",
                                      percent(success),
                                      f" = {success}" if args.exact else ""),
                        f"mean margin: {float(mean):+.3f}"]
    if args.add is not None:
        rows = [survival(args.dice, args.dt, args.add, k) for k in range(1, args.rounds + 1)]
        data["add"] = args.add
        data["survival"] = [float(p) for p in rows]
        if args.exact:
            data["exact"]["survival"] = [str(p) for p in rows]
        joining = plural("die joins", args.add, "dice join")
        surv = Table(title=f"extended test: {joining} after each round; "
                           "P(the pool is not emptied)")
        surv.add_column("rounds", justify="right")
        surv.add_column("P(survives)", justify="right")
        for k, p in enumerate(rows, start=1):
            surv.add_row(str(k), percent(p))
        shown.append(surv)
    from rich.console import Group

    common.emit(args, data, Group(*shown))
    return int(common.EXIT_OK)


def _against(text: str) -> tuple[str, str]:
    opponent, _, stat = text.partition(":")
    if not opponent or not stat:
        raise argparse.ArgumentTypeError("write OPPONENT:STAT, e.g. vader:WIL")
    return opponent, stat.upper()


def _dt_fields(args: argparse.Namespace) -> dict[str, Any]:
    if args.against is not None:
        return {"opponent": args.against[0], "opponent_stat": args.against[1]}
    return {"dt": args.dt}


def _add_dt_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--dt", type=int, help="Difficulty Threshold 1-12, set by the GM")
    group.add_argument("--against", type=_against, metavar="OPPONENT:STAT",
                       help="derive the DT from an opponent's stat (its rating, 1-12)")


async def _call(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import d12

    command = d12.CallThresholdTest(
        id=common.new_command_id(), character=args.character,
        stats=tuple(s.upper() for s in args.stats), extended=args.extended is not None,
        refresh=args.extended, label=args.label or "", visibility=args.visibility,
        **_dt_fields(args))
    return int(await common.send_command(args, args.campaign, command))


async def _roll(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import d12

    command = d12.RollThresholdTest(id=common.new_command_id(), test=args.test)
    return int(await common.send_command(args, args.campaign, command))


async def _dt(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import d12

    command = d12.SetDifficultyThreshold(id=common.new_command_id(), test=args.test,
                                         **_dt_fields(args))
    return int(await common.send_command(args, args.campaign, command))


async def _say(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import d12

    command = d12.InterpretThresholdResult(id=common.new_command_id(), test=args.test,
                                           text=args.text)
    return int(await common.send_command(args, args.campaign, command))


async def _end(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.events import d12

    command = d12.EndThresholdTest(id=common.new_command_id(), test=args.test,
                                   reason=args.reason or "")
    return int(await common.send_command(args, args.campaign, command))


def _test_text(test: TestState) -> Text:
    from poolhall.clients import d12_table

    status = "open" if test.open else f"over ({test.ended})"
    margins = d12_table.margins_text(test)
    head = styled("[bold]test {}[/bold] {}", test.test,
                  f"{d12_table.kind_words(test)} for {test.character or 'no one'}, {status}: "
                  f"pool {test.pool}, DT {test.threshold.dt}, {test.rounds_rolled} round(s), "
                  f"margins {margins}")
    return lines(head, *(f"  {line}" for line in test.story))


async def _tests(args: argparse.Namespace, common: ModuleType) -> int:
    from poolhall.projections.d12 import GameState

    game = (await common.fetch_state(args, args.campaign, whole=args.all)).game
    if not isinstance(game, GameState):
        raise common.CliError(f"{args.campaign} does not play d12")
    tests = [t for t in game.tests.values() if args.all or t.open]
    common.emit(args, {"tests": [common.to_plain(t) for t in tests]},
                lines(*(_test_text(t) for t in tests)) if tests else "no open test")
    return int(common.EXIT_OK)


def add_commands(subparsers: Any, common: ModuleType) -> None:
    """Add ``d12-odds`` and ``d12 call|roll|dt|say|end|tests`` to the ``poolhall`` CLI."""
    from poolhall.events import d12_dice as d12  # not events.d12: d12-odds needs no msgspec

    odds = subparsers.add_parser("d12-odds", help="exact odds of a d12 pool against a DT")
    odds.add_argument("dice", type=int, help="pool size (1-100 d12s)")
    odds.add_argument("--dt", type=int, required=True, choices=range(1, 13), metavar="1-12",
                      help="Difficulty Threshold")
    odds.add_argument("--add", type=int, help="extended test: dice that join after each round")
    odds.add_argument("--rounds", type=int, default=5, help="rounds of survival (default 5)")
    odds.add_argument("--exact", action="store_true", help="also print exact fractions")
    common.add_json_option(odds)
    odds.set_defaults(handler=lambda args: _odds(args, common))

    group = subparsers.add_parser("d12", help="run d12 threshold tests (basic and extended)")
    actions = group.add_subparsers(dest="action", required=True, metavar="ACTION")

    call = actions.add_parser("call", help="GM: call for a test; names stats, sets the DT")
    call.add_argument("campaign")
    call.add_argument("character")
    call.add_argument("stats", nargs="+", help="the stats that apply (their ratings: the pool)")
    _add_dt_options(call)
    call.add_argument("--extended", choices=d12.REFRESH_STATS, type=str.upper,
                      help="an extended test; CON or CHA dice join after each round")
    call.add_argument("--label", help="what the test is about")
    add_visibility_option(call, gm_only=True)
    common.add_connection_options(call)
    call.set_defaults(handler=lambda args: _call(args, common))

    roll = actions.add_parser("roll", help="roll an open test (its character's player)")
    roll.add_argument("campaign")
    roll.add_argument("test", type=int)
    common.add_connection_options(roll)
    roll.set_defaults(handler=lambda args: _roll(args, common))

    dt = actions.add_parser("dt", help="GM: set or derive the DT of the next round")
    dt.add_argument("campaign")
    dt.add_argument("test", type=int)
    _add_dt_options(dt)
    common.add_connection_options(dt)
    dt.set_defaults(handler=lambda args: _dt(args, common))

    say = actions.add_parser("say", help="GM: interpret the last roll of a test")
    say.add_argument("campaign")
    say.add_argument("test", type=int)
    say.add_argument("text")
    common.add_connection_options(say)
    say.set_defaults(handler=lambda args: _say(args, common))

    end = actions.add_parser("end", help="GM: end an open test")
    end.add_argument("campaign")
    end.add_argument("test", type=int)
    end.add_argument("--reason")
    common.add_connection_options(end)
    end.set_defaults(handler=lambda args: _end(args, common))

    tests = actions.add_parser("tests", help="open tests: pool now, rounds, margins, story")
    tests.add_argument("campaign")
    tests.add_argument("--all", action="store_true", help="ended tests too")
    common.add_connection_options(tests)
    tests.set_defaults(handler=lambda args: _tests(args, common))


CLI = CliHooks(system="d12", add_commands=add_commands, table=TableHooks(
    table_parts=deferred("poolhall.clients.d12_table", "table_parts"),
    character_line=deferred("poolhall.clients.d12_table", "character_line"),
    sheet_parts=deferred("poolhall.clients.d12_table", "sheet_parts"),
    view_line=deferred("poolhall.clients.d12_table", "view_line")))
"""This system's command-line hooks (see :mod:`poolhall.clients.contract`)."""
