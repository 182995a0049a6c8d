"""msgspec's validation messages in plain words, from the limits the wire types carry.

``Expected `int` <= 12 - at `$.dt``` says what the decoder checked, not what a person at the
table should type. The field's own type knows both limits (``Meta(ge=1, le=12)``) and often
a description, so the refusal can say "the DT is between 1 and 12". Where the path leads,
what was sent there and what the field is called in words come from
:mod:`poolhall.events.wire_paths`: "STR is between 0 and 20", not "stats.ratings.STR ...".

The words quote what was sent where a type's name would say nothing: 2.5 for a whole number
is "not 2.5" (msgspec calls every JSON number with a point a ``float``, and "should be a
whole number, not a number" read as nonsense). A value or a map's key that does not match
its pattern is told by the type's description, never by the pattern itself: a description
that is a noun phrase ("a stat's name: capital letters A-Z ...") is said as "'wi l' is not
a stat's name: ..."; any other in brackets after "is not written as expected".

:func:`plain_words` returns ``None`` for a message it does not know, and the caller keeps
msgspec's; the path is always given beside it.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import msgspec.inspect as mi

from poolhall.events.plural import plural
from poolhall.events.suggest import did_you_mean
from poolhall.events.wire_paths import Spot, field_label, spot_at

__all__ = ["field_label", "plain_words"]

_BOUND = re.compile(r"^Expected `(?P<type>int|float|number)` (?P<op><=|>=|<|>) (?P<n>-?[\d.]+)")
_LENGTH = re.compile(r"^Expected `(?P<type>str|array|object)` of length (?P<op><=|>=) "
                     r"(?P<n>\d+)")
_ENUM = re.compile(r"^Invalid enum value '(?P<value>[^']*)'")
_PATTERN = "Expected `str` matching regex"
_WRONG_TYPE = re.compile(r"^Expected `(?P<want>[^`]+)`, got `(?P<got>[^`]+)`")
_TYPE_WORDS = {"int": "a whole number", "float": "a number", "str": "text",
               "bool": "true or false", "array": "a list", "object": "an object",
               "null": "null"}
_UNITS = {"str": ("character", "characters"), "array": ("item", "items"),
          "object": ("entry", "entries")}
_QUOTED_AT_MOST = 40
"""Characters of a sent text quoted in a refusal; a longer one is cut."""


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


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def _quoted(text: str) -> str:
    """A sent text as a refusal quotes it: in quotes, escapes for what does not print, cut
    after :data:`_QUOTED_AT_MOST` characters."""
    return repr(text if len(text) <= _QUOTED_AT_MOST else text[:_QUOTED_AT_MOST] + "…")


def _bound(match: re.Match[str], spot: Spot, about: str) -> str:
    """A number out of its range: both limits from the type when it has them."""
    if isinstance(spot.info, (mi.IntType, mi.FloatType)) and (words := _range(spot.info,
                                                                                spot.label)):
        return words + about
    at = "at most" if match.group("op") in ("<=", "<") else "at least"
    return f"{spot.label} is {at} {_number(match.group('n'))}{about}"


def _length(match: re.Match[str], spot: Spot, key: bool) -> str:
    """Too long or too short; an empty text is said to be empty ("the name is empty")."""
    one, many = _UNITS[match.group("type")]
    count = int(match.group("n"))
    subject = f"the name {_quoted(spot.value)}" if key and isinstance(spot.value, str) \
        else spot.label
    at = "at most" if match.group("op") == "<=" else "at least"
    if match.group("type") == "str":
        if match.group("op") == ">=" and count == 1:
            return f"{subject} is empty"
        return f"{subject} holds {at} {plural(one, count, many)}"
    if spot.one and not key:  # "the stats holds at least 1 item" did not read as English
        return f"give {at} {plural(spot.one, count)}"
    return f"{subject} holds {at} {plural(one, count, many)}"


def _enum(match: re.Match[str], spot: Spot, key: bool) -> str:
    """A value outside a closed list: the list, and the nearest of its values."""
    values = [str(v) for v in spot.info.values] if isinstance(spot.info, mi.LiteralType) else []
    listed = f": one of {', '.join(values)}" if values and len(values) <= 20 else ""
    sent = match.group("value")
    said = (f"{sent!r} is not {_article(spot.one)}" if key and spot.one
            else f"{sent!r} is not a name this takes" if key
            else f"{spot.label} cannot be {sent!r}")
    return said + listed + did_you_mean(sent, values)


def _pattern(spot: Spot, key: bool) -> str:
    """Text that does not match its pattern, told by the type's description."""
    if not isinstance(spot.value, str):
        subject = "a name here" if key else spot.label
    elif spot.kind in ("key", "item"):
        subject = _quoted(spot.value)  # "stat 1" says less than the text that was sent
    else:
        subject = f"{spot.label} {_quoted(spot.value)}"
    description = spot.description
    if description.startswith(("a ", "an ")):
        return f"{subject} is not {description}"
    return f"{subject} is not written as expected" + (
        f" ({description})" if description else " (see `poolhall schema`)")


def _wrong_type(match: re.Match[str], spot: Spot) -> str:
    """A value of another JSON type: a number sent is quoted ("not 2.5"), a text is not."""
    wanted = [w.strip() for w in match.group("want").split("|") if w.strip() != "null"]
    said = f"{spot.label} should be {' or '.join(_TYPE_WORDS.get(w, w) for w in wanted)}"
    got, value = match.group("got"), spot.value
    if got == "float" and "int" in wanted and "float" not in wanted:
        if isinstance(value, float) and value.is_integer():
            whole = int(value)
            return f"{said}, written without a decimal point ({whole}, not {value!r})"
        if isinstance(value, float):
            return f"{said}, not {value!r}"
        return f"{said}, not a fraction"
    if isinstance(value, (bool, float)):  # true, 1.5: short, and plainer than their type
        return f"{said}, not {msgspec.json.encode(value).decode()}"
    return f"{said}, not {_TYPE_WORDS.get(got, 'that')}"


_WHEN_EMPTY = {"$.on": "say what the symbols are spent on"}
"""A text field whose name reads badly as "the … is empty" (spend_result's ``on``: "the on is
empty"): what it asks for instead, by the field's path."""


def plain_words(message: str, path: str, frame: str | bytes | None, root: Any, *,
                key: bool = False) -> str | None:
    """``message`` (msgspec's, without its path) in plain words, or ``None`` if unknown.

    ``root`` is the type the frame was decoded as; with the frame, the field's limits and
    description are read from it ("the DT is between 1 and 12"). ``key``: the message is
    about the key of the map entry at ``path`` (msgspec's ``key in $.stats.ratings``), as
    for a stat named "wi l".
    """
    spot = spot_at(root, frame, path, key=key)
    about = f" ({spot.description})" if spot.description else ""
    if match := _BOUND.match(message):
        return _bound(match, spot, about)
    if match := _LENGTH.match(message):
        if path in _WHEN_EMPTY and spot.value == "" and not key:
            return _WHEN_EMPTY[path]
        return _length(match, spot, key)
    if match := _ENUM.match(message):
        return _enum(match, spot, key)
    if message.startswith(_PATTERN):
        return _pattern(spot, key)
    if match := _WRONG_TYPE.match(message):
        return _wrong_type(match, spot)
    return None
