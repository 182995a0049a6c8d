"""Events, commands and character stats of the ``narrative`` game system (Star Wars / Genesys).

A **check** is a live object the table builds together: the player opens it for a character
and skill (Ability dice from the higher of characteristic and skill rank, the lower number of
them upgraded to Proficiency), the GM sets the difficulty, either side adds, upgrades,
downgrades or removes dice and spends destiny points, and the player rolls it. Each step is its
own event, recorded when it happened; the projection always applies the modifications in the
rulebook's order (base, additions, upgrades, downgrades, removals) whatever order they came in.

Events record what the table saw: each die's kind, the **face index** that came up (1-based,
in the order of the face tables of ``shared/rules/README.md``) and its symbols, and the
cancelled result. Replay never re-rolls and never re-derives a roll from the current rules.

Notation (:func:`parse_roll`): colour letters ``y g p r b k w`` (proficiency, ability,
difficulty, challenge, boost, setback, force) with optional counts - ``"2y1g 2p1r 1b1k"``,
``"yyg vs pp"`` - or the dice by name, ``"2 proficiency 1 ability"``.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from poolhall.events.base import Command, Event, Reason, Slug, ViewData, Visibility
from poolhall.events.contract import SystemVocabulary
from poolhall.events.errors import NotationError
from poolhall.events.fair import FairStamp
from poolhall.events.narrative_encounter import ENCOUNTER_COMMANDS, ENCOUNTER_EVENTS
from poolhall.events.narrative_notation import DIE_KINDS, DIE_LETTERS, read_pool
from poolhall.events.narrative_values import (
    CHARACTERISTICS,
    DIFFICULTY_DICE,
    MAX_DESTINY,
    MAX_FREE_DICE,
    MAX_POOL_DICE,
    MAX_STEP,
    PARSED_COMMAND_ID,
    SYSTEM_ID,
    AddableKind,
    CharacteristicName,
    CharacteristicValue,
    DestinyDie,
    DestinyEffect,
    DestinySide,
    Dice,
    DieCount,
    DieKind,
    DifficultyLevel,
    NarrativeResult,
    NarrativeStats,
    Points,
    Pool,
    RolledDie,
    Side,
    Skill,
    SkillName,
    SkillRank,
    Stats,
    Step,
    Symbol,
    Tally,
    side_of,
)

__all__ = [
    "VOCABULARY",
    "VIEWS", "OddsSummary", "CheckDie", "NarrativeCheckOdds",
    "SYSTEM_ID", "PARSED_COMMAND_ID", "CHARACTERISTICS", "DIE_KINDS", "DIE_LETTERS",
    "DIFFICULTY_DICE", "MAX_POOL_DICE", "MAX_FREE_DICE", "MAX_STEP", "MAX_DESTINY",
    "CharacteristicName", "CharacteristicValue", "SkillName", "SkillRank", "DieKind",
    "Symbol", "Side", "DestinySide", "DifficultyLevel", "AddableKind", "DestinyEffect",
    "Skill", "NarrativeStats", "Stats", "Pool", "RolledDie", "NarrativeResult", "DestinyDie",
    "CheckOpened", "DifficultySet", "DiceAdded", "DiceUpgraded", "DiceDowngraded",
    "DiceRemoved", "CheckRolled", "CheckCancelled", "DestinyPoolRolled", "DestinyPoolSet",
    "DestinyFlipped", "ForceDiceRolled", "PoolRolled",
    "OpenCheck", "SetDifficulty", "AddDice", "UpgradeDice", "DowngradeDice", "RemoveDice",
    "RollCheck", "CancelCheck", "RollDestinyPool", "SetDestinyPool", "FlipDestiny",
    "RollForceDice", "RollPool",
    "EVENTS", "COMMANDS", "side_of", "parse_pool", "parse_roll",
]



# ---- events -------------------------------------------------------------------------------


class CheckOpened(Event, frozen=True, kw_only=True):
    """A check was opened for a character's skill, with the base pool it gave."""

    check: Slug
    character: Slug
    skill: SkillName
    characteristic: CharacteristicName
    characteristic_value: CharacteristicValue
    rank: SkillRank
    ability: DieCount
    proficiency: DieCount
    target: Slug | None = None
    reason: Reason = ""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed (:mod:`poolhall.projections.privacy`)."""


class DifficultySet(Event, frozen=True, kw_only=True):
    """The GM set a check's difficulty: a level, or an opponent's characteristic and skill."""

    check: Slug
    level: DifficultyLevel
    difficulty: DieCount
    challenge: DieCount = 0
    opponent: Slug | None = None
    opponent_skill: SkillName | None = None
    opponent_characteristic: CharacteristicName | None = None
    opponent_value: CharacteristicValue | None = None
    opponent_rank: SkillRank | None = None
    reason: Reason = ""


class DiceAdded(Event, frozen=True, kw_only=True):
    """Dice were added to one side of a check's pool, for a reason."""

    check: Slug
    kind: AddableKind
    count: Step
    side: Side
    reason: Reason = ""


