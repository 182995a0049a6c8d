"""The ``poolhall`` command line: serve, create campaigns, invite, roll, watch, time-travel, verify,
report, export and replay.

Each subcommand is a small function; the ones that talk to a server use the Python client.
Game systems add their own subcommands from ``clients/<system>_cli.py``
(``add_commands(subparsers, common)``, with :mod:`clients.cli_support` as ``common``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

import msgspec
from rich.console import Group

from clients import character_cli, replay_cli, report_cli
from clients import cli_support as common
from clients.access_cli import add_commands as access_commands
from clients.cli_support import (
    CliError,
    emit,
    lines,
    open_client,
    send_command,
    styled,
    to_plain,
)
from clients.client import Client
from clients.links import join_link
from clients.serve_cli import add_command as add_serve_command
from clients.systems import CLI_HOOKS
from clients.table_text import LOG_LINES, log_line, sheet, state_json, state_text, view_line
from clients.verify_expect import expected_hash
from events import core
from events.codec import AnyCommand
from events.dice import parse_dice
from events.errors import ConnectionLost, NotationError, Rejected, StoreError
from events.messages import View
from events.plain_text import check_plain_text
from events.strict import StrictDecoder
from events.systems import SYSTEM_IDS, SYSTEMS
from events.wire_errors import rejection_from
from projections.campaign import CampaignState, evolve
from projections.snapshot import protocol_schema, state_from

__all__ = ["build_parser", "main"]


def event_number(text: str) -> int:
    """An argparse type: a campaign's event sequence number, 1 or more."""
    try:
        seq = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an event number: {text!r}") from None
    if seq < 1:
        raise argparse.ArgumentTypeError("events are numbered from 1")
    return seq


# ---- campaigns and members ----------------------------------------------------------------


async def _campaign_create(args: argparse.Namespace) -> int:
    ack = await common.call_once(args, None, core.CreateCampaign, common.admin_token(args),
                                 name=args.name, system=args.system, campaign=args.id)
    emit(args, _with_link(args, ack, ack.campaign),
         styled("created campaign [bold]{}[/bold] ({})\n", ack.campaign, args.system)
         + _token_line("GM token (shown once; keep it)", ack.token)
         + _link_line(args, ack.campaign, ack.token))
    return common.EXIT_OK


def _with_link(args: argparse.Namespace, ack: Any, campaign: str | None) -> Any:
    """The ack as JSON, with the join link when a token was issued."""
    plain = to_plain(ack)
    if ack.token is not None and campaign:
        plain["link"] = join_link(args.url, campaign, ack.token, args.base_url)
    return plain


def _link_line(args: argparse.Namespace, campaign: str | None, token: str | None) -> Any:
    """The join link to open the table in a browser (nothing when no token was issued)."""
    if token is None or not campaign:
        return ""
    return styled("\njoin link (opens the table; keep it as secret as the token): {}",
                  join_link(args.url, campaign, token, args.base_url))


def _token_line(label: str, token: str | None) -> Any:
    """The line that shows an issued token; or, if the server answered a retry without it
    (the token is kept only sealed under the retry's key), a plain word that it is gone."""
    if token is None:
        return styled("{}: [red]cannot be shown[/red]: the command had already been carried "
                      "out and the server keeps no token; remove the member and invite again "
                      "for a new one", label.split(" (")[0])
    return styled("{}: [bold]{}[/bold]", label, token)


async def _invite(args: argparse.Namespace) -> int:
    ack = await common.call_once(args, args.campaign, core.Invite, role=args.role,
                                 name=args.name, characters=tuple(args.character or ()))
    emit(args, _with_link(args, ack, args.campaign),
         styled("invited [bold]{}[/bold] as {}\n", ack.member, args.role)
         + _token_line("token (shown once; give it to them)", ack.token)
         + _link_line(args, args.campaign, ack.token))
    return common.EXIT_OK


def _add_base_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", default=os.environ.get("POOLHALL_BASE_URL"),
                        help="the address people open the table at, for the join link "
                             "(default: the server's --url as http; or $POOLHALL_BASE_URL)")


# ---- rolling and commands -----------------------------------------------------------------


async def _roll(args: argparse.Namespace) -> int:
    client = await open_client(args, args.campaign)  # joined once: its system, then the roll
    try:
        command = _roll_command(args, client)
    except BaseException:
        await client.close()
        raise
    return await send_command(args, args.campaign, command, client)


