"""Finds each game system's projection module by its id (registered once in events.systems).

Each ``projections/<id>.py`` module provides:

- ``initial_state() -> Struct``: the system's part of a campaign's state, before any event,
- ``evolve(state, recorded) -> state``: folds one of the system's own events,
- ``describe(recorded, campaign) -> str``: one line for people, for ``poolhall watch``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from events.systems import SYSTEM_IDS

__all__ = ["PROJECTIONS", "projection_module"]

PROJECTIONS: dict[str, ModuleType] = {
    system_id: importlib.import_module(f"projections.{system_id}") for system_id in SYSTEM_IDS
}


def projection_module(system_id: str) -> ModuleType:
    """The projection module of a game system."""
    return PROJECTIONS[system_id]
