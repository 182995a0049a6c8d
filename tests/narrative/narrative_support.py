"""Helpers for the narrative unit tests: a campaign state folded from real events, decisions.

Not a test module: the narrative tests import it as ``tests.narrative.narrative_support``
(one name, so mypy sees the same module the tests do).
"""

from __future__ import annotations

import random
from typing import Any

from poolhall.events import narrative as n
from poolhall.projections.narrative import GameState
from tests.rules_table import RulesTable

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

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        return self.faces.pop(0) - 1


class Table(RulesTable):
    """A narrative campaign: a GM, Han's and Leia's players, a spectator; Vader is the GM's."""

    def __init__(self, seed: int = 7) -> None:
        super().__init__("narrative", (
            ("gm", "gm", ()), ("han-player", "player", ("han",)),
            ("leia-player", "player", ("leia",)), ("watcher", "spectator", ()),
        ), {"han": HAN, "leia": LEIA, "vader": VADER}, seed)

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
