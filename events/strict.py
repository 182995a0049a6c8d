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
    and ``join`` is) and, for the few messages that nest a value, once more with the strict
    twins to find an unknown field there. The error is msgspec's own, path and all.
    """

    def __init__(self, tp: Any) -> None:
        self.type = tp
        """The type decoded (its limits give refusals their plain words)."""
        self._decoders: tuple[msgspec.json.Decoder[T], msgspec.json.Decoder[Any],
                              frozenset[type]] | None = None

    def ready(self) -> None:
        """Build the decoders now rather than on the first message.

        Building them reads every class the type reaches and makes the strict twins (tens of
        milliseconds for every command): a module-level decoder that built them on import
        cost every ``poolhall`` command that never decodes one. The server calls this as it
        starts, so its first command does not wait for it."""
        self._built()

    def decode(self, frame: str | bytes) -> T:
        """The message as the ordinary types, or :class:`msgspec.ValidationError`."""
        plain, strict, nested = self._decoders or self._built()
        message = plain.decode(frame)
        if type(message) in nested:
            strict.decode(frame)
        return message

    def _built(self) -> tuple[msgspec.json.Decoder[T], msgspec.json.Decoder[Any], frozenset[type]]:
        if self._decoders is None:
            self._decoders = (
                msgspec.json.Decoder(self.type), msgspec.json.Decoder(strict_type(self.type)),
                frozenset(cls for cls in _struct_members(self.type)
                          if _strict_struct(cls) is not cls))
        return self._decoders


def _struct_members(tp: Any) -> tuple[type[msgspec.Struct], ...]:
    """The Struct classes a message type may decode to at the top level (a union's members)."""
    origin = get_origin(tp)
    if origin is Annotated:
        return _struct_members(get_args(tp)[0])
    if origin is Union or origin is types.UnionType:
        return tuple(cls for arg in get_args(tp) for cls in _struct_members(arg))
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return (tp,)
    return ()
