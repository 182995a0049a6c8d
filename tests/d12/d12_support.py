"""Helpers for the d12 unit tests: a campaign state folded from real events, decisions on it.

Not a test module: the d12 tests import it as ``tests.d12.d12_support`` (one name, so mypy
sees the same module the tests do).
"""

from __future__ import annotations

import random

from poolhall.events import core, d12
from poolhall.projections.d12 import GameState
from tests.rules_table import RulesTable

__all__ = ["STATS", "FixedDice", "Table"]

MEMBERS = (("gm", "gm", ()), ("han-player", "player", ("han",)),
           ("leia-player", "player", ("leia",)), ("watcher", "spectator", ()))

STATS = {
    "han": {"CON": 2, "CHA": 1, "STR": 3, "DEX": 4},
    "leia": {"CON": 3, "CHA": 5, "WIT": 4},
    "vader": {"CON": 6, "CHA": 4, "STR": 8, "WIL": 15},
}


class Table(RulesTable):
    """A d12 campaign state with a GM, Han's player, Leia's player and a spectator."""

    def __init__(self, seed: int = 7) -> None:
        super().__init__("d12", MEMBERS, {
            character: d12.D12Stats(ratings=ratings) for character, ratings in STATS.items()
        }, seed)

    @property
    def game(self) -> GameState:
        game = self.state.game
        assert isinstance(game, GameState)
        return game

    def set_rating(self, character: str, stat: str, rating: int) -> None:
        """The GM changes one rating of a character."""
        stats = self.state.characters[character].stats
        assert isinstance(stats, d12.D12Stats)
        ratings = dict(stats.ratings)
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
