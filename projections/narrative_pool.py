"""The pool algebra of the narrative dice: pure functions over a list of dice with provenance.

A pool is a list of :class:`PoolDie`, each with its kind and the notes of where it came from
("Agility 3", "upgraded: Ranged (Light) 2", "+1 Boost: aiming"). The functions never change
their arguments; they return new lists. The rules of ``shared/rules/narrative-dice-pool.md``:

- base pool: Ability dice equal to the higher of characteristic and skill rank, the lower
  number of them upgraded to Proficiency (unskilled: rank 0, so none);
- difficulty: Simple 0 to Formidable 5 Difficulty dice (Impossible: as Formidable, with a
  destiny point); opposed: Difficulty dice equal to the higher of the opponent's characteristic
  and skill, the lower number of them upgraded to Challenge;
- upgrade: Ability to Proficiency (Difficulty to Challenge); with none left, an upgrade adds an
  Ability (Difficulty) die, and the next upgrade turns it yellow (red);
- downgrade: Proficiency to Ability (Challenge to Difficulty); extra downgrades are ignored;
- remove: Ability, Difficulty, Boost or Setback dice; extra removals are ignored;
- order: base pool, additions, upgrades, downgrades, removals - **decision (live pools)**:
  whatever order the table made them in, :func:`effective_pool` applies them in that order.

This is pure math with no I/O, so it lives in ``projections`` (which the rules layer imports)
rather than in ``server.rules``: the projection of an open check needs it too.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from poolhall.events.narrative import DIE_KINDS, DIFFICULTY_DICE, Pool

__all__ = [
    "ORDER", "UPGRADES", "PoolDie", "Modification", "BuiltPool", "skill_dice",
    "difficulty_dice", "base_dice", "add", "upgrade", "downgrade", "remove", "counts",
    "dice_of", "effective_pool", "apply",
]

ORDER = ("add", "upgrade", "downgrade", "remove")
"""The rulebook's order of modifications, after the base pool."""

UPGRADES = {"ability": ("ability", "proficiency"), "difficulty": ("difficulty", "challenge")}
"""Per side: the die that is upgraded and what it becomes."""


class PoolDie(msgspec.Struct, frozen=True, kw_only=True):
    """One die of a pool and where it came from, oldest note first."""

    kind: str
    notes: tuple[str, ...] = ()

    def noted(self, kind: str, note: str) -> PoolDie:
        """This die turned into ``kind``, with one more note."""
        return PoolDie(kind=kind, notes=(*self.notes, note))


class Modification(msgspec.Struct, frozen=True, kw_only=True):
    """One modification of a check as it was recorded: who, when, what, how many, why."""

    seq: int
    actor: str
    op: str
    side: str
    count: int
    kind: str | None = None
    reason: str = ""

    def label(self) -> str:
        """Why, for provenance: the reason given, else who did it."""
        return self.reason or f"by {self.actor}"


class BuiltPool(msgspec.Struct, frozen=True, kw_only=True):
    """An effective pool: its dice with provenance, and the modifications that did nothing."""

    dice: tuple[PoolDie, ...]
    ignored: tuple[str, ...] = ()

    @property
    def pool(self) -> Pool:
        """The dice counted by kind."""
        return counts(self.dice)


def skill_dice(characteristic: int, rank: int) -> tuple[int, int]:
    """``(ability, proficiency)``: the higher value in Ability dice, the lower upgraded."""
    higher, lower = max(characteristic, rank), min(characteristic, rank)
    return higher - lower, lower


def difficulty_dice(level: str) -> int:
    """Difficulty dice of a level: Simple 0, Easy 1 ... Formidable 5 (Impossible as Formidable)."""
    return DIFFICULTY_DICE[level]


def base_dice(kind: str, count: int, note: str) -> list[PoolDie]:
    """``count`` dice of ``kind`` with one note."""
    return [PoolDie(kind=kind, notes=(note,)) for _ in range(count)]


