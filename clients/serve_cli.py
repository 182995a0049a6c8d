"""``poolhall serve``: run the server on the embedded default (a SQLite file, a loopback port)
and say where the table is.

This module builds the command's parser; what it runs is :mod:`poolhall.clients.serve_run`,
imported only when it runs (it imports the server), so the other commands, and ``serve
--help``, start without the server.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

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
    serve.set_defaults(handler="poolhall.clients.serve_run:serve")


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range 0-65535")
    return port
