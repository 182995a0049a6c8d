"""Projections of the ``narrative`` game system: open checks with their effective pool and
provenance, the destiny pool, each character's history of checks, and free rolls.

A check keeps its base (from :class:`poolhall.events.narrative.CheckOpened` and
:class:`poolhall.events.narrative.DifficultySet`) and its modifications as recorded; the effective
pool is computed from them (:meth:`CheckState.effective`) in the rulebook's order, never stored,
so a modification that arrives late still lands in its place.
"""

from __future__ import annotations

from typing import Any

import msgspec

from poolhall.events import narrative as n
from poolhall.events.base import Event, Recorded
from poolhall.events.narrative_encounter import INITIATIVE_SKILLS
from poolhall.projections.contract import Projection
from poolhall.projections.narrative_encounter import (
    ENCOUNTER_TYPES,
    Encounter,
    SpendRecord,
    evolve_encounter,
    holding,
    rolled_before,
    unspent,
)
from poolhall.projections.narrative_pool import (
    BuiltPool,
    Modification,
    PoolDie,
    base_dice,
    effective_pool,
)
from poolhall.projections.narrative_words import describe, dice_text

__all__ = ["PROJECTION", "CheckState", "Difficulty", "CheckRecord", "Destiny", "DestinySpend",
           "FreeRoll", "GameState", "CLOSED_CHECKS", "CLOSED_KEPT", "LINES_KEPT", "TABLE_RECENT",
           "NarrativeTable", "Table", "initiative_waiting",
           "initial_state", "evolve", "describe", "dice_text", "replay_start", "table_of"]


class Difficulty(msgspec.Struct, kw_only=True):
    """A check's difficulty as the GM set it."""

    level: str
    difficulty: int
    challenge: int = 0
    opponent: str | None = None
    opponent_skill: str | None = None
    opponent_characteristic: str | None = None
    opponent_value: int | None = None
    opponent_rank: int | None = None
    reason: str = ""

    def dice(self) -> list[PoolDie]:
        """The difficulty side of the base pool, with where each die came from."""
        if self.level != "opposed":
            label = ("Impossible (as Formidable, with a destiny point)"
                     if self.level == "impossible" else f"{self.level.title()} difficulty")
            return base_dice("difficulty", self.difficulty, label)
        stat = f"{(self.opponent_characteristic or '').title()} {self.opponent_value}"
        skill = f"{self.opponent_skill} {self.opponent_rank}"
        value, rank = self.opponent_value or 0, self.opponent_rank or 0
        higher, lower = (stat, skill) if value >= rank else (skill, stat)
        who = self.opponent or "opponent"
        return [*base_dice("difficulty", self.difficulty, f"opposed: {who}'s {higher}"),
                *[PoolDie(kind="challenge", notes=(f"opposed: {who}'s {higher}",
                                                   f"upgraded: {who}'s {lower}"))
                  for _ in range(self.challenge)]]


class CheckState(msgspec.Struct, kw_only=True):
    """A check as the table built it: base, difficulty, modifications, destiny, result."""

    check: str
    character: str
    skill: str
    characteristic: str
    characteristic_value: int
    rank: int
    ability: int
    proficiency: int
    opened_seq: int
    opened_by: str
    target: str | None = None
    reason: str = ""
    difficulty: Difficulty | None = None
    modifications: list[Modification] = msgspec.field(default_factory=list)
    destiny: list[str] = msgspec.field(default_factory=list)
    destiny_effects: dict[str, str] = msgspec.field(default_factory=dict)
    """What each side's point in ``destiny`` was spent to do (``{"dark": "upgrade_difficulty"}``;
    one a side): the card names an upgrade once, as the upgrade it made. Empty in a snapshot
    from before it was kept, where the card says only which side spent."""
    impossible_allowed: bool = False
    status: str = "open"
    rolled_seq: int | None = None
    closed_seq: int | None = None
    """The seq of the event that rolled or cancelled it: the state keeps, and the table shows,
    the checks closed last (a check opened early, an initiative or one the GM kept open, may
    close after ten others; kept by opening order, it left the state as it was rolled)."""
    pool: n.Pool | None = None
    dice: tuple[n.RolledDie, ...] = ()
    result: n.NarrativeResult | None = None
    spends: list[SpendRecord] = msgspec.field(default_factory=list)
    left: dict[str, int] = msgspec.field(default_factory=dict)
    """What is left of each symbol spent from (:mod:`poolhall.projections.narrative_encounter`)."""

    @property
    def is_open(self) -> bool:
        """Not rolled nor cancelled yet."""
        return self.status == "open"

    def base(self) -> list[PoolDie]:
        """The base pool: the character's dice, then the difficulty's."""
        stat = f"{self.characteristic.title()} {self.characteristic_value}"
        skill = f"{self.skill} {self.rank}"
        higher, lower = ((stat, skill) if self.characteristic_value >= self.rank
                         else (skill, stat))
        dice = [PoolDie(kind="proficiency", notes=(higher, f"upgraded: {lower}"))
                for _ in range(self.proficiency)]
        dice += base_dice("ability", self.ability, higher)
        if self.difficulty is not None:
            dice += self.difficulty.dice()
        return dice

    def effective(self) -> BuiltPool:
        """The pool it will be rolled as: base, then the modifications in rulebook order."""
        return effective_pool(self.base(), self.modifications)


