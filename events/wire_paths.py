"""What a refused frame's path points at: the field's type, its value, and its name in words.

A refusal keeps its exact path (``$.stats.ratings.STR``) for programs and for the page, which
marks the control it names; the words beside it name the field as the person who filled it in
knows it. A path is machinery: "stats.ratings.STR is between 0 and 20" sends a player
looking for a field called ``stats.ratings``, when the form they used said "STR". So the
path is walked through the message's type (its tag picks the command; a nested tagged
union, such as a character's stats, by its own tag), and each step is named by what it is:

- a field by its name in words (``$.karma_dice`` -> "the karma dice", ``$.dt`` -> "the DT"),
  or, where those words are no noun phrase, as written, with what it is (``$.based_on`` ->
  "based_on (the seq of the sheet's last change, as read)", not "the based on");
- an entry of a map whose keys people choose (a stat, a skill) by its key alone: "STR";
- an entry of a map whose keys the game fixes (the Shadowrun pools) by its key and the map:
  ``$.pools.combat`` -> "the combat pool";
- an item of a list by its place, counted from 1: ``$.stats[0]`` -> "stat 1";
- a field inside an entry or an item by both: ``$.stats.skills.pistols.rating`` -> "the
  rating of pistols".

The frame's value at the path comes along, so that a refusal can quote what was sent ("not
2.5") rather than its JSON type ("not a number").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import msgspec
import msgspec.inspect as mi

__all__ = ["ABSENT", "Spot", "field_label", "spot_at"]

ABSENT: Any = object()
"""The value of a :class:`Spot` whose place in the frame is not known."""

_LABELS = {"dt": "the DT", "tn": "the target number", "id": "the command id",
           "karma_dice": "the karma dice",
           "based_on": "based_on (the seq of the sheet's last change, as read)",
           "exported_from": "exported_from (where the character was exported from)",
           "since_hash": "since_hash (the hash of event since)"}
_NOT_NOUNS = frozenset({"on", "from", "since", "at", "by", "of", "to", "in", "with", "for"})
"""Words that make a field's name no noun phrase when it starts or ends with one: in words,
``based_on`` read "the based on is at least 0"; such a name is said as it is written."""
_SEGMENT = re.compile(r"\.(?P<field>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<index>\d+)\]|"
                      r"\[(?P<key>\"(?:[^\"\\]|\\.)*\")\]|(?P<any>\[\.\.\.\])")
_LISTS = (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)


@dataclass(frozen=True)
class Spot:
    """The place a path names: its type (unwrapped; ``None`` if unknown), the type's
    description, the frame's value there (:data:`ABSENT` if unknown), its name in words, and
    what it is: a struct's ``field``, a map's ``key`` or entry (``entry``), a list's ``item``,
    or ``""`` when the path could not be walked. ``one`` is one of what the nearest field
    holds, in words ("stat" for ``$.stats``, "pool" for a key of ``$.pools``), or ``""``."""

    info: Any
    description: str
    value: Any
    label: str
    kind: str = ""
    one: str = ""


@dataclass(frozen=True)
class _Step:
    """One step of a walked path: a struct ``field``, a map ``key`` (``name`` ``None`` when
    the path has ``[...]``) or a list ``index``; ``keys`` is a map's key type."""

    kind: str
    name: str | None
    index: int = 0
    keys: Any = None


def field_label(path: str) -> str:
    """A field's name from its path alone, when its type is not known: ``$.dt`` -> "the
    DT", ``$.karma_dice`` -> "the karma dice"; a nested field by its path: ``$.stats.body``
    -> "stats.body"."""
    steps = list(_SEGMENT.finditer(path))
    if not steps:
        return "the message"
    if len(steps) == 1 and (name := steps[0].group("field")):
        return _field_words(name)
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


@cache
def _type_info(root: Any) -> Any:
    """msgspec's description of ``root``, built once: walking every message type took 28 ms,
    on the event loop, for each refused frame (a member's garbage raised another table's p99
    to 260 ms)."""
    return mi.type_info(root)


