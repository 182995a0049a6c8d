"""Commands refused for an unknown field at any depth, while events stay readable by older code.

Events, and the values nested in them, ignore fields they do not know: that is msgspec's
schema-evolution rule, and what lets a client one version older keep reading a log whose
events gained an optional field. Commands are the opposite case: a field the server does not
know is a typo (``"stats": {"agilty": 3}``) and must be refused with its path, never dropped.

msgspec sets ``forbid_unknown_fields`` per Struct class, not per decoder, and a value such as
a character's stats or a narrative pool sits in commands and in events alike. So the command
side gets *strict twins*: for every class a command reaches that is tolerant, or nests one
that is, :func:`strict_type` builds a subclass with ``forbid_unknown_fields=True`` whose
nested fields point at strict twins in turn. The twins only validate (and describe commands
in the JSON Schema, where values are named ``<Name>Input``); :class:`StrictDecoder` hands back
the ordinary classes, so no twin ever reaches the rules, an event or the projections.
"""

from __future__ import annotations

import inspect
import types
from functools import cache
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin

import msgspec

from poolhall.events.base import Command

__all__ = ["StrictDecoder", "strict_type"]

T = TypeVar("T")


def strict_type(tp: Any) -> Any:
    """``tp`` with every Struct it reaches refusing unknown fields (``tp`` itself if it does)."""
    origin = get_origin(tp)
    if origin is Annotated:
        inner, *metadata = get_args(tp)
        twin = strict_type(inner)
        return tp if twin is inner else Annotated[(twin, *metadata)]
    if origin is Union or origin is types.UnionType:
        args = get_args(tp)
        twins = tuple(strict_type(arg) for arg in args)
        return tp if twins == args else Union[twins]
    if origin is not None:  # dict[K, V], tuple[X, ...], list[X], Literal[...]
        args = get_args(tp)
        twins = tuple(arg if arg is Ellipsis else strict_type(arg) for arg in args)
        return tp if twins == args else origin[twins]
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _strict_struct(tp)
    return tp


@cache
def _strict_struct(cls: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """The strict twin of one Struct class, built once (``cls`` when it is strict already)."""
    overridden: list[tuple[str, Any, Any]] = []
    for field in msgspec.structs.fields(cls):
        strict = strict_type(field.type)
        if strict is not field.type:
            default = (msgspec.field(default_factory=field.default_factory)
                       if field.default_factory is not msgspec.NODEFAULT else field.default)
            overridden.append((field.name, strict, default))
    if cls.__struct_config__.forbid_unknown_fields and not overridden:
        return cls
    # A command keeps its class name, which is its tag (and is strict itself already); a
    # value's tag, if any, is inherited as it is, so its twin has a name of its own in the
    # JSON Schema, beside the tolerant original that events use.
    command = issubclass(cls, Command)
    name = cls.__name__ if command else f"{cls.__name__}Input"
    twin: type[msgspec.Struct] = msgspec.defstruct(
        name,
        [(name_, type_, default) if default is not msgspec.NODEFAULT else (name_, type_)
         for name_, type_, default in overridden],
        bases=(cls,),
        module=cls.__module__,
        forbid_unknown_fields=True,
        frozen=cls.__struct_config__.frozen,
        kw_only=True,
    )
    twin.__doc__ = inspect.cleandoc(cls.__doc__ or cls.__name__) + (
        "" if command else "\n\nAs a command gives it: unknown fields are refused.")
    return twin


class StrictDecoder(Generic[T]):
    """A JSON decoder of client messages that refuses unknown fields at any depth.

    It decodes with the ordinary types (strict at the top level already, as every command
    and ``join`` is) and, for the few message types that nest a value, once more with that
    type's strict twin to find an unknown field there. The error is msgspec's own, path and
    all. Each type's twin is looked for when a message of that type first comes: finding
    the twins of every command read every class they reach (~4 ms of a server's start).
    """

    def __init__(self, tp: Any) -> None:
        self.type = tp
        """The type decoded (its limits give refusals their plain words)."""
        self._plain: msgspec.json.Decoder[T] | None = None
        self._strict: dict[type, msgspec.json.Decoder[Any] | None] = {}
        """Each message type met so far: the decoder of its strict twin, or None if it is
        strict all through."""

    def ready(self) -> None:
        """Build the ordinary decoder now rather than on the first message.

        Building it reads every class the type reaches (a few milliseconds for every
        command): a module-level decoder that built it on import cost every ``poolhall``
        command that never decodes one. The server calls this as it starts, so its first
        command does not wait for it."""
        self._plain_decoder()

    def decode(self, frame: str | bytes) -> T:
        """The message as the ordinary types, or :class:`msgspec.ValidationError`."""
        message = (self._plain or self._plain_decoder()).decode(frame)
        kind = type(message)
        try:
            strict = self._strict[kind]
        except KeyError:
            strict = self._strict[kind] = _twin_decoder(kind)
        if strict is not None:
            strict.decode(frame)
        return message

    def _plain_decoder(self) -> msgspec.json.Decoder[T]:
        if self._plain is None:
            self._plain = msgspec.json.Decoder(self.type)
        return self._plain


def _twin_decoder(kind: type) -> msgspec.json.Decoder[Any] | None:
    """The decoder of ``kind``'s strict twin; None if ``kind`` is strict all through (or is
    not a Struct)."""
    if not issubclass(kind, msgspec.Struct):
        return None
    twin = _strict_struct(kind)
    return None if twin is kind else msgspec.json.Decoder(twin)
