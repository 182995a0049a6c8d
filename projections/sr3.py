"""Projections of the ``sr3`` game system: the combat in progress, recent tests, Karma Pool.

The state answers what the table asks during a Shadowrun fight: which Combat Turn and pass it
is, who acts in what order, how many dice each character has left in each pool, what the last
tests rolled (with every chain of faces) and how much Karma Pool each character has spent this
scene. It is folded only from recorded facts: pool sizes come from ``CombatTurnStarted`` and
``pools_left`` of each test, never from the character's current stats.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from poolhall.events import sr3 as vocabulary
from poolhall.events.base import Recorded, Visibility
from poolhall.events.sr3 import PoolDie
from poolhall.projections.contract import Projection, TableView

__all__ = [
    "PROJECTION",
    "what_rolled",
    "RECENT_TESTS",
    "TABLE_RECENT",
    "Sr3Table",
    "Table",
    "table_of",
    "Combatant",
    "Combat",
    "TestRecord",
    "GameState",
    "initial_state",
    "evolve",
    "describe",
    "dice_text",
    "outcome_words",
    "combat_view",
    "replay_start",
]

RECENT_TESTS = 200
"""Tests kept in the state (Karma Pool rerolls and opposed tests refer to recent tests only)."""


class Combatant(msgspec.Struct, kw_only=True):
    """A character in the combat: initiative score now, and each pool full and left.

    ``wounds`` is the wound modifier taken off the initiative rolled this turn; ``out`` says
    why the character does not act (``unconscious``, ``dying``), as the last initiative roll or
    pass recorded it.
    """

    character: str
    score: int = 0
    initiative: int = 0
    faces: tuple[int, ...] = ()
    reaction: int = 0
    pools_full: dict[str, int] = msgspec.field(default_factory=dict)
    pools_left: dict[str, int] = msgspec.field(default_factory=dict)
    wounds: int = 0
    out: vocabulary.Incapacity | None = None


class Combat(msgspec.Struct, kw_only=True):
    """The combat in progress: Combat Turn, pass, the order of the pass, the combatants."""

    participants: list[str]
    turn: int = 0
    pass_number: int = 0
    order: list[str] = msgspec.field(default_factory=list)
    combatants: dict[str, Combatant] = msgspec.field(default_factory=dict)
    turn_running: bool = False


class TestRecord(msgspec.Struct, kw_only=True):
    """A test as it stands: its dice (after any Karma Pool reroll) and its result."""

    test: int
    seq: int
    character: str
    kind: str
    skill: str | None
    attribute: str | None
    tn: int | None
    base_dice: int
    dice: list[PoolDie]
    successes: int | None
    highest: int
    disastrous: bool
    karma_dice: int = 0
    rerolls: int = 0
    opposes: int | None = None
    opposed_by: list[int] = msgspec.field(default_factory=list)
    outcome: vocabulary.OpposedOutcome | None = None
    visibility: Visibility = "public"
    """Who saw the roll before its seed was revealed (``gm``, ``blind``, ``self``)."""
    epoch: int | None = None
    """The fair epoch it was rolled in: a private test is still sealed, and not rerolled with
    Karma, while this is the campaign's epoch (its seed is revealed when the epoch ends)."""
    reason: str = ""
    """Why it was rolled, as the player gave it ("shoots Ganger One"): the log had it, the
    test's card did not."""
    astral: bool = False
    magic: bool = False
    elemental: bool = False
    """The situation flags it was rolled with (on the astral plane, about magic, an elemental
    manipulation spell): a Dodge or damage resistance answering it takes them
    (:mod:`poolhall.server.rules.sr3_answers`)."""
    scene: int = 1
    """The scene it was rolled in: a test of a scene that is over is answered by none."""


class GameState(msgspec.Struct, kw_only=True):
    """The sr3 part of a campaign's state."""

    combat: Combat | None = None
    combats: int = 0
    tests: dict[int, TestRecord] = msgspec.field(default_factory=dict)
    next_test: int = 1
    declared: dict[str, vocabulary.PoolTestDeclared] = msgspec.field(default_factory=dict)
    karma_spent: dict[str, int] = msgspec.field(default_factory=dict)
    scene: int = 1