class DiceUpgraded(Event, frozen=True, kw_only=True):
    """Dice of one side were upgraded (Ability to Proficiency, Difficulty to Challenge)."""

    check: Slug
    side: Side
    count: Step
    reason: Reason = ""


class DiceDowngraded(Event, frozen=True, kw_only=True):
    """Dice of one side were downgraded (Proficiency to Ability, Challenge to Difficulty)."""

    check: Slug
    side: Side
    count: Step
    reason: Reason = ""


class DiceRemoved(Event, frozen=True, kw_only=True):
    """Dice were removed from one side of a check's pool, for a reason."""

    check: Slug
    kind: AddableKind
    count: Step
    side: Side
    reason: Reason = ""


class CheckRolled(Event, frozen=True, kw_only=True):
    """A check was rolled: its effective pool, each die's face, the result, success or not."""

    check: Slug
    character: Slug
    pool: Pool
    dice: Dice
    result: NarrativeResult
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""


class CheckCancelled(Event, frozen=True, kw_only=True):
    """An open check was withdrawn without a roll."""

    check: Slug
    reason: Reason = ""


class DestinyPoolRolled(Event, frozen=True, kw_only=True):
    """Every player rolled a Force die for the session's destiny pool: light and dark points."""

    dice: Annotated[tuple[DestinyDie, ...], Meta(max_length=20)]
    light: Points
    dark: Points
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""
    session: Annotated[int, Meta(ge=0)] = 0
    """The game session it was rolled for (0 in logs written before it was recorded)."""


class DestinyPoolSet(Event, frozen=True, kw_only=True):
    """The GM set the destiny pool's light and dark side points."""

    light: Points
    dark: Points
    reason: Reason = ""


class DestinyFlipped(Event, frozen=True, kw_only=True):
    """A destiny point was spent and flipped to the other side (pool as it stands after)."""

    side: DestinySide
    effect: DestinyEffect
    check: Slug | None = None
    reason: Reason = ""
    light: Points
    dark: Points


class ForceDiceRolled(Event, frozen=True, kw_only=True):
    """Force dice were rolled for a power: each face, light and dark pips."""

    character: Slug
    dice: Dice
    light: Tally
    dark: Tally
    reason: Reason = ""
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""


class PoolRolled(Event, frozen=True, kw_only=True):
    """A free narrative pool (not a check) was rolled: each die's face and the result."""

    character: Slug | None = None
    pool: Pool
    dice: Dice
    result: NarrativeResult
    reason: Reason = ""
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed (:mod:`poolhall.projections.privacy`)."""


EVENTS: tuple[type[Event], ...] = (
    CheckOpened, DifficultySet, DiceAdded, DiceUpgraded, DiceDowngraded, DiceRemoved,
    CheckRolled, CheckCancelled, DestinyPoolRolled, DestinyPoolSet, DestinyFlipped,
    ForceDiceRolled, PoolRolled, *ENCOUNTER_EVENTS,
)


# ---- commands -----------------------------------------------------------------------------


class OpenCheck(Command, frozen=True, kw_only=True):
    """Open a check for a character's skill (the player of the character, or the GM).

    ``check`` is the id the table uses for it (generated when left out); ``characteristic``
    overrides the skill's linked one and is required for a skill the character lacks;
    ``target`` names the character the check is against, if any.
    """

    character: Slug
    skill: SkillName
    check: Slug | None = None
    characteristic: CharacteristicName | None = None
    target: Slug | None = None
    reason: Reason = ""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed: ``public``, ``gm``, ``blind``,
    ``self`` (:mod:`poolhall.projections.privacy`)."""


class SetDifficulty(Command, frozen=True, kw_only=True):
    """Set a check's difficulty (GM): a ``level``, or an ``opponent`` and their skill."""

    check: Slug
    level: DifficultyLevel | None = None
    opponent: Slug | None = None
    opponent_skill: SkillName | None = None
    opponent_characteristic: CharacteristicName | None = None
    reason: Reason = ""


class AddDice(Command, frozen=True, kw_only=True):
    """Add Boost, Setback, Ability or Difficulty dice to a check."""

    check: Slug
    kind: AddableKind
    count: Step = 1
    reason: Reason = ""


class UpgradeDice(Command, frozen=True, kw_only=True):
    """Upgrade dice of one side of a check."""

    check: Slug
    side: Side
    count: Step = 1
    reason: Reason = ""


class DowngradeDice(Command, frozen=True, kw_only=True):
    """Downgrade dice of one side of a check."""

    check: Slug
    side: Side
    count: Step = 1
    reason: Reason = ""


class RemoveDice(Command, frozen=True, kw_only=True):
    """Remove Boost, Setback, Ability or Difficulty dice from a check."""

    check: Slug
    kind: AddableKind
    count: Step = 1
    reason: Reason = ""


class RollCheck(Command, frozen=True, kw_only=True):
    """Roll an open check's effective pool (the player of its character, or the GM)."""

    check: Slug


