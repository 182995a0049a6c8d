"""An event re-encoded as a payload stored before some of its fields existed would be."""

from __future__ import annotations

from typing import Any

import msgspec

from poolhall.events.base import Event
from poolhall.events.codec import encode_event

__all__ = ["as_stored"]


def as_stored(event: Event, stored: dict[str, Any]) -> dict[str, Any]:
    """``event`` encoded, without the fields ``stored`` lacks that are at their default.

    Schema evolution adds fields with defaults (``fair`` on the events that hold dice, ``out``
    on SR3's initiative, whose ``{}`` msgspec keeps as a default factory): an old payload
    decodes with them at their default, and re-encodes to the same payload plus them. A field
    added with any other value is kept, so the comparison fails.
    """
    encoded: dict[str, Any] = msgspec.json.decode(encode_event(event))
    return _trimmed(event, encoded, stored)


def _trimmed(struct: msgspec.Struct, encoded: dict[str, Any],
             stored: dict[str, Any]) -> dict[str, Any]:
    """``encoded`` without the fields ``stored`` lacks that are at their default, at every
    depth: a value inside an event gains fields too (``pool_successes`` on SR3's outcome)."""
    fields = {field.encode_name: field for field in msgspec.structs.fields(struct)}
    out: dict[str, Any] = {}
    for name, value in encoded.items():
        field = fields.get(name)
        inner = getattr(struct, field.name) if field is not None else None
        if name in stored:
            if isinstance(inner, msgspec.Struct) and isinstance(value, dict) \
                    and isinstance(stored[name], dict):
                value = _trimmed(inner, value, stored[name])
            out[name] = value
        elif field is None or _default(field) != value:
            out[name] = value
    return out


def _default(field: msgspec.structs.FieldInfo) -> Any:
    """The field's default as JSON decodes it: its value, or what its factory makes."""
    if field.default is not msgspec.NODEFAULT:  # as JSON reads it: a tuple's () is []
        return msgspec.json.decode(msgspec.json.encode(field.default))
    if field.default_factory is not msgspec.NODEFAULT:
        return msgspec.to_builtins(field.default_factory())
    return msgspec.NODEFAULT
