"""The ``sr3`` system's views: what the server shows the table (derived, never stored).

The odds of a declared test, the Combat Turn and the character sheets, each a typed
:class:`~poolhall.events.base.ViewData` registered in the system's vocabulary
(:mod:`poolhall.events.sr3`, which re-exports them). Apart from the events and commands so that
each module keeps one job.
"""

from __future__ import annotations

import msgspec

from poolhall.events.base import ViewData
from poolhall.events.sr3_values import Incapacity

__all__ = [
    "VIEWS", "Sr3OddsRow", "Sr3TestOdds", "PoolLeft", "CombatantView", "Sr3CombatTurn", "SheetPool",
    "SheetKarma", "SheetSkill", "SheetWounds", "Sr3Sheet", "Sr3Sheets",
]


class Sr3OddsRow(msgspec.Struct, frozen=True, kw_only=True):
    """The odds of a test with ``pool_dice`` pool dice added (``dice`` in all).

    With a TN: P(at least one success), the mean, P(successes >= k) for k = 0.. (``at_least``),
    and ``beats`` when the test must beat another's successes. Open (no TN): P(highest = t).
    """

    pool_dice: int
    dice: int
    rule_of_one: float
    success: float | None = None
    mean_successes: float | None = None
    at_least: list[float] | None = None
    beats: float | None = None
    highest: dict[str, float] | None = None
    highest_above_18: float | None = None


class Sr3TestOdds(ViewData, frozen=True, kw_only=True, tag="sr3_test_odds"):
    """A declared test (about ``test:<character>``): one row of odds per pool dice committed.

    ``rows`` is null when they were not computed (``note`` says why).
    """

    character: str
    kind: str
    skill: str | None
    attribute: str | None
    tn: int | None
    base_dice: int
    limits: dict[str, int]
    beat: int | None = None
    rows: list[Sr3OddsRow] | None = None
    note: str = ""


class PoolLeft(msgspec.Struct, frozen=True, kw_only=True):
    """A pool's dice for the turn, and those left."""

    full: int
    left: int


class CombatantView(msgspec.Struct, frozen=True, kw_only=True):
    """A combatant's score, pools, wound modifier off the initiative rolled, and why not acting."""

    score: int
    initiative: int
    pools: dict[str, PoolLeft]
    wounds: int = 0
    out: Incapacity | None = None


class Sr3CombatTurn(ViewData, frozen=True, kw_only=True, tag="sr3_combat_turn"):
    """The Combat Turn (about ``combat``): turn, pass, order, each combatant's pools.

    ``in_combat`` is false (and the rest empty) once the combat has ended.
    """

    in_combat: bool = True
    turn: int = 0
    pass_number: int = msgspec.field(default=0, name="pass")
    order: tuple[str, ...] = ()
    characters: dict[str, CombatantView] = {}


class SheetPool(msgspec.Struct, frozen=True, kw_only=True):
    """One pool on a sheet: its size, whether the character has it at all, and why."""

    pool: str
    size: int
    available: bool
    formula: str


class SheetKarma(msgspec.Struct, frozen=True, kw_only=True):
    """The Karma Pool: full, spent this scene, left, and its formula."""

    full: int
    spent: int
    left: int
    formula: str


class SheetSkill(msgspec.Struct, frozen=True, kw_only=True):
    """One skill on a sheet: its id, rating and linked attribute ("pistols", 6, "quickness")."""

    skill: str
    rating: int
    attribute: str


class SheetWounds(msgspec.Struct, frozen=True, kw_only=True):
    """What the Condition Monitors do, as the rules apply them: each monitor's wound level
    (``unhurt``, ``light``, ``moderate``, ``serious``, ``deadly``), the modifier of the two
    added together (added to every target number, taken off initiative), and why the character
    does not act (``unconscious``, ``dying``), if so."""

    physical: str = "unhurt"
    stun: str = "unhurt"
    modifier: int = 0
    out: Incapacity | None = None


class Sr3Sheet(msgspec.Struct, frozen=True, kw_only=True):
    """One character's attributes and skills, pools with their formulas, Karma Pool,
    initiative.

    ``attributes`` are the ratings a player looks up, in the sheet's order (Body to Willpower,
    Essence, and Magic when the character has it); Reaction is on the initiative line.
    """

    name: str
    pools: list[SheetPool]
    karma: SheetKarma
    initiative: str
    attributes: dict[str, int | float] = {}
    skills: list[SheetSkill] = []
    wounds: SheetWounds = SheetWounds()


class Sr3Sheets(ViewData, frozen=True, kw_only=True, tag="sr3_sheets"):
    """Every sr3 character's sheet by character id (about ``sheets``)."""

    sheets: dict[str, Sr3Sheet]


VIEWS: tuple[type[ViewData], ...] = (Sr3TestOdds, Sr3CombatTurn, Sr3Sheets)