class CheckRecord(msgspec.Struct, kw_only=True, gc=False):
    """One line of a character's history of checks."""

    check: str
    seq: int
    skill: str
    status: str
    pool: str = ""
    result: n.NarrativeResult | None = None


class DestinySpend(msgspec.Struct, kw_only=True, gc=False):
    """A destiny point spent: who, which side, on what, why."""

    seq: int
    actor: str
    side: str
    effect: str
    check: str | None
    reason: str


class Destiny(msgspec.Struct, kw_only=True):
    """The destiny pool: light side points (the players'), dark side points (the GM's)."""

    light: int = 0
    dark: int = 0
    rolled: tuple[n.DestinyDie, ...] = ()
    spent: list[DestinySpend] = msgspec.field(default_factory=list)
    session: int = 0
    """The game session the pool was last rolled for (0: none yet)."""


class FreeRoll(msgspec.Struct, kw_only=True, gc=False):
    """A free pool or a Force power's dice, as rolled."""

    seq: int
    actor: str
    character: str | None
    pool: str
    dice: tuple[n.RolledDie, ...]
    result: n.NarrativeResult | None = None
    light: int = 0
    dark: int = 0
    reason: str = ""


class GameState(msgspec.Struct, kw_only=True):
    """The narrative part of a campaign's state."""

    checks: dict[str, CheckState] = msgspec.field(default_factory=dict)
    opened: dict[str, int] = msgspec.field(default_factory=dict)
    history: dict[str, list[CheckRecord]] = msgspec.field(default_factory=dict)
    destiny: Destiny = msgspec.field(default_factory=Destiny)
    rolls: list[FreeRoll] = msgspec.field(default_factory=list)
    encounter: Encounter | None = None
    """The encounter running now, if one is (:mod:`poolhall.projections.narrative_encounter`)."""
    encounters: int = 0
    """How many encounters have started in the campaign."""

    def open_checks(self) -> list[CheckState]:
        """The checks being built now, oldest first."""
        return [check for check in self.checks.values() if check.is_open]


def initial_state() -> GameState:
    """The state before any of this system's events."""
    return GameState()


CLOSED_KEPT = 10
"""Closed checks the state keeps in full besides the open ones (the latest closed): the table
shows :data:`CLOSED_CHECKS`; older ones are in the log. A check id chosen by a client is free
again once its check has left the state."""

LINES_KEPT = 20
"""History lines per character, destiny spends and free rolls the state keeps (the latest);
the table shows :data:`TABLE_RECENT` of each."""


def _keep_last(lines: list[Any], kept: int = LINES_KEPT) -> None:
    """Drop the oldest line once there are more than ``kept`` (one per event: the bound holds
    after every event, so the state is one function of the log however it was folded)."""
    if len(lines) > kept:
        del lines[0]


def _closed_last(state: GameState) -> list[str]:
    """The closed checks, the one closed last first (by :attr:`CheckState.closed_seq`, which
    the log gives: the order the state keeps and :func:`table_of` cuts by)."""
    closed = [key for key, check in state.checks.items() if not check.is_open]
    return sorted(closed, key=lambda key: state.checks[key].closed_seq or 0, reverse=True)


def _drop_old_closed(state: GameState) -> None:
    """Keep every open check and the :data:`CLOSED_KEPT` closed last. By closing order, not
    opening order: a check opened before ten others that closed first was dropped by the very
    roll that closed it, its result never shown and never spent."""
    for key in _closed_last(state)[CLOSED_KEPT:]:
        del state.checks[key]


def _record(state: GameState, check: CheckState) -> None:
    for record in state.history.get(check.character, []):
        if record.check == check.check:
            record.status = check.status
            record.pool = check.pool.notation() if check.pool else ""
            record.result = check.result


def _modification(op: str, rec: Recorded, event: Any) -> Modification:
    return Modification(seq=rec.seq, actor=rec.actor, op=op, side=event.side,
                        count=event.count, kind=getattr(event, "kind", None),
                        reason=event.reason)


