"""The post-game report as data: frozen msgspec Structs, so ``--json`` prints every figure and a
page can render the same report from JSON.

A :class:`Report` holds the campaign's figures (``campaign``) and one :class:`Section` per game
session (``sessions``; events outside any session count for the campaign only). A section holds
the luck of each player and character against the exact odds, the luckiest and unluckiest
rolls, the timeline, and the figures of each game system that was played in it. Every count
that could be compared with the odds comes as a :class:`Tally` (actual against expected).
"""

from __future__ import annotations

import msgspec

__all__ = [
    "ChainRecord",
    "CurvePoint",
    "Moment",
    "CountTest",
    "FaceTest",
    "CombatTurnPools",
    "D12Figures",
    "DestinyFlip",
    "DestinyPoint",
    "DieFaces",
    "ExtendedTest",
    "FreeFigures",
    "Luck",
    "NarrativeFigures",
    "NarrativeTally",
    "Pause",
    "Report",
    "RollRow",
    "Section",
    "Sr3Figures",
    "Sr3Tally",
    "D12Tally",
    "Tally",
    "Timeline",
]


class RollRow(msgspec.Struct, frozen=True, kw_only=True):
    """One roll as ``poolhall export --rolls`` writes it, judged against its pool's exact odds.

    ``value`` is the figure the roll is judged by (net successes, a power's Force pips of the
    roller's side, successes, the highest total, the margin, the total); ``p_at_least`` is
    P(doing at least that well with that very pool),
    ``p_at_most`` P(doing that badly or worse);
    ``percentile`` the mid-percentile P(less) + P(equal) / 2, which averages 0.5 under fair dice
    (above: luckier than the odds); ``p_success`` the chance the pool had to succeed (none for
    an open test, a free roll or Force dice).
    """

    campaign: str
    session: int | None
    seq: int
    time: str
    actor: str
    character: str | None
    system: str
    kind: str
    pool: str
    result: str
    value: int
    expected: float
    p_success: float | None
    p_at_least: float
    p_at_most: float
    percentile: float
    test: int | None = None
    """The number the table gives the test rolled (SR3's "#9" on its Latest tests), where ``seq``
    is the event's (#37): the report names a roll by both."""


class Tally(msgspec.Struct, frozen=True, kw_only=True):
    """A count against what the exact odds expected of the same pools."""

    actual: float
    expected: float


class FaceTest(msgspec.Struct, frozen=True, kw_only=True):
    """One kind of die's faces against a fair die (:mod:`poolhall.projections.analytics_faces`).

    ``die`` names the kind (``ability``, ``sr3 d6``, ``d12``, ``free d20`` ...), ``faces`` the
    count of each face from 1; ``method`` is ``exact``, ``Monte Carlo`` (``error``: its
    standard error) or ``asymptotic``; ``powered`` false when fair dice could not give a
    p-value of 0.05 at this size (the p-value is then not shown and joins no family);
    ``adjusted`` the p-value after the page's family correction (Holm)."""

    die: str
    dice: int
    faces: list[int]
    expected: float
    chi_square: float
    method: str
    p_value: float
    error: float | None
    powered: bool
    adjusted: float | None = None
    verdict: str = ""


class CountTest(msgspec.Struct, frozen=True, kw_only=True):
    """A rare result's count against its exact distribution (triumphs, despairs, Rule of
    One, 12s): two-sided exact p-value, and after the page's family correction."""

    what: str
    actual: int
    expected: float
    trials: int
    p_value: float
    powered: bool
    adjusted: float | None = None
    verdict: str = ""


class Luck(msgspec.Struct, frozen=True, kw_only=True):
    """How lucky someone's rolls were: the mean of their mid-percentiles against fair dice.

    Under fair dice the mean is 0.5 and 95% of the time within ``low``..``high``; ``z`` is how
    many standard deviations it is from 0.5 and ``p_value`` how often fair dice would be at
    least that far (two-sided, normal approximation; ``rough`` below 30 rolls).
    """

    rolls: int
    mean_percentile: float
    low: float
    high: float
    z: float
    p_value: float
    verdict: str
    rough: bool
    adjusted: float | None = None
    """The p-value after the page's family correction (Holm): the verdict is read from it."""


