"""What every ``poolhall`` subcommand shares: options, finding tokens, connecting, output.

Game-system CLI modules (``clients/<system>_cli.py``) receive this module as ``common`` in
``add_commands(subparsers, common)`` and use:

- ``common.add_connection_options(parser)``: ``--url``, ``--token`` or ``--token-file``,
  ``--db``, ``--json``;
- ``common.add_json_option(parser)``: ``--json`` alone (for commands that need no server);
- ``await common.send_command(args, campaign, command)``: connect with the token, send, print
  the ack (or the error) and return the exit code;
- ``common.emit(args, data, text)``: print ``data`` as JSON with ``--json``, else ``text``
  (plain text, or any rich renderable; markup is off: style with ``common.styled``; or a
  function of no arguments that makes it, called only without ``--json``);
- ``await common.call_once(args, campaign, CommandType, **fields)``: one command, its ack;
- ``await common.fetch_state(args, campaign)``: the campaign's table as it stands now (from
  the server's snapshot: no replay; ``whole=True`` folds the whole log, for closed history);
- ``await common.fetch_table(args, campaign)``: the (closed) client that read it, with its
  views and welcome;
- ``await common.character_for(args, campaign, given)``,
  ``common.own_character(client, given)``: the character a command is for (a player with one
  need not name it); ``common.did_you_mean(word, options)``;
- ``common.new_command_id()``.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

from poolhall.clients.cli_errors import (
    EXIT_DIVERGED,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_UNCONFIRMED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    CliError,
    connection_lost,
    database_error,
)
from poolhall.clients.defaults import DEFAULT_URL, new_command_id
from poolhall.events.suggest import did_you_mean

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console
    from rich.text import Text

    from poolhall.clients.client import Client
    from poolhall.projections.campaign import CampaignState

# Imported when a command runs, not when the parser is built: rich, msgspec, websockets, the
# client and the message types cost a ``--help`` hundreds of milliseconds (see
# tests/bench/cli_start.py), so each function below imports what it uses.

__all__ = [
    "EXIT_DIVERGED",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_UNCONFIRMED",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "CliError",
    "add_connection_options",
    "add_json_option",
    "connection_lost",
    "database_error",
    "admin_token",
    "did_you_mean",
    "character_for",
    "fetch_table",
    "own_character",
    "console",  # noqa: F822 - made on first use, by the module's __getattr__
    "emit",
    "error_console",  # noqa: F822 - made on first use, by the module's __getattr__
    "new_command_id",
    "open_client",
    "call_once",
    "read_token_file",
    "fetch_state",
    "lines",
    "resolve_token",
    "send_command",
    "styled",
    "to_plain",
]

ONE_SHOT_TIMEOUT = 30.0
"""Seconds a one-shot command waits for its answer by default (``--timeout``), reconnecting
through drops meanwhile."""

STILL_WAITING = 5.0
"""Seconds without a server's answer to joining after which a command says it is still
waiting: a host that drops packets, or a program at that port that is not a poolhall server,
would otherwise leave the terminal silent for the whole ``--timeout``."""

# Markup off: names, reasons and messages come from users, and a "[/x]" in a roll's reason
# must print as typed, not break every watcher's terminal. Styling goes through styled().
# Control characters in what players typed are escaped by a render hook (clients.printable).
@cache
def _consoles() -> tuple[Console, Console]:
    """The consoles for standard output and standard error, made when first printed to."""
    from rich.console import Console

    from poolhall.clients.render_hook import EscapeUnprintable

    class _Console(Console):
        """rich's console, except when the reader of our output goes away (``| head``): rich
        would exit with status 1 there; ours raises, and :func:`poolhall.clients.cli.main` ends
        quietly with status 0 (the reader has what it wanted)."""

        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    made = (_Console(highlight=False, soft_wrap=True, markup=False),
            _Console(stderr=True, highlight=False, soft_wrap=True, markup=False))
    for each in made:
        each.push_render_hook(EscapeUnprintable())
    return made


def __getattr__(name: str) -> Any:
    """``console`` and ``error_console``, made on first use (a module attribute to the
    system CLIs, which print with ``common.console.print``)."""
    if name == "console":
        return _consoles()[0]
    if name == "error_console":
        return _consoles()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def styled(template: str, *values: object) -> Text:
    """Rich markup in ``template`` (ours), its ``{}`` filled with ``values`` as plain text
    (unprintable characters, newlines included, shown as escapes: a value is one line)."""
    from rich.markup import escape
    from rich.text import Text

    from poolhall.clients.printable import printable

    return Text.from_markup(template.format(*(escape(printable(str(value)))
                                              for value in values)))


def lines(*parts: str | Text) -> Text:
    """Several lines of text, styled or not, as one renderable."""
    from rich.text import Text

    from poolhall.clients.printable import printable

    return Text("\n").join(Text(printable(part)) if isinstance(part, str) else part
                           for part in parts)


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    """``--url``, ``--token`` or ``--token-file``, ``--admin-token``, ``--db``, ``--timeout``
    and ``--json``."""
    parser.add_argument("--url", default=os.environ.get("POOLHALL_URL", DEFAULT_URL),
                        help=f"server address (default {DEFAULT_URL}, or $POOLHALL_URL)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--token",
                       help="your member token (visible to others in `ps`: prefer --token-file"
                            " or $POOLHALL_TOKEN); default: $POOLHALL_TOKEN, else the admin"
                            " token")
    which.add_argument("--token-file", metavar="PATH",
                       help="a file holding your member token (keep it chmod 600)")
    parser.add_argument("--admin-token", default=os.environ.get("POOLHALL_ADMIN_TOKEN"),
                        help="the server's admin token (or $POOLHALL_ADMIN_TOKEN; "
                             "found beside --db otherwise)")
    parser.add_argument("--db", default=os.environ.get("POOLHALL_DB", "poolhall.db"),
                        help="database whose admin-token file to use (default $POOLHALL_DB,"
                             " else ./poolhall.db; for a postgresql:// URL, the"
                             " deployment's ./poolhall-DATABASE[+SCHEMA][@HOST].admin-token)")
    parser.add_argument("--timeout", type=_seconds, default=ONE_SHOT_TIMEOUT, metavar="SECONDS",
                        help="how long to wait for an answer, reconnecting through drops"
                             f" (default {ONE_SHOT_TIMEOUT:g})")
    add_json_option(parser)


def _seconds(text: str) -> float:
    """``--timeout``'s type: a number of seconds, more than 0 and at most a day."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= 86400:  # nan is neither
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds more than 0 "
                                         "and at most 86400 (a day)")
    return seconds


