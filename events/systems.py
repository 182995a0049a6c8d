"""The one registration of game systems: :data:`SYSTEMS`.

A game system is a vertical slice with the same file name in each layer (see
:mod:`poolhall.events.contract` for the parts and why there is one per layer). Adding a system means
writing its files, adding its ``VOCABULARY`` to :data:`SYSTEMS` and its id to
:data:`RegisteredSystem`; each other layer's ``systems.py`` then says, at import, which of its
parts is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Union, get_args

from poolhall.events import d12, narrative, sr3
from poolhall.events.contract import SystemVocabulary

__all__ = ["SYSTEMS", "SYSTEM_IDS", "Stats", "RegisteredSystem", "check_registered", "vocabulary"]

RegisteredSystem = Literal["narrative", "sr3", "d12"]
"""Every registered system id, for the type checker and the protocol's JSON Schema."""

SYSTEMS: dict[str, SystemVocabulary] = {
    part.id: part for part in (narrative.VOCABULARY, sr3.VOCABULARY, d12.VOCABULARY)
}
SYSTEM_IDS: tuple[str, ...] = tuple(SYSTEMS)

if TYPE_CHECKING:  # the same union as below, spelled out for the type checker
    Stats = narrative.NarrativeStats | sr3.Sr3Stats | d12.D12Stats
else:
    Stats = Union[tuple(part.stats for part in SYSTEMS.values())]
    """A character's stats in any system, tagged by ``system``."""


def vocabulary(system_id: str) -> SystemVocabulary:
    """The vocabulary of a game system."""
    return SYSTEMS[system_id]


def check_registered(layer: str, registered: object, where: str) -> None:
    """Refuse a layer whose systems are not exactly the registered ones, in plain words.

    ``registered`` is the layer's parts by system id; ``where`` names the file to edit.
    """
    ids = set(registered) if isinstance(registered, dict) else set()
    missing = [system for system in SYSTEM_IDS if system not in ids]
    extra = sorted(ids - set(SYSTEM_IDS))
    if missing:
        raise RuntimeError(f"game system {missing[0]!r} has no {layer} part: write its module "
                           f"and add its object to {where}")
    if extra:
        raise RuntimeError(f"{where} registers {extra[0]!r}, which events/systems.py does not")


if set(get_args(RegisteredSystem)) != set(SYSTEM_IDS):
    raise RuntimeError("events/systems.py: RegisteredSystem must list the ids of SYSTEMS")
