"""The values of the ``sr3`` game system: its limits and names, a character's stats, a pool die as
it came up, an initiative roll and an opposed outcome.

They are what :mod:`poolhall.events.sr3`'s events and commands are made of; kept apart so that
module holds only what happens at the table. :mod:`poolhall.events.sr3` re-exports every name.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from poolhall.events.base import Slug, Value
from poolhall.events.sr3_dice import MAX_TEST_DICE

__all__ = [
    "SYSTEM_ID",
    "MAX_CHAIN",
    "MAX_TN",
    "MAX_TEST_DICE",
    "PARSED_COMMAND_ID",
    "ATTRIBUTES",
    "AttributeName",
    "PoolName",
    "POOLS",
    "TEST_KINDS",
    "TestKind",
    "SKILL_KINDS",
    "SkillKind",
    "DieSource",
    "Attribute",
    "Rating",
    "SkillName",
    "Face",
    "Chain",
    "TN",
    "TestNo",
    "DiceCount",
    "Draw",
    "PoolSize",
    "Points",
    "MAX_REROLLS",
    "Draws",
    "PoolSizes",
    "Participants",
    "Sr3Skill",
    "Sr3Stats",
    "Stats",
    "PoolDie",
    "InitiativeRoll",
    "Incapacity",
    "NotActing",
    "WoundModifier",
    "OpposedOutcome",
]

SYSTEM_ID = "sr3"
MAX_CHAIN = 30
"""**Decision**: a Rule of Six chain stops after 30 faces (a chance of 6^-30), to bound events."""
MAX_TN = 100
"""The highest target number the log records: one the notation takes, or one that wound
modifiers or an open test's highest total make, past it is refused in words before anything is
logged (:func:`poolhall.server.rules.sr3_tests.check_tn_limit`)."""
PARSED_COMMAND_ID = "parsed-roll"

ATTRIBUTES = ("body", "quickness", "strength", "charisma", "intelligence", "willpower", "magic",
              "reaction")
AttributeName = Literal["body", "quickness", "strength", "charisma", "intelligence", "willpower",
                        "magic", "reaction"]
PoolName = Literal["combat", "control", "hacking", "spell", "astral_combat", "task", "astral"]
POOLS: tuple[PoolName, ...] = ("combat", "control", "hacking", "spell", "astral_combat", "task",
                               "astral")
TEST_KINDS = ("combat", "dodge", "damage_resistance", "control", "matrix", "matrix_etiquette",
              "ic_resistance", "spell", "spell_defense", "dispelling", "drain",
              "spell_resistance", "conjuring", "magical_skill", "perception", "other")
TestKind = Literal["combat", "dodge", "damage_resistance", "control", "matrix",
                   "matrix_etiquette", "ic_resistance", "spell", "spell_defense", "dispelling",
                   "drain", "spell_resistance", "conjuring", "magical_skill", "perception",
                   "other"]
"""What a test is, which decides the pools it may draw on (see ``server/rules/sr3_limits.py``).

