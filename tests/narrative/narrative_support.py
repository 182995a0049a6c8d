"""Helpers for the narrative unit tests: a campaign state folded from real events, decisions.

Not a test module: the narrative tests import it (pytest puts this folder on ``sys.path``).
"""

from __future__ import annotations

import random
from typing import Any

from events import core
from events import narrative as n
from events.base import Event, Recorded
from projections.campaign import CampaignState, evolve, new_state
from projections.narrative import GameState
from server.rules import narrative as rules
from server.rules.base import Decision

__all__ = ["HAN", "LEIA", "VADER", "Table", "FixedDice"]

HAN = n.NarrativeStats(
    brawn=3, agility=3, intellect=2, cunning=4, willpower=2, presence=3,
    skills={"Ranged (Light)": n.Skill(rank=2, characteristic="agility"),
            "Piloting (Space)": n.Skill(rank=4, characteristic="agility"),
            "Cool": n.Skill(rank=1, characteristic="presence")})
LEIA = n.NarrativeStats(
    presence=4, willpower=3, skills={"Leadership": n.Skill(rank=3, characteristic="presence")})
VADER = n.NarrativeStats(
    brawn=4, willpower=5, skills={"Discipline": n.Skill(rank=3, characteristic="willpower"),
                                  "Vigilance": n.Skill(rank=2, characteristic="willpower")})


class FixedDice(random.Random):
    """A generator that gives the face indexes it is told (1-based), in order."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randrange(self, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        return self.faces.pop(0) - 1


class Table:
    """A narrative campaign: a GM, Han's and Leia's players, a spectator; Vader is the GM's."""

    def __init__(self, seed: int = 7) -> None:
        self.state: CampaignState = new_state()
        self.rng: random.Random = random.Random(seed)
        self.seq = 0
        self.log: list[Recorded] = []
        self.fold(core.CampaignCreated(campaign="c", name="C", system="narrative"))
        for member, role, characters in (
            ("gm", "gm", ()), ("han-player", "player", ("han",)),
            ("leia-player", "player", ("leia",)), ("watcher", "spectator", ()),
        ):
            self.fold(core.MemberInvited(member=member, name=member, role=role,
                                         characters=characters, token_hash="0" * 64))
        for character, stats in (("han", HAN), ("leia", LEIA), ("vader", VADER)):
            self.fold(core.CharacterCreated(character=character, name=character.title(),
                                            stats=stats))

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
    def game(self) -> GameState:
        game = self.state.game
        assert isinstance(game, GameState)
        return game

    def open(self, check: str = "shot", character: str = "han", skill: str = "Ranged (Light)",
             level: str | None = "average", member: str = "han-player") -> None:
        """Open a check as its player and, with ``level``, have the GM set its difficulty."""
        self.run(member, n.OpenCheck, character=character, skill=skill, check=check)
        if level is not None:
            self.run("gm", n.SetDifficulty, check=check, level=level)
