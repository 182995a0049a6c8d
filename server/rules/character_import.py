"""Deciding ``import_character``: a character file becomes a character of this campaign.

The GM alone imports (a player's own character goes through the GM, who knows the table's
house rules). The file's stats must be of the campaign's game system; the id is the command's
``character``, else the file's, else one made from the name, and must be free. The events are
the ones ``create_character`` appends plus :class:`~poolhall.events.character_io.CharacterImported`:
the sheet is built by the same folds, and the log says where it came from.
"""

from __future__ import annotations

from poolhall.events.base import Event
from poolhall.events.character_io import ImportCharacter
from poolhall.events.core import CharacterCreated, CharacterImported
from poolhall.events.errors import Rejected
from poolhall.server.rules.base import Decision
from poolhall.server.rules.core import slugify

__all__ = ["import_character"]


def import_character(ctx: Decision, command: ImportCharacter) -> list[Event]:
    """The events of an import, or :class:`Rejected` naming the field at fault."""
    ctx.require_gm("import characters")
    file = command.file
    system = type(file.stats).__struct_config__.tag
    if system != ctx.state.system:
        raise Rejected("invalid", f"this campaign plays {ctx.state.system!r}; the file's"
                       f" character is a {system!r} character", "$.file.stats.system")
    taken = {*ctx.state.characters, *ctx.state.retired}  # a retired id is never reused
    if command.character is not None:
        if command.character in taken:
            was = "was a retired character's" if command.character in ctx.state.retired \
                else "exists"
            raise Rejected("conflict", f"character {command.character!r} {was}; choose"
                           " another id", "$.character")
        character = command.character
    elif file.character is not None and file.character not in taken:
        character = file.character
    else:
        character = slugify(file.name, taken, "character")
    origin = file.exported_from
    return [
        CharacterCreated(character=character, name=file.name, stats=file.stats),
        CharacterImported(character=character, format_version=file.version,
                          from_campaign=origin.campaign if origin else "",
                          from_character=origin.character if origin else ""),
    ]
