"""Events, commands and character stats of the ``d12`` game system: threshold pools of d12s.

A character has named stats (``CON``, ``CHA`` and whatever else the campaign uses). For a test
the GM names the stats that apply, the pool is the sum of their ratings in d12s, and the GM
sets the Difficulty Threshold (DT, 1-12) or derives it from an opponent's stat. Every die above
the DT is a success, every other die a failure; a 12 is always two successes and a 1 always two
failures. The margin of success is successes minus failures.

A **basic** test is one roll: it succeeds when the margin is positive. An **extended** test
goes on round after round: after each roll the dice that came up failures leave the pool and
the character's ``CON`` or ``CHA`` dice join it, until the GM ends it or the pool is empty.

Events record what the table saw - each face, what each die counted, the dice that left and
joined and why - so replay never re-rolls or re-derives a roll from the current rules.
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
from msgspec import Meta

from poolhall.events.base import Command, Event, Reason, Slug, Value, ViewData, Visibility
from poolhall.events.contract import SystemVocabulary
from poolhall.events.d12_dice import MAX_POOL, REFRESH_STATS, die_value
from poolhall.events.errors import NotationError
from poolhall.events.fair import FairStamp

__all__ = [
    "VOCABULARY",
    "VIEWS", "D12PoolOdds", "D12TestOdds",
    "COMMANDS",
    "DT",
    "EVENTS",
    "MAX_OPEN_TESTS",
    "MAX_POOL",
    "PARSED_COMMAND_ID",
    "REFRESH_STATS",
    "REQUIRED_STATS",
    "SYSTEM_ID",
    "CallThresholdTest",
    "D12Stats",
    "DifficultyThresholdSet",
    "EndThresholdTest",
    "Face",
    "FailedDiceRemoved",
    "InterpretThresholdResult",
    "Rating",
    "RefreshDiceAdded",
    "RollBasicTest",
    "RollThresholdTest",
    "SetDifficultyThreshold",
    "StatName",
    "StatUsed",
    "Stats",
    "Threshold",
    "ThresholdDiceRolled",
    "ThresholdResultInterpreted",
    "ThresholdTestEnded",
    "ThresholdTestStarted",
    "die_value",
    "parse_roll",
]

SYSTEM_ID = "d12"
MAX_OPEN_TESTS = 50
PARSED_COMMAND_ID = "parsed-roll"
REQUIRED_STATS = ("CON", "CHA")
MAX_SUCCESSES = 2 * MAX_POOL

StatName = Annotated[
    str,
    Meta(pattern=r"^[A-Z][A-Z0-9_]{0,11}$",
         description="a stat's name: capital letters A-Z, digits and _, starting with a "
                     "letter, at most 12 characters (CON, CHA, STR)"),
]
Rating = Annotated[int, Meta(ge=0, le=20, description="a stat's rating: d12s it brings")]
DT = Annotated[int, Meta(ge=1, le=12, description="Difficulty Threshold: faces above succeed")]
Face = Annotated[int, Meta(ge=1, le=12)]
PoolSize = Annotated[int, Meta(ge=0, le=MAX_POOL)]
DiceCount = Annotated[int, Meta(ge=1, le=MAX_POOL, description="how many d12s")]
TestNo = Annotated[int, Meta(ge=1, description="the campaign's number for a test")]
RoundNo = Annotated[int, Meta(ge=1, le=10_000)]
Tally = Annotated[int, Meta(ge=0, le=MAX_SUCCESSES)]
Margin = Annotated[int, Meta(ge=-MAX_SUCCESSES, le=MAX_SUCCESSES)]
DieValue = Annotated[int, Meta(ge=-2, le=2, description="+2 for a 12, +1 success, -1, -2 for a 1")]
Kind = Annotated[str, Meta(pattern="^(basic|extended)$")]
RefreshStat = Annotated[str, Meta(pattern="^(CON|CHA)$", description="CON or CHA")]
DtSource = Annotated[str, Meta(pattern="^(gm|opponent)$")]
EndReason = Annotated[str, Meta(pattern="^(gm|pool_empty)$")]
Note = Annotated[str, Meta(max_length=280, description="the GM's reading of the result")]
NamedStats = Annotated[tuple[StatName, ...], Meta(min_length=1, max_length=8)]


class D12Stats(Value, frozen=True, kw_only=True, gc=False, tag_field="system", tag=SYSTEM_ID):
    """A character's named stats and their ratings; CON and CHA are required.

    The names are the campaign's to choose (``STR``, ``WIT``, ``STEALTH`` ...); CON and CHA
    must be there because the extended test refreshes its pool from one of them.
    """

    ratings: Annotated[dict[StatName, Rating], Meta(max_length=30)]

    def __post_init__(self) -> None:
        missing = [name for name in REQUIRED_STATS if name not in self.ratings]
        if missing:
            raise ValueError(f"stats need {' and '.join(missing)} (ratings 0-20)")


Stats = D12Stats


class StatUsed(Value, frozen=True, kw_only=True, gc=False):
    """A stat the GM named for a test, with the rating it had when the pool was assembled."""

    stat: StatName
    rating: Rating


class Threshold(Value, frozen=True, kw_only=True, gc=False):
    """The DT of a roll and where it came from: set by the GM, or an opponent's stat rating.

    **Decision**: a DT derived from an opponent is the opponent's rating in the named stat,
    clamped into 1-12 (a rating of 0 gives DT 1, a rating above 12 gives DT 12).
    """

    dt: DT
    source: DtSource = "gm"
    opponent: Slug | None = None
    opponent_stat: StatName | None = None
    opponent_rating: Rating | None = None


# ---- events -------------------------------------------------------------------------------


class ThresholdTestStarted(Event, frozen=True, kw_only=True):
    """The GM called for a test: stats named, pool assembled from them, DT set or derived."""

    test: TestNo
    kind: Kind
    character: Slug | None = None
    stats: Annotated[tuple[StatUsed, ...], Meta(max_length=8)] = ()
    pool: DiceCount
    threshold: Threshold
    refresh: RefreshStat | None = None
    label: Reason = ""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed (:mod:`poolhall.projections.privacy`)."""


