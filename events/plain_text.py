"""No control characters in anything a command says: what people type is shown to others.

A name, a reason, a label or a note travels to every member and ends up printed in terminals
and pages. Control characters in it (an escape sequence, a carriage return, a right-to-left
override) would let one player clear every screen or forge log lines, so every string of a
command is checked here once it has decoded, and the first one holding such a character is
refused as ``invalid`` with its path (``$.reason``, ``$.stats.skills["Cool"]``).

Why not a pattern on the field types: events share those types, and events must stay readable
as stored (a log written before this check may hold such a character, and must still
rebuild). The check therefore sits at the protocol, on commands only, and covers every string
field of every command at once, including fields added later. Events are left as they are;
clients escape what they print (:mod:`clients.printable`).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from events.errors import Rejected

__all__ = ["CONTROL_CHARACTERS", "check_plain_text", "control_character_in"]

CONTROL_CHARACTERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")
"""C0 and C1 controls, DEL, the line and paragraph separators, the bidirectional marks,
embeddings, overrides and isolates (which reorder what a terminal shows), and the invisible
format characters (soft hyphen, zero-width space, word joiner, byte order mark ...) that
make ``Admin\u200b`` look like ``Admin``. The zero-width joiner and non-joiner, which
emoji and several scripts need, and the tag characters of flag emoji stay allowed."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SEQUENCES = (tuple, list)


def control_character_in(value: Any, path: str = "$") -> tuple[str, str] | None:
    """The path of the first string in ``value`` holding a control character, and that
    character; ``None`` if there is none. Walks Structs, sequences and maps (keys too)."""
    hit = _find(value)
    if hit is None:
        return None
    steps, char = hit
    return path + "".join(reversed(steps)), char


def _find(value: Any) -> tuple[list[str], str] | None:
    """The first control character under ``value`` and the path steps to it, innermost
    first (built only on the way back from a hit: the walk itself formats nothing)."""
    if type(value) is str:
        found = CONTROL_CHARACTERS.search(value)
        return ([], found.group()) if found else None
    if isinstance(value, msgspec.Struct):
        for field, name in zip(value.__struct_fields__, value.__struct_encode_fields__,
                               strict=True):
            hit = _find(getattr(value, field))
            if hit:
                hit[0].append(f".{name}")
                return hit
    elif isinstance(value, _SEQUENCES):
        for index, item in enumerate(value):
            hit = _find(item)
            if hit:
                hit[0].append(f"[{index}]")
                return hit
    elif isinstance(value, dict):
        for key, item in value.items():
            hit = _find(key) or _find(item)
            if hit:
                hit[0].append(f".{key}" if isinstance(key, str) and _NAME.match(key)
                              else f"[{msgspec.json.encode(key).decode()}]")
                return hit
    return None


def check_plain_text(command: Any) -> None:
    """Raise ``invalid`` naming the first string of ``command`` with a control character."""
    hit = control_character_in(command)
    if hit is not None:
        path, char = hit
        raise Rejected("invalid", f"control characters are not allowed in text "
                       f"(found U+{ord(char):04X})", path)
