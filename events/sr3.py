"""Events, commands and character stats of the ``sr3`` game system: Shadowrun 3 dice pools.

A test rolls d6s against a target number (TN, 2 or more): base dice from a skill or an
attribute, plus dice drawn from the character's pools (Combat, Control, Hacking, Spell, Astral
Combat, Task, Astral) and dice bought with Karma Pool. Every die is recorded as its chain of
faces (Rule of Six: a 6 is rolled again and added), so replay never re-rolls anything. Pools are
full at the start of every Combat Turn and deplete as dice are drawn; the Karma Pool comes back
at the end of a scene.

Notation of :func:`parse_roll` (``poolhall roll CAMPAIGN "..." --character ID``)::

    roll   := base target draw* word*
    base   := N "d6" | SKILL | ATTRIBUTE       6d6 · pistols · body
    target := "tn" N | "open"                  tn5 · tn 12 · open
    draw   := "+" N POOL | "+" N "karma"       +3cp · +2 spell · +1 karma
    word   := KIND | FLAG | "vs" N             dodge · surprised · rigged · astral · vs 3

Pools: ``cp``/``combat``, ``ctl``/``control``, ``hp``/``hacking``, ``sp``/``spell``,
``acp``/``astral_combat``, ``tp``/``task``, ``ap``/``astral``. ``"6d6 tn5"`` is a success test of
six dice, ``"4d6 open"`` an open test, ``"pistols tn4 +3cp combat"`` a Pistols attack with three
Combat Pool dice, ``"0d6 tn4 +5cp dodge vs 3"`` a Dodge against test 3. Flags: ``surprised``,
``rigged``, ``astral``, ``magic``, ``elemental``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Annotated

import msgspec
from msgspec import Meta

from poolhall.events.base import Command, Event, Reason, Slug, Visibility
from poolhall.events.contract import SystemVocabulary
from poolhall.events.errors import NeedsCharacter, NotationError
from poolhall.events.fair import FairStamp
from poolhall.events.plain_errors import plain_words
from poolhall.events.sr3_values import (
    ATTRIBUTES,
    MAX_CHAIN,
    MAX_REROLLS,
    MAX_TEST_DICE,
    MAX_TN,
    PARSED_COMMAND_ID,
    POOLS,
    SKILL_KINDS,
    SYSTEM_ID,
    TEST_KINDS,
    TN,
    AttributeName,
    Chain,
    DiceCount,
    DieSource,
    Draws,
    Incapacity,
    InitiativeRoll,
    NotActing,
    OpposedOutcome,
    Participants,
    Points,
    PoolDie,
    PoolName,
    PoolSizes,
    SkillKind,
    SkillName,
    Sr3Skill,
    Sr3Stats,
    Stats,
    TestKind,
    TestNo,
    WoundModifier,
)
from poolhall.events.sr3_views import (
    VIEWS,
    CombatantView,
    PoolLeft,
    SheetKarma,
    SheetPool,
    SheetSkill,
    SheetWounds,
    Sr3CombatTurn,
    Sr3OddsRow,
    Sr3Sheet,
    Sr3Sheets,
    Sr3TestOdds,
)

__all__ = [
    "VOCABULARY",
    "VIEWS", "Sr3OddsRow", "Sr3TestOdds", "PoolLeft", "CombatantView", "Sr3CombatTurn", "SheetPool",
    "SheetKarma", "SheetSkill", "SheetWounds", "Sr3Sheet", "Sr3Sheets",
    "SYSTEM_ID", "ATTRIBUTES", "POOLS", "TEST_KINDS", "SKILL_KINDS", "MAX_CHAIN", "MAX_TN",
    "MAX_TEST_DICE", "PARSED_COMMAND_ID", "AttributeName", "PoolName", "TestKind", "SkillKind",
    "DieSource",
    "Sr3Skill", "Sr3Stats", "Stats", "PoolDie", "InitiativeRoll", "Incapacity", "NotActing",
    "WoundModifier", "OpposedOutcome", "CombatEncounterStarted", "CombatTurnStarted",
    "InitiativeScoresRolled", "CombatPassAdvanced", "CombatTurnEnded", "CombatEncounterEnded",
    "PoolTestDeclared", "PoolTestRolled", "MAX_REROLLS", "PoolTestRerolled", "SceneEnded",
    "StartCombat", "AdvanceCombatPass", "EndCombat", "DeclarePoolTest", "RollPoolTest",
    "RerollWithKarma", "EndScene", "EVENTS", "COMMANDS", "die_total", "parse_roll",
]


# ---- events -------------------------------------------------------------------------------


class CombatEncounterStarted(Event, frozen=True, kw_only=True):
    """The GM started a combat with these characters."""

    participants: Participants


class CombatTurnStarted(Event, frozen=True, kw_only=True):
    """A Combat Turn began: every participant's pools stand full at these sizes."""

    turn: Annotated[int, Meta(ge=1)]
    pools: dict[Slug, PoolSizes]


