"""``poolhall character export`` and ``poolhall character import``: a character as a file;
``poolhall character retire``: a character leaves the table for good (GM).

Export reads the table (any member may: a sheet is no secret at the table) and writes the
character file (:mod:`poolhall.events.character_io`); import checks the file here first, so a typo
is named with its path before anything is sent, then sends ``import_character`` (GM token).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import CliError, emit, styled

__all__ = ["add_command", "load_character_file"]


def add_command(sub: Any) -> None:
    """Register ``character export``, ``character import`` and ``character retire``."""
    character = sub.add_parser("character", help="export a character to a file, import one, "
                               "or retire one")
    actions = character.add_subparsers(dest="action", required=True, metavar="ACTION")
    export = actions.add_parser("export", help="write a character as a JSON character file")
    export.add_argument("campaign")
    export.add_argument("character")
    export.add_argument("--out", metavar="FILE", help="write to FILE (default: standard output)")
    common.add_connection_options(export)
    export.set_defaults(handler=_export)
    load = actions.add_parser("import", help="add a character from a character file (GM)")
    load.add_argument("campaign")
    load.add_argument("file", help="the character file (- for standard input)")
    load.add_argument("--id", dest="character", help="the character's id here (default: the"
                      " file's, or one made from its name if taken)")
    common.add_connection_options(load)
    load.set_defaults(handler=_import)
    retire = actions.add_parser("retire", help="take a character off the table for good (GM):"
                                " whoever played it no longer does; its id is not reused")
    retire.add_argument("campaign")
    retire.add_argument("character", help="the character's id")
    retire.add_argument("--reason", default="", help="why, in a few words (in the log)")
    common.add_connection_options(retire)
    retire.set_defaults(handler=_retire)


def load_character_file(data: bytes, source: str) -> Any:
    """The character file in ``data``, or a :class:`CliError` naming ``source``, the field's
    path and what is wrong with it."""
    import msgspec

    from poolhall.events.character_io import FILE_DECODER, read_character_file
    from poolhall.events.wire_errors import rejection_from

    try:
        return read_character_file(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        refusal = rejection_from(error, data, FILE_DECODER)  # the server's words for a file
        raise CliError(f"{source}: {refusal.path}: {refusal.message}", common.EXIT_USAGE,
                       "invalid", refusal.path) from None


async def _export(args: argparse.Namespace) -> int:
    from poolhall.events.character_io import character_file
    from poolhall.events.suggest import did_you_mean

    client = await common.fetch_table(args, args.campaign)
    state = client.state
    found = state.characters.get(args.character)
    if found is None and args.character in state.retired:  # the server's words
        raise CliError(f"{state.retired[args.character]} is retired: no longer at this table")
    if found is None:
        raise CliError(f"no character {args.character!r} in {args.campaign}"
                       + did_you_mean(args.character, state.characters))
    data = character_file(args.campaign, found.character, found.name, found.stats)
    if args.out:
        Path(args.out).write_bytes(data)
        emit(args, {"written": args.out, "character": found.character},
             styled("wrote [bold]{}[/bold] to {}", found.name, args.out))
    else:
        sys.stdout.write(data.decode())
    return common.EXIT_OK


async def _import(args: argparse.Namespace) -> int:
    from poolhall.events.character_io import ImportCharacter

    source = "standard input" if args.file == "-" else args.file
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as error:
        raise CliError(f"cannot read {source}: {error.strerror or error}") from None
    file = load_character_file(data, source)
    ack = await common.call_once(args, args.campaign, ImportCharacter, file=file,
                                 character=args.character)
    emit(args, ack, styled("imported [bold]{}[/bold] into {} (events {})", file.name,
                           args.campaign, ", ".join(str(s) for s in ack.seqs)))
    return common.EXIT_OK


async def _retire(args: argparse.Namespace) -> int:
    from poolhall.events.core import RetireCharacter

    ack = await common.call_once(args, args.campaign, RetireCharacter, character=args.character,
                                 reason=args.reason)
    emit(args, ack, styled("retired [bold]{}[/bold] from {} (events {})", args.character,
                           args.campaign, ", ".join(str(s) for s in ack.seqs)))
    return common.EXIT_OK
