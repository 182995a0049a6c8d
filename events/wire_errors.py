"""msgspec's validation errors as poolhall refusals: a stable code and the path at fault.

The server turns a client frame it cannot decode into an ``error`` answer with these; the CLI
uses the same words for a command it checks before sending, so a mistake reads the same
wherever it is caught.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import msgspec
import msgspec.inspect as mi

from poolhall.events.character_io import CharacterFile, file_refusal
from poolhall.events.errors import Rejected
from poolhall.events.messages import CLIENT_DECODER
from poolhall.events.plain_errors import plain_words
from poolhall.events.strict import StrictDecoder
from poolhall.events.suggest import did_you_mean
from poolhall.events.wire_paths import spot_at

__all__ = ["MAX_MAP_SEARCH", "MAX_SEARCHED_FRAME", "rejection_from"]

MAX_SEARCHED_FRAME = 16 * 1024
"""Frames larger than this keep msgspec's ``[...]`` (a character with 100 skills is ~8 KiB)."""
MAX_MAP_SEARCH = 100
"""Entries tried, at most, to name the one at fault in a map (the largest map any message
may hold, a Shadowrun character's skills, has 100)."""

_AT_PATH = re.compile(r" - at (?P<key>`key` in )?`(?P<path>[^`]+)`$")
_FIELD = re.compile(r"field `(?P<field>[^`]+)`")
_SEGMENT = re.compile(r"\.(?P<field>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<index>\d+)\]|\[\.\.\.\]")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INVALID_VALUE = re.compile(r"^Invalid value '(?P<value>.*)'$")
_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\)(?:\\\\)*(?P<escape>\\u(?P<code>[dD][89a-fA-F][0-9a-fA-F]{2}))")
"""An escape of half a surrogate pair (U+D800 to U+DFFF), after an even run of backslashes
(an odd one makes it a literal backslash followed by the letter u)."""


def rejection_from(error: msgspec.ValidationError | msgspec.DecodeError,
                   frame: str | bytes | None = None,
                   decoder: StrictDecoder[Any] = CLIENT_DECODER) -> Rejected:
    """Turn msgspec's message into a stable code, a plain message and the path at fault.

    msgspec names a map's entries ``[...]`` and a bad map key ``key in $.path``; given the
    frame, the entry at fault is found and named (``$.stats.skills.Cool.rank``).
    """
    text = str(error)
    if isinstance(error, msgspec.DecodeError) and not isinstance(error, msgspec.ValidationError):
        surrogate = _lone_surrogate(frame) if frame is not None else None
        if surrogate is not None:  # msgspec calls a lone high one "input data was truncated"
            return Rejected("malformed", f"not valid JSON: {surrogate} is half of a utf-16"
                            " surrogate pair, not a character", "$")
        return Rejected("malformed", f"not valid JSON: {text.lower()}", "$")
    match = _AT_PATH.search(text)
    path = match.group("path") if match else "$"
    message = _AT_PATH.sub("", text)
    key = bool(match and match.group("key"))
    if key:
        path += "[...]"
    if frame is not None and "[...]" in path:
        path = _name_map_entries(frame, path, text, decoder)
    field = _FIELD.search(message)
    if field and ("missing required field" in message or "unknown field" in message):
        path = f"{path}.{field.group('field')}"
    if message.startswith("Object missing required field `type`"):
        return Rejected("unknown_type", "every message needs a `type`", "$.type")
    told = _told_apart(message, path, frame, decoder)
    if told is not None:
        return told
    if path == "$" and message.startswith("Expected `object`"):
        return Rejected("malformed", "a message is one json object", "$")
    plain = plain_words(message, path, frame, decoder.type, key=key)
    if plain is None and key:
        plain = f"bad key: {message[0].lower()}{message[1:]}"
    return Rejected("invalid", plain or message[0].lower() + message[1:], path)


def _told_apart(message: str, path: str, frame: str | bytes | None,
                decoder: StrictDecoder[Any]) -> Rejected | None:
    """The refusal of a field that says which message or file it is, not what it holds: the
    message's ``type`` (quoted as sent: "ROLL" is not "roll"), a character file's ``format``
    and ``version`` (:func:`~poolhall.events.character_io.file_refusal`); else ``None``."""
    if path == "$.type":
        sent = _INVALID_VALUE.match(message)
        if sent and sent.group("value") in _type_names(decoder.type):  # a type it knows
            return Rejected("unknown_type", "`type` is given more than once: give it once",
                            path)
        near = did_you_mean(sent.group("value"), _type_names(decoder.type)) if sent else ""
        return Rejected("unknown_type",
                        f"unknown message type: {message[0].lower()}{message[1:]}{near}", path)
    field = _character_file_field(path, decoder)
    words = None if field is None else file_refusal(
        field, message, spot_at(decoder.type, frame, path).value)
    return None if words is None else Rejected("invalid", words, path)


