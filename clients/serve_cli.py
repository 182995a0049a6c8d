"""``poolhall serve``: run the server on the embedded default (a SQLite file, a loopback port)
and say where the table is.

The server itself is imported only when this command runs, so the client's commands start
without it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import CliError, styled
from poolhall.clients.links import base_url_problem, owner_link, page_origin

__all__ = ["add_command", "port_number"]


def add_command(sub: Any) -> None:
    """Register ``serve`` (and the server's settings as its flags) on the CLI's subcommands."""
    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--db", default=os.environ.get("POOLHALL_DB", "poolhall.db"),
                       help="a SQLite file, or a postgresql:// URL shared by several server"
                            " processes (default $POOLHALL_DB, else ./poolhall.db)")
    serve.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    serve.add_argument("--port", type=port_number, default=8765,
                       help="port (default 8765; 0 picks a free one)")
    serve.add_argument("--show-admin-token", action="store_true",
                       help="also print the admin token itself and the owner's link (by"
                            " default only the first start on a new database prints the"
                            " owner's link; later starts print the token file's path only,"
                            " as output often ends up in logs)")
    from poolhall.server.settings import add_arguments as add_settings_arguments

    add_settings_arguments(serve)
    serve.set_defaults(handler=_serve)


def _settings_problem(args: argparse.Namespace) -> str | None:
    """Why the settings given cannot serve (``None``: they can), checked before anything
    is opened."""
    if not args.presence_expiry > 0:  # 0 would forget every process at once
        return f"--presence-expiry must be more than 0 seconds, not {args.presence_expiry:g}"
    return base_url_problem(args.base_url)


async def _serve(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from poolhall.events.backends import is_postgres_url, safe_name
    from poolhall.events.errors import StoreError
    from poolhall.server.app import Server
    from poolhall.server.settings import from_arguments

    problem = _settings_problem(args)
    if problem is not None:
        raise CliError(problem)
    shared = is_postgres_url(args.db)
    if not shared and not Path(args.db).resolve().parent.is_dir():
        raise CliError(f"no directory for the database {args.db}; create it first")
    if not shared and Path(args.db).is_dir():
        raise CliError(f"{args.db} is a directory; --db names the database file")
    from poolhall.server.auth import AdminTokenError, admin_token_path

    server = Server(args.db, args.host, args.port, settings=from_arguments(args))
    try:
        await server.start()
    except (StoreError, AdminTokenError) as error:
        raise CliError(str(error), common.EXIT_REFUSED) from None
    except OSError as error:
        raise CliError(f"cannot listen on {args.host}:{args.port}: "
                       f"{error.strerror or error}", common.EXIT_REFUSED) from None
    token_file = admin_token_path(args.db)
    common.console.print(styled("poolhall serving [bold]{}[/bold] from {}", server.url,
                                safe_name(args.db)))
    origin = page_origin(server.url, server.settings.base_url or None)
    # The owner's link once, on the first start of a new database: it is how a GM who never
    # used a terminal opens a table. Later starts print the token file's path only (stdout of a
    # service ends up in logs others read), unless --show-admin-token asks for the link again.
    if server.admin_token and (server.admin_token_created or args.show_admin_token):
        once = " (shown on this first start only; `poolhall serve --show-admin-token` shows" \
            " it again)" if server.admin_token_created else ""
        common.console.print(f"open this link to create campaigns{once}; whoever has it is GM"
                             " of every campaign:")
        link = owner_link(server.url, server.admin_token, server.settings.base_url or None)
        common.console.print(link, markup=False, soft_wrap=True)
    common.console.print(styled("the table: [bold]{}/[/bold] (open it with a join link from "
                                "the owner's page, `poolhall campaign create` or "
                                "`poolhall invite`)", origin))
    if shared and not server.admin_token:
        common.console.print("admin token: the deployment's (its hash is in the database; the"
                             f" first process wrote the token to {token_file.name} in its"
                             " working directory)")
    else:
        _print_token_file(server.admin_token_created, token_file)
    if args.show_admin_token and server.admin_token:
        common.console.print(styled("admin token: [bold]{}[/bold]", server.admin_token))
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


def _print_token_file(created: bool, token_file: Path) -> None:
    from poolhall.server.auth import token_file_mode

    made = "created in" if created else "in"
    mode = token_file_mode(token_file)
    readable = "owner-readable only" if mode is not None and not mode & 0o077 \
        else f"mode {mode:04o}: readable by others, chmod 600 it" if mode is not None \
        else "mode unknown"
    common.console.print(f"admin token: {made} {token_file} ({readable})")


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range 0-65535")
    return port
