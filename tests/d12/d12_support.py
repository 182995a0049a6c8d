"""Helpers for the d12 unit tests: a campaign state folded from real events, decisions on it.

Not a test module: the d12 tests import it (pytest puts this folder on ``sys.path``).
"""

from __future__ import annotations

import random
from typing import Any

from events import core, d12
from events.base import Event, Recorded
from projections.campaign import CampaignState, evolve, new_state
from server.rules import d12 as rules
from server.rules.base import Decision

__all__ = ["STATS", "FixedDice", "Table"]

STATS = {
    "han": {"CON": 2, "CHA": 1, "STR": 3, "DEX": 4},
    "leia": {"CON": 3, "CHA": 5, "WIT": 4},
    "vader": {"CON": 6, "CHA": 4, "STR": 8, "WIL": 15},
}


class Table:
    """A d12 campaign state with a GM, Han's player, Leia's player and a spectator."""

    def __init__(self, seed: int = 7) -> None:
        self.state: CampaignState = new_state()
        self.rng = random.Random(seed)
        self.seq = 0
        self.log: list[Recorded] = []
        self.fold(core.CampaignCreated(campaign="c", name="C", system="d12"))
        for member, role, characters in (
            ("gm", "gm", ()), ("han-player", "player", ("han",)),
            ("leia-player", "player", ("leia",)), ("watcher", "spectator", ()),
        ):
            self.fold(core.MemberInvited(member=member, name=member, role=role,
                                         characters=characters, token_hash="0" * 64))
        for character, ratings in STATS.items():
            self.fold(core.CharacterCreated(character=character, name=character.title(),
                                            stats=d12.D12Stats(ratings=ratings)))

    def fold(self, event: Event, actor: str = "gm") -> None:
        """Append one event to the (imaginary) log and fold it."""
        self.seq += 1
        recorded = Recorded(seq=self.seq, at="2024-01-01T00:00:00Z", actor=actor,
                            command=f"c{self.seq}", event=event)
        self.log.append(recorded)
        evolve(self.state, recorded)

    def decide(self, member: str, command_type: type[Any], **fields: Any) -> list[Event]:
        """Decide a command as ``member`` without folding the events."""
        ctx = Decision(self.state, self.state.members[member], self.rng, lambda: "t" * 32)
        return rules.decide(ctx, command_type(id="x", **fields))

    def run(self, member: str, command_type: type[Any], **fields: Any) -> list[Event]:
        """Decide a command as ``member`` and fold the events it gives."""
        events = self.decide(member, command_type, **fields)
        for event in events:
            self.fold(event, member)
        return events

    @property
    def game(self) -> Any:
        return self.state.game

    def set_rating(self, character: str, stat: str, rating: int) -> None:
        """The GM changes one rating of a character."""
        ratings = dict(self.state.characters[character].stats.ratings)
        ratings[stat] = rating
        self.fold(core.CharacterUpdated(character=character,
                                        stats=d12.D12Stats(ratings=ratings)))


class FixedDice(random.Random):
    """A generator that gives the faces it is told, in order (for exact rule examples)."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)