def _roll_command(args: argparse.Namespace, client: Client) -> Any:
    """The command ``poolhall roll`` sends: plain dice, else the campaign's system's notation
    (a test of the one character the player plays, when they name none)."""
    system = client.welcome.system if client.welcome else ""
    try:
        parse_dice(args.expression)
        return common.with_visibility(args, core.Roll(
            id=common.new_command_id(), expression=args.expression, character=args.character,
            reason=args.reason or ""))
    except NotationError as dice_error:
        try:
            command = SYSTEMS[system].parse_roll(args.expression, args.character)
        except NotationError as error:
            if args.character is not None or "--character" not in error.message:
                raise CliError(f"cannot read {args.expression!r}: {error.message}") from None
            # A test needs a character: the one the player plays, unless they play several.
            args.character = common.own_character(client, None)
            return _roll_command(args, client)
        if command is None:
            raise CliError(f"cannot read {args.expression!r}: {dice_error.message}") from None
        command = msgspec.structs.replace(command, id=common.new_command_id())
        if args.reason and "reason" in command.__struct_fields__:
            command = msgspec.structs.replace(command, reason=args.reason)
        return common.with_visibility(args, command)


_COMMAND_DECODER: StrictDecoder[Any] = StrictDecoder(AnyCommand)


async def _send(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.command)
    except json.JSONDecodeError as error:
        raise CliError(f"the command is not JSON: {error}") from None
    if isinstance(data, dict):
        data.setdefault("id", common.new_command_id())
    frame = json.dumps(data)
    try:
        command = _COMMAND_DECODER.decode(frame)
        check_plain_text(command)
    except msgspec.ValidationError as error:  # the words the server would answer with
        refusal = rejection_from(error, frame, _COMMAND_DECODER)
        raise CliError.refused(refusal, "not a valid command", common.EXIT_USAGE) from None
    except Rejected as refusal:
        raise CliError.refused(refusal, "not a valid command", common.EXIT_USAGE) from None
    return await send_command(args, args.campaign, command)


# ---- following the table ------------------------------------------------------------------


async def _catch_up(args: argparse.Namespace, follow: bool = False, replay: bool = False,
                    last: int = 0, **hooks: Any) -> tuple[Any, list[Any]]:
    """A joined client at the head and the events before it: every one with ``replay``,
    else the last ``last`` (from the snapshot's, then history pages). ``hooks``: the
    client's ``on_view``, ``on_connection`` and ``on_revealed``."""
    client = await open_client(args, args.campaign, follow=follow, replay=replay, **hooks)
    assert client.welcome is not None
    try:
        await client.wait_for_seq(client.welcome.head, timeout=120)
        history = client.drain()
        if client.snapshot is not None:
            history = [f.recorded() for f in client.snapshot.recent] + history
            while len(history) < last and history and history[0].seq > 1:
                history = await client.history(history[0].seq,
                                               last - len(history)) + history
    except ConnectionLost as lost:  # a follower that resumed on a shorter log, say
        await client.close()
        raise common.connection_lost(lost, f"stopped reading {args.campaign}") from None
    return client, history


