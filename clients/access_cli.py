"""Who may open the table and who plays whom: ``poolhall share-replay``, ``poolhall
remove-member`` and ``poolhall assign`` (GM only).

A replay link opens ``/replay`` for someone without a seat at the table: it shows that replay
and nothing else. ``poolhall remove-member CAMPAIGN MEMBER`` with the member ``share-replay``
printed revokes it, as it removes anyone else from the table.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import emit, styled, to_plain

__all__ = ["add_commands"]


async def _share_replay(args: argparse.Namespace) -> int:
    from poolhall.clients.links import replay_link
    from poolhall.events import core

    ack = await common.call_once(args, args.campaign, core.ShareReplay, session=args.session,
                                 name=args.name)
    plain: dict[str, Any] = to_plain(ack)
    if ack.token is None:
        emit(args, plain, styled("replay link {}: [red]cannot be shown[/red]: the command had "
                                 "already been carried out and the server keeps no token; "
                                 "revoke it and share again", ack.member))
        return common.EXIT_OK
    link = replay_link(args.url, args.campaign, ack.token, args.base_url)
    plain["link"] = link
    what = f"session {args.session}" if args.session else "the campaign so far"
    emit(args, plain, styled("replay link to {} (read-only; shown once; revoke it with "
                             "`poolhall remove-member {} {}`):\n{}", what, args.campaign,
                             ack.member, link))
    return common.EXIT_OK


async def _remove_member(args: argparse.Namespace) -> int:
    from poolhall.events import core

    ack = await common.call_once(args, args.campaign, core.RemoveMember, member=args.member,
                                 reason=args.reason or "")
    emit(args, to_plain(ack), styled("removed [bold]{}[/bold]: their token (or link) no "
                                     "longer opens {}", args.member, args.campaign))
    return common.EXIT_OK


async def _assign(args: argparse.Namespace) -> int:
    from poolhall.events import core

    if bool(args.characters) == args.none:
        raise common.CliError("name the characters they play, or --none to take every "
                              "character away", common.EXIT_USAGE)
    ack = await common.call_once(args, args.campaign, core.AssignCharacters,
                                 member=args.member, characters=tuple(args.characters))
    plays = ", ".join(args.characters) if args.characters else "no character"
    emit(args, to_plain(ack), styled("[bold]{}[/bold] now plays {}", args.member, plays))
    return common.EXIT_OK


def add_commands(sub: Any) -> None:
    """Register ``remove-member``, ``assign`` and ``share-replay`` on the CLI's subcommands."""
    remove = sub.add_parser("remove-member", help="remove a member or revoke a replay link (GM)")
    remove.add_argument("campaign")
    remove.add_argument("member", help="the member's id (as `invite` or `share-replay` printed)")
    remove.add_argument("--reason", help="why, in a few words")
    common.add_connection_options(remove)
    remove.set_defaults(handler=_remove_member)

    assign = sub.add_parser("assign", help="set the characters a player plays (GM)",
                            description="Set the characters a player plays: the whole new "
                                        "list, replacing the one they had. A character may "
                                        "be one they are yet to create.")
    assign.add_argument("campaign")
    assign.add_argument("member", help="the player's id (as `invite` printed it)")
    assign.add_argument("characters", nargs="*", metavar="CHARACTER",
                        help="a character's id (e.g. ana); several for several")
    assign.add_argument("--none", action="store_true",
                        help="take every character away from them")
    common.add_connection_options(assign)
    assign.set_defaults(handler=_assign)

    share = sub.add_parser("share-replay", help="a read-only link to a session's replay (GM)")
    share.add_argument("campaign")
    share.add_argument("--session", type=int, help="the game session (default: the whole "
                       "campaign as it stands now)")
    share.add_argument("--name", help="what to call the link in the members list")
    share.add_argument("--base-url", default=os.environ.get("POOLHALL_BASE_URL"),
                       help="the address people open the table at (default: the server's "
                            "--url as http)")
    common.add_connection_options(share)
    share.set_defaults(handler=_share_replay)