class InitiativeScoresRolled(Event, frozen=True, kw_only=True):
    """Initiative rolled for all who can act; ``order`` acts in the first pass. ``out`` (none in
    older logs): who does not act this turn and why (a full monitor): no dice, no score."""

    turn: Annotated[int, Meta(ge=1)]
    rolls: Annotated[tuple[InitiativeRoll, ...], Meta(max_length=50)]
    order: Participants
    out: NotActing = {}
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""


class CombatPassAdvanced(Event, frozen=True, kw_only=True):
    """Every initiative score dropped by 10; ``order`` acts in this pass. ``out`` (none in older
    logs): who has a full Stun or Physical monitor now, out of ``order`` whatever their score."""

    turn: Annotated[int, Meta(ge=1)]
    pass_number: Annotated[int, Meta(ge=2, le=20)]
    scores: dict[Slug, Annotated[int, Meta(ge=-200, le=100)]]
    order: Participants
    out: NotActing = {}


class CombatTurnEnded(Event, frozen=True, kw_only=True):
    """The Combat Turn ended; unused pool dice are gone."""

    turn: Annotated[int, Meta(ge=1)]


class CombatEncounterEnded(Event, frozen=True, kw_only=True):
    """The GM ended the combat after this many Combat Turns."""

    turns: Annotated[int, Meta(ge=0)]


class _TestFields(msgspec.Struct, frozen=True, kw_only=True):
    """What a test is: whose, which kind, the base dice and the situation."""

    character: Slug
    kind: TestKind = "other"
    skill: SkillName | None = None
    attribute: AttributeName | None = None
    tn: TN | None = None
    opposes: TestNo | None = None
    surprised: bool = False
    rigged: bool = False
    astral: bool = False
    magic: bool = False
    elemental: bool = False
    reason: Reason = ""


class PoolTestDeclared(_TestFields, Event, frozen=True, kw_only=True):
    """A player announced a test; the table sees the odds for each number of pool dice.

    ``limits`` holds the pools the test may draw on now, with the most dice from each;
    ``spent`` the pools that would help it but have no die left this Combat Turn (so a page
    says "spent for this turn", not that no pool may help). Declarations recorded before
    ``spent`` read as none spent. ``wounds`` is the wound modifier the character's target
    numbers had when it was declared ("tn 4 + 3 for wounds"; ``tn`` is before it, as typed);
    declarations recorded before it read as unwounded.
    """

    base_dice: DiceCount
    limits: PoolSizes
    spent: Annotated[tuple[PoolName, ...], Meta(max_length=len(POOLS))] = ()
    wounds: WoundModifier = 0


class PoolTestRolled(_TestFields, Event, frozen=True, kw_only=True):
    """A test was rolled: every die with its source and chain of faces, and the result.

    ``successes`` is None for an open test, whose result is ``highest``. ``disastrous`` is the
    Rule of One. ``pools_left`` is set in combat; ``karma_spent`` bought the karma dice.
    """

    test: TestNo
    base_dice: DiceCount
    dice: Annotated[tuple[PoolDie, ...], Meta(min_length=1, max_length=MAX_TEST_DICE)]
    successes: DiceCount | None
    highest: Annotated[int, Meta(ge=1, le=6 * MAX_CHAIN)]
    disastrous: bool
    pools_left: PoolSizes | None = None
    karma_spent: Points = 0
    karma_left: Points = 0
    outcome: OpposedOutcome | None = None
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed (:mod:`poolhall.projections.privacy`)."""
    leaves_declared: bool = False
    """A private roll of another test than the character's declared one (the GM's secret
    Perception for a ganger whose shot waits): the declaration stays. Any other roll withdraws
    the character's declared test, as every roll logged before this field did."""