def add(dice: Iterable[PoolDie], kind: str, count: int, note: str) -> list[PoolDie]:
    """The pool with ``count`` more dice of ``kind``."""
    return [*dice, *base_dice(kind, count, note)]


def upgrade(dice: Iterable[PoolDie], side: str, count: int, note: str) -> list[PoolDie]:
    """Upgrade ``count`` dice of a side; with none left to upgrade, add one instead.

    Each upgrade turns the first Ability (Difficulty) die into a Proficiency (Challenge) die;
    when there is none, it adds an Ability (Difficulty) die, which the next upgrade turns.
    """
    plain, better = UPGRADES[side]
    result = list(dice)
    for _ in range(count):
        for i, die in enumerate(result):
            if die.kind == plain:
                result[i] = die.noted(better, f"upgraded: {note}")
                break
        else:
            result.append(PoolDie(kind=plain, notes=(f"+1 {plain.title()}: upgrade with "
                                                     f"nothing to upgrade ({note})",)))
    return result


def downgrade(dice: Iterable[PoolDie], side: str, count: int,
              note: str) -> tuple[list[PoolDie], int]:
    """Downgrade ``count`` dice of a side (the last upgraded first); return the pool and how
    many downgrades were ignored because no Proficiency (Challenge) die was left."""
    plain, better = UPGRADES[side]
    result = list(dice)
    for done in range(count):
        for i in range(len(result) - 1, -1, -1):
            if result[i].kind == better:
                result[i] = result[i].noted(plain, f"downgraded: {note}")
                break
        else:
            return result, count - done
    return result, 0


def remove(dice: Iterable[PoolDie], kind: str, count: int,
           note: str) -> tuple[list[PoolDie], int]:
    """Remove ``count`` dice of ``kind`` (the last added first); return the pool and how many
    removals were ignored because no such die was left."""
    result = list(dice)
    for done in range(count):
        for i in range(len(result) - 1, -1, -1):
            if result[i].kind == kind:
                del result[i]
                break
        else:
            return result, count - done
    return result, 0


def counts(dice: Iterable[PoolDie]) -> Pool:
    """The dice counted by kind."""
    tally = dict.fromkeys(DIE_KINDS, 0)
    for die in dice:
        tally[die.kind] += 1
    return Pool(**tally)


def dice_of(pool: Pool, note: str = "") -> list[PoolDie]:
    """A pool of counts as dice, each with one note (none when ``note`` is empty)."""
    notes = (note,) if note else ()
    return [PoolDie(kind=kind, notes=notes) for kind in DIE_KINDS
            for _ in range(pool.count(kind))]


def effective_pool(base: Iterable[PoolDie], modifications: Iterable[Modification]) -> BuiltPool:
    """The pool the dice will be rolled as: the base, then every modification in the
    rulebook's order (additions, upgrades, downgrades, removals), each group in the order the
    modifications were recorded."""
    dice = list(base)
    ignored: list[str] = []
    ordered = sorted(modifications, key=lambda m: (ORDER.index(m.op), m.seq))
    for mod in ordered:
        label = mod.label()
        if mod.op == "add":
            assert mod.kind is not None
            dice = add(dice, mod.kind, mod.count, f"+1 {mod.kind.title()}: {label}")
        elif mod.op == "upgrade":
            dice = upgrade(dice, mod.side, mod.count, label)
        elif mod.op == "downgrade":
            dice, missed = downgrade(dice, mod.side, mod.count, label)
            if missed:
                what = UPGRADES[mod.side][1].title()
                ignored.append(f"{missed} downgrade(s) ignored, no {what} die left: {label}")
        else:
            assert mod.kind is not None
            dice, missed = remove(dice, mod.kind, mod.count, label)
            if missed:
                ignored.append(f"{missed} removal(s) ignored, no {mod.kind.title()} die left: "
                               f"{label}")
    return BuiltPool(dice=tuple(dice), ignored=tuple(ignored))


def apply(pool: Pool, modifications: Iterable[Modification]) -> Pool:
    """The counts of :func:`effective_pool` from a pool of counts."""
    return effective_pool(dice_of(pool), modifications).pool