TABLE_RECENT = 20
"""Tests a snapshot keeps (of the :data:`RECENT_TESTS` the state holds)."""


class Sr3Table(msgspec.Struct, kw_only=True, tag_field="system", tag="sr3"):
    """The sr3 table as a snapshot carries it: the state, bounded (see :func:`table_of`).

    A client folds later events onto ``game`` with :func:`evolve`, exactly as the server does.
    """

    game: GameState


Table = Sr3Table
"""This system's table, as the snapshot module finds it."""


def table_of(state: GameState) -> Sr3Table:
    """The combat, declared tests, karma spent and scene as they stand, and the last
    :data:`TABLE_RECENT` tests (later tests get higher numbers, so folding later events onto
    this keeps it equal to the same cut of the full state)."""
    recent = sorted(state.tests)[-TABLE_RECENT:]
    return Sr3Table(game=GameState(
        combat=state.combat, combats=state.combats,
        tests={number: state.tests[number] for number in recent}, next_test=state.next_test,
        declared=dict(state.declared), karma_spent=dict(state.karma_spent),
        scene=state.scene))


def replay_start(state: GameState) -> GameState:
    """The sr3 table a replay starts from: the combat as it stands (its turn, pass, order,
    scores and pools, without the initiative dice's faces), the count of combats, the next
    test's number, the karma spent in the scene and the scene; no test or declared test from
    before the replay."""
    combat = None
    if state.combat is not None:
        combat = msgspec.structs.replace(state.combat, combatants={
            name: msgspec.structs.replace(combatant, faces=())
            for name, combatant in state.combat.combatants.items()})
    return GameState(combat=combat, combats=state.combats, next_test=state.next_test,
                     karma_spent=dict(state.karma_spent), scene=state.scene)


def initial_state() -> GameState:
    """The state before any of this system's events."""
    return GameState()


def _combatant(state: GameState, character: str) -> Combatant | None:
    if state.combat is None:
        return None
    return state.combat.combatants.get(character)


def _test_rolled(state: GameState, rec: Recorded, e: vocabulary.PoolTestRolled) -> None:
    state.tests[e.test] = TestRecord(
        test=e.test, seq=rec.seq, character=e.character, kind=e.kind, skill=e.skill,
        attribute=e.attribute, tn=e.tn, base_dice=e.base_dice, dice=list(e.dice),
        successes=e.successes, highest=e.highest, disastrous=e.disastrous,
        karma_dice=sum(1 for die in e.dice if die.source == "karma"), opposes=e.opposes,
        outcome=e.outcome, visibility=e.visibility,
        epoch=e.fair.epoch if e.fair is not None else None, reason=e.reason,
        astral=e.astral, magic=e.magic, elemental=e.elemental, scene=state.scene)
    state.next_test = max(state.next_test, e.test + 1)
    if e.opposes is not None and e.opposes in state.tests:
        state.tests[e.opposes].opposed_by.append(e.test)
    combatant = _combatant(state, e.character)
    if combatant is not None and e.pools_left is not None:
        combatant.pools_left.update(e.pools_left.items())
    if e.karma_spent:
        state.karma_spent[e.character] = state.karma_spent.get(e.character, 0) + e.karma_spent
    if not e.leaves_declared:  # a private roll of another test leaves the declared one
        state.declared.pop(e.character, None)
    for old in [t for t in state.tests if t <= e.test - RECENT_TESTS]:
        del state.tests[old]


def _test_rerolled(state: GameState, e: vocabulary.PoolTestRerolled) -> None:
    state.karma_spent[e.character] = state.karma_spent.get(e.character, 0) + e.cost
    record = state.tests.get(e.test)
    if record is None:
        return
    for index, faces in zip(e.indices, e.faces, strict=True):
        record.dice[index] = PoolDie(source=record.dice[index].source, faces=faces)
    record.successes, record.highest = e.successes, e.highest
    record.disastrous, record.rerolls = e.disastrous, e.reroll
    if e.outcome is not None:
        record.outcome = e.outcome


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """Fold one of this system's events."""
    e: Any = recorded.event
    match e:
        case vocabulary.CombatEncounterStarted():
            state.combat = Combat(participants=list(e.participants))
            state.combats += 1
        case vocabulary.CombatEncounterEnded():
            state.combat = None
        case vocabulary.PoolTestDeclared():
            state.declared[e.character] = e
        case vocabulary.PoolTestRolled():
            _test_rolled(state, recorded, e)
        case vocabulary.PoolTestRerolled():
            _test_rerolled(state, e)
        case vocabulary.SceneEnded():
            state.karma_spent = {}
            state.scene += 1
        case _ if state.combat is not None:
            _evolve_combat(state.combat, e)
    return state


