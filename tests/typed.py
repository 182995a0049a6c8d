"""A checked narrowing for tests: the value a test expects to be of a class, typed as one.

The rules hand back ``list[Event]`` and the views ``ViewData``; a test that reads a field of
the one it expects says which class that is, and a different one fails there, named.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["of_type"]

T = TypeVar("T")


def of_type(kind: type[T], value: object) -> T:
    """``value``, checked to be a ``kind``."""
    assert isinstance(value, kind), f"expected a {kind.__name__}, got {value!r}"
    return value
