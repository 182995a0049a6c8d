"""Characters in and out: the character file (JSON, versioned) and importing it.

A GM exports a character from one campaign (the page's Export button, or
``poolhall character export``) and imports it into another (the page's Import form, or
``poolhall character import``), so a party need not be typed twice. The file is
:class:`CharacterFile`, documented in ``docs/reference/character-json.md``::

    {"format": "poolhall.character", "version": 1, "name": "Han", "character": "han",
     "stats": {"system": "narrative", "agility": 3, ...},
     "exported_from": {"campaign": "edge", "character": "han"}}

It is read strictly (an unknown field is refused, naming its path), so a typo is an error
rather than a value silently dropped. ``version`` is the file format's: a later format gets a
new number and this module reads the ones it knows. An import appends the character exactly as
``create_character`` does (:class:`~poolhall.events.core.CharacterCreated`, so every projection
folds it as it always has) followed by :class:`CharacterImported`, which records where it came from.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec
import msgspec.inspect
from msgspec import Meta

from poolhall.events.base import Command, Event, Name, Slug
from poolhall.events.strict import StrictDecoder
from poolhall.events.systems import Stats

__all__ = [
    "CHARACTER_FILE_FORMAT",
    "CHARACTER_FILE_VERSION",
    "FILE_DECODER",
    "CharacterFile",
    "CharacterImported",
    "ExportedFrom",
    "ImportCharacter",
    "character_file",
    "file_refusal",
    "read_character_file",
]

CHARACTER_FILE_FORMAT: Final = "poolhall.character"
CHARACTER_FILE_VERSION: Final = 1

_Origin = Annotated[str, Meta(max_length=64, description="a campaign or character id")]


class ExportedFrom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Where an exported character came from (informative: an import never looks it up)."""

    campaign: _Origin = ""
    character: _Origin = ""


class CharacterFile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One character as a file: its name, the stats of its game system, and its origin."""

    format: Literal["poolhall.character"]
    version: Literal[1]
    name: Name
    stats: Stats
    character: Slug | None = None
    """The id it had; an import keeps it unless the campaign has one by that id already."""
    exported_from: ExportedFrom | None = None


class ImportCharacter(Command, frozen=True, kw_only=True):
    """Import a character file (GM only); ``character`` overrides the id it is given."""

    file: CharacterFile
    character: Slug | None = None


class CharacterImported(Event, frozen=True, kw_only=True):
    """A character came in from a character file (after its ``character_created``)."""

    character: Slug
    format_version: int = 1
    from_campaign: str = ""
    from_character: str = ""


FILE_DECODER: StrictDecoder[CharacterFile] = StrictDecoder(CharacterFile)
"""Refuses an unknown field at any depth (``"agilty"`` in the stats), as commands do."""
_encoder = msgspec.json.Encoder()


def file_refusal(field: str, message: str, sent: object) -> str | None:
    """What to say of a character file refused at ``format`` or ``version`` (the fields that
    tell it from any other JSON, and one format from the next), or ``None`` for the usual
    words. ``message`` is msgspec's (without its path), ``sent`` the value there.

    A version this poolhall does not know is said so, with the versions it reads: msgspec's
    "invalid enum value 2" (or, for a number past 64 bits, "not a fraction") did not tell a
    GM that the file came from a newer poolhall.
    """
    if field == "format":
        return f'not a poolhall character file: "format" must be "{CHARACTER_FILE_FORMAT}"'
    if field != "version":
        return None
    whole = isinstance(sent, int) and not isinstance(sent, bool)  # past 64 bits too
    if not (message.startswith("Invalid enum value") or whole):
        return None  # text, a fraction or no version at all: the usual words say it
    read = _versions_read()
    said = f"version {read[0]}" if len(read) == 1 else \
        "versions " + ", ".join(map(str, read[:-1])) + f" and {read[-1]}"
    return f"a character file of a version this poolhall does not read (it reads {said})"


def _versions_read() -> tuple[int, ...]:
    """The versions :class:`CharacterFile` takes (its ``version`` literal)."""
    info = msgspec.inspect.type_info(CharacterFile)
    assert isinstance(info, msgspec.inspect.StructType)
    version = next(field.type for field in info.fields if field.name == "version")
    assert isinstance(version, msgspec.inspect.LiteralType)
    return tuple(sorted(value for value in version.values if isinstance(value, int)))


def read_character_file(data: bytes | str) -> CharacterFile:
    """The character file in ``data``; :class:`msgspec.ValidationError` or
    :class:`msgspec.DecodeError` naming what is wrong (and its path) if it is not one."""
    return FILE_DECODER.decode(data)


def character_file(campaign: str, character: str, name: str, stats: Stats) -> bytes:
    """The character file of a character (pretty JSON, keys in a stable order)."""
    file = CharacterFile(format=CHARACTER_FILE_FORMAT, version=CHARACTER_FILE_VERSION,
                         name=name, stats=stats, character=character,
                         exported_from=ExportedFrom(campaign=campaign, character=character))
    return msgspec.json.format(_encoder.encode(file), indent=2) + b"\n"