_MODIFICATIONS = {n.DiceAdded: "add", n.DiceUpgraded: "upgrade", n.DiceDowngraded: "downgrade",
                  n.DiceRemoved: "remove"}


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """Fold one of this system's events."""
    event = recorded.event
    check = state.checks.get(getattr(event, "check", None) or "")
    match event:
        case n.CheckOpened():
            _check_opened(state, recorded, event)
        case n.DestinyPoolRolled() | n.DestinyPoolSet() | n.DestinyFlipped():
            _evolve_destiny(state, recorded, event, check)
        case n.ForceDiceRolled() | n.PoolRolled():
            _free_roll(state, recorded, event)
        case _ if type(event) in ENCOUNTER_TYPES:
            evolve_encounter(state, recorded, check)
        case _ if check is not None:
            _evolve_check(state, recorded, event, check)
    return state


def _check_opened(state: GameState, recorded: Recorded, event: n.CheckOpened) -> None:
    """A new check, and its line in its character's history."""
    state.checks[event.check] = CheckState(
        check=event.check, character=event.character, skill=event.skill,
        characteristic=event.characteristic,
        characteristic_value=event.characteristic_value, rank=event.rank,
        ability=event.ability, proficiency=event.proficiency,
        opened_seq=recorded.seq, opened_by=recorded.actor, target=event.target,
        reason=event.reason)
    if event.visibility == "public":  # a GM's secret check leaves no trace in the
        # numbering of the character's checks the table sees (projections.privacy)
        state.opened[event.character] = state.opened.get(event.character, 0) + 1
    lines = state.history.setdefault(event.character, [])
    lines.append(CheckRecord(check=event.check, seq=recorded.seq, skill=event.skill,
                             status="open"))
    _keep_last(lines)


def _evolve_check(state: GameState, recorded: Recorded, event: Event,
                  check: CheckState) -> None:
    """An event of a check there is: its difficulty, its dice changed, its roll or its end."""
    match event:
        case n.DifficultySet():
            check.difficulty = Difficulty(
                level=event.level, difficulty=event.difficulty, challenge=event.challenge,
                opponent=event.opponent, opponent_skill=event.opponent_skill,
                opponent_characteristic=event.opponent_characteristic,
                opponent_value=event.opponent_value, opponent_rank=event.opponent_rank,
                reason=event.reason)
        case n.DiceAdded() | n.DiceUpgraded() | n.DiceDowngraded() | n.DiceRemoved():
            check.modifications.append(_modification(_MODIFICATIONS[type(event)], recorded,
                                                     event))
        case n.CheckRolled():
            check.status, check.rolled_seq = "rolled", recorded.seq
            check.closed_seq = recorded.seq
            check.pool, check.dice, check.result = event.pool, event.dice, event.result
            check.left = unspent(event.result)
            _record(state, check)
            _drop_old_closed(state)
        case n.CheckCancelled():
            check.status, check.closed_seq = "cancelled", recorded.seq
            _record(state, check)
            _drop_old_closed(state)


def _evolve_destiny(state: GameState, recorded: Recorded,
                    event: n.DestinyPoolRolled | n.DestinyPoolSet | n.DestinyFlipped,
                    check: CheckState | None) -> None:
    """The destiny pool rolled, set, or a point of it spent (on a check, if it names one)."""
    state.destiny.light, state.destiny.dark = event.light, event.dark
    match event:
        case n.DestinyPoolRolled():
            state.destiny.rolled = event.dice
            state.destiny.session = event.session
        case n.DestinyFlipped():
            state.destiny.spent.append(DestinySpend(
                seq=recorded.seq, actor=recorded.actor, side=event.side, effect=event.effect,
                check=event.check, reason=event.reason))
            _keep_last(state.destiny.spent)
            if check is not None:
                check.destiny.append(event.side)
                check.destiny_effects[event.side] = event.effect
                if event.effect == "attempt_impossible":
                    check.impossible_allowed = True


def _free_roll(state: GameState, recorded: Recorded,
               event: n.ForceDiceRolled | n.PoolRolled) -> None:
    """A roll outside any check: a free pool, or a Force power's dice."""
    if isinstance(event, n.ForceDiceRolled):
        roll = FreeRoll(
            seq=recorded.seq, actor=recorded.actor, character=event.character,
            pool=n.Pool(force=len(event.dice)).notation(), dice=event.dice,
            light=event.light, dark=event.dark, reason=event.reason)
    else:
        roll = FreeRoll(
            seq=recorded.seq, actor=recorded.actor, character=event.character,
            pool=event.pool.notation(), dice=event.dice, result=event.result,
            light=event.result.light, dark=event.result.dark, reason=event.reason)
    state.rolls.append(roll)
    _keep_last(state.rolls)


