"""The rules: which game system decides a command, found by the campaign's system id.

Each ``server/rules/<id>.py`` exports ``RULES`` (see :mod:`poolhall.server.rules.contract`); they
are imported here by name, statically, and a registered system without one is refused at import.
"""

from __future__ import annotations

from poolhall.events.base import Command, Event
from poolhall.events.character_io import ImportCharacter
from poolhall.events.conditions import SetCondition
from poolhall.events.errors import Rejected
from poolhall.events.systems import check_registered
from poolhall.server.auth import hash_token
from poolhall.server.rules import core, d12, fairness, narrative, privacy, sr3
from poolhall.server.rules.base import Decision
from poolhall.server.rules.character_import import import_character
from poolhall.server.rules.conditions import set_condition
from poolhall.server.rules.contract import Rules

__all__ = ["RULES", "decide", "rules"]

RULES: dict[str, Rules] = {
    part.system: part for part in (narrative.RULES, sr3.RULES, d12.RULES)
}
check_registered("rules", RULES, "server/rules/__init__.py")


def rules(system_id: str) -> Rules:
    """The rules of a game system."""
    return RULES[system_id]


def decide(ctx: Decision, command: Command) -> list[Event]:
    """Decide any command in a campaign: core commands here, the rest by the game system;
    then the fair rolls' part (:func:`poolhall.server.rules.fairness.finish`). A ``roll`` in
    the system's own notation is decided as that system's command (:func:`core.as_typed`)."""
    command = core.as_typed(ctx, command)
    privacy.guard(ctx, command, _decided)
    return fairness.finish(ctx.fair, ctx.state, command,
                           privacy.stamp(command, _decided(ctx, command)))


def _decided(ctx: Decision, command: Command) -> list[Event]:
    """The events of ``command`` by its rules, before the fair rolls' and the privacy's part."""
    if isinstance(command, ImportCharacter):  # core commands with a module of their own
        events = import_character(ctx, command)
    elif isinstance(command, SetCondition):
        events = set_condition(ctx, command)
    elif type(command) in core.COMMANDS:
        events = core.decide(ctx, command, hash_token)
    else:
        system = RULES[ctx.state.system]
        if type(command) not in system.commands:
            raise Rejected(
                "wrong_system", f"this campaign plays {ctx.state.system!r}; "
                f"{type(command).__name__} belongs to another system", "$.type",
            )
        events = system.decide(ctx, command)
    return events
