"""Decisions of the `d12` game system (scaffold: filled by its issue)."""

from __future__ import annotations

from typing import Any

from events import d12 as vocabulary
from events.base import Event
from events.errors import Rejected
from server.rules.base import Decision

__all__ = ["COMMANDS", "decide"]

COMMANDS = frozenset(vocabulary.COMMANDS)


def decide(ctx: Decision, command: Any) -> list[Event]:
    """Decide one of this system's commands."""
    raise Rejected("unknown_type", f"unknown command {type(command).__name__}", "$.type")
