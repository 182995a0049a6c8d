"""The dice pools of a Shadowrun 3 character, derived exactly as the source gives them.

Each pool comes with the formula that produced it, so a character sheet can show *how* the
number was reached ("(Quickness 5 + Intelligence 6 + Willpower 4) // 2 = 7"). Pure functions
of :class:`poolhall.events.sr3.Sr3Stats`; the rules (``server/rules/sr3*.py``) and the views use the
same numbers.
"""

from __future__ import annotations

import msgspec

from poolhall.events.sr3 import POOLS, Sr3Stats

__all__ = [
    "PoolLine",
    "Sheet",
    "combat_pool",
    "control_pool",
    "hacking_pool",
    "spell_pool",
    "astral_combat_pool",
    "task_pool",
    "astral_pool",
    "karma_pool",
    "pool_lines",
    "pool_sizes",
    "character_sheet",
]


class PoolLine(msgspec.Struct, frozen=True, kw_only=True):
    """One pool on the sheet: its size, whether the character has it at all, and why."""

    pool: str
    size: int
    available: bool
    formula: str


class Sheet(msgspec.Struct, frozen=True, kw_only=True):
    """What a character sheet shows of the pools, the Karma Pool and initiative."""

    pools: list[PoolLine]
    karma: PoolLine
    initiative: str


def combat_pool(stats: Sr3Stats) -> PoolLine:
    """(Quickness + Intelligence + Willpower) // 2, less 1 die per 2 points of heavy armor.

    "Characters wearing heavy armor reduce their Combat Pools by 1 die for every 2 points by
    which the armor's Ballistic or Impact Armor Rating exceeds the Quickness Rating": the larger
    of the two excesses counts, halved and rounded down.
    """
    q, i, w = stats.quickness, stats.intelligence, stats.willpower
    base = (q + i + w) // 2
    formula = f"(Quickness {q} + Intelligence {i} + Willpower {w}) // 2 = {base}"
    excess = max(stats.ballistic, stats.impact) - q
    reduction = excess // 2 if excess > 0 else 0
    if reduction:
        which = "Ballistic" if stats.ballistic >= stats.impact else "Impact"
        armor = max(stats.ballistic, stats.impact)
        formula += (f" - heavy armor ({which} {armor} exceeds Quickness {q} by {excess}: "
                    f"{excess} // 2 = {reduction})")
    size = max(base - reduction, 0)
    if reduction:
        formula += f" = {size}"
    return PoolLine(pool="combat", size=size, available=True, formula=formula)


def control_pool(stats: Sr3Stats) -> PoolLine:
    """Reaction + 2 x VCR rating, only with a vehicle control rig; no other bonus counts."""
    if stats.vcr <= 0:
        return PoolLine(pool="control", size=0, available=False,
                        formula="no vehicle control rig: no Control Pool")
    r = stats.natural_reaction
    size = r + 2 * stats.vcr
    return PoolLine(pool="control", size=size, available=True,
                    formula=f"Reaction {r} + 2 x VCR {stats.vcr} = {size}")


def hacking_pool(stats: Sr3Stats) -> PoolLine:
    """(Intelligence + MPCP) // 3 + encephalon + math SPU + task pool, only with hot ASIST."""
    if not stats.hot_asist:
        return PoolLine(pool="hacking", size=0, available=False,
                        formula="no hot ASIST interface: no Hacking Pool")
    i, mpcp = stats.intelligence, stats.mpcp
    base = (i + mpcp) // 3
    formula = f"(Intelligence {i} + MPCP {mpcp}) // 3 = {base}"
    size = base
    for label, value in (("encephalon", stats.encephalon), ("math SPU", stats.math_spu),
                         ("task pool (Computer activesoft)", stats.task_activesoft)):
        if value:
            formula += f" + {label} {value}"
            size += value
    if size != base:
        formula += f" = {size}"
    return PoolLine(pool="hacking", size=size, available=True, formula=formula)


