"""Events, commands and character stats of the `d12` game system (scaffold: filled by its issue)."""

from __future__ import annotations

import msgspec

from events.base import Command, Event

__all__ = ["SYSTEM_ID", "Stats", "D12Stats", "EVENTS", "COMMANDS", "parse_roll"]

SYSTEM_ID = "d12"


class D12Stats(msgspec.Struct, frozen=True, kw_only=True, tag_field="system", tag=SYSTEM_ID):
    """A character's stats in this system."""


Stats = D12Stats

EVENTS: tuple[type[Event], ...] = ()
COMMANDS: tuple[type[Command], ...] = ()


def parse_roll(text: str, character: str | None = None) -> Command | None:
    """This system's dice notation as a command; None when the text is not in it."""
    return None
