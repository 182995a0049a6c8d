"""The ``poolhall`` command line: serve, create campaigns, invite, roll, watch, time-travel, verify,
report, export and replay.

Each subcommand is a small function; the ones that talk to a server use the Python client.
Game systems add their own subcommands from ``clients/<system>_cli.py``
(``add_commands(subparsers, common)``, with :mod:`poolhall.clients.cli_support` as ``common``).

**Imported as needed.** Every command should start in well under 150 ms
(``tests/bench/cli_start.py``), and importing rich, asyncio, websockets and the message types
alone took 0.49 s. So this module imports only argparse: :func:`main` builds the parser of the
one command asked for (the others are a name and a line of help each, enough for
``poolhall --help`` and "did you mean"), and a handler given as ``"module:function"`` is
imported when it runs. The modules that build parsers import their heavy parts inside the
functions that use them.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import re
import sys
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, NoReturn

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import CliError, emit, styled
from poolhall.clients.cli_visibility import add_visibility_option

__all__ = ["build_parser", "console", "main"]


def event_number(text: str) -> int:
    """An argparse type: a campaign's event sequence number, 1 or more."""
    try:
        seq = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an event number: {text!r}") from None
    if seq < 1:
        raise argparse.ArgumentTypeError("events are numbered from 1")
    return seq


def _add_base_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", default=os.environ.get("POOLHALL_BASE_URL"),
                        help="the address people open the table at, for the join link "
                             "(default: the server's --url as http; or $POOLHALL_BASE_URL)")


# ---- the parser ---------------------------------------------------------------------------


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


