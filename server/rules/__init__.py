"""The rules: which module decides a command, found by the campaign's game system.

Each ``server/rules/<id>.py`` provides ``COMMANDS`` (the command classes it decides) and
``decide(ctx, command) -> list[Event]``; it may provide ``views(state, events) -> list[View]``:
derived data (odds of an open check) sent to the table after each change, and then
``standing_views(state) -> list[View]``: the views of everything still open, which a member
who joins (or resumes) receives after catching up, instead of waiting for the next change.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from events.base import Event
from events.errors import Rejected
from events.systems import SYSTEM_IDS
from server.auth import hash_token
from server.rules import core
from server.rules.base import Decision

__all__ = ["RULES", "decide", "rules_module"]

RULES: dict[str, ModuleType] = {
    system_id: importlib.import_module(f"server.rules.{system_id}") for system_id in SYSTEM_IDS
}


def rules_module(system_id: str) -> ModuleType:
    """The rules module of a game system."""
    return RULES[system_id]


def decide(ctx: Decision, command: Any) -> list[Event]:
    """Decide any command in a campaign: core commands here, the rest by the game system."""
    if type(command) in core.COMMANDS:
        return core.decide(ctx, command, hash_token)
    rules = RULES[ctx.state.system]
    if type(command) not in rules.COMMANDS:
        raise Rejected(
            "wrong_system", f"this campaign plays {ctx.state.system!r}; "
            f"{type(command).__name__} belongs to another system", "$.type",
        )
    return rules.decide(ctx, command)