class PoolTestRerolled(Event, frozen=True, kw_only=True):
    """Karma Pool rerolled dice of a test (its failures; every die of an open test)."""

    test: TestNo
    character: Slug
    reroll: Annotated[int, Meta(ge=1, le=MAX_REROLLS)]
    cost: Points
    karma_left: Points
    indices: Annotated[tuple[DiceCount, ...], Meta(min_length=1, max_length=MAX_TEST_DICE)]
    faces: Annotated[tuple[Chain, ...], Meta(min_length=1, max_length=MAX_TEST_DICE)]
    successes: DiceCount | None
    highest: Annotated[int, Meta(ge=1, le=6 * MAX_CHAIN)]
    disastrous: bool
    outcome: OpposedOutcome | None = None
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""


class SceneEnded(Event, frozen=True, kw_only=True):
    """The GM ended the scene: spent Karma Pool points came back."""

    refreshed: dict[Slug, Points]


EVENTS: tuple[type[Event], ...] = (
    CombatEncounterStarted, CombatTurnStarted, InitiativeScoresRolled, CombatPassAdvanced,
    CombatTurnEnded, CombatEncounterEnded, PoolTestDeclared, PoolTestRolled, PoolTestRerolled,
    SceneEnded,
)


# ---- commands -----------------------------------------------------------------------------


class StartCombat(Command, frozen=True, kw_only=True):
    """Start a combat (GM): pools full, initiative rolled; default every character."""

    participants: Participants = ()


class AdvanceCombatPass(Command, frozen=True, kw_only=True):
    """Next Combat Phase pass (GM); when no one is left above 0, the next Combat Turn."""


class EndCombat(Command, frozen=True, kw_only=True):
    """End the combat (GM)."""


class _TestCommand(Command, frozen=True, kw_only=True):
    """What a test is, on a command: :class:`_TestFields` plus ``dice`` (base dice when no skill or
    attribute gives them) and ``open`` (an open test: no TN). msgspec lets only one base of a
    Struct hold fields, hence the repetition.
    """

    character: Slug
    kind: TestKind = "other"
    skill: SkillName | None = None
    attribute: AttributeName | None = None
    tn: TN | None = None
    opposes: TestNo | None = None
    surprised: bool = False
    rigged: bool = False
    astral: bool = False
    magic: bool = False
    elemental: bool = False
    reason: Reason = ""
    dice: DiceCount | None = None
    open: bool = False


class DeclarePoolTest(_TestCommand, frozen=True, kw_only=True):
    """Announce a test before committing pool dice; the table sees the odds."""


