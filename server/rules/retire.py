"""Retiring a character (``retire_character``, GM only): it leaves the table for good.

What the command appends, in one batch: a ``characters_assigned`` for each player who played
it (their whole list without it, so the log says in its own words that they no longer do),
then ``character_retired`` with the name the table knew it by. The campaign's fold moves the
character from ``characters`` to ``retired`` (its name kept for the log before); the game
system lets go of what no event refers to
(:attr:`poolhall.projections.contract.Projection.retired`).

What it refuses: a character in something open of the game system
(:attr:`poolhall.projections.contract.Projection.holding`: a narrative check or encounter, an
SR3 combat, a d12 test), naming it and how to end it; withdrawing the character from it would
leave the open thing's events pointing at a character no longer at the table. Its id is never
reused (:func:`require_not_retired`): the log, replays and the report tell characters apart
by id.
"""

from __future__ import annotations

from collections.abc import Iterable

from poolhall.events import core
from poolhall.events.base import Event
from poolhall.events.errors import Rejected
from poolhall.projections.systems import projection
from poolhall.server.rules.base import Decision

__all__ = ["require_not_retired", "retire_character"]


def retire_character(ctx: Decision, command: core.RetireCharacter) -> list[Event]:
    """The events of a retirement, or :class:`Rejected` naming ``$.character``."""
    ctx.require_gm("retire characters")
    state = ctx.state
    if command.character in state.retired:
        raise Rejected("not_found", f"{state.retired[command.character]} is retired already",
                       "$.character")
    character = ctx.character(command.character)
    holding = projection(state.system).holding
    held = holding(state.game, command.character) if holding is not None else None
    if held is not None:
        raise Rejected("rule", f"{character.name} {held}", "$.character")
    events: list[Event] = [
        core.CharactersAssigned(member=member.member, characters=tuple(
            c for c in member.characters if c != command.character))
        for member in state.members.values()
        if member.active and member.role == "player" and command.character in member.characters]
    events.append(core.CharacterRetired(character=command.character, name=character.name,
                                        reason=command.reason))
    return events


def require_not_retired(ctx: Decision, characters: Iterable[str], path: str) -> None:
    """Refuse a list of characters to play (an invite's, an assignment's) that holds a retired
    one: it is no longer at the table, and its id is not free for a new one."""
    for index, character in enumerate(characters):
        name = ctx.state.retired.get(character)
        if name is not None:
            raise Rejected("invalid", f"{name} is retired: no one plays a retired character",
                           f"{path}[{index}]")
