"""The one registration of game systems.

A game system is a vertical slice with the same file name in each layer:
``events/<id>.py``, ``projections/<id>.py`` and ``server/rules/<id>.py``. Adding a system means
writing those three files and adding its module to :data:`SYSTEMS` below; projections and the
server find their modules by the same id.

Each ``events/<id>.py`` module provides:

- ``SYSTEM_ID``: the id (``"narrative"``),
- ``Stats``: a frozen Struct with ``tag_field="system"`` and ``tag=SYSTEM_ID``: a character's
  stats in that system,
- ``EVENTS`` and ``COMMANDS``: tuples of its :class:`events.base.Event` and
  :class:`events.base.Command` subclasses (tags unique across all systems),
- ``parse_roll(text, character) -> Command | None``: turns the system's dice notation typed at
  ``poolhall roll`` into a command (``None`` when the text is not in that notation; raise
  :class:`events.errors.NotationError` when it is, but is wrong). Its ``id`` is a placeholder:
  the caller gives every command a fresh id (``events`` draws no random numbers).
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Union

from events import d12, narrative, sr3

__all__ = ["SYSTEMS", "SYSTEM_IDS", "Stats", "system_module"]

SYSTEMS: dict[str, ModuleType] = {module.SYSTEM_ID: module for module in (narrative, sr3, d12)}
SYSTEM_IDS: tuple[str, ...] = tuple(SYSTEMS)

if TYPE_CHECKING:  # the same union as below, spelled out for the type checker
    Stats = narrative.NarrativeStats | sr3.Sr3Stats | d12.D12Stats
else:
    Stats = Union[tuple(module.Stats for module in SYSTEMS.values())]
    """A character's stats in any system, tagged by ``system``."""


def system_module(system_id: str) -> ModuleType:
    """The events module of a game system."""
    return SYSTEMS[system_id]
