"""What every ``poolhall narrative ACTION`` shares: its parser, and sending its one command.

Used by :mod:`poolhall.clients.narrative_cli` (checks, destiny, Force) and
:mod:`poolhall.clients.narrative_encounter_cli` (the encounter, spending results).
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import Any

__all__ = ["action_parser", "send_as"]


async def send_as(args: argparse.Namespace, common: ModuleType, command_type: type[Any],
                  **fields: Any) -> int:
    """Send one ``command_type`` command with ``fields`` to ``args.campaign``; the exit code."""
    command = command_type(id=common.new_command_id(), **fields)
    return int(await common.send_command(args, args.campaign, command))


def action_parser(actions: Any, common: ModuleType, name: str, help_text: str,
                  handler: Any) -> argparse.ArgumentParser:
    """``poolhall narrative NAME CAMPAIGN ...``, run by ``handler(args, common)``."""
    parser: argparse.ArgumentParser = actions.add_parser(name, help=help_text)
    parser.add_argument("campaign")
    common.add_connection_options(parser)
    parser.set_defaults(handler=lambda args: handler(args, common))
    return parser
