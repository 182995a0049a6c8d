"""``--visibility`` on a command that rolls (``add_visibility_option(parser)``) and the command
with it (``with_visibility(args, command)``): what a game-system CLI module imports to offer
private rolls (docs/explanation/private-rolls.md), apart from ``cli_support``'s shared options."""

from __future__ import annotations

import argparse
from typing import Any

from poolhall.clients.cli_support import CliError

__all__ = ["VISIBILITIES", "add_visibility_option", "with_visibility"]


VISIBILITY_HELP = {
    "player": "who sees the roll until the game session ends: public (default); gm: the GM's "
              "secret roll (GM only); blind: a player's roll only the GM sees, not even the "
              "player; self: a player's roll only they and the GM see. The others get a line "
              "saying who rolled in private, no dice; everyone sees it when the session ends",
    "gm": "who sees it until the game session ends: public (default), or gm: the GM's secret "
          "(GM only; the others get a line saying the GM rolled in secret, no dice); "
          "everyone sees it when the session ends",
}


VISIBILITIES = ("public", "gm", "blind", "self")
"""``events.base.Visibility``'s values, named here so that building a parser imports no message
type (a test holds the two equal)."""


def add_visibility_option(parser: argparse.ArgumentParser, *, gm_only: bool = False) -> None:
    """``--visibility {public,gm,blind,self}`` (``gm_only``: a command only the GM makes
    private, such as a check built step by step; the server refuses what a role may not use)."""
    choices = ("public", "gm") if gm_only else VISIBILITIES
    parser.add_argument("--visibility", choices=choices, default="public",
                        help=VISIBILITY_HELP["gm" if gm_only else "player"])


def with_visibility(args: argparse.Namespace, command: Any) -> Any:
    """``command`` with ``--visibility`` (unchanged when public); a command that cannot be
    private is refused here, in words, rather than sent without it."""
    visibility = getattr(args, "visibility", "public")
    if visibility == "public":
        return command
    if "visibility" not in command.__struct_fields__:
        raise CliError(f"a {type(command).__name__} is never private: leave out "
                       "--visibility (the roll would be public)")
    import msgspec

    return msgspec.structs.replace(command, visibility=visibility)