class DifficultyThresholdSet(Event, frozen=True, kw_only=True):
    """The GM set (or derived anew) the DT for the next round of an extended test."""

    test: TestNo
    threshold: Threshold


class ThresholdDiceRolled(Event, frozen=True, kw_only=True):
    """The pool was rolled: each face, what each die counted, successes, failures, margin."""

    test: TestNo
    round: RoundNo
    dt: DT
    faces: Annotated[tuple[Face, ...], Meta(min_length=1, max_length=MAX_POOL)]
    values: Annotated[tuple[DieValue, ...], Meta(min_length=1, max_length=MAX_POOL)]
    successes: Tally
    failures: Tally
    margin: Margin
    succeeded: bool
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""


class FailedDiceRemoved(Event, frozen=True, kw_only=True):
    """The dice that came up failures left the extended test's pool (``dice``: their places)."""

    test: TestNo
    round: RoundNo
    dice: Annotated[tuple[Annotated[int, Meta(ge=0, lt=MAX_POOL)], ...],
                    Meta(max_length=MAX_POOL)] = ()
    count: PoolSize
    pool: PoolSize


class RefreshDiceAdded(Event, frozen=True, kw_only=True):
    """The character's CON or CHA dice joined the extended test's pool after a round."""

    test: TestNo
    round: RoundNo
    stat: RefreshStat
    rating: Rating
    count: PoolSize
    pool: PoolSize


class ThresholdResultInterpreted(Event, frozen=True, kw_only=True):
    """The GM said what a roll's result means in the story."""

    test: TestNo
    round: RoundNo
    text: Note


class ThresholdTestEnded(Event, frozen=True, kw_only=True):
    """A test ended before or without another roll: the GM ended it, or its pool is empty."""

    test: TestNo
    why: EndReason
    rounds: Annotated[int, Meta(ge=0)]
    pool: PoolSize
    reason: Reason = ""


# ---- commands -----------------------------------------------------------------------------


class _ThresholdFields(Command, frozen=True, kw_only=True):
    """Fields that set a DT: ``dt`` directly, or ``opponent`` and ``opponent_stat``."""

    dt: DT | None = None
    opponent: Slug | None = None
    opponent_stat: StatName | None = None