class NarrativeTally(msgspec.Struct, frozen=True, kw_only=True):
    """One character's (or the table's) narrative checks and pools against their odds."""

    rolls: int
    succeeded: Tally
    successes: Tally
    advantages: Tally
    triumphs: Tally
    despairs: Tally


class DestinyPoint(msgspec.Struct, frozen=True, kw_only=True):
    """The destiny pool after an event: for the chart of the pool over the session."""

    seq: int
    time: str
    light: int
    dark: int


class DestinyFlip(msgspec.Struct, frozen=True, kw_only=True):
    """A destiny point flipped: by whom, which side was spent, when, for what."""

    seq: int
    time: str
    actor: str
    side: str
    effect: str
    check: str | None


class NarrativeFigures(msgspec.Struct, frozen=True, kw_only=True):
    """Narrative checks, destiny flips and the pool over time.

    ``flips`` and ``destiny`` (the pool after each change, for its chart) are listed in a game
    session's figures; the whole campaign's count the flips by whom and leave the lists empty.
    """

    table: NarrativeTally
    characters: dict[str, NarrativeTally]
    flips: list[DestinyFlip]
    flips_by: dict[str, int]
    destiny: list[DestinyPoint]


class Sr3Tally(msgspec.Struct, frozen=True, kw_only=True):
    """One character's (or the table's) Shadowrun tests against their odds."""

    tests: int
    successes: Tally
    disasters: Tally
    """Rule of One: the rolls that came up all ones, each test's roll and each Karma reroll of
    all its dice, against ``6**-dice`` for every such roll."""
    karma_spent: int
    karma_successes: Tally
    disastrous_tests: int = 0
    """Tests that ended a disastrous failure, after their Karma rerolls (what the table's
    Latest tests show). No expectation: rerolling a disaster is the player's choice."""


class ChainRecord(msgspec.Struct, frozen=True, kw_only=True):
    """The longest Rule-of-Six chain: the sixes in a row on one die and who rolled them."""

    sixes: int
    faces: list[int]
    character: str
    seq: int
    test: int | None = None
    """The table's number of the test it was rolled in (``seq`` is the event's)."""


class CombatTurnPools(msgspec.Struct, frozen=True, kw_only=True):
    """A character's pools in one Combat Turn: dice they had, drew and left unused."""

    encounter: int
    turn: int
    character: str
    full: int
    drawn: int
    unused: int


class Sr3Figures(msgspec.Struct, frozen=True, kw_only=True):
    """Shadowrun tests, Rule of Six and Rule of One, pools per Combat Turn, Karma Pool."""

    table: Sr3Tally
    characters: dict[str, Sr3Tally]
    longest_chain: ChainRecord | None
    combat_turns: list[CombatTurnPools]


class D12Tally(msgspec.Struct, frozen=True, kw_only=True):
    """One character's (or the table's) d12 rolls against their odds."""

    rolls: int
    succeeded: Tally
    margin: Tally
    ones: Tally
    twelves: Tally


class ExtendedTest(msgspec.Struct, frozen=True, kw_only=True):
    """An extended test's length in rounds and how it ended (``open`` if it had not)."""

    test: int
    character: str | None
    rounds: int
    ended: str


class D12Figures(msgspec.Struct, frozen=True, kw_only=True):
    """d12 margins, 1s and 12s against the odds, extended tests' lengths."""

    table: D12Tally
    characters: dict[str, D12Tally]
    extended: list[ExtendedTest]