async def _watch(args: argparse.Namespace) -> int:
    state = CampaignState()  # the snapshot's, once joined (show reads it when called)
    shown_views: dict[str, str] = {}

    def show(recorded: Any, quiet: bool = False) -> None:
        if recorded.seq > state.head:  # the snapshot's own events are folded in it already
            evolve(state, recorded)
        if quiet:
            return
        if args.json:
            emit(args, recorded, "")
        else:
            common.console.print(log_line(recorded, state))

    def show_view(view: View) -> None:
        """A view, once its line changes; the events before it first (it follows them)."""
        if live:
            for recorded in client.drain():
                show(recorded)
        if args.json:
            if live:
                emit(args, {"view": view.about, "data": view.data}, "")
            return
        line = view_line(view.about, view.data)
        if line is None or shown_views.get(view.about) == line:
            return
        shown_views[view.about] = line
        if live:
            common.console.print(styled("[dim]view[/dim] [magenta]{}[/magenta]", line))

    def revealed(frames: list[Any]) -> None:
        """Private rolls this watch printed sealed, whole now that the session ended; the
        events before them first (they follow the reveal)."""
        if live:
            for recorded in client.drain():
                show(recorded)
        for frame in frames:
            recorded = frame.recorded()
            emit(args, {"revealed": to_plain(recorded)},
                 lines(styled("[dim]revealed at the session's end:[/dim]"),
                       log_line(recorded, state)))

    def connection(up: bool, head: int) -> None:
        if up:
            emit(args, {"connection": "back", "head": head},
                 styled("[green]back[/green] (resumed at event {})", head))
        else:
            emit(args, {"connection": "reconnecting", "head": head},
                 styled("[yellow]reconnecting…[/yellow] (the server is not answering; "
                        "have event {})", head))

    live = False
    client, history = await _catch_up(args, follow=True, replay=not args.last, last=args.last,
                                      on_view=show_view, on_connection=connection,
                                      on_revealed=revealed)
    if client.snapshot is not None:
        state = state_from(client.snapshot)
    try:
        shown_from = len(history) - args.last if args.last else 0
        for index, recorded in enumerate(history):  # fold it all, print the last lines
            show(recorded, quiet=index < shown_from)
        if not args.json:
            for line in shown_views.values():  # the standing views: the odds now
                common.console.print(styled("[dim]view[/dim] [magenta]{}[/magenta]", line))
            common.console.print(styled("[dim]-- live (Ctrl-C to stop) --[/dim]"))
        live = True
        async for recorded in client:
            show(recorded)
        raise common.connection_lost(client.lost, f"stopped following {args.campaign}")
    finally:
        await client.close()


async def _state(args: argparse.Namespace) -> int:
    if args.at is None:  # the table as it stands: the server's snapshot, no replay
        client, history = await _catch_up(args)
        await client.close()
        state, views, recent = client.state, client.views, history[-LOG_LINES:]
        head_hash = client.last_hash
    else:  # an earlier table: the server rebuilds it from its nearest stored snapshot
        client = await open_client(args, args.campaign)
        try:
            assert client.welcome is not None
            if args.at > client.welcome.head:
                raise CliError(f"--at {args.at} is past the campaign's last event "
                               f"#{client.welcome.head}")
            snapshot = await client.state_at(args.at)
        finally:
            await client.close()
        state, views = state_from(snapshot), {}
        recent = [f.recorded() for f in snapshot.recent][-LOG_LINES:]
        head_hash = snapshot.head_hash
    # the chain hash of the event shown: kept anywhere but the server, it is what ``verify
    # --expect CAMPAIGN@SEQ=HASH`` holds the log to
    emit(args, {**state_json(client, state, recent), "head_hash": head_hash},
         Group(state_text(state, views, recent),
               styled("[dim]chain hash of #{}: {}[/dim]", state.head, head_hash)))
    return common.EXIT_OK


async def _sheet(args: argparse.Namespace) -> int:
    client = await common.fetch_table(args, args.campaign)
    state = client.state
    if args.character is not None or _plays_one(client):
        chosen = [common.own_character(client, args.character)]
    else:  # the GM, a spectator, a player of several: every sheet they may mean
        member = state.members.get(client.welcome.member) if client.welcome else None
        mine = [c for c in member.characters if c in state.characters] if member else []
        chosen = mine or list(state.characters)
    data, text = sheet(state, chosen)
    emit(args, {"sheets": data}, text)
    return common.EXIT_OK


def _plays_one(client: Any) -> bool:
    member = client.state.members.get(client.welcome.member) if client.welcome else None
    return member is not None and len([c for c in member.characters
                                       if c in client.state.characters]) == 1


# ---- offline ------------------------------------------------------------------------------