class CallThresholdTest(_ThresholdFields, frozen=True, kw_only=True):
    """Call for a test (GM): name the stats, set the DT or name the opponent's stat.

    An extended test names ``refresh``: the stat (CON or CHA) whose dice join after a round.
    """

    character: Slug
    stats: NamedStats
    extended: bool = False
    refresh: RefreshStat | None = None
    label: Reason = ""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed: ``public``, ``gm``, ``blind``,
    ``self`` (:mod:`poolhall.projections.privacy`)."""


class SetDifficultyThreshold(_ThresholdFields, frozen=True, kw_only=True):
    """Set or derive the DT again before the next round of an extended test (GM)."""

    test: TestNo


class RollThresholdTest(Command, frozen=True, kw_only=True):
    """Roll the pool of an open test (the player of its character, or the GM)."""

    test: TestNo


class RollBasicTest(Command, frozen=True, kw_only=True):
    """Roll N d12s against a DT as a basic test: ``poolhall roll CAMPAIGN "5d12 dt7"``.

    The GM's starts and rolls a test at once; a player's rolls the basic test the GM
    called for their character with that pool and DT.
    """

    dice: DiceCount
    dt: DT
    character: Slug | None = None
    reason: Reason = ""
    """The GM's: what the test is for, kept as its label (``poolhall roll C "5d12 dt7" --reason
    "kick the door"``). A player's roll of a called test keeps none: the call names it."""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed: ``public``, ``gm``, ``blind``,
    ``self`` (:mod:`poolhall.projections.privacy`)."""


class InterpretThresholdResult(Command, frozen=True, kw_only=True):
    """Say what the last roll of a test means (GM)."""

    test: TestNo
    text: Note


class EndThresholdTest(Command, frozen=True, kw_only=True):
    """End an open test (GM): the combat is over, the negotiation settled."""

    test: TestNo
    reason: Reason = ""


EVENTS: tuple[type[Event], ...] = (
    ThresholdTestStarted,
    DifficultyThresholdSet,
    ThresholdDiceRolled,
    FailedDiceRemoved,
    RefreshDiceAdded,
    ThresholdResultInterpreted,
    ThresholdTestEnded,
)
COMMANDS: tuple[type[Command], ...] = (
    CallThresholdTest,
    SetDifficultyThreshold,
    RollThresholdTest,
    RollBasicTest,
    InterpretThresholdResult,
    EndThresholdTest,
)


_NOTATION = re.compile(r"(?<![a-z])dt(?![a-z])", re.IGNORECASE)
"""Text naming a DT: ``dt`` that is no part of a longer word, with or without a space before
its number or after the pool (``5d12dt7``, ``5 d 12 dt 7``)."""
_BASIC = re.compile(  # ASCII digits only, as plain dice: int() would also read '６'
    r"^\s*(?P<count>[0-9]*)\s*d\s*(?P<sides>[0-9]+)\s*dt\s*(?P<dt>[0-9]+)\s*$", re.IGNORECASE)
_OTHER_DIGIT = re.compile(r"(?![0-9])\d")


def _bounded(digits: str) -> int:
    """The number ``digits`` (0-9) write, or one past any limit when they write more than six
    digits: int() refuses a text of more than 4,300 digits with a traceback (the CLI reads any
    length; the server caps the text), and such a number is out of range whatever it is."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 6 else 10**6


def parse_roll(text: str, character: str | None = None) -> RollBasicTest | None:
    """``"5d12 dt7"`` as a :class:`RollBasicTest` for ``character``; None if not d12 notation.

    The command's id is :data:`PARSED_COMMAND_ID`: this module draws no random numbers, so the
    caller gives the command a fresh id (``msgspec.structs.replace(command, id=...)``) before
    sending it, or every such roll after the first would get the first one's answer.

    Spaces and case do not matter (``5D12 DT 7``, ``5d12dt7``). Raises :class:`NotationError`
    when the text names a DT but is not ``Nd12 dtT`` within the limits (1-100 dice, DT 1-12),
    or holds a digit other than 0-9 (as plain dice do).
    """
    if not _NOTATION.search(text):
        return None
    if other := _OTHER_DIGIT.search(text):  # the words plain dice have for '５d6'
        raise NotationError(f"unexpected {text[other.start():].strip()[:10]!r}", other.start())
    match = _BASIC.match(text)
    if match is None:
        raise NotationError('a d12 test reads "5d12 dt7": the number of d12s, then the DT')
    if match.group("sides") != "12":
        raise NotationError(f"a threshold test rolls d12s, not d{match.group('sides')}",
                            match.start("sides"))
    count = _bounded(match.group("count") or "1")
    if not 1 <= count <= MAX_POOL:
        raise NotationError(f"a pool holds 1 to {MAX_POOL} dice", match.start("count"))
    dt = _bounded(match.group("dt"))
    if not 1 <= dt <= 12:
        raise NotationError("the DT is between 1 and 12", match.start("dt"))
    return RollBasicTest(id=PARSED_COMMAND_ID, dice=count, dt=dt, character=character)


# ---- views: what the server shows the table (derived, never stored) -------------------------


class D12PoolOdds(msgspec.Struct, frozen=True, kw_only=True):
    """A pool's odds against a DT: P(success), mean margin, the margin distribution, and for
    an extended test (``add`` refresh dice) the chance the pool survives each next round."""

    dice: int
    dt: int
    success: float
    expected_margin: float
    distribution: dict[str, float]
    add: int | None = None
    survival: list[float] | None = None


class D12TestOdds(ViewData, frozen=True, kw_only=True, tag="d12_test_odds"):
    """A test (about ``test:<number>``): the margins of its latest rounds (``first_round`` is
    the number of the first of them; older ones are in the log) and, while open, the odds of
    the next round (null when not computed: ``note`` says why)."""

    test: int
    open: bool
    kind: str
    character: str | None
    margins: list[int]
    first_round: int = 1
    round: int | None = None
    odds: D12PoolOdds | None = None
    note: str = ""


VIEWS: tuple[type[ViewData], ...] = (D12TestOdds,)


VOCABULARY = SystemVocabulary(id=SYSTEM_ID, stats=Stats, events=EVENTS, commands=COMMANDS,
                              views=VIEWS, parse_roll=parse_roll)
"""This system's part of the vocabulary (see :mod:`poolhall.events.contract`)."""
