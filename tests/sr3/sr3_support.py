"""Helpers for the sr3 unit tests: a campaign state folded from real events, decisions on it.

Not a test module: the sr3 tests import it as ``tests.sr3.sr3_support`` (one name, so mypy
sees the same module the tests do).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from poolhall.events.sr3 import Sr3Skill, Sr3Stats
from poolhall.projections.campaign import CampaignState, fold
from poolhall.projections.sr3 import GameState
from tests.rules_table import RulesTable

__all__ = ["Table", "FixedDice", "street_sam", "decker", "mage", "rigger", "stats"]


def stats(**fields: Any) -> Sr3Stats:
    """Average attributes (all 4) with any field overridden."""
    base: dict[str, Any] = dict(body=4, quickness=4, strength=4, charisma=4, intelligence=4,
                                willpower=4)
    base.update(fields)
    return Sr3Stats(**base)


def street_sam() -> Sr3Stats:
    """Quickness 6, Intelligence 5, Willpower 4: Combat Pool 7; Pistols 5, wired reflexes."""
    return stats(body=6, quickness=6, strength=5, charisma=2, intelligence=5, willpower=4,
                 reaction=5, reaction_bonus=4, initiative_dice=3, karma_earned=40,
                 skills={"pistols": Sr3Skill(rating=5, attribute="quickness", kind="combat"),
                         "etiquette": Sr3Skill(rating=2, attribute="charisma", kind="social"),
                         "electronics": Sr3Skill(rating=3, attribute="intelligence",
                                                 kind="technical")})


def decker() -> Sr3Stats:
    """Intelligence 6, MPCP 8, hot ASIST, encephalon 1, math SPU 2: Hacking Pool 7."""
    return stats(intelligence=6, quickness=3, mpcp=8, hot_asist=True, encephalon=1, math_spu=2,
                 karma_earned=120,
                 skills={"computer": Sr3Skill(rating=6, attribute="intelligence",
                                              kind="technical"),
                         "etiquette-matrix": Sr3Skill(rating=3, attribute="charisma",
                                                      kind="social"),
                         "physics": Sr3Skill(rating=4, attribute="intelligence",
                                             kind="knowledge"),
                         "pistols": Sr3Skill(rating=2, attribute="quickness", kind="combat")})


def mage() -> Sr3Stats:
    """Intelligence 5, Willpower 6, Magic 6, Charisma 5: Spell Pool 5, Astral Combat 8."""
    return stats(intelligence=5, willpower=6, magic=6, charisma=5, initiate_grade=2,
                 essence=6.0, karma_earned=150, metahuman=True,
                 skills={"sorcery": Sr3Skill(rating=5, attribute="willpower", kind="sorcery"),
                         "conjuring": Sr3Skill(rating=4, attribute="willpower",
                                               kind="conjuring"),
                         "aura-reading": Sr3Skill(rating=3, attribute="intelligence",
                                                  kind="magical"),
                         "unarmed": Sr3Skill(rating=2, attribute="strength", kind="combat")})


def rigger() -> Sr3Stats:
    """Reaction 4, VCR 2, wired reflexes 2: Control Pool 8; Car 4."""
    return stats(reaction=4, reaction_bonus=2, vcr=2,
                 skills={"car": Sr3Skill(rating=4, attribute="reaction", kind="vehicle")})


class FixedDice(random.Random):
    """A generator whose ``randint`` gives the faces it was told, then falls back to a seed."""

    def __init__(self, faces: Iterable[int] = (), seed: int = 3) -> None:
        super().__init__(seed)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:  # noqa: D102 - same as random.Random
        if self.faces:
            face = self.faces.pop(0)
            assert a <= face <= b
            return face
        return super().randint(a, b)


class Table(RulesTable):
    """An sr3 campaign state: a GM, players for sam, deck and mage, a spectator."""

    CHARACTERS = {"sam": street_sam, "deck": decker, "mage": mage, "rig": rigger}

    def __init__(self, seed: int = 7, characters: dict[str, Sr3Stats] | None = None) -> None:
        chosen = characters if characters is not None else {
            cid: make() for cid, make in self.CHARACTERS.items()}
        super().__init__("sr3", (
            ("gm", "gm", ()), ("sam-player", "player", ("sam",)),
            ("deck-player", "player", ("deck",)), ("mage-player", "player", ("mage",)),
            ("rig-player", "player", ("rig",)), ("watcher", "spectator", ()),
        ), chosen, seed)

    @property
    def game(self) -> GameState:
        game = self.state.game
        assert isinstance(game, GameState)
        return game

    def dice(self, *faces: int) -> None:
        """The next d6 faces to come up (then seeded dice)."""
        self.rng = FixedDice(faces)

    def replay(self) -> CampaignState:
        """A fresh fold of the log (what a client or ``poolhall state`` sees)."""
        return fold(self.log)