def _verify(args: argparse.Namespace) -> int:
    """Walk every chain; recompute every face of every revealed epoch
    (:mod:`clients.verify_rolls`); compare every stored snapshot with a fold of the log
    (:mod:`server.snapshot_check`, for a SQLite file); check the log against the hashes given
    with ``--expect`` (:mod:`clients.verify_expect`)."""
    from clients.verify_expect import expectation_problems
    from clients.verify_rolls import fair_line, fair_rolls, fair_summary
    from events.backends import is_postgres_url, reading
    from server.snapshot_check import snapshot_problems

    try:  # read-only: verifying a log never changes it, even one that is being served
        with reading(args.db) as log:
            checked, chain = log.verify()
            rolls = fair_rolls(log)  # every face of every revealed epoch, recomputed
            chain += expectation_problems(log, args.expect)
        snapshots = 0
        if not is_postgres_url(args.db):
            snapshots, wrong = snapshot_problems(args.db)
            chain += wrong
    except StoreError as error:
        raise CliError(str(error)) from None
    problems: list[Any] = [*chain, *rolls.problems]
    held = f", {len(args.expect)} expected hash(es) match" if args.expect else \
        " (against no hash held elsewhere: see --expect)"
    summary = (f"{len(problems)} problem(s) in {checked} events" if problems
               else styled("[green]ok[/green]: {} events, every hash chain holds, {} stored "
                           "snapshot(s) equal to the log{}", checked, snapshots, held))
    emit(args, {"checked": checked, "snapshots": snapshots, "expected": len(args.expect),
                "problems": problems, "rolls": fair_summary(rolls)},
         lines(*(styled("[red]broken[/red] {} #{}: {}", p.campaign, p.seq, p.problem)
                 if p.campaign else styled("[red]{}[/red]", p.problem)  # the file itself
                 for p in problems), summary, fair_line(rolls)))
    return common.EXIT_REFUSED if problems else common.EXIT_OK


def _migrate(args: argparse.Namespace) -> int:
    """Create the schema (or bring an older file's up to date) without serving: for operators
    who run schema changes themselves; ``serve`` does the same at start."""
    from events.backends import migrate, safe_name

    try:
        done = migrate(args.db)
    except StoreError as error:
        raise CliError(str(error)) from None
    emit(args, {"database": safe_name(str(args.db)), "done": done},
         lines(f"{safe_name(str(args.db))}: {done}"))
    return common.EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    sys.stdout.write(json.dumps(protocol_schema(), indent=2) + "\n")
    return common.EXIT_OK


# ---- the parser ---------------------------------------------------------------------------

Handler = Callable[[argparse.Namespace], "int | Coroutine[Any, Any, int]"]

_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<options>.*)\)$")


class UsageError(CliError):
    """A command line argparse could not read; the parser that says how to write it."""

    def __init__(self, message: str, parser: argparse.ArgumentParser) -> None:
        super().__init__(message, common.EXIT_USAGE)
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    """argparse, except that a mistake raises :class:`UsageError` instead of exiting, so
    that ``--json`` reports it as JSON too, and a misspelt choice gets "did you mean"."""

    def error(self, message: str) -> NoReturn:
        if found := _INVALID_CHOICE.search(message):
            options = re.findall(r"'([^']*)'", found.group("options"))
            message += common.did_you_mean(found.group("word"), options)
        raise UsageError(message, self)


