"""What ``poolhall serve`` runs (its parser is :mod:`poolhall.clients.serve_cli`): start the
server, print where the table is and how to open it, and stop gracefully on SIGINT or SIGTERM.

It imports the server at the top, so that the ``poolhall`` script imports it with the rest
of the command's modules, while the garbage collector is off
(:func:`poolhall.clients.cli.console`).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import signal
from pathlib import Path

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import CliError, styled
from poolhall.clients.links import base_url_problem, owner_link, page_origin
from poolhall.events.backends import is_postgres_url, safe_name
from poolhall.events.errors import StoreError
from poolhall.server.app import Server
from poolhall.server.auth import AdminTokenError, admin_token_path, token_file_mode
from poolhall.server.settings import from_arguments

__all__ = ["serve"]


def _settings_problem(args: argparse.Namespace) -> str | None:
    """Why the settings given cannot serve (``None``: they can), checked before anything
    is opened."""
    if not args.presence_expiry > 0:  # 0 would forget every process at once
        return f"--presence-expiry must be more than 0 seconds, not {args.presence_expiry:g}"
    return base_url_problem(args.base_url)


def _listen_problem(error: OSError, args: argparse.Namespace) -> str:
    """Why the address could not be bound, in words that say what to do about a port in use
    (the commonest case: another server, or a second ``poolhall serve``, already has it)."""
    if error.errno == errno.EADDRINUSE:
        other = args.port + 1 if args.port < 65535 else 8765
        return (f"another program (perhaps another poolhall serve) is using port {args.port}; "
                f"choose another with --port, e.g. --port {other}")
    return str(error.strerror or error)


def _start_refused(error: StoreError | AdminTokenError) -> CliError:
    """The line for a start the database or the admin token refused: a database's exit
    code as ``verify`` and ``migrate`` give it (2 for a --db that names no log, 3 for one
    that cannot be reached), else 1."""
    if isinstance(error, StoreError):
        return common.database_error(error)
    return CliError(str(error), common.EXIT_REFUSED)


async def serve(args: argparse.Namespace) -> int:
    """Start the server, say where the table is, and run until SIGINT or SIGTERM."""
    problem = _settings_problem(args)
    if problem is not None:
        raise CliError(problem)
    shared = is_postgres_url(args.db)
    if not shared and not Path(args.db).resolve().parent.is_dir():
        raise CliError(f"no directory for the database {args.db}; create it first")
    if not shared and Path(args.db).is_dir():
        raise CliError(f"{args.db} is a directory; --db names the database file")
    server = Server(args.db, args.host, args.port, settings=from_arguments(args))
    try:
        await server.start()
    except (StoreError, AdminTokenError) as error:
        raise _start_refused(error) from None
    except OSError as error:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {_listen_problem(error, args)}",
                       common.EXIT_REFUSED) from None
    common.console.print(styled("poolhall serving [bold]{}[/bold] from {}", server.url,
                                safe_name(args.db)))
    _print_admin_token(server, args, shared)
    common.console.print("health check: " + server.url.replace("ws://", "http://") + "/health"
                         "   (Ctrl-C to stop)")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    common.console.print("stopping: finishing in-flight commands")
    await server.stop()
    return common.EXIT_OK


def _print_admin_token(server: Server, args: argparse.Namespace, shared: bool) -> None:
    """Print the owner's link (on a first start, or asked), where the table is, and where
    the admin token is kept."""
    token_file = admin_token_path(args.db)
    origin = page_origin(server.url, server.settings.base_url or None)
    # The owner's link once, on the first start of a new database: it is how a GM who never
    # used a terminal opens a table. Later starts print the token file's path only (stdout of a
    # service ends up in logs others read), unless --show-admin-token asks for the link again.
    shown, why_not = _token_to_show(server, args, shared)
    if shown:
        once = " (shown on this first start only; `poolhall serve --show-admin-token` shows" \
            " it again)" if server.admin_token_created else ""
        common.console.print(f"open this link to create campaigns{once}; whoever has it is GM"
                             " of every campaign:")
        link = owner_link(server.url, shown, server.settings.base_url or None)
        common.console.print(link, markup=False, soft_wrap=True)
    common.console.print(styled("the table: [bold]{}/[/bold] (open it with a join link from "
                                "the owner's page, `poolhall campaign create` or "
                                "`poolhall invite`)", origin))
    if shared and not (server.admin_token or shown):
        common.console.print("admin token: the deployment's (its hash is in the database; the"
                             f" first process wrote the token to {token_file.name} in its"
                             " working directory)")
    else:
        _print_token_file(server.admin_token_created, token_file, link_shown=bool(shown))
    if args.show_admin_token and shown:
        common.console.print(styled("admin token: [bold]{}[/bold]", shown))
    elif why_not:
        common.console.print(f"--show-admin-token: cannot show the admin token: {why_not}")


def _token_to_show(server: Server, args: argparse.Namespace, shared: bool) -> tuple[str, str]:
    """The admin token to show with its owner's link ("" for none), and why
    ``--show-admin-token`` shows none ("" when it was not asked or shows one).

    On a first start the process that made the token shows it; with ``--show-admin-token`` a
    process of a shared database that holds only the hash reads the deployment's token file
    in its working directory, and shows it only if the database holds its hash.
    """
    if server.admin_token and (server.admin_token_created or args.show_admin_token):
        return server.admin_token, ""
    if not args.show_admin_token or not shared:  # a SQLite server holds its token
        return "", ""
    from poolhall.server.shared_admin import token_on_file

    token, why_not = token_on_file(args.db, server.joins.admin_hash)
    return token or "", why_not


def _print_token_file(created: bool, token_file: Path, link_shown: bool = False) -> None:
    """Where the admin token is kept; on a later start, whose output shows no owner's link,
    how to see it again (a newcomer who lost the link was not told)."""
    made = "created in" if created else "in"
    mode = token_file_mode(token_file)
    readable = "owner-readable only" if mode is not None and not mode & 0o077 \
        else f"mode {mode:04o}: readable by others, chmod 600 it" if mode is not None \
        else "mode unknown"
    common.console.print(f"admin token: {made} {token_file} ({readable})")
    if not (created or link_shown):
        common.console.print("the owner's link (to create campaigns): `poolhall serve"
                             " --show-admin-token` shows it again")