def admin_token(args: argparse.Namespace) -> str:
    """The admin token: ``--admin-token``, ``$POOLHALL_ADMIN_TOKEN``, or the file beside --db
    (for a ``postgresql://`` URL, the file named after that deployment in the working
    directory, as ``poolhall serve`` writes it)."""
    if getattr(args, "admin_token", None):
        return str(args.admin_token)
    from pathlib import Path

    from poolhall.events.database_names import deployment_token_file, is_postgres_url

    shared = is_postgres_url(str(args.db))
    path = (Path(deployment_token_file(str(args.db))) if shared
            else Path(args.db).with_name(Path(args.db).name + ".admin-token"))
    if path.exists():
        return read_token_file(path)
    old = "; poolhall.admin-token here has the name earlier builds gave it: `poolhall serve`" \
        " started here renames it if it is this deployment's" \
        if shared and Path("poolhall.admin-token").exists() else ""
    raise CliError(f"no admin token: pass --admin-token, set POOLHALL_ADMIN_TOKEN, or run in "
                   f"the directory of the database ({path} not found{old})")


def resolve_token(args: argparse.Namespace) -> str:
    """The member token (``--token``, ``--token-file``, then ``$POOLHALL_TOKEN``), else the
    admin token (which acts as GM everywhere).

    A token given but empty is an error, never a fall back to the admin's: with
    ``POOLHALL_TOKEN=$(cat lost-file)`` a player's command must not run as the admin.
    """
    given = getattr(args, "token", None)
    if given is not None:
        if not given.strip():
            raise CliError("--token is empty")
        return str(given)
    if getattr(args, "token_file", None):
        return read_token_file(args.token_file)
    from_environment = os.environ.get("POOLHALL_TOKEN")
    if from_environment is not None:
        if not from_environment.strip():
            raise CliError("POOLHALL_TOKEN is set but empty; unset it to act as the admin")
        return from_environment.strip()
    return admin_token(args)


def read_token_file(path: str | Path) -> str:
    """The token kept in a file (surrounding whitespace ignored), or a :class:`CliError`."""
    from pathlib import Path

    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise CliError(f"cannot read the token file {path}: {reason}") from None
    if not token:
        raise CliError(f"the token file {path} is empty")
    return token


