"""A game system's contract, one typed part per layer; this is the part of ``events``.

**Decision**: a game system is one vertical slice, ``events/<id>.py``, ``projections/<id>.py``,
``server/rules/<id>.py`` and (optionally) ``clients/<id>_cli.py``. Each module exports *one*
frozen dataclass of its layer's part of the contract:

- ``events/<id>.py`` exports ``VOCABULARY``, a :class:`SystemVocabulary` (this module): the id,
  the stats type, the event and command types, the notation of ``poolhall roll``;
- ``projections/<id>.py`` exports ``PROJECTION``, a
  :class:`poolhall.projections.contract.Projection`: the state type, ``initial_state``,
  ``evolve``, ``describe``, ``snapshot``;
- ``server/rules/<id>.py`` exports ``RULES``, a :class:`poolhall.server.rules.contract.Rules`: the
  commands it decides, ``decide``, ``views`` and ``standing_views``;
- ``clients/<id>_cli.py`` exports ``CLI``, a :class:`poolhall.clients.contract.CliHooks`.

One object spanning the layers (a single ``GameSystem``) would make ``events`` import
``projections`` and the server (the dependency rule forbids it) or would be assembled at the top
by ``importlib`` from a module name, which no type checker can follow. A part per layer keeps
every import pointing down, and every part is a plain object that mypy checks field by field
where the system module builds it. Each layer's ``systems.py`` imports its system modules by
name, statically, and checks at import that it has a part for exactly the ids registered in
:data:`poolhall.events.systems.SYSTEMS` (the one registration), naming what is missing; the contract
test (``tests/test_game_system_contract.py``) then checks every part of every system.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from poolhall.events.base import Command, Event, ViewData

__all__ = ["ParseRoll", "SystemVocabulary"]

ParseRoll = Callable[[str, "str | None"], "Command | None"]
"""Turns the system's dice notation typed at ``poolhall roll`` into a command for a character:
``None`` when the text is not in that notation; raises :class:`poolhall.events.errors.NotationError`
when it is, but is wrong. The command's ``id`` is a placeholder: the caller gives every command
a fresh id (``events`` draws no random numbers)."""


@dataclass(frozen=True)
class SystemVocabulary:
    """What a game system adds to the vocabulary: its types and its notation."""

    id: str
    """The system id (``"narrative"``), as in ``create_campaign`` and ``welcome``."""
    stats: type[msgspec.Struct]
    """A character's stats in the system: a frozen Struct, ``tag_field="system"``, ``tag=id``."""
    events: tuple[type[Event], ...]
    """Its event types (tags unique across every system)."""
    commands: tuple[type[Command], ...]
    """Its command types (tags unique across every system)."""
    views: tuple[type[ViewData], ...]
    """The typed views its rules send the table (tags unique across every system)."""
    parse_roll: ParseRoll