def spell_pool(stats: Sr3Stats) -> PoolLine:
    """(Intelligence + Willpower + Magic) // 3, for the Awakened (Magic above 0).

    **Decision**: a character with Magic 0 has no Spell Pool, since it serves Sorcery tests.
    """
    if stats.magic <= 0:
        return PoolLine(pool="spell", size=0, available=False, formula="Magic 0: no Spell Pool")
    i, w, m = stats.intelligence, stats.willpower, stats.magic
    size = (i + w + m) // 3
    return PoolLine(pool="spell", size=size, available=True,
                    formula=f"(Intelligence {i} + Willpower {w} + Magic {m}) // 3 = {size}")


def astral_combat_pool(stats: Sr3Stats) -> PoolLine:
    """(Intelligence + Willpower + Charisma) // 2, for the Awakened (Magic above 0)."""
    if stats.magic <= 0:
        return PoolLine(pool="astral_combat", size=0, available=False,
                        formula="Magic 0: no Astral Combat Pool")
    i, w, c = stats.intelligence, stats.willpower, stats.charisma
    size = (i + w + c) // 2
    return PoolLine(pool="astral_combat", size=size, available=True,
                    formula=f"(Intelligence {i} + Willpower {w} + Charisma {c}) // 2 = {size}")


def task_pool(stats: Sr3Stats) -> PoolLine:
    """Encephalon rating + cerebral booster level.

    **Decision**: the source says the cerebral booster's Task Pool dice "function as an
    Encephalon's"; each gives dice equal to its rating. The expert driver's task pool goes to
    the Hacking Pool, where the source puts it.
    """
    size = stats.encephalon + stats.cerebral_booster
    if size <= 0:
        return PoolLine(pool="task", size=0, available=False,
                        formula="no encephalon or cerebral booster: no Task Pool")
    return PoolLine(pool="task", size=size, available=True,
                    formula=f"encephalon {stats.encephalon} + cerebral booster "
                            f"{stats.cerebral_booster} = {size}")


def astral_pool(stats: Sr3Stats) -> PoolLine:
    """The initiate's grade."""
    grade = stats.initiate_grade
    return PoolLine(pool="astral", size=grade, available=grade > 0,
                    formula=f"initiate grade {grade}")


def karma_pool(karma_earned: int, metahuman: bool) -> tuple[int, str]:
    """The Karma Pool by the house rules: 1 per 10 karma to 100, then 1 per 20 (humans);
    1 per 15 to 150, then 1 per 30 (metahumans). **Decision**: exactly these rates, no base.
    """
    step, cap, later = (15, 150, 30) if metahuman else (10, 100, 20)
    who = "metahuman" if metahuman else "human"
    if karma_earned <= cap:
        size = karma_earned // step
        return size, f"{who}: karma {karma_earned} // {step} = {size}"
    first = cap // step
    rest = (karma_earned - cap) // later
    size = first + rest
    return size, (f"{who}: {cap} // {step} + (karma {karma_earned} - {cap}) // {later} "
                  f"= {first} + {rest} = {size}")


def pool_lines(stats: Sr3Stats) -> list[PoolLine]:
    """Every pool of the character, in the order of the source."""
    return [combat_pool(stats), control_pool(stats), hacking_pool(stats), spell_pool(stats),
            astral_combat_pool(stats), task_pool(stats), astral_pool(stats)]


def pool_sizes(stats: Sr3Stats) -> dict[str, int]:
    """Pool name -> full size (0 for a pool the character does not have)."""
    sizes = {line.pool: line.size if line.available else 0 for line in pool_lines(stats)}
    assert tuple(sizes) == POOLS
    return sizes


def character_sheet(stats: Sr3Stats) -> Sheet:
    """The pools with how each was computed, the Karma Pool, and the initiative formula."""
    karma, karma_formula = karma_pool(stats.karma_earned, stats.metahuman)
    reaction = stats.natural_reaction
    initiative = f"Reaction {reaction}"
    if stats.reaction_bonus:
        initiative += f" + {stats.reaction_bonus}"
    initiative += f" + {stats.initiative_dice}d6"
    return Sheet(pools=pool_lines(stats),
                 karma=PoolLine(pool="karma", size=karma, available=karma > 0,
                                formula=karma_formula),
                 initiative=initiative)