class DieFaces(msgspec.Struct, frozen=True, kw_only=True):
    """The faces of one die size in free rolls against uniform (Pearson's chi-square)."""

    sides: int
    dice: int
    faces: list[int]
    chi_square: float
    degrees: int
    p_value: float


class FreeFigures(msgspec.Struct, frozen=True, kw_only=True):
    """Free rolls (``XdN``): how many, and their faces per die size."""

    rolls: int
    dice: list[DieFaces]


class Pause(msgspec.Struct, frozen=True, kw_only=True):
    """The longest gap between two events: after which event, and how long."""

    after_seq: int
    seconds: float


class Timeline(msgspec.Struct, frozen=True, kw_only=True):
    """The pace of play: events per minute, time from opening a check to rolling it, pauses."""

    events: int
    first: str | None
    last: str | None
    minutes: float
    per_minute: list[int]
    """Events in each minute from ``first`` (the chart's data); empty for the whole campaign,
    whose minutes between game nights would be months of zeros."""
    checks_timed: int
    seconds_per_check: float | None
    longest_pause: Pause | None


class Moment(msgspec.Struct, frozen=True, kw_only=True):
    """One of the night's rarest results: the roll, and how rare - P(at least that well)
    when it was lucky, P(that badly or worse) when it was not."""

    row: RollRow
    p: float
    lucky: bool


class CurvePoint(msgspec.Struct, frozen=True, kw_only=True):
    """The table's running luck after ``rolls`` rolls: the mean percentile so far and the
    half-width of the band fair dice stay in 95% of the time at that many rolls."""

    rolls: int
    mean: float
    half: float


class Section(msgspec.Struct, frozen=True, kw_only=True):
    """The figures of one game session (``session`` None: the whole campaign)."""

    session: int | None
    title: str
    timeline: Timeline
    luck: Luck
    players: dict[str, Luck]
    characters: dict[str, Luck]
    luckiest: RollRow | None
    """The roll of the night: the smallest P(at least that well) among the rolls above their
    pool's median (P(at least) < 1/2); None if no roll was."""
    unluckiest: RollRow | None
    """The worst luck: the smallest P(that badly or worse) among the rolls below their pool's
    median (P(at most) < 1/2); None if no roll was. Never the same roll as ``luckiest``."""
    most_improbable: RollRow | None
    percentiles: list[int]
    """How many rolls fell in each tenth of the percentile scale."""
    percentiles_expected: list[float]
    """How many fair dice would put in each tenth, from the same pools' exact odds (not
    flat: the percentiles of a discrete result take only a few values)."""
    narrative: NarrativeFigures | None = None
    sr3: Sr3Figures | None = None
    d12: D12Figures | None = None
    free: FreeFigures | None = None
    faces: list[FaceTest] = []
    """Each kind of die rolled, its faces against a fair die."""
    counts: list[CountTest] = []
    """Triumphs, despairs, Rule of One, 12s against their exact distributions."""
    merged: dict[str, str] = {}
    """Player to character, where the two rows are the same rolls (the player rolled only
    for that character, and only they did): shown and tested once."""
    gms: list[str] = []
    """Members who rolled as GM: their rows and their NPCs' are kept apart from the players'."""
    rarest: list[Moment] = []
    """The rarest results of the section, rarest first (at most five)."""
    curve: list[CurvePoint] = []
    """The table's running luck through a game session (thinned to at most 100 points)."""
    npcs: list[str] = []
    """Characters only GMs rolled for."""
    family: str = ""
    """How the page's tests are corrected together, in words."""


class Report(msgspec.Struct, frozen=True, kw_only=True):
    """The post-game report of a campaign: a pure function of its log."""

    campaign: str
    name: str
    system: str
    head: int
    players: dict[str, str]
    """Member id to name, for the people in the figures."""
    characters: dict[str, str]
    """Character id to the name shown: two characters of one name are followed by their ids
    (:func:`poolhall.projections.analytics.told_apart`)."""
    campaign_figures: Section
    sessions: list[Section]