class _Version(argparse.Action):
    """``poolhall --version``: the installed package's version (its metadata, as ``pip
    show poolhall`` reads it), looked up only when asked, so no other command pays for
    importing :mod:`importlib.metadata`."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> NoReturn:
        from importlib.metadata import PackageNotFoundError, version

        try:
            said = f"poolhall {version('poolhall')}"
        except PackageNotFoundError:  # a checkout on PYTHONPATH, never installed
            said = "poolhall (not installed as a package: no version)"
        sys.stdout.write(said + "\n")
        parser.exit()


_HELP = {
    "serve": "run the server",
    "campaign": "create campaigns (admin token)",
    "invite": "invite a member; prints their token",
    "remove-member": "remove a member or revoke a replay link (GM)",
    "assign": "set the characters a player plays (GM)",
    "share-replay": "a read-only link to a session's replay (GM)",
    "roll": "roll XdN dice, or the campaign system's notation",
    "send": "send any command as JSON (its id is filled in)",
    "watch": "follow the table live: events, odds, reconnects",
    "sheet": "a character's sheet (default: yours)",
    "state": "the table now or at any event: who, sheets, checks and odds, the last lines of "
             "the log",
    "verify": "walk every hash chain; report tampering",
    "migrate": "create or update the log's schema, then exit",
    "schema": "JSON Schema of every protocol message",
    "report": "after the game: who was lucky against the exact odds, the destiny swing, the "
              "roll of the night",
    "export": "the rolls for your own tools: CSV or JSON lines",
    "replay": "print the log again, paced as it was played",
    "character": "export a character to a file, import one, or retire one",
    "odds": 'exact odds of a narrative pool: "yyg vs pp"',
    "narrative": "narrative dice: checks, destiny, Force",
    "sr3-odds": "exact odds of a Shadowrun 3 test",
    "sr3": "Shadowrun 3: combat turns, tests, karma pool",
    "d12-odds": "exact odds of a d12 pool against a DT",
    "d12": "run d12 threshold tests (basic and extended)",
}
"""Every command's line in ``poolhall --help``, in its order: what a command not asked for
is built as (a test holds these to what each command's own parser says)."""


def _build_from(module: str, function: str, sub: Any) -> None:
    """Build commands with ``module``'s ``function``, importing the module only now."""
    getattr(importlib.import_module(module), function)(sub)


def _build_system(module: str, sub: Any) -> None:
    """Build a game system's commands (``clients/<id>_cli.py``'s ``CLI.add_commands``)."""
    importlib.import_module(module).CLI.add_commands(sub, common)


def _from(module: str, function: str) -> Callable[[Any], None]:
    return partial(_build_from, module, function)


def _system(module: str) -> Callable[[Any], None]:
    return partial(_build_system, module)


def _add_campaign_commands(sub: Any) -> None:
    from poolhall.events.systems import SYSTEM_IDS

    campaign = sub.add_parser("campaign", help=_HELP["campaign"])
    campaign_sub = campaign.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = campaign_sub.add_parser("create", help="create a campaign; prints the GM token")
    create.add_argument("name")
    create.add_argument("--system", required=True, choices=SYSTEM_IDS)
    create.add_argument("--id", help="campaign id (default: from the name)")
    common.add_connection_options(create)
    _add_base_url(create)
    create.set_defaults(handler="poolhall.clients.table_cli:campaign_create")


def _add_invite_command(sub: Any) -> None:
    invite = sub.add_parser("invite", help=_HELP["invite"])
    invite.add_argument("campaign")
    invite.add_argument("--role", required=True, choices=("gm", "player", "spectator"))
    invite.add_argument("--character", action="append", help="a character they play (repeat)")
    invite.add_argument("--name", help="their name (default: the character or the role)")
    common.add_connection_options(invite)
    _add_base_url(invite)
    invite.set_defaults(handler="poolhall.clients.table_cli:invite")


def expected_hash(text: str) -> Any:
    """``verify --expect``'s type (:func:`poolhall.clients.verify_expect.expected_hash`, imported
    when the option is given)."""
    from poolhall.clients.verify_expect import expected_hash as read

    return read(text)


def _add_table_commands(sub: Any) -> None:
    roll = sub.add_parser("roll", help=_HELP["roll"])
    roll.add_argument("campaign")
    roll.add_argument("expression", help='e.g. "3d6+2"')
    roll.add_argument("--character", help="roll for this character")
    roll.add_argument("--reason", help="why, in a few words")
    add_visibility_option(roll)
    common.add_connection_options(roll)
    roll.set_defaults(handler="poolhall.clients.table_cli:roll")

    send = sub.add_parser("send", help=_HELP["send"])
    send.add_argument("campaign", help="the campaign; - for create_campaign, which is sent "
                      "with the admin token")
    send.add_argument("command", help='e.g. \'{"type": "start_session", "title": "Ep. 1"}\'')
    common.add_connection_options(send)
    _add_base_url(send)  # for the join link of a create_campaign sent again
    send.set_defaults(handler="poolhall.clients.table_cli:send")

    watch = sub.add_parser("watch", help=_HELP["watch"])
    watch.add_argument("campaign")
    watch.add_argument("--last", type=int, default=20, help="history lines first (0: all)")
    common.add_connection_options(watch)
    watch.set_defaults(handler="poolhall.clients.table_cli:watch")

    sheet_parser = sub.add_parser("sheet", help=_HELP["sheet"])
    sheet_parser.add_argument("campaign")
    sheet_parser.add_argument("character", nargs="?",
                              help="whose (default: the one you play, else all)")
    common.add_connection_options(sheet_parser)
    sheet_parser.set_defaults(handler="poolhall.clients.table_cli:sheet_of")

    state = sub.add_parser("state", help=_HELP["state"])
    state.add_argument("campaign")
    state.add_argument("--at", type=event_number, metavar="SEQ",
                       help="as they stood after event SEQ (1 is the campaign's first event)")
    common.add_connection_options(state)
    state.set_defaults(handler="poolhall.clients.table_cli:state")

    verify = sub.add_parser("verify", help=_HELP["verify"])
    verify.add_argument("db", nargs="?", default=os.environ.get("POOLHALL_DB", "poolhall.db"),
                        help="a SQLite file or a postgresql:// URL (default $POOLHALL_DB,"
                             " else ./poolhall.db)")
    verify.add_argument(
        "--expect", action="append", default=[], type=expected_hash,
        metavar="CAMPAIGN[@SEQ]=HASH",
        help="a chain hash held elsewhere (a head hash from `poolhall state`): the log must "
             "have it at that campaign's head, or at event SEQ; repeatable")
    common.add_json_option(verify)
    verify.set_defaults(handler="poolhall.clients.log_cli:verify")

    migrate = sub.add_parser("migrate", help=_HELP["migrate"])
    migrate.add_argument("--db", default=os.environ.get("POOLHALL_DB", "poolhall.db"),
                         help="a SQLite file (one that is there: serve creates a new one) or"
                              " a postgresql:// URL (default $POOLHALL_DB, else ./poolhall.db)")
    migrate.add_argument("--grant-to", metavar="ROLE",
                         help="PostgreSQL: grant ROLE what a serving process needs (read and"
                              " append the log, never change it), to serve as a role that does"
                              " not own the tables")
    common.add_json_option(migrate)
    migrate.set_defaults(handler="poolhall.clients.log_cli:migrate")

    schema = sub.add_parser("schema", help=_HELP["schema"])
    common.add_json_option(schema)  # accepted for uniformity: the schema is JSON already
    schema.set_defaults(handler="poolhall.clients.log_cli:schema")


_GROUPS: tuple[tuple[tuple[str, ...], Callable[[Any], None]], ...] = (
    (("serve",), _from("poolhall.clients.serve_cli", "add_command")),
    (("campaign",), _add_campaign_commands),  # its --system choices: the systems' registry
    (("invite",), _add_invite_command),
    (("remove-member", "assign", "share-replay"),
     _from("poolhall.clients.access_cli", "add_commands")),
    (("roll", "send", "watch", "sheet", "state", "verify", "migrate", "schema"),
     _add_table_commands),
    (("report", "export"), _from("poolhall.clients.report_cli", "add_commands")),
    (("replay",), _from("poolhall.clients.replay_cli", "add_command")),
    (("character",), _from("poolhall.clients.character_cli", "add_command")),
    (("odds", "narrative"), _system("poolhall.clients.narrative_cli")),
    (("sr3-odds", "sr3"), _system("poolhall.clients.sr3_cli")),
    (("d12-odds", "d12"), _system("poolhall.clients.d12_cli")),
)
"""Which builder makes which commands, in ``--help``'s order. A game system's commands are
its ``clients/<id>_cli.py``'s (a test holds this to :data:`poolhall.clients.systems.CLI_HOOKS`)."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``poolhall`` argument parser, with every game system's subcommands.

    Given ``command``, only that command's parser is built (and its module imported); every
    other command is its name and help line, which is all ``poolhall --help`` and a misspelt
    command's "did you mean" read.
    """
    parser = _Parser(
        prog="poolhall", description="Event-sourced dice-pool campaign server and client.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail")
    parser.add_argument("--version", action=_Version,
                        help="print the installed poolhall's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for names, build in _GROUPS:
        if command is None or command in names:
            build(sub)
        else:
            for name in names:
                sub.add_parser(name, help=_HELP[name], add_help=False)
    return parser


def _command_in(argv: list[str]) -> str:
    """The command word of a command line (``""`` if none): the first word that is not one of
    ``poolhall``'s own options."""
    for word in argv:
        if not word.startswith("-"):
            return word
    return ""


def _handler(args: argparse.Namespace) -> Callable[[argparse.Namespace], Any]:
    """The parsed command's handler: a function, or ``"module:function"`` imported now."""
    handler = args.handler
    if isinstance(handler, str):
        module, _, name = handler.partition(":")
        handler = getattr(importlib.import_module(module), name)
    return handler  # type: ignore[no-any-return]


def console() -> NoReturn:
    """The ``poolhall`` console script (and ``python -m poolhall``): :func:`main`, with the
    garbage collector kept off the modules a command imports.

    A command that talks to a server imports some 400 modules (asyncio, websockets, msgspec,
    the event types, rich) and runs for a few milliseconds. The collector scanned those
    modules' objects again and again while they were imported, and once more as the
    interpreter exited: ~30 ms of a ~155 ms ``poolhall roll``. So the collector is off while
    the command's modules are imported; then they are frozen (:func:`gc.freeze`: out of the
    collector's view, still freed by reference counting) and the collector is back on for the
    run (``watch`` and ``serve`` run for hours); what the run made is frozen too before the
    interpreter exits.
    """
    gc.disable()
    code = main(imported=_collect_from_here)
    gc.freeze()
    sys.exit(code)


def _collect_from_here() -> None:
    """Freeze what the command imported and turn the collector back on."""
    gc.freeze()
    gc.enable()


def main(argv: list[str] | None = None,
         imported: Callable[[], None] | None = None) -> int:
    """Run the ``poolhall`` command ``argv`` (default: the process's arguments) and return
    its exit status; ``imported`` is called once the command's modules are imported, before
    it runs (:func:`console`)."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser(_command_in(argv)).parse_args(argv)
    except UsageError as error:
        if "--json" in argv:
            emit(argparse.Namespace(json=True), error.as_json(), "")
        else:
            error.parser.print_usage(sys.stderr)
            common.error_console.print(styled("[red]error:[/red] {}", error))
        return error.exit_code
    import logging  # after parsing: --help never logs

    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.verbose:  # one line per connection is noise at a busy table
        logging.getLogger("websockets").setLevel(logging.WARNING)
        logging.getLogger("poolhall.clients.client").setLevel(logging.WARNING)  # watch's reconnects
    try:
        handler = _handler(args)
        if imported is not None:
            imported()
        result = handler(args)
        if isinstance(result, Coroutine):  # asyncio is imported by the commands that use it
            import asyncio

            result = asyncio.run(result)
        return int(result)
    except CliError as error:
        return _print_error(args, error)
    except TimeoutError as error:  # a read never answered (a command's is an unconfirmed)
        said = str(error).strip() or f"no answer in time from {getattr(args, 'url', 'it')}"
        return _print_error(args, CliError(said, common.EXIT_UNREACHABLE))
    except KeyboardInterrupt:
        return common.EXIT_OK
    except BrokenPipeError:
        # whoever read our output stopped (`poolhall export ... | head -1`): they have what
        # they wanted, so this is no error; the Python documentation's way (library
        # "signal", note on SIGPIPE): stdout pointed at devnull, so that the flush at exit
        # does not fail again and print "Exception ignored"
        _quiet_stdout()
        return common.EXIT_OK


def _print_error(args: argparse.Namespace, error: CliError) -> int:
    """Print ``error`` in one line (on stdout as JSON with ``--json``); its exit code."""
    if getattr(args, "json", False):
        emit(args, error.as_json(), "")
    else:
        common.error_console.print(styled("[red]error:[/red] {}", error))
    return error.exit_code


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
    console()
