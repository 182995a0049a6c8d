"""No control characters in anything a command says, and no text that shows nothing: what
people type is shown to others.

A name, a reason, a label or a note travels to every member and ends up printed in terminals
and pages. Control characters in it (an escape sequence, a carriage return, a right-to-left
override) would let one player clear every screen or forge log lines, so every string of a
command is checked here once it has decoded, and the first one holding such a character is
refused as ``invalid`` with its path (``$.reason``, ``$.stats.skills["Cool"]``).

Why not a pattern on the field types: events share those types, and events must stay readable
as stored (a log written before this check may hold such a character, and must still
rebuild). The check therefore sits at the protocol, on commands only, and covers every string
field of every command at once, including fields added later. Events are left as they are;
clients escape what they print (:mod:`poolhall.clients.printable`).

Text that shows nothing is refused the same way: a string that is not empty must hold at
least one visible character (:func:`visible`). A member named only U+3164 (the Hangul filler,
a letter that draws nothing), U+200D or the tag characters (allowed inside emoji, invisible
alone), or spaces, looks like no one in every list of the table: "who rolled that?". The
rule holds for every string of every command (names of members, characters, campaigns and
replay links, session titles, reasons, notes), as none is meant to be blank but empty.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import msgspec

from poolhall.events.errors import Rejected

__all__ = ["CONTROL_CHARACTERS", "INVISIBLE_CHARACTERS", "check_plain_text",
           "control_character_in", "visible"]

CONTROL_CHARACTERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")
"""C0 and C1 controls, DEL, the line and paragraph separators, the bidirectional marks,
embeddings, overrides and isolates (which reorder what a terminal shows), and the invisible
format characters (soft hyphen, zero-width space, word joiner, byte order mark ...) that
make ``Admin\u200b`` look like ``Admin``. The zero-width joiner and non-joiner, which
emoji and several scripts need, and the tag characters of flag emoji stay allowed."""

INVISIBLE_CHARACTERS = re.compile(
    "[\\s\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
"""Characters that draw nothing on their own besides the separators, controls, format
characters and lone combining marks (told by their Unicode category): white space, Unicode's
default-ignorable code points (among them the Hangul fillers U+115F, U+1160, U+3164 and
U+FFA0, the variation selectors, the tag characters U+E0000 to U+E0FFF) and the blank
Braille pattern U+2800."""

_DRAW_NOTHING = frozenset({"Cc", "Cf", "Cs", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories whose characters show nothing by themselves: controls, format
characters, surrogates, separators, and marks that combine with a character before them."""


def visible(text: str) -> bool:
    """Whether ``text`` holds a character that shows (see :data:`INVISIBLE_CHARACTERS`)."""
    return any(not INVISIBLE_CHARACTERS.match(char)
               and unicodedata.category(char) not in _DRAW_NOTHING for char in text)


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LAST_NAME = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)$")
_SEQUENCES = (tuple, list)


def control_character_in(value: Any, path: str = "$") -> tuple[str, str] | None:
    """The path of the first string in ``value`` holding a control character (or, if it has
    none, showing nothing), and that character (the whole string); ``None`` if there is
    none. Walks Structs, sequences and maps (keys too)."""
    hit = _find(value)
    if hit is None:
        return None
    steps, char = hit
    return path + "".join(reversed(steps)), char


def _find(value: Any) -> tuple[list[str], str] | None:
    """The first control character under ``value``, or string that shows nothing, and the
    path steps to it, innermost first (built only on the way back from a hit: the walk itself
    formats nothing)."""
    if type(value) is str:
        if value.isascii() and value.isprintable():  # most text: no control, and visible
            return ([], value) if value and value.isspace() else None  # unless all blank
        found = CONTROL_CHARACTERS.search(value)
        if found:
            return [], found.group()
        return ([], value) if value and not visible(value) else None
    if isinstance(value, msgspec.Struct):
        return _find_in_struct(value)
    if isinstance(value, _SEQUENCES):
        return _find_in_sequence(value)
    if isinstance(value, dict):
        return _find_in_map(value)
    return None


def _find_in_struct(value: msgspec.Struct) -> tuple[list[str], str] | None:
    """:func:`_find` in a Struct's fields, named as they are encoded (``.name``)."""
    for field, name in zip(value.__struct_fields__, value.__struct_encode_fields__,
                           strict=True):
        hit = _find(getattr(value, field))
        if hit:
            hit[0].append(f".{name}")
            return hit
    return None


def _find_in_sequence(value: tuple[Any, ...] | list[Any]) -> tuple[list[str], str] | None:
    """:func:`_find` in the items of a tuple or list (``[index]``)."""
    for index, item in enumerate(value):
        hit = _find(item)
        if hit:
            hit[0].append(f"[{index}]")
            return hit
    return None


def _find_in_map(value: dict[Any, Any]) -> tuple[list[str], str] | None:
    """:func:`_find` in a map's keys and values: ``.key`` for a key that reads as a name,
    else the key as JSON in brackets."""
    for key, item in value.items():
        hit = _find(key) or _find(item)
        if hit:
            hit[0].append(f".{key}" if isinstance(key, str) and _NAME.match(key)
                          else f"[{msgspec.json.encode(key).decode()}]")
            return hit
    return None


def check_plain_text(command: Any) -> None:
    """Raise ``invalid`` naming the first string of ``command`` with a control character, or
    that is not empty and shows nothing."""
    hit = control_character_in(command)
    if hit is None:
        return
    path, found = hit
    if len(found) == 1 and CONTROL_CHARACTERS.match(found):
        raise Rejected("invalid", f"control characters are not allowed in text "
                       f"(found U+{ord(found):04X})", path)
    last = _LAST_NAME.search(path)
    field = last.group(1) if last else path
    held = " ".join(dict.fromkeys(f"U+{ord(char):04X}" for char in found))
    raise Rejected("invalid", f"{field} shows nothing: it needs at least one visible "
                   f"character (it holds only {_shortened(held)})", path)


def _shortened(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[:most].rsplit(" ", 1)[0] + " ..."
