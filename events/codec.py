"""The codec: one tagged union of every event and command, encoders and decoders built once.

Stored payloads carry the schema version of their event type. A payload stored with an older
version passes through the upcasters registered in :data:`UPCASTERS` (keyed by tag and the
version it upgrades *from*) before it is decoded, so old logs keep replaying.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Union

import msgspec

from poolhall.events import core
from poolhall.events.base import Command, Event, snake_case
from poolhall.events.systems import SYSTEMS

__all__ = [
    "ALL_COMMANDS",
    "ALL_EVENTS",
    "EVENT_TYPES",
    "UPCASTERS",
    "AnyCommand",
    "AnyEvent",
    "FrameEvent",
    "decode_event",
    "decode_stored",
    "decode_page",
    "encode",
    "encode_event",
    "event_tag",
]

ALL_EVENTS: tuple[type[Event], ...] = core.EVENTS + tuple(
    cls for part in SYSTEMS.values() for cls in part.events
)
ALL_COMMANDS: tuple[type[Command], ...] = core.COMMANDS + tuple(
    cls for part in SYSTEMS.values() for cls in part.commands
)
if TYPE_CHECKING:  # the unions are built from the registries; statically, their bases
    AnyEvent = Event
    FrameEvent = Event
    AnyCommand = Command
else:
    AnyEvent = Union[ALL_EVENTS]
    FrameEvent = Union[(*ALL_EVENTS, core.PrivateRoll)]
    """What an event frame may hold: an event of the log, or a private roll sealed for its
    reader (never in the log: :class:`poolhall.events.core.PrivateRoll`)."""
    AnyCommand = Union[ALL_COMMANDS]


@functools.cache
def event_tag(cls: type[msgspec.Struct]) -> str:
    """The ``type`` tag of an event or command class (computed once per class: it is asked
    for every event appended, and the regular expression was 7% of a busy server's loop)."""
    return snake_case(cls.__name__)


EVENT_TYPES: dict[str, type[Event]] = {event_tag(cls): cls for cls in ALL_EVENTS}
if len(EVENT_TYPES) != len(ALL_EVENTS):  # pragma: no cover - caught the moment it happens
    raise RuntimeError("two event classes share a tag")
if len({event_tag(cls) for cls in ALL_COMMANDS}) != len(ALL_COMMANDS):  # pragma: no cover
    raise RuntimeError("two command classes share a tag")

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}
"""``(tag, from_version) -> function(payload dict) -> payload dict of from_version + 1``."""

_encoder = msgspec.json.Encoder()
_event_decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(AnyEvent)


def encode(value: object) -> bytes:
    """Encode any Struct (or plain data) to JSON with the shared encoder."""
    return _encoder.encode(value)


def encode_event(event: Event) -> bytes:
    """The stored JSON payload of an event (its ``type`` tag included)."""
    return _encoder.encode(event)


def decode_event(payload: bytes | str) -> Event:
    """Decode a current-version payload."""
    return _event_decoder.decode(payload)


_page_decoder: msgspec.json.Decoder[list[Event]] = msgspec.json.Decoder(list[AnyEvent])


def decode_page(payloads: list[str]) -> list[Event] | None:
    """Decode many stored payloads in one call, or ``None`` if some may need upcasting.

    With no upcaster registered every stored payload is of its type's current version (an
    older one could not be decoded at all), so a page is one JSON array for msgspec: a third
    faster than a call per payload when the server rebuilds its campaigns.
    """
    if UPCASTERS:
        return None
    return _page_decoder.decode("[" + ",".join(payloads) + "]")


def decode_stored(payload: bytes | str, tag: str, version: int) -> Event:
    """Decode a stored payload, upcasting it first when it was stored by an older schema."""
    current = EVENT_TYPES[tag].schema_version if tag in EVENT_TYPES else version
    if version >= current:
        return _event_decoder.decode(payload)
    data: dict[str, Any] = msgspec.json.decode(payload)
    while version < current:
        data = UPCASTERS[(tag, version)](data)
        version += 1
    return msgspec.convert(data, AnyEvent)