def _character_file_field(path: str, decoder: StrictDecoder[Any]) -> str | None:
    """``format`` or ``version`` when ``path`` is that field of a character file (the file
    itself, or an ``import_character``'s ``file``), else ``None``."""
    prefix = "$." if decoder.type is CharacterFile else "$.file."
    field = path.removeprefix(prefix)
    return field if path.startswith(prefix) and field in ("format", "version") else None


@functools.cache
def _type_names(root: Any) -> tuple[str, ...]:
    """The ``type`` tags of the messages ``root`` (a tagged union) decodes, for a near miss
    ("ROLL": did you mean 'roll'?)."""
    info = mi.type_info(root)
    members = info.types if isinstance(info, mi.UnionType) else (info,)
    return tuple(member.tag for member in members
                 if isinstance(member, mi.StructType) and isinstance(member.tag, str))


def _lone_surrogate(frame: str | bytes) -> str | None:
    """The first ``\\uXXXX`` escape of ``frame`` that is half a surrogate pair left alone
    (a high one not followed by a low one, or a low one on its own), if there is one."""
    text = frame.decode(errors="replace") if isinstance(frame, bytes) else frame
    position = 0
    while found := _SURROGATE_ESCAPE.search(text, position):
        if int(found.group("code"), 16) >= 0xDC00:  # a low half with no high half before it
            return found.group("escape")
        low = _SURROGATE_ESCAPE.match(text, found.end())
        if low is None or int(low.group("code"), 16) < 0xDC00:
            return found.group("escape")
        position = low.end()  # a proper pair: carry on after its low half
    return None


def _name_map_entries(frame: str | bytes, path: str, error_text: str,
                      decoder: StrictDecoder[Any]) -> str:
    """Replace each ``[...]`` of ``path`` by the key whose entry alone gives the same error.

    Runs only on a refused frame: each key of the map is tried on its own (the map cut down
    to that one entry) until the decoder fails with the very same message. A path that
    cannot be resolved keeps its ``[...]``. Frames over :data:`MAX_SEARCHED_FRAME` are not
    searched (each try decodes the whole frame again), and a frame that cannot be walked
    (nested past the recursion limit) keeps its path as msgspec gave it.
    """
    if len(frame) > MAX_SEARCHED_FRAME:
        return path
    try:
        document = msgspec.json.decode(frame)
    except (msgspec.DecodeError, RecursionError):
        return path
    resolved = "$"
    node: Any = document
    for step in _SEGMENT.finditer(path, 1):
        if step.group("field") is not None:
            resolved += f".{step.group('field')}"
            node = node.get(step.group("field")) if isinstance(node, dict) else None
        elif step.group("index") is not None:
            resolved += f"[{step.group('index')}]"
            index = int(step.group("index"))
            node = node[index] if isinstance(node, list) and index < len(node) else None
        elif isinstance(node, dict) and (
                key := _culprit(document, node, error_text, decoder)) is not None:
            resolved += f".{key}" if _NAME.match(key) else f"[{msgspec.json.encode(key).decode()}]"
            node = node[key]
        else:
            return resolved + path[step.start():]
    return resolved


def _culprit(document: Any, mapping: dict[str, Any], error_text: str,
             decoder: StrictDecoder[Any]) -> str | None:
    """The key of ``mapping`` (a part of ``document``) whose entry alone repeats the error.

    Each try decodes the frame again, so only maps of a size the protocol's types allow are
    searched; a refused frame must not buy minutes of CPU with a map of thousands of keys.
    """
    if len(mapping) > MAX_MAP_SEARCH:
        return None
    entries = dict(mapping)
    try:
        for key, value in entries.items():
            mapping.clear()
            mapping[key] = value
            try:
                decoder.decode(msgspec.json.encode(document))
            except msgspec.ValidationError as error:
                if str(error) == error_text:
                    return key
            except (msgspec.DecodeError, msgspec.EncodeError, RecursionError):
                return None
        return None
    finally:
        mapping.clear()
        mapping.update(entries)