async def open_client(args: argparse.Namespace, campaign: str | None,
                      token: str | None = None, *, follow: bool = False,
                      replay: bool = False, **hooks: Any) -> Client:
    """A joined client, or a :class:`CliError` that says why not.

    A one-shot command's client reconnects through drops for ``--timeout`` seconds (and a
    command unanswered is re-sent with its id: see :func:`send_command`), and drops no event
    it has not read yet; ``follow`` (for ``watch``) reconnects and resumes for a minute each
    time, through a server restart. The client
    gets a snapshot of the table on joining, not the log: ``replay`` asks for every event
    (for the commands that need the whole history, like ``state --at``). ``hooks``: the
    client's ``on_connection``, ``on_view`` and ``on_revealed``.
    """
    import asyncio

    from websockets.exceptions import InvalidHandshake, InvalidURI

    from poolhall.clients.client import Client
    from poolhall.clients.connection_words import url_problem, why_unreachable
    from poolhall.events.errors import CommandRejected

    problem = url_problem(args.url)
    if problem is not None:
        raise CliError(f"--url {args.url!r} {problem}; use ws://HOST:PORT "
                       f"(default {DEFAULT_URL})")
    timeout = getattr(args, "timeout", ONE_SHOT_TIMEOUT)
    client = Client(args.url, token or resolve_token(args), campaign, timeout=timeout,
                    reconnect_for=60.0 if follow else timeout, keep_all=True, replay=replay,
                    **hooks)
    waiting = asyncio.get_running_loop().call_later(STILL_WAITING, _say_still_waiting, args,
                                                    timeout)
    try:
        await client.connect()
    except CommandRejected as refusal:
        message = refusal.message
        if campaign is None and refusal.code == "unauthorized":
            message = (f"the admin token was not accepted by {args.url}; is it the token of "
                       "the database that server serves? (--admin-token, $POOLHALL_ADMIN_TOKEN"
                       " or the .admin-token file beside --db)")
        raise CliError(f"join refused: {message}", EXIT_REFUSED, refusal.code,
                       refusal.path, message) from None
    except InvalidURI as error:  # what url_problem lets by: a user name without a password
        raise CliError(f"--url {args.url!r} is not a websocket address ({error.msg}); use "
                       f"ws://HOST:PORT (default {DEFAULT_URL})") from None
    except InvalidHandshake as error:
        refused = getattr(error, "response", None)
        if refused is not None and refused.status_code == 503:  # over a cap: the body says why
            reason = (refused.body or b"").decode(errors="replace").strip()
            raise CliError(f"{args.url} refused the connection: {reason}",
                           EXIT_UNREACHABLE) from None
        raise CliError(f"{args.url} did not answer as a poolhall server: {error}",
                       EXIT_UNREACHABLE) from None
    except (OSError, TimeoutError) as error:
        raise CliError(why_unreachable(error, args.url), EXIT_UNREACHABLE) from None
    finally:
        waiting.cancel()
    return client


def _say_still_waiting(args: argparse.Namespace, timeout: float) -> None:
    """A line on standard error that the server has not answered yet, and until when the
    command waits (none with ``--json``, whose standard error holds one JSON error only)."""
    if not getattr(args, "json", False):
        _consoles()[1].print(styled("[dim]waiting for {} to answer (giving up after {} s: "
                                    "--timeout)…[/]", args.url, f"{timeout:g}"))


async def call_once(args: argparse.Namespace, campaign: str | None, command_type: type[Any],
                    token: str | None = None, /, **fields: Any) -> Any:
    """Connect, send one command, leave: its ack, or a one-line refusal (exit 1), or, if no
    answer came through reconnects, a line that it may have been applied (exit 5,
    :func:`poolhall.clients.cli_answers.answer`).

    Positional-only parameters, so a command's own fields (``campaign`` of create_campaign)
    pass through ``fields``.
    """
    from poolhall.clients.cli_answers import answer
    from poolhall.clients.client import new_command

    command = new_command(command_type, **fields)  # its id (and retry key) kept for retries
    client = await open_client(args, campaign, token)
    try:
        return await answer(client, campaign, command)
    finally:
        await client.close()


async def fetch_state(args: argparse.Namespace, campaign: str, *,
                      whole: bool = False) -> CampaignState:
    """Join, take the table as it stands now, leave: the campaign's state.

    From the server's snapshot (one message, whatever the log's length), which holds the open
    checks and tests and the latest closed ones; ``whole`` replays the whole log instead, for
    a command that shows every closed one (``--all``).
    """
    return (await fetch_table(args, campaign, whole=whole)).state