# ---- the table a snapshot shows ---------------------------------------------------------

TABLE_RECENT = 10
"""History lines per character, destiny spends and free rolls a snapshot keeps: the table
shows the latest; older ones come from the log's history, a page at a time."""

CLOSED_CHECKS = 3
"""Rolled or cancelled checks a snapshot keeps in full (about 1 KB each), besides the open
ones; each character's history lists more of them in one line each."""


class NarrativeTable(msgspec.Struct, kw_only=True, tag_field="system", tag="narrative"):
    """The narrative table as a snapshot carries it: the state, bounded (see :func:`table_of`).

    A client folds later events onto ``game`` with :func:`evolve`, exactly as the server does.
    """

    game: GameState


Table = NarrativeTable
"""This system's table, as the snapshot module finds it."""


def table_of(state: GameState) -> NarrativeTable:
    """The state with its unbounded history cut to the latest entries: every open check, the
    :data:`CLOSED_CHECKS` closed last (and the initiatives waiting to be entered:
    :func:`initiative_waiting`), each character's last :data:`TABLE_RECENT` checks,
    the destiny pool with its last spends, the last free rolls. Folding later events onto it
    keeps it equal to the same cut of the full state (a closed check never changes again),
    but for an initiative entered since, which stays until the next cut."""
    kept = set(_closed_last(state)[:CLOSED_CHECKS]) | initiative_waiting(state)
    checks = {key: check for key, check in state.checks.items()
              if check.is_open or key in kept}
    destiny = Destiny(light=state.destiny.light, dark=state.destiny.dark,
                      rolled=state.destiny.rolled, spent=state.destiny.spent[-TABLE_RECENT:])
    return NarrativeTable(game=GameState(
        checks=checks, opened=dict(state.opened),
        history={who: lines[-TABLE_RECENT:] for who, lines in state.history.items()},
        destiny=destiny, rolls=state.rolls[-TABLE_RECENT:], encounter=state.encounter,
        encounters=state.encounters))


def initiative_waiting(state: GameState) -> set[str]:
    """The rolled Cool and Vigilance checks the running encounter has not entered yet, and
    rolled after it began (an earlier one is no initiative of it: :func:`rolled_before`).

    The table keeps them however many checks closed since: four characters rolling
    initiative one after another closed four checks, and the first fell out of the latest
    :data:`CLOSED_CHECKS` before anyone could enter it from the page."""
    encounter = state.encounter
    if encounter is None:
        return set()
    entered = {entry.check for entry in encounter.entries}
    return {key for key, check in state.checks.items()
            if check.status == "rolled" and check.skill in INITIATIVE_SKILLS
            and key not in entered and not rolled_before(encounter, check.rolled_seq)}


def replay_start(state: GameState) -> GameState:
    """The narrative table a replay starts from: the destiny pool's points as they stand, the
    encounter running (its round, its initiative slots and this round's claims, as an sr3
    combat's order and pools stand) and the count of encounters; no check, history line,
    destiny die, spend or free roll from before the replay.

    A fight often runs across game sessions: without its encounter, a session's replay read
    "No encounter is running" beside its own log's "round 2 begins". The slots hold each
    initiative's result (successes, advantages), not its check or dice, as the table showed
    them while the encounter ran."""
    return GameState(destiny=Destiny(light=state.destiny.light, dark=state.destiny.dark),
                     encounter=_copy(state.encounter), encounters=state.encounters)


def _copy(encounter: Encounter | None) -> Encounter | None:
    """A copy of ``encounter`` the replay's events may fold onto, leaving the original as it
    was (an entry or a claim never changes once made: only the lists grow)."""
    if encounter is None:
        return None
    return msgspec.structs.replace(encounter, entries=list(encounter.entries),
                                   claims=list(encounter.claims), slots=list(encounter.slots))


def unfinished(state: GameState, key: str) -> bool:
    """Whether the private subject ``key`` is a check still open (not rolled, not cancelled)."""
    kind, _, name = key.partition(":")
    check = state.checks.get(name) if kind == "check" else None
    return check is not None and check.is_open


PROJECTION: Projection[GameState] = Projection(
    system=n.SYSTEM_ID, state=GameState, initial_state=initial_state, evolve=evolve,
    describe=describe, table=Table, snapshot=table_of, replay_start=replay_start,
    unfinished=unfinished, holding=holding)
"""This system's part of the projections (see :mod:`poolhall.projections.contract`)."""
