"""A campaign held in memory for rules tests: real events folded, real decisions, no server.

Each system's test support subclasses :class:`RulesTable` with its cast of members and
characters; integration tests use the real server instead (``tests/conftest.py``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from poolhall.events import core
from poolhall.events.base import Event, Recorded
from poolhall.events.errors import Rejected
from poolhall.projections.campaign import CampaignState, evolve, new_state
from poolhall.server import rules
from poolhall.server.rules.base import Decision
from poolhall.server.rules.fairness import EpochSeeds

__all__ = ["RulesTable"]


class RulesTable:
    """A campaign state folded from real events, on which commands are decided."""

    def __init__(self, system: str, members: Iterable[tuple[str, str, tuple[str, ...]]],
                 characters: Mapping[str, Any], seed: int = 7) -> None:
        self.state: CampaignState = new_state()
        self.rng: random.Random = random.Random(seed)
        self.seeds: EpochSeeds | None = None
        """Set to roll fair dice from these seeds (the server's way) instead of ``rng``."""
        self.seq = 0
        self.log: list[Recorded] = []
        self.fold(core.CampaignCreated(campaign="c", name="C", system=system))
        for member, role, plays in members:
            self.fold(core.MemberInvited(member=member, name=member, role=role,
                                         characters=plays, token_hash="0" * 64))
        for character, stats in characters.items():
            self.fold(core.CharacterCreated(character=character, name=character.title(),
                                            stats=stats))

    @property
    def game(self) -> Any:
        """The system's part of the state."""
        return self.state.game

    def fold(self, event: Event, actor: str = "gm") -> None:
        """Append one event to the (in-memory) log and fold it."""
        self.seq += 1
        recorded = Recorded(seq=self.seq, at="2024-01-01T00:00:00Z", actor=actor,
                            command=f"c{self.seq}", event=event)
        self.log.append(recorded)
        evolve(self.state, recorded)

    def decide(self, member: str, command_type: type[Any], **fields: Any) -> list[Event]:
        """Decide a command as ``member`` without folding the events."""
        ctx = Decision(self.state, self.state.members[member], self.rng, lambda: "t" * 32,
                       self.seeds)
        return rules.decide(ctx, command_type(id=f"x{self.seq}", **fields))

    def run(self, member: str, command_type: type[Any], **fields: Any) -> list[Event]:
        """Decide a command as ``member`` and fold the events it gives."""
        events = self.decide(member, command_type, **fields)
        for event in events:
            self.fold(event, member)
        return events

    def refused(self, member: str, command_type: type[Any], **fields: Any) -> Rejected:
        """The refusal of a command as ``member``, which must append nothing (bad input
        changes nothing)."""
        head = self.seq
        with pytest.raises(Rejected) as caught:
            self.run(member, command_type, **fields)
        assert self.seq == head
        return caught.value
