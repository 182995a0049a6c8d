"""Deciding ``set_condition`` (:mod:`poolhall.events.conditions`): who may, which conditions, what
range."""

from __future__ import annotations

from poolhall.events.base import Event
from poolhall.events.conditions import CONDITIONS, ConditionChanged, SetCondition
from poolhall.events.errors import Rejected
from poolhall.server.rules.base import Decision

__all__ = ["set_condition"]


def set_condition(ctx: Decision, command: SetCondition) -> list[Event]:
    """The event of a condition set, or a refusal naming the field at fault."""
    ctx.require_acts_for(command.character)
    character = ctx.character(command.character)
    known = CONDITIONS.get(ctx.state.system, {})
    if not known:
        raise Rejected("rule", f"{ctx.state.system} characters have no conditions: the"
                       " d12 sources give none", "$.condition")
    if command.condition not in known:
        raise Rejected("invalid", f"{ctx.state.system} characters have no"
                       f" {command.condition.replace('_', ' ')}; they have "
                       + ", ".join(name.replace("_", " ") for name in known), "$.condition")
    most = known[command.condition]
    if command.value > most:
        raise Rejected("invalid", f"{command.condition.replace('_', ' ')} is at most {most}",
                       "$.value")
    was = character.conditions.get(command.condition, 0)
    if command.value == was:  # an event "3 -> 3" would only fill the log
        raise Rejected("invalid", f"{character.name}'s {command.condition.replace('_', ' ')} is"
                       f" already {was}: nothing to change", "$.value")
    return [ConditionChanged(character=command.character, condition=command.condition,
                             value=command.value, was=was, reason=command.reason)]