``combat`` an offensive Combat Skill test (on the astral plane: an Astral Combat test);
``dodge`` / ``damage_resistance`` defensive tests; ``control`` controlling a rigged vehicle;
``matrix`` any test in the Matrix, except ``matrix_etiquette`` (Etiquette (Matrix)) and
``ic_resistance`` (Body or Willpower against damaging gray or black IC); ``spell`` the Spell
Success test, ``spell_defense`` and ``dispelling`` (Sorcery tests), ``drain`` Drain Resistance,
``spell_resistance`` resisting a spell, ``conjuring``, ``magical_skill`` any other magical skill
test; ``perception``; ``other`` anything else (social, athletics, technical skills ...).
"""
SKILL_KINDS = ("combat", "physical", "social", "technical", "build_repair", "vehicle", "sorcery",
               "conjuring", "magical", "knowledge", "language")
SkillKind = Literal["combat", "physical", "social", "technical", "build_repair", "vehicle",
                    "sorcery", "conjuring", "magical", "knowledge", "language"]
DieSource = Literal["base", "combat", "control", "hacking", "spell", "astral_combat", "task",
                    "astral", "karma"]

Attribute = Annotated[int, Meta(ge=1, le=30, description="an attribute rating")]
Rating = Annotated[int, Meta(ge=0, le=30, description="a rating, 0 when absent")]
SkillName = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_-]{0,39}$",
                                description="a skill id: pistols, etiquette-matrix, sorcery")]
Face = Annotated[int, Meta(ge=1, le=6)]
Chain = Annotated[tuple[Face, ...], Meta(min_length=1, max_length=MAX_CHAIN)]
TN = Annotated[int, Meta(ge=2, le=MAX_TN, description="target number")]
TestNo = Annotated[int, Meta(ge=1, description="the campaign's number for a test")]
DiceCount = Annotated[int, Meta(ge=0, le=MAX_TEST_DICE)]
Draw = Annotated[int, Meta(ge=1, le=MAX_TEST_DICE, description="dice drawn from a pool")]
PoolSize = Annotated[int, Meta(ge=0, le=200)]
Points = Annotated[int, Meta(ge=0, le=100_000)]
MAX_REROLLS = 100
"""**Decision**: a test is rerolled with Karma Pool at most 100 times (the 100th costs 100)."""
Draws = Annotated[dict[PoolName, Draw], Meta(max_length=len(POOLS))]
PoolSizes = Annotated[dict[PoolName, PoolSize], Meta(max_length=len(POOLS))]
Participants = Annotated[tuple[Slug, ...], Meta(max_length=50)]
Incapacity = Literal["unconscious", "dying"]
"""Why a character does not act: a full Stun monitor (``unconscious``) or a full Physical one
(``dying``; see :mod:`poolhall.projections.sr3_wounds`)."""
NotActing = Annotated[dict[Slug, Incapacity], Meta(max_length=50)]
WoundModifier = Annotated[int, Meta(ge=0, le=6, description="the wound modifier: 0 to 3 for "
                                    "each Condition Monitor")]


class Sr3Skill(Value, frozen=True, kw_only=True, gc=False):
    """A skill: its rating, the attribute it is linked to, and its kind (which pools help it)."""

    rating: Annotated[int, Meta(ge=0, le=20)]
    attribute: AttributeName
    kind: SkillKind = "physical"


class Sr3Stats(Value, frozen=True, kw_only=True, gc=False, tag_field="system", tag=SYSTEM_ID):
    """A Shadowrun 3 character: attributes, skills, the gear that shapes the pools, karma.

    Attributes are the current (augmented) ratings, except ``reaction``: the natural Reaction
    (``None``: (Quickness + Intelligence) // 2). ``reaction_bonus`` (wired reflexes, ...) counts
    for initiative only, because "Reaction bonuses from other sources are of no help" to the
    Control Pool. ``task_activesoft`` is the Task Pool of a chipjack expert driver with a
    Computer activesoft (Hacking Pool dice); ``cerebral_booster`` gives Task Pool dice.
    """

    body: Attribute
    quickness: Attribute
    strength: Attribute
    charisma: Attribute
    intelligence: Attribute
    willpower: Attribute
    essence: Annotated[float, Meta(ge=0, le=6)] = 6.0
    magic: Rating = 0
    reaction: Rating | None = None
    reaction_bonus: Annotated[int, Meta(ge=0, le=20)] = 0
    initiative_dice: Annotated[int, Meta(ge=1, le=5)] = 1
    skills: Annotated[dict[SkillName, Sr3Skill], Meta(max_length=100)] = {}
    ballistic: Rating = 0
    impact: Rating = 0
    vcr: Annotated[int, Meta(ge=0, le=3, description="vehicle control rig level")] = 0
    mpcp: Annotated[int, Meta(ge=0, le=20, description="cyberterminal MPCP rating")] = 0
    hot_asist: bool = False
    encephalon: Annotated[int, Meta(ge=0, le=4)] = 0
    math_spu: Annotated[int, Meta(ge=0, le=4)] = 0
    task_activesoft: Annotated[int, Meta(ge=0, le=12)] = 0
    cerebral_booster: Annotated[int, Meta(ge=0, le=3)] = 0
    initiate_grade: Rating = 0
    karma_earned: Points = 0
    metahuman: bool = False

    @property
    def natural_reaction(self) -> int:
        """Reaction before any bonus: as given, else (Quickness + Intelligence) // 2."""
        if self.reaction is not None:
            return self.reaction
        return (self.quickness + self.intelligence) // 2


Stats = Sr3Stats


class PoolDie(Value, frozen=True, kw_only=True, gc=False):
    """One d6 of a test: where it came from and its chain of faces (Rule of Six)."""

    source: DieSource
    faces: Chain


class InitiativeRoll(Value, frozen=True, kw_only=True, gc=False, omit_defaults=True):
    """A character's initiative: Reaction + bonus + the d6 faces (no Rule of Six), less
    ``wounds``, never below 0.

    ``wounds`` is the wound modifier subtracted (the one that raises the character's target
    numbers), recorded so that the log says why a score is lower than its dice. It was added
    later with a default of 0, and ``omit_defaults`` keeps an unwounded roll's payload as it was
    stored before: old logs decode and re-encode unchanged.
    """

    character: Slug
    reaction: Annotated[int, Meta(ge=0, le=60)]
    faces: Annotated[tuple[Face, ...], Meta(min_length=1, max_length=5)]
    score: Annotated[int, Meta(ge=0, le=100)]
    wounds: WoundModifier = 0


class OpposedOutcome(Value, frozen=True, kw_only=True, gc=False):
    """How a test came out against the test it opposes, as the table saw it then.

    ``net`` is this test's successes minus the other's (an open test counts its highest total);
    ``missed`` is set when a Dodge beat the attack: the attack is a complete miss.
    ``pool_successes`` is set on a Dodge: its successes with its Combat Pool (or Astral Combat
    Pool) dice alone, which are what beat the attack or not ("more successes with his Combat
    Pool dice alone"); ``ours`` counts its Karma dice too. Dodges logged before this field
    leave it out.
    """

    test: TestNo
    theirs: Annotated[int, Meta(ge=0, le=1000)]
    ours: Annotated[int, Meta(ge=0, le=1000)]
    net: Annotated[int, Meta(ge=-1000, le=1000)]
    missed: bool = False
    pool_successes: Annotated[int, Meta(ge=0, le=1000)] | None = None