def _evolve_combat(combat: Combat, e: Any) -> None:
    """Fold an event of the combat running: its turns, initiative and passes."""
    match e:
        case vocabulary.CombatTurnStarted():
            combat.turn, combat.pass_number, combat.turn_running = e.turn, 1, True
            for character, sizes in e.pools.items():
                combatant = combat.combatants.setdefault(character, Combatant(character=character))
                combatant.pools_full = dict(sizes.items())
                combatant.pools_left = dict(sizes.items())
        case vocabulary.InitiativeScoresRolled():
            _initiative_rolled(combat, e)
        case vocabulary.CombatPassAdvanced():
            combat.pass_number = e.pass_number
            for character, score in e.scores.items():
                if character in combat.combatants:
                    combat.combatants[character].score = score
            for character, combatant in combat.combatants.items():
                combatant.out = e.out.get(character)
            combat.order = list(e.order)
        case vocabulary.CombatTurnEnded():
            combat.turn_running = False
            combat.order = []


def _initiative_rolled(combat: Combat, e: vocabulary.InitiativeScoresRolled) -> None:
    """Each roll's score, dice and wound modifier; a character who does not act this turn has
    no score and no dice (not last turn's), only the reason."""
    for roll in e.rolls:
        combatant = combat.combatants.setdefault(roll.character,
                                                 Combatant(character=roll.character))
        combatant.score = combatant.initiative = roll.score
        combatant.faces, combatant.reaction = roll.faces, roll.reaction
        combatant.wounds, combatant.out = roll.wounds, None
    for character, why in e.out.items():
        combatant = combat.combatants.setdefault(character, Combatant(character=character))
        combatant.score = combatant.initiative = combatant.wounds = 0
        combatant.faces, combatant.out = (), why
    combat.order = list(e.order)


# ---- words and views ----------------------------------------------------------------------

_SHORT = {"base": "", "combat": "cp ", "control": "ctl ", "hacking": "hp ", "spell": "sp ",
          "astral_combat": "acp ", "task": "tp ", "astral": "ap ", "karma": "karma "}


def dice_text(dice: list[PoolDie] | tuple[PoolDie, ...]) -> str:
    """``5 6+2 1 | cp 4 3 | karma 6+6+1``: each die's chain, grouped by where it came from.

    No square brackets: terminals that render markup (rich) would take ``[cp 4 3]`` for a tag.
    """
    groups: dict[str, list[str]] = {}
    for die in dice:
        groups.setdefault(die.source, []).append("+".join(str(f) for f in die.faces))
    return " | ".join(_SHORT[source] + " ".join(values) for source, values in groups.items())


def what_rolled(test: Any) -> str:
    """What a test (an event or a :class:`TestRecord`) rolls, by name: its skill, else its
    attribute; a Dodge, which has neither, the pool it rolls (the Astral Combat Pool on the
    astral plane); else plain "dice"."""
    if test.skill or test.attribute:
        return str(test.skill or test.attribute)
    if test.kind == "dodge":
        return "Astral Combat Pool" if test.astral else "Combat Pool"
    return "dice"


def _what(e: Any) -> str:
    """``pistols (combat)``, ``Astral Combat Pool (dodge, astral)`` (:func:`what_rolled`)."""
    name = what_rolled(e)
    flags = [flag for flag in ("surprised", "rigged", "astral", "elemental") if getattr(e, flag)]
    return f"{name} ({e.kind.replace('_', ' ')}{', ' + ', '.join(flags) if flags else ''})"