def _walk(root: Any, document: Any, path: str) -> tuple[Any, Any, list[_Step]] | None:
    """The type at ``path`` of ``document``, the value there and the steps taken; ``None``
    when the path leaves the type (a field it does not have)."""
    info, node = _pick(root, document), document
    steps: list[_Step] = []
    for match in _SEGMENT.finditer(path):
        info, _ = _unwrap(info)
        field, index = match.group("field"), match.group("index")
        if isinstance(info, mi.StructType) and field is not None:
            found = [f.type for f in info.fields if f.encode_name == field]
            if not found:
                return None
            steps.append(_Step("field", field))
            info, node = found[0], node.get(field, ABSENT) if isinstance(node, dict) else ABSENT
        elif isinstance(info, mi.DictType) and index is None:
            key = field if field is not None else (
                msgspec.json.decode(match.group("key")) if match.group("key") else None)
            steps.append(_Step("key", key, keys=info.key_type))
            info = info.value_type
            node = node.get(key, ABSENT) if key is not None and isinstance(node, dict) \
                else ABSENT
        elif isinstance(info, _LISTS) and index is not None:
            at = int(index)
            steps.append(_Step("index", None, index=at))
            info = info.item_type
            node = node[at] if isinstance(node, list) and at < len(node) else ABSENT
        else:
            return None
        info = _pick(info, node)
    return info, node, steps


def _words(name: str) -> str:
    return name.replace("_", " ")


def _field_words(name: str) -> str:
    """A struct field named as people read it: its label, else "the" and its words
    (``karma_dice`` -> "the karma dice"), else, when those words are no noun phrase
    (:data:`_NOT_NOUNS`), its name as written."""
    if name in _LABELS:
        return _LABELS[name]
    parts = name.split("_")
    if len(parts) > 1 and (parts[0] in _NOT_NOUNS or parts[-1] in _NOT_NOUNS):
        return name
    return f"the {_words(name)}"


def _one(name: str) -> str:
    """A field holding many things named as one of them: "stats" -> "stat" (the fields
    that hold maps and lists are plain English plurals)."""
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def _label(steps: list[_Step]) -> str:
    """The last step named as people know it (see the module's docstring)."""
    step, before = steps[-1], steps[:-1]
    holder = before[-1].name if before and before[-1].kind == "field" else None
    if step.kind == "field":
        assert step.name is not None
        words = _field_words(step.name)
        return f"{words} of {_label(before)}" if before and before[-1].kind != "field" \
            else words
    if step.kind == "index":
        return f"{_one(_words(holder)) if holder else 'item'} {step.index + 1}"
    if step.name is None:
        return f"an entry of {_label(before)}" if before else "an entry"
    if isinstance(_unwrap(step.keys)[0], mi.LiteralType) and holder:
        return f"the {_words(step.name)} {_one(_words(holder))}"
    return step.name


def spot_at(root: Any, frame: str | bytes | None, path: str, *, key: bool = False) -> Spot:
    """The place ``path`` names in ``frame``, decoded as ``root``; with ``key``, the path
    ends at a map's entry and the key itself is at fault (its type is the map's key type,
    its value the key). Without a frame, or where the path leaves the type, only a label
    from the path itself (:func:`field_label`)."""
    walked = None
    if frame is not None:
        try:
            walked = _walk(_type_info(root), msgspec.json.decode(frame), path)
        except (msgspec.DecodeError, RecursionError):
            walked = None
    if walked is None or not walked[2] or (key and walked[2][-1].kind != "key"):
        return Spot(None, "", ABSENT, field_label(path))
    info, value, steps = walked
    kind = {"field": "field", "key": "entry", "index": "item"}[steps[-1].kind]
    if key:
        info, kind = steps[-1].keys, "key"
        value = steps[-1].name if steps[-1].name is not None else ABSENT
    info, description = _unwrap(info)
    fields = [step.name for step in steps if step.kind == "field" and step.name]
    one = _one(_words(fields[-1])) if fields else ""
    return Spot(info, description, value, _label(steps), kind, one)
