"""The values of the ``narrative`` game system: its limits, a character's stats, a pool, a die
as it came up and a roll's result.

They are what :mod:`poolhall.events.narrative`'s events and commands are made of; kept apart so that
module holds only what happens at the table. :mod:`poolhall.events.narrative` re-exports every name.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from poolhall.events.base import Slug, Value
from poolhall.events.narrative_notation import (
    CHARACTERISTICS,
    DIFFICULTY_DICE,
    MAX_FREE_DICE,
    pool_notation,
    pool_total,
)

__all__ = [
    "SYSTEM_ID",
    "PARSED_COMMAND_ID",
    "CHARACTERISTICS",
    "DIFFICULTY_DICE",
    "MAX_POOL_DICE",
    "MAX_FREE_DICE",
    "MAX_STEP",
    "MAX_DESTINY",
    "CharacteristicName",
    "CharacteristicValue",
    "SkillName",
    "SkillRank",
    "DieKind",
    "Symbol",
    "Side",
    "DestinySide",
    "DifficultyLevel",
    "AddableKind",
    "DestinyEffect",
    "Face",
    "DieCount",
    "Step",
    "Net",
    "Tally",
    "Points",
    "side_of",
    "Skill",
    "NarrativeStats",
    "Stats",
    "Pool",
    "RolledDie",
    "Dice",
    "NarrativeResult",
    "DestinyDie",
]

SYSTEM_ID = "narrative"
PARSED_COMMAND_ID = "parsed-roll"
"""The id of a command made by :func:`parse_roll`; the caller replaces it with a fresh one."""

MAX_POOL_DICE = 60
"""**Decision**: a check's effective pool holds at most 60 dice; more is refused."""
MAX_STEP = 10
"""One modification adds, upgrades, downgrades or removes at most 10 dice."""
MAX_DESTINY = 50

CharacteristicName = Literal["brawn", "agility", "intellect", "cunning", "willpower", "presence"]
CharacteristicValue = Annotated[int, Meta(ge=0, le=10, description="1-6 typically")]
SkillName = Annotated[str, Meta(pattern=r"^[A-Za-z][A-Za-z0-9 ()'/&.-]{0,39}$",
                                description="a skill's name, e.g. 'Ranged (Light)'")]
SkillRank = Annotated[int, Meta(ge=0, le=5)]
DieKind = Literal["proficiency", "ability", "difficulty", "challenge", "boost", "setback",
                  "force"]
Symbol = Literal["success", "advantage", "triumph", "failure", "threat", "despair", "dark",
                 "light"]
Side = Literal["ability", "difficulty"]
"""The two sides of a pool: Ability, Proficiency, Boost / Difficulty, Challenge, Setback."""
DestinySide = Literal["light", "dark"]
DifficultyLevel = Literal["simple", "easy", "average", "hard", "daunting", "formidable",
                          "impossible", "opposed"]
AddableKind = Literal["ability", "difficulty", "boost", "setback"]
"""Dice a modification adds or removes (upgrades make Proficiency and Challenge dice)."""
DestinyEffect = Literal["upgrade_ability", "upgrade_difficulty", "attempt_impossible", "other"]
Face = Annotated[int, Meta(ge=1, le=12, description="1-based index in the die's face table")]
DieCount = Annotated[int, Meta(ge=0, le=MAX_POOL_DICE)]
Step = Annotated[int, Meta(ge=1, le=MAX_STEP, description="how many dice")]
Net = Annotated[int, Meta(ge=-2 * MAX_POOL_DICE, le=2 * MAX_POOL_DICE)]
Tally = Annotated[int, Meta(ge=0, le=2 * MAX_POOL_DICE)]
Points = Annotated[int, Meta(ge=0, le=MAX_DESTINY)]

_SIDES: dict[str, Side] = {"proficiency": "ability", "ability": "ability", "boost": "ability",
                           "difficulty": "difficulty", "challenge": "difficulty",
                           "setback": "difficulty"}


def side_of(kind: str) -> Side:
    """The side of the pool a die kind belongs to (Force dice belong to neither)."""
    return _SIDES[kind]


class Skill(Value, frozen=True, kw_only=True, gc=False):
    """A skill's rank and the characteristic it is linked to (Computers: Intellect)."""

    rank: SkillRank = 0
    characteristic: CharacteristicName


class NarrativeStats(Value, frozen=True, kw_only=True, gc=False, tag_field="system", tag=SYSTEM_ID):
    """The six characteristics and the skills of a character.

    **Decision**: a characteristic left out is 2 (a typical starting character); a skill left
    out is untrained (rank 0) and names its characteristic when a check opens.
    """

    brawn: CharacteristicValue = 2
    agility: CharacteristicValue = 2
    intellect: CharacteristicValue = 2
    cunning: CharacteristicValue = 2
    willpower: CharacteristicValue = 2
    presence: CharacteristicValue = 2
    skills: Annotated[dict[SkillName, Skill], Meta(max_length=60)] = msgspec.field(
        default_factory=dict)

    def characteristic(self, name: str) -> int:
        """The rating of a characteristic by name."""
        return int(getattr(self, name))

    def skill(self, name: str) -> tuple[str, Skill] | None:
        """The skill by name, ignoring case (``"ranged (light)"`` finds ``"Ranged (Light)"``)."""
        wanted = name.casefold()
        for key, skill in self.skills.items():
            if key.casefold() == wanted:
                return key, skill
        return None


Stats = NarrativeStats


class Pool(Value, frozen=True, kw_only=True, gc=False, omit_defaults=True):
    """How many dice of each kind a pool holds."""

    proficiency: DieCount = 0
    ability: DieCount = 0
    difficulty: DieCount = 0
    challenge: DieCount = 0
    boost: DieCount = 0
    setback: DieCount = 0
    force: DieCount = 0

    def count(self, kind: str) -> int:
        """The dice of one kind."""
        return int(getattr(self, kind))

    @property
    def total(self) -> int:
        """All the dice."""
        return pool_total(self)

    def notation(self) -> str:
        """Colour letters with counts, ``"2y1g 2p1r"``; ``"-"`` for an empty pool."""
        return pool_notation(self)


class RolledDie(Value, frozen=True, kw_only=True, gc=False):
    """One die as it came up: its kind, its face index and the symbols on that face."""

    kind: DieKind
    face: Face
    symbols: Annotated[tuple[Symbol, ...], Meta(max_length=2)] = ()


Dice = Annotated[tuple[RolledDie, ...], Meta(max_length=MAX_POOL_DICE)]


class NarrativeResult(Value, frozen=True, kw_only=True, gc=False):
    """A roll after cancelling: net successes (negative: net failures), net advantage
    (negative: net threat), triumphs and despairs (never cancelled), Force pips."""

    successes: Net
    advantages: Net
    triumphs: Tally = 0
    despairs: Tally = 0
    light: Tally = 0
    dark: Tally = 0
    succeeded: bool


class DestinyDie(Value, frozen=True, kw_only=True, gc=False):
    """The Force die one player rolled for the destiny pool."""

    member: Slug
    face: Face
    symbols: Annotated[tuple[Symbol, ...], Meta(max_length=2)] = ()
