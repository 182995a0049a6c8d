"""msgspec's validation messages in plain words, from the limits the wire types carry.

``Expected `int` <= 12 - at `$.dt``` says what the decoder checked, not what a person at the
table should type. The field's own type knows both limits (``Meta(ge=1, le=12)``) and often
a description, so the refusal can say "the DT is between 1 and 12". The type is found by
walking the refused frame's path through the message's type (its tag picks the command;
a nested tagged union, such as a character's stats, by its own tag).

:func:`plain_words` returns ``None`` for a message it does not know, and the caller keeps
msgspec's; the path is always given beside it.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import msgspec
import msgspec.inspect as mi

from poolhall.events.suggest import did_you_mean

__all__ = ["field_label", "plain_words"]

_LABELS = {"dt": "the DT", "tn": "the target number", "id": "the command id",
           "karma_dice": "the karma dice"}
_SEGMENT = re.compile(r"\.(?P<field>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<index>\d+)\]|"
                      r"\[(?P<key>\"(?:[^\"\\]|\\.)*\")\]")
_BOUND = re.compile(r"^Expected `(?P<type>int|float|number)` (?P<op><=|>=|<|>) (?P<n>-?[\d.]+)")
_LENGTH = re.compile(r"^Expected `(?P<type>str|array|object)` of length (?P<op><=|>=) "
                     r"(?P<n>\d+)")
_ENUM = re.compile(r"^Invalid enum value '(?P<value>[^']*)'")
_WRONG_TYPE = re.compile(r"^Expected `(?P<want>[^`]+)`, got `(?P<got>[^`]+)`")
_TYPE_WORDS = {"int": "a whole number", "float": "a number", "str": "text",
               "bool": "true or false", "array": "a list", "object": "an object",
               "null": "null"}


def field_label(path: str) -> str:
    """``$.dt`` -> "the DT", ``$.karma_dice`` -> "the karma dice"; a nested field by its
    path: ``$.stats.body`` -> "stats.body"."""
    steps = list(_SEGMENT.finditer(path))
    if not steps:
        return "the message"
    if len(steps) == 1 and (name := steps[0].group("field")):
        return _LABELS.get(name, f"the {name.replace('_', ' ')}")
    return path.removeprefix("$.")


def _unwrap(info: Any) -> tuple[Any, str]:
    """A type without its ``Metadata`` and ``| None``, and the description it had."""
    description = ""
    while True:
        if isinstance(info, mi.Metadata):
            description = (info.extra_json_schema or {}).get("description", description)
            info = info.type
        elif isinstance(info, mi.UnionType):
            kept = [t for t in info.types if not isinstance(t, mi.NoneType)]
            if len(kept) != 1:
                return info, description
            info = kept[0]
        else:
            return info, description


def _pick(info: Any, node: Any) -> Any:
    """The member of a tagged union of structs that ``node`` (the frame's part) names."""
    union, _ = _unwrap(info)
    if isinstance(union, mi.UnionType) and isinstance(node, dict):
        for member in union.types:
            member, _ = _unwrap(member)
            if isinstance(member, mi.StructType) and member.tag_field is not None \
                    and node.get(member.tag_field) == member.tag:
                return member
    return info  # as it was, its description kept


def _type_at(root: Any, document: Any, path: str) -> tuple[Any, str] | None:
    """The type (and its description) of the field at ``path`` of ``document``."""
    info, node = _pick(root, document), document
    for step in _SEGMENT.finditer(path):
        info, _ = _unwrap(info)
        if step.group("field") is not None:
            name = step.group("field")
            node = node.get(name) if isinstance(node, dict) else None
            if isinstance(info, mi.StructType):
                found = [f.type for f in info.fields if f.encode_name == name]
                if not found:
                    return None
                info = found[0]
            elif isinstance(info, mi.DictType):
                info = info.value_type
            else:
                return None
        elif isinstance(info, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
            info, node = info.item_type, None
        elif isinstance(info, mi.DictType):
            info, node = info.value_type, None
        else:
            return None
        info = _pick(info, node)
    return _unwrap(info)


def _number(text: str) -> str:
    return text[:-2] if text.endswith(".0") else text


def _range(info: Any, label: str) -> str | None:
    low = info.ge if info.ge is not None else (info.gt + 1 if isinstance(info.gt, int) else None)
    high = info.le if info.le is not None else (info.lt - 1 if isinstance(info.lt, int) else None)
    if low is not None and high is not None:
        return f"{label} is between {_number(str(low))} and {_number(str(high))}"
    if low is not None:
        return f"{label} is at least {_number(str(low))}"
    if high is not None:
        return f"{label} is at most {_number(str(high))}"
    return None


@cache
def _type_info(root: Any) -> Any:
    """msgspec's description of ``root``, built once: walking every message type took 28 ms,
    on the event loop, for each refused frame (a member's garbage raised another table's p99
    to 260 ms)."""
    return mi.type_info(root)


def plain_words(message: str, path: str, frame: str | bytes | None,
                root: Any) -> str | None:
    """``message`` (msgspec's, without its path) in plain words, or ``None`` if unknown.

    ``root`` is the type the frame was decoded as; with the frame, the field's limits and
    description are read from it ("the DT is between 1 and 12").
    """
    label = field_label(path)
    found = None
    if frame is not None:
        try:
            found = _type_at(_type_info(root), msgspec.json.decode(frame), path)
        except (msgspec.DecodeError, RecursionError):
            found = None
    info, description = found if found is not None else (None, "")
    about = f" ({description})" if description else ""
    if match := _BOUND.match(message):
        if isinstance(info, (mi.IntType, mi.FloatType)) and (words := _range(info, label)):
            return words + about
        at = "at most" if match.group("op") in ("<=", "<") else "at least"
        return f"{label} is {at} {_number(match.group('n'))}{about}"
    if match := _LENGTH.match(message):
        unit = {"str": "characters", "array": "items", "object": "entries"}[match.group("type")]
        at = "at most" if match.group("op") == "<=" else "at least"
        return f"{label} holds {at} {match.group('n')} {unit}"
    if match := _ENUM.match(message):
        values = [str(v) for v in info.values] if isinstance(info, mi.LiteralType) else []
        listed = f": one of {', '.join(values)}" if values and len(values) <= 20 else ""
        return (f"{label} cannot be {match.group('value')!r}{listed}"
                + did_you_mean(match.group("value"), values))
    if message.startswith("Expected `str` matching regex"):
        return f"{label} is not written as expected" + (about or " (see `poolhall schema`)")
    if match := _WRONG_TYPE.match(message):
        wanted = " or ".join(_TYPE_WORDS.get(w.strip(), w.strip())
                             for w in match.group("want").split("|") if w.strip() != "null")
        return f"{label} should be {wanted}, not {_TYPE_WORDS.get(match.group('got'), 'that')}"
    return None