class RollPoolTest(_TestCommand, frozen=True, kw_only=True):
    """Roll a test: ``dice`` base dice when no skill or attribute; ``tn`` or ``open``."""

    pools: Draws = {}
    karma_dice: Annotated[int, Meta(ge=0, le=20)] = 0
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed: ``public``, ``gm``, ``blind``,
    ``self`` (:mod:`poolhall.projections.privacy`)."""


class RerollWithKarma(Command, frozen=True, kw_only=True):
    """Spend Karma Pool to reroll a test of ``character`` (1 point, then 2, then 3 ...)."""

    test: TestNo
    character: Slug


class EndScene(Command, frozen=True, kw_only=True):
    """End the scene (GM): spent Karma Pool points come back."""


COMMANDS: tuple[type[Command], ...] = (
    StartCombat, AdvanceCombatPass, EndCombat, DeclarePoolTest, RollPoolTest, RerollWithKarma,
    EndScene,
)


def die_total(faces: tuple[int, ...]) -> int:
    """The value of a die: the sum of its chain of faces."""
    return sum(faces)


# ---- notation -----------------------------------------------------------------------------

_POOL_WORDS: dict[str, str] = {
    "cp": "combat", "ctl": "control", "hp": "hacking", "sp": "spell", "acp": "astral_combat",
    "tp": "task", "ap": "astral", **{pool: pool for pool in POOLS}, "astral-combat":
    "astral_combat",
}
_FLAGS = ("surprised", "rigged", "astral", "magic", "elemental")
_TOKEN = re.compile(r"\+\s*\d+\s*[a-z_-]+|#?[a-z0-9_-]+|\S")
_BASE = re.compile(r"^(\d+)d6$")
_TN = re.compile(r"^tn(\d*)$")
_DRAW = re.compile(r"^\+\s*(\d+)\s*([a-z_-]+)$")


def parse_roll(text: str, character: str | None = None) -> Command | None:
    """``"6d6 tn5"``, ``"4d6 open"``, ``"pistols tn4 +3cp combat"`` as a :class:`RollPoolTest`.

    None when the text does not start like this notation (``NdX`` with X other than 6, ...);
    :class:`NotationError` when it does but a word is wrong. The command id is
    :data:`PARSED_COMMAND_ID`: the sender gives it a fresh one.
    """
    words = _TOKEN.findall(text.strip().lower())
    if len(words) < 2 or len(text) > 200:
        return None
    fields = _first_word(words[0], words[1])
    if fields is None:
        return None
    if character is None:
        raise NeedsCharacter("say whose test it is", 0)
    pools: dict[str, int] = {}
    rest = iter(words[1:])
    for word in rest:
        _read_word(word, rest, text, fields, pools)
    _check_target(fields, text)
    sent = {"id": PARSED_COMMAND_ID, "character": character, "pools": pools, **fields}
    try:
        return msgspec.convert(sent, RollPoolTest)
    except msgspec.ValidationError as error:  # in words: "Expected `int` <= 100" named no tn
        message, _, where = str(error).partition(" - at `")
        plain = plain_words(message, where.rstrip("`"), msgspec.json.encode(sent), RollPoolTest)
        raise NotationError(plain or str(error), 0) from None


def _first_word(first: str, second: str) -> dict[str, object] | None:
    """What is rolled: ``6d6`` dice, an attribute, or a skill (a skill only when a target
    number or ``open`` follows it, so that other text is not taken for this notation).
    None when the text does not start like a test."""
    if match := _BASE.match(first):
        return {"dice": int(match.group(1))}
    if first in ATTRIBUTES:
        return {"attribute": first}
    if re.fullmatch(r"[a-z][a-z0-9_-]{0,39}", first) and (_TN.match(second) or second == "open"):
        return {"skill": first}
    return None


def _read_word(word: str, rest: Iterator[str], text: str, fields: dict[str, object],
               pools: dict[str, int]) -> None:
    """One word after the first, into ``fields`` (or ``pools``); ``tn`` and ``vs`` may take
    their number from the word after them in ``rest``."""
    if match := _TN.match(word):
        number = match.group(1) or next(rest, "")
        if not number.isdigit():
            raise NotationError("tn needs a number: tn5", text.find("tn"))
        fields["tn"] = int(number)
    elif word == "open":
        fields["open"] = True
    elif match := _DRAW.match(word):
        _read_draw(int(match.group(1)), match.group(2), text, fields, pools)
    elif word == "vs":
        number = next(rest, "").lstrip("#")
        if not number.isdigit():
            raise NotationError("vs needs a test number: vs 3", text.find("vs"))
        fields["opposes"] = int(number)
    elif word in TEST_KINDS:
        fields["kind"] = word
    elif word in _FLAGS:
        fields[word] = True
    else:
        raise NotationError(f"unexpected {word!r}", max(text.lower().find(word), 0))


def _read_draw(count: int, name: str, text: str, fields: dict[str, object],
               pools: dict[str, int]) -> None:
    """``+3cp``: dice drawn from a pool (a pool named twice adds up), or ``+2karma``."""
    if name == "karma":
        fields["karma_dice"] = count
    elif name in _POOL_WORDS:
        pools[_POOL_WORDS[name]] = pools.get(_POOL_WORDS[name], 0) + count
    else:
        raise NotationError(f"no pool {name!r}; use cp ctl hp sp acp tp ap or karma",
                            text.find(name))


def _check_target(fields: dict[str, object], text: str) -> None:
    """A test has a target number or is open: exactly one of the two."""
    if "tn" not in fields and not fields.get("open"):
        raise NotationError("give a target number (tn5) or say open", len(text))
    if "tn" in fields and fields.get("open"):
        raise NotationError("a test has a target number or is open, not both", len(text))


# ---- views: in :mod:`poolhall.events.sr3_views`, re-exported here ---------------------------


VOCABULARY = SystemVocabulary(id=SYSTEM_ID, stats=Stats, events=EVENTS, commands=COMMANDS,
                              views=VIEWS, parse_roll=parse_roll)
"""This system's part of the vocabulary (see :mod:`poolhall.events.contract`)."""