def _result(e: Any) -> str:
    if e.successes is None:
        text = f"highest {e.highest}"
    else:
        text = f"{e.successes} success{'es' if e.successes != 1 else ''}"
    if e.disastrous:
        text += ", all ones: disastrous failure"
    if e.outcome is not None:
        text += "; " + outcome_words(e.outcome, getattr(e, "kind", ""))
    return text


def outcome_words(o: vocabulary.OpposedOutcome, kind: str) -> str:
    """How an opposed test came out: a Dodge's miss or hit, else the net successes.

    A Dodge compares the attack's successes with its Combat Pool dice alone: when Karma dice
    added successes, the line says both counts. ``kind`` is the test's ("" for a Karma reroll,
    whose event has none: a Dodge's outcome says it is one by its ``pool_successes``)."""
    dodge = kind == "dodge" or o.pool_successes is not None
    alone = "" if o.pool_successes is None or o.pool_successes == o.ours else \
        f" with Combat Pool dice alone ({o.ours} with all dice)"
    ours = o.ours if o.pool_successes is None else o.pool_successes
    if o.missed:
        return f"test #{o.test} is a complete miss" + (
            f", {o.theirs} to {ours}{alone}" if alone else "")
    if dodge:
        return f"test #{o.test} still hits, {o.theirs} to {ours}{alone}"
    return f"net {o.net:+d} against test #{o.test}"


def describe(recorded: Recorded, campaign: TableView) -> str:
    """One line for people."""
    e: Any = recorded.event
    return _combat_words(e) or _test_words(e) or type(e).__name__


def _combat_words(e: Any) -> str | None:
    """A combat's start and end, its turns, initiative and passes."""
    match e:
        case vocabulary.CombatEncounterStarted():
            return "combat started: " + ", ".join(e.participants)
        case vocabulary.CombatTurnStarted():
            pools = "; ".join(
                f"{who} " + " ".join(f"{p} {n}" for p, n in sizes.items() if n)
                for who, sizes in e.pools.items())
            return f"Combat Turn {e.turn} begins, pools full: {pools}"
        case vocabulary.InitiativeScoresRolled():
            rolls = ", ".join(map(_initiative_words, e.rolls)) or "no one rolls"
            return (f"initiative for turn {e.turn}: {rolls}; order: "
                    f"{', '.join(e.order) or 'no one'}{_out_words(e.out)}")
        case vocabulary.CombatPassAdvanced():
            return (f"Combat Phase pass {e.pass_number} of turn {e.turn}: "
                    + (", ".join(e.order) or "no one") + _out_words(e.out))
        case vocabulary.CombatTurnEnded():
            return f"Combat Turn {e.turn} ended; unused pool dice are gone"
        case vocabulary.CombatEncounterEnded():
            return f"combat ended after {e.turns} Combat Turn{'s' if e.turns != 1 else ''}"
    return None


def _initiative_words(roll: vocabulary.InitiativeRoll) -> str:
    """``sam 10 (5 + 4+4 - 3 for wounds)``: the score and how it was made, the wound modifier
    named when one was taken off (so a score held at 0 by the floor still shows why)."""
    wounds = f" - {roll.wounds} for wounds" if roll.wounds else ""
    return (f"{roll.character} {roll.score} ({roll.reaction} + "
            f"{'+'.join(map(str, roll.faces))}{wounds})")


def _out_words(out: Mapping[str, str]) -> str:
    """``; not acting: rook (unconscious), mara (dying)``; nothing when everyone may act."""
    if not out:
        return ""
    return "; not acting: " + ", ".join(f"{who} ({why})" for who, why in out.items())