async def fetch_table(args: argparse.Namespace, campaign: str, *, whole: bool = False) -> Client:
    """Join, take the table (the snapshot, or with ``whole`` the whole log), leave: the
    closed client, whose ``state``, ``views`` (those that came while it read) and ``welcome``
    (who we are) stay readable."""
    from poolhall.clients.replay_link_cli import is_link, link_refusal
    from poolhall.events.errors import ConnectionLost

    client = await open_client(args, campaign, replay=whole)
    try:
        assert client.welcome is not None
        if is_link(client):  # no table comes to a replay link: said at once, not waited for
            raise await link_refusal(client, campaign, "show the table as it stands")
        await client.wait_for_seq(client.welcome.head, timeout=120)
    except ConnectionLost as lost:
        raise connection_lost(lost, f"stopped reading {campaign}") from None
    finally:
        await client.close()
    return client


async def character_for(args: argparse.Namespace, campaign: str, given: str | None) -> str:
    """``given``, else the one character the member plays (read from the table: one more
    connection, only when the character was left out)."""
    if given is not None:
        return given
    return own_character(await fetch_table(args, campaign), None)


def own_character(client: Client, given: str | None) -> str:
    """The character a command is for: ``given`` (which must exist), else the one character
    the member plays; a plain-words :class:`CliError` when that cannot be told."""
    state = client.state
    if given is not None:
        if given in state.characters:
            return given
        if given in state.retired:
            raise CliError(f"{state.retired[given]} is retired: no longer at this table")
        raise CliError(f"no character {given!r} in {state.campaign}"
                       + did_you_mean(given, state.characters))
    member = state.members.get(client.welcome.member) if client.welcome else None
    mine = [c for c in member.characters if c in state.characters] if member else []
    if len(mine) == 1:
        return mine[0]
    if mine:
        raise CliError(f"you play {len(mine)} characters ({', '.join(mine)}): name one")
    known = ", ".join(list(state.characters)[:10]) or "none yet"
    raise CliError(f"name the character (the campaign's: {known})")


def to_plain(value: Any) -> Any:
    """Structs to plain JSON-able data."""
    import msgspec

    return msgspec.to_builtins(value)


def emit(args: argparse.Namespace, data: Any, text: Any) -> None:
    """Print ``data`` as JSON with ``--json``, else ``text`` for people.

    ``text`` may be a function of no arguments that makes it: then ``--json`` imports no rich
    (building styled text imports it: tens of milliseconds of an offline command's start)."""
    if getattr(args, "json", False):
        import msgspec

        from poolhall.clients.printable import json_safe

        sys.stdout.write(json_safe(msgspec.json.encode(to_plain(data)).decode()) + "\n")
    else:
        _consoles()[0].print(text() if callable(text) else text)


async def send_command(args: argparse.Namespace, campaign: str, command: Any,
                       client: Client | None = None) -> int:
    """Send one command and report the ack with the events it appended, or the refusal;
    return the exit code.

    ``client``: one already joined (it is closed here), so a command that needed to look at
    the table first joins once. A command whose answer is lost on the way, or that a server
    stopping refused ``shutting_down`` (unapplied), is re-sent with its id once the client has
    reconnected, and gets the original answer (:mod:`poolhall.clients.in_flight`); if none comes in
    time, the line says it may have been applied and how to find out (exit 5). A command sent
    again with the id of one already applied (``poolhall send`` after a cut) shows the events
    the first one appended, read from the log.
    """
    from poolhall.clients.cli_answers import answer, events_of
    from poolhall.projections.describe import describe

    if client is None:
        client = await open_client(args, campaign)
    try:
        ack = await answer(client, campaign, command)
        recorded = await events_of(client, ack)
    finally:
        await client.close()

    def text() -> Any:
        if recorded:
            return lines(*(styled("[bold]#{}[/bold] {}", r.seq, describe(r, client.state))
                           for r in recorded))
        if ack.seqs:  # applied; its events could not be read (the link dropped again)
            return f"ok: recorded as {', '.join(f'#{seq}' for seq in ack.seqs)}"
        return "ok (no event)"

    emit(args, {"ack": to_plain(ack), "events": [to_plain(r) for r in recorded]}, text)
    return EXIT_OK