class CancelCheck(Command, frozen=True, kw_only=True):
    """Withdraw an open check without rolling it."""

    check: Slug
    reason: Reason = ""


class RollDestinyPool(Command, frozen=True, kw_only=True):
    """Roll the destiny pool for the session: one Force die per player at the table (GM)."""


class SetDestinyPool(Command, frozen=True, kw_only=True):
    """Set the destiny pool's points directly (GM)."""

    light: Points
    dark: Points
    reason: Reason = ""


class FlipDestiny(Command, frozen=True, kw_only=True):
    """Spend a destiny point: players light side, the GM dark side; at most one per side per
    check. ``upgrade_*`` effects upgrade the named check's pool once."""

    side: DestinySide
    effect: DestinyEffect
    check: Slug | None = None
    reason: Reason = ""


class RollForceDice(Command, frozen=True, kw_only=True):
    """Roll Force dice for a character's power (its Force rating in dice)."""

    character: Slug
    count: Step = 1
    reason: Reason = ""


class RollPool(Command, frozen=True, kw_only=True):
    """Roll a free narrative pool, not tied to a check (``poolhall roll C "2g1p"``)."""

    pool: Pool
    character: Slug | None = None
    reason: Reason = ""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed: ``public``, ``gm``, ``blind``,
    ``self`` (:mod:`poolhall.projections.privacy`)."""


COMMANDS: tuple[type[Command], ...] = (
    OpenCheck, SetDifficulty, AddDice, UpgradeDice, DowngradeDice, RemoveDice, RollCheck,
    CancelCheck, RollDestinyPool, SetDestinyPool, FlipDestiny, RollForceDice, RollPool,
    *ENCOUNTER_COMMANDS,
)


# ---- notation (read by events.narrative_notation) -------------------------------------------


def parse_pool(text: str, limit: int = MAX_FREE_DICE) -> Pool | None:
    """Read a pool in the notation (:func:`poolhall.events.narrative_notation.read_pool`); None if
    not one.

    ``"2y1g 2p1r 1b1k"``, ``"yyg vs pp"``, ``"2 proficiency, 1 ability + 1 boost"``. Raises
    :class:`NotationError` (with the position) for text that starts like a pool but is not one,
    or holds more than ``limit`` dice.
    """
    counts = read_pool(text, limit)
    return None if counts is None else Pool(**counts)


def parse_roll(text: str, character: str | None = None) -> RollPool | None:
    """The notation as a :class:`RollPool` command for ``character``; None if not narrative.

    The command's id is :data:`PARSED_COMMAND_ID`: this module draws no random numbers, so the
    caller gives it a fresh id (``msgspec.structs.replace(command, id=...)``) before sending.
    """
    pool = parse_pool(text)
    if pool is None:
        return None
    if pool.total == 0:
        raise NotationError("the pool is empty", 0)
    return RollPool(id=PARSED_COMMAND_ID, pool=pool, character=character)


# ---- views: what the server shows the table (derived, never stored) -------------------------


class OddsSummary(msgspec.Struct, frozen=True, kw_only=True):
    """What the table sees of a pool's odds: floats for display, exact fractions as text."""

    pool: str
    dice: int
    p_success: float
    p_success_exact: str
    p_advantage: dict[int, float]
    """P(net advantage >= k) for k = 1, 2, 3."""
    p_threat: float
    """P(at least one net threat)."""
    p_triumph: float
    p_triumph_exact: str
    p_despair: float
    p_despair_exact: str
    mean_successes: float
    mean_advantages: float
    mean_triumphs: float
    mean_despairs: float
    net_successes: dict[int, float]
    net_advantages: dict[int, float]
    mean_light: float = 0.0
    mean_dark: float = 0.0


class CheckDie(msgspec.Struct, frozen=True, kw_only=True):
    """One die of a check's effective pool and where it came from, oldest note first."""

    kind: str
    notes: tuple[str, ...] = ()


class NarrativeCheckOdds(ViewData, frozen=True, kw_only=True, tag="narrative_check_odds"):
    """A check (about ``check:<id>``): its pool die by die with provenance, and its odds.

    ``odds`` is null while the check is closed, or when they were not computed (``note``
    says why); a closed check has its ``result``.
    """

    check: str
    character: str | None
    skill: str
    status: str
    difficulty: str | None
    pool: str
    counts: Pool
    dice: tuple[CheckDie, ...]
    ignored: tuple[str, ...] = ()
    destiny: tuple[str, ...] = ()
    odds: OddsSummary | None = None
    note: str = ""
    result: NarrativeResult | None = None


VIEWS: tuple[type[ViewData], ...] = (NarrativeCheckOdds,)


VOCABULARY = SystemVocabulary(id=SYSTEM_ID, stats=Stats, events=EVENTS, commands=COMMANDS,
                              views=VIEWS, parse_roll=parse_roll)
"""This system's part of the vocabulary (see :mod:`poolhall.events.contract`)."""