def _test_words(e: Any) -> str | None:
    """A test declared, rolled or rerolled, and the Karma Pool a scene's end refreshes."""
    match e:
        case vocabulary.PoolTestDeclared():
            wounded = f" + {e.wounds} for wounds" if e.wounds else ""
            tn = f"tn {e.tn}{wounded}" if e.tn else "open"
            dice = f"{e.base_dice} dice" if e.base_dice else "pool dice only"  # a Dodge
            spent = f"; spent this turn: {', '.join(e.spent)}" if e.spent else ""
            return (f"{e.character} declares a {_what(e)} test, {tn}, {dice}; "
                    f"may draw: " + (", ".join(f"{p} {n}" for p, n in e.limits.items())
                                     or "no pool") + spent)
        case vocabulary.PoolTestRolled():
            return _rolled_words(e)
        case vocabulary.PoolTestRerolled():
            faces = " ".join("+".join(map(str, chain)) for chain in e.faces)
            return (f"{e.character} spent {e.cost} Karma Pool to reroll {len(e.indices)} "
                    f"dice of test #{e.test}: {faces} -> {_result(e)} "
                    f"(karma pool left {e.karma_left})")
        case vocabulary.SceneEnded():
            back = ", ".join(f"{who} {n}" for who, n in e.refreshed.items() if n)
            return "scene ended; karma pool back: " + (back or "none spent")
    return None


def _rolled_words(e: vocabulary.PoolTestRolled) -> str:
    """A test rolled: its dice and result, then what is left of the pools it drew from and
    the Karma Pool it spent."""
    tn = f"tn {e.tn}" if e.tn is not None else "open"
    text = f"{e.character} test #{e.test} {_what(e)} {tn}: {dice_text(e.dice)} -> {_result(e)}"
    left = e.pools_left or {}
    drawn = [p for p in left if any(d.source == p for d in e.dice)]
    if drawn:
        text += "; left " + ", ".join(f"{p.replace('_', ' ')} pool {left[p]}" for p in drawn)
    if e.karma_spent:
        text += f"; karma pool {e.karma_spent} spent, {e.karma_left} left"
    return text


def combat_view(state: GameState) -> dict[str, Any] | None:
    """The combat-turn projection: turn, pass, order, scores (with the wound modifier taken off
    the initiative rolled, and why a character does not act), each pool full and left."""
    combat = state.combat
    if combat is None:
        return None
    return {
        "turn": combat.turn,
        "pass": combat.pass_number,
        "order": list(combat.order),
        "characters": {
            who: {"score": c.score, "initiative": c.initiative,
                  "pools": {pool: {"full": full, "left": c.pools_left.get(pool, 0)}
                            for pool, full in c.pools_full.items()},
                  "wounds": c.wounds, "out": c.out}
            for who, c in combat.combatants.items()
        },
    }


def fold_sealed(state: GameState, recorded: Recorded) -> None:
    """A test declared in front of everyone and then rolled in private is no longer waiting
    (:attr:`poolhall.projections.contract.Projection.fold_sealed`). The declaration was
    public and the sealed line says who rolled, so this tells no more than they did; without
    it the declared card, and its Roll button, stayed on every other page (the roller's too)
    until the session's end, and a player could roll the test again.

    A private roll of another test of that character (``leaves_declared``: the GM's secret
    Perception for a ganger whose shot waits) leaves the declaration, as :func:`evolve` does
    for those who see the roll: the shot was not rolled, and its card stays on every page."""
    event = recorded.event
    if isinstance(event, vocabulary.PoolTestRolled) and not event.leaves_declared:
        state.declared.pop(event.character, None)


def holding(state: GameState, character: str) -> str | None:
    """Whether ``character`` is in the combat running: it may not retire before it ends
    (:attr:`poolhall.projections.contract.Projection.holding`); its initiative, pools and
    place in the order are the combat's."""
    combat = state.combat
    if combat is not None and (character in combat.participants
                               or character in combat.combatants):
        return "is in the open combat: end it first"
    return None


def retired(state: GameState, character: str) -> None:
    """A retired character's declared test is withdrawn: it was only the odds of a test not
    rolled, which no later event refers to; and the Karma Pool it spent this scene is
    forgotten, so the scene's end gives back none to a character who is gone
    (:attr:`poolhall.projections.contract.Projection.retired`)."""
    state.declared.pop(character, None)
    state.karma_spent.pop(character, None)


PROJECTION: Projection[GameState] = Projection(
    system=vocabulary.SYSTEM_ID, state=GameState, initial_state=initial_state, evolve=evolve,
    describe=describe, table=Table, snapshot=table_of, replay_start=replay_start,
    fold_sealed=fold_sealed, holding=holding, retired=retired)
"""This system's part of the projections (see :mod:`poolhall.projections.contract`)."""