def build_parser() -> argparse.ArgumentParser:
    """The ``poolhall`` argument parser, with every game system's subcommands."""
    parser = _Parser(
        prog="poolhall", description="Event-sourced dice-pool campaign server and client.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    add_serve_command(sub)

    campaign = sub.add_parser("campaign", help="create campaigns (admin token)")
    campaign_sub = campaign.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = campaign_sub.add_parser("create", help="create a campaign; prints the GM token")
    create.add_argument("name")
    create.add_argument("--system", required=True, choices=SYSTEM_IDS)
    create.add_argument("--id", help="campaign id (default: from the name)")
    common.add_connection_options(create)
    _add_base_url(create)
    create.set_defaults(handler=_campaign_create)

    invite = sub.add_parser("invite", help="invite a member; prints their token")
    invite.add_argument("campaign")
    invite.add_argument("--role", required=True, choices=("gm", "player", "spectator"))
    invite.add_argument("--character", action="append", help="a character they play (repeat)")
    invite.add_argument("--name", help="their name (default: the character or the role)")
    common.add_connection_options(invite)
    _add_base_url(invite)
    invite.set_defaults(handler=_invite)
    access_commands(sub)

    roll = sub.add_parser("roll", help="roll XdN dice, or the campaign system's notation")
    roll.add_argument("campaign")
    roll.add_argument("expression", help='e.g. "3d6+2"')
    roll.add_argument("--character", help="roll for this character")
    roll.add_argument("--reason", help="why, in a few words")
    common.add_visibility_option(roll)
    common.add_connection_options(roll)
    roll.set_defaults(handler=_roll)

    send = sub.add_parser("send", help="send any command as JSON (its id is filled in)")
    send.add_argument("campaign")
    send.add_argument("command", help='e.g. \'{"type": "start_session", "title": "Ep. 1"}\'')
    common.add_connection_options(send)
    send.set_defaults(handler=_send)

    watch = sub.add_parser("watch", help="follow the table live: events, odds, reconnects")
    watch.add_argument("campaign")
    watch.add_argument("--last", type=int, default=20, help="history lines first (0: all)")
    common.add_connection_options(watch)
    watch.set_defaults(handler=_watch)

    sheet_parser = sub.add_parser("sheet", help="a character's sheet (default: yours)")
    sheet_parser.add_argument("campaign")
    sheet_parser.add_argument("character", nargs="?",
                              help="whose (default: the one you play, else all)")
    common.add_connection_options(sheet_parser)
    sheet_parser.set_defaults(handler=_sheet)

    state = sub.add_parser("state", help="the table now or at any event: who, sheets, "
                                         "checks and odds, the last lines of the log")
    state.add_argument("campaign")
    state.add_argument("--at", type=event_number, metavar="SEQ",
                       help="as they stood after event SEQ (1 is the campaign's first event)")
    common.add_connection_options(state)
    state.set_defaults(handler=_state)

    verify = sub.add_parser("verify", help="walk every hash chain; report tampering")
    verify.add_argument("db", nargs="?", default=os.environ.get("POOLHALL_DB", "poolhall.db"),
                        help="a SQLite file or a postgresql:// URL (default $POOLHALL_DB,"
                             " else ./poolhall.db)")
    verify.add_argument(
        "--expect", action="append", default=[], type=expected_hash,
        metavar="CAMPAIGN[@SEQ]=HASH",
        help="a chain hash held elsewhere (a head hash from `poolhall state`): the log must "
             "have it at that campaign's head, or at event SEQ; repeatable")
    common.add_json_option(verify)
    verify.set_defaults(handler=_verify)

    migrate = sub.add_parser("migrate", help="create or update the log's schema, then exit")
    migrate.add_argument("--db", default=os.environ.get("POOLHALL_DB", "poolhall.db"),
                         help="a SQLite file or a postgresql:// URL (default $POOLHALL_DB,"
                              " else ./poolhall.db)")
    common.add_json_option(migrate)
    migrate.set_defaults(handler=_migrate)

    schema = sub.add_parser("schema", help="JSON Schema of every protocol message")
    common.add_json_option(schema)  # accepted for uniformity: the schema is JSON already
    schema.set_defaults(handler=_schema)

    report_cli.add_commands(sub)  # report, export --rolls
    replay_cli.add_command(sub)
    character_cli.add_command(sub)
    for hooks in CLI_HOOKS.values():
        hooks.add_commands(sub, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``poolhall`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(argv)
    except UsageError as error:
        if "--json" in argv:
            emit(argparse.Namespace(json=True), error.as_json(), "")
        else:
            error.parser.print_usage(sys.stderr)
            common.error_console.print(styled("[red]error:[/red] {}", error))
        return error.exit_code
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.verbose:  # one line per connection is noise at a busy table
        logging.getLogger("websockets").setLevel(logging.WARNING)
        logging.getLogger("clients.client").setLevel(logging.WARNING)  # watch's reconnects
    try:
        result = args.handler(args)
        if asyncio.iscoroutine(result):
            result = asyncio.run(result)
        return int(result)
    except CliError as error:
        if getattr(args, "json", False):
            emit(args, error.as_json(), "")
        else:
            common.error_console.print(styled("[red]error:[/red] {}", error))
        return error.exit_code
    except KeyboardInterrupt:
        return common.EXIT_OK
    except BrokenPipeError:
        # whoever read our output stopped (`poolhall export ... | head -1`): they have what
        # they wanted, so this is no error; the Python documentation's way (library
        # "signal", note on SIGPIPE): stdout pointed at devnull, so that the flush at exit
        # does not fail again and print "Exception ignored"
        _quiet_stdout()
        return common.EXIT_OK


def _quiet_stdout() -> None:
    """Send what is left of stdout to devnull (a no-op when stdout is not a file)."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
