"""The pool algebra: base pool, difficulty, add, upgrade, downgrade, remove, and their order."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from poolhall.events.narrative import DIFFICULTY_DICE, Pool
from poolhall.projections.narrative_pool import (
    Modification,
    add,
    apply,
    counts,
    dice_of,
    difficulty_dice,
    downgrade,
    effective_pool,
    remove,
    skill_dice,
    upgrade,
)


def mod(op: str, count: int = 1, side: str = "ability", kind: str | None = None, seq: int = 1,
        reason: str = "") -> Modification:
    """A modification as the projection stores it."""
    return Modification(seq=seq, actor="gm", op=op, side=side, count=count, kind=kind,
                        reason=reason)


def test_rule_higher_of_skill_and_characteristic_gives_ability_dice_lower_upgrades() -> None:
    """Rule: "The higher of the two values determines how many Ability dice are added ... Then
    the player upgrades a number of those Ability dice equal to the lower of the two values"."""
    assert skill_dice(3, 2) == (1, 2)      # Agility 3, rank 2: 1 green, 2 yellow
    assert skill_dice(2, 4) == (2, 2)      # rank above the characteristic: skill is the base
    assert skill_dice(4, 4) == (0, 4)
    for characteristic, rank in itertools.product(range(7), range(6)):
        ability, proficiency = skill_dice(characteristic, rank)
        assert ability + proficiency == max(characteristic, rank)
        assert proficiency == min(characteristic, rank)


def test_rule_unskilled_relies_solely_on_the_characteristic() -> None:
    """Rule: "If a character is unskilled ... zero is automatically the lower value, and the
    character will rely solely on the appropriate characteristic"."""
    assert skill_dice(3, 0) == (3, 0)
    assert skill_dice(0, 2) == (2, 0)      # a zero characteristic, likewise


def test_rule_difficulty_levels_add_difficulty_dice() -> None:
    """Rule (quick reference): Simple -, Easy 1, Average 2, Hard 3, Daunting 4, Formidable 5
    Difficulty dice; "an Average skill check means the player adds two Difficulty dice"."""
    levels = ["simple", "easy", "average", "hard", "daunting", "formidable"]
    assert [difficulty_dice(level) for level in levels] == [0, 1, 2, 3, 4, 5]


def test_rule_impossible_is_rolled_as_formidable() -> None:
    """Rule: Impossible - "with GM permission, spend Story Point to tackle as Formidable"."""
    assert DIFFICULTY_DICE["impossible"] == DIFFICULTY_DICE["formidable"] == 5


def test_rule_upgrade_turns_ability_into_proficiency_and_difficulty_into_challenge() -> None:
    """Rule: "When an Ability die is upgraded, it is converted into a Proficiency die. When a
    Difficulty die is upgraded, it is converted into a Challenge die"."""
    dice = dice_of(Pool(ability=2, difficulty=2))
    assert counts(upgrade(dice, "ability", 1, "x")) == Pool(proficiency=1, ability=1,
                                                             difficulty=2)
    assert counts(upgrade(dice, "difficulty", 2, "x")) == Pool(ability=2, challenge=2)


def test_rule_upgrade_overflow_adds_ability_die_then_turns_it_yellow() -> None:
    """Rule: "using one upgrade, he adds one additional Ability die to the pool. If any upgrade
    opportunities remain, he then upgrades the newly added Ability die into a Proficiency die"."""
    dice = dice_of(Pool(proficiency=1))
    assert counts(upgrade(dice, "ability", 1, "x")) == Pool(proficiency=1, ability=1)
    assert counts(upgrade(dice, "ability", 2, "x")) == Pool(proficiency=2)
    assert counts(upgrade(dice, "ability", 3, "x")) == Pool(proficiency=2, ability=1)
    assert counts(upgrade([], "difficulty", 3, "x")) == Pool(challenge=1, difficulty=1)


def test_rule_worked_example_four_upgrades_then_four_downgrades_per_side() -> None:
    """Rule (README worked example): one Ability and one Difficulty die, each side upgraded four
    times, gives Proficiency x2 + Ability / Challenge x2 + Difficulty; downgrading that four
    times per side gives Ability x3 / Difficulty x3, the extra downgrades ignored."""
    pool = Pool(ability=1, difficulty=1)
    upgrades = [mod("upgrade", 4, "ability", seq=1), mod("upgrade", 4, "difficulty", seq=2)]
    assert apply(pool, upgrades) == Pool(proficiency=2, ability=1, challenge=2, difficulty=1)
    downgrades = [mod("downgrade", 4, "ability", seq=3), mod("downgrade", 4, "difficulty", seq=4)]
    built = effective_pool(dice_of(pool), upgrades + downgrades)
    assert built.pool == Pool(ability=3, difficulty=3)
    assert len(built.ignored) == 2
    assert all("2 downgrade(s) ignored" in i for i in built.ignored)


def test_rule_extra_downgrades_are_ignored() -> None:
    """Rule: "If all the potential dice are already in their downgraded form, any further
    downgrades are ignored"."""
    dice, missed = downgrade(dice_of(Pool(proficiency=1, ability=2)), "ability", 3, "x")
    assert counts(dice) == Pool(ability=3)
    assert missed == 2
    dice, missed = downgrade(dice_of(Pool(difficulty=2)), "difficulty", 1, "x")
    assert counts(dice) == Pool(difficulty=2)
    assert missed == 1


def test_rule_extra_removals_are_ignored() -> None:
    """Rule: "If an ability would remove more dice of a type than there are in the dice pool,
    the maximum number of dice available are removed, and any additional removals are
    ignored"."""
    dice, missed = remove(dice_of(Pool(setback=2, boost=1)), "setback", 5, "x")
    assert counts(dice) == Pool(boost=1)
    assert missed == 3


def test_rule_decrease_ignores_proficiency_and_challenge() -> None:
    """Rule (quick reference): "Decrease: Remove Difficulty or Ability. If only Challenge or
    Proficiency are left, ignore additional decreases"."""
    dice, missed = remove(dice_of(Pool(proficiency=2, ability=1)), "ability", 2, "x")
    assert counts(dice) == Pool(proficiency=2)
    assert missed == 1


def test_rule_boost_and_setback_do_not_cancel() -> None:
    """Rule: "Boost dice and Setback dice do not cancel each other out ... two Boost dice and one
    Setback die, all three dice are added to the dice pool"."""
    dice = add(add([], "boost", 2, "+1 Boost: x"), "setback", 1, "+1 Setback: y")
    assert counts(dice) == Pool(boost=2, setback=1)


def test_rule_modifications_apply_in_order_add_upgrade_downgrade_remove() -> None:
    """Rule: "First, players assemble the basic pool, and then they add additional dice. Next,
    they upgrade dice. Then they downgrade dice. Finally, they remove dice"; decision: whatever
    order they arrived in."""
    pool = Pool(proficiency=1)
    arrived = [mod("remove", 1, kind="ability", seq=1), mod("downgrade", 1, seq=2),
               mod("upgrade", 1, seq=3), mod("add", 1, kind="ability", seq=4)]
    # add g (1y1g), upgrade (2y), downgrade (1y1g), remove g (1y)
    assert apply(pool, arrived) == Pool(proficiency=1)
    # in arrival order it would be: remove (nothing), downgrade (1g), upgrade (1y), add (1y1g)
    assert apply(pool, arrived) != Pool(proficiency=1, ability=1)


def test_rule_upgrades_are_applied_before_downgrades() -> None:
    """Rule: "When this occurs, all upgrades are applied first. Then, any downgrades are
    applied. This is important, since upgrading dice could potentially add more dice"."""
    arrived = [mod("downgrade", 1, "difficulty", seq=1), mod("upgrade", 2, "difficulty", seq=2)]
    # 0 dice: upgrade x2 gives 1 challenge; the downgrade then makes it a difficulty die
    assert apply(Pool(), arrived) == Pool(difficulty=1)


def test_removing_dice_is_done_after_all_upgrades() -> None:
    """Rule: "Removing dice is done after all other dice have been added and all upgrades or
    downgrades have been applied"."""
    arrived = [mod("remove", 1, "difficulty", kind="difficulty", seq=1),
               mod("upgrade", 1, "difficulty", seq=2)]
    assert apply(Pool(difficulty=2), arrived) == Pool(challenge=1)


def test_provenance_says_where_each_die_came_from() -> None:
    """Each die keeps notes: added for a reason, upgraded by whom, in order."""
    built = effective_pool(
        dice_of(Pool(ability=1), "Agility 2"),
        [mod("upgrade", 1, reason="GM destiny point", seq=2),
         mod("add", 1, kind="boost", reason="aiming", seq=1)])
    notes = {die.kind: die.notes for die in built.dice}
    assert notes["proficiency"] == ("Agility 2", "upgraded: GM destiny point")
    assert notes["boost"] == ("+1 Boost: aiming",)


_ops = st.lists(st.tuples(st.sampled_from(["add", "upgrade", "downgrade", "remove"]),
                          st.sampled_from(["ability", "difficulty", "boost", "setback"]),
                          st.integers(1, 4)), max_size=8)
_pools = st.builds(Pool, proficiency=st.integers(0, 4), ability=st.integers(0, 4),
                   difficulty=st.integers(0, 4), challenge=st.integers(0, 4),
                   boost=st.integers(0, 3), setback=st.integers(0, 3))


def _mods(ops: list[tuple[str, str, int]]) -> list[Modification]:
    out = []
    for seq, (op, kind, count) in enumerate(ops, start=1):
        side = "ability" if kind in ("ability", "boost") else "difficulty"
        keeps_kind = op in ("add", "remove")
        out.append(mod(op, count, side, kind if keeps_kind else None, seq=seq))
    return out


@given(_pools, _ops, st.randoms(use_true_random=False))
def test_property_effective_pool_ignores_arrival_order(
        pool: Pool, ops: list[tuple[str, str, int]], rnd: random.Random) -> None:
    """Whatever order the modifications arrive in, the effective pool is the same."""
    shuffled = list(ops)
    rnd.shuffle(shuffled)
    # _mods numbers them in arrival order, so the shuffled ones arrive (and are stored) anew
    assert apply(pool, _mods(shuffled)) == apply(pool, _mods(ops))


@given(_pools, st.integers(0, 12))
def test_property_upgrades_never_lose_dice_and_add_at_most_half(pool: Pool, k: int) -> None:
    """Upgrading k times grows the side's strength by exactly k steps (green 1, yellow 2)."""
    after = apply(pool, [mod("upgrade", k, "ability")]) if k else pool
    strength: Callable[[Pool], int] = lambda p: p.ability + 2 * p.proficiency  # noqa: E731
    assert strength(after) == strength(pool) + k
    assert after.proficiency + after.ability >= pool.proficiency + pool.ability
    assert (after.difficulty, after.challenge, after.boost) == (pool.difficulty, pool.challenge,
                                                                pool.boost)


@given(_pools, st.integers(0, 12))
def test_property_downgrades_keep_the_dice_count(pool: Pool, k: int) -> None:
    """Downgrading never adds nor removes a die, and stops at all-green (all-purple)."""
    after = apply(pool, [mod("downgrade", k, "difficulty")]) if k else pool
    assert after.difficulty + after.challenge == pool.difficulty + pool.challenge
    assert after.challenge == max(0, pool.challenge - k)


@given(_pools, st.sampled_from(["ability", "difficulty", "boost", "setback"]), st.integers(1, 9))
def test_property_removals_take_what_is_there(pool: Pool, kind: str, k: int) -> None:
    """Removing k dice of a kind leaves max(0, n - k) of them and touches nothing else."""
    side = "ability" if kind in ("ability", "boost") else "difficulty"
    after = apply(pool, [mod("remove", k, side, kind)])
    assert after.count(kind) == max(0, pool.count(kind) - k)
    assert after.total == pool.total - (pool.count(kind) - after.count(kind))


@given(_pools, st.integers(0, 10))
def test_property_upgrade_then_downgrade_leaves_only_greens_added(pool: Pool, k: int) -> None:
    """Upgrading k times then downgrading k times never leaves more Proficiency dice than
    before, and keeps the strength at least as high (extra downgrades are ignored)."""
    mods = [mod("upgrade", k, seq=1), mod("downgrade", k, seq=2)] if k else []
    after = apply(pool, mods)
    assert after.proficiency <= pool.proficiency
    assert after.ability + 2 * after.proficiency >= pool.ability + 2 * pool.proficiency


def test_rule_increase_adds_difficulty_or_ability_dice() -> None:
    """Rule (quick reference): "Increase: Add Difficulty or Ability"."""
    pool = Pool(proficiency=1, difficulty=1)
    mods = [mod("add", 2, "ability", "ability", seq=1),
            mod("add", 1, "difficulty", "difficulty", seq=2)]
    assert apply(pool, mods) == Pool(proficiency=1, ability=2, difficulty=2)


def test_rule_downgrade_turns_proficiency_into_ability_and_challenge_into_difficulty() -> None:
    """Rule: "When a Proficiency die is downgraded, it becomes an Ability die. When a Challenge
    die is downgraded, it becomes a Difficulty die"."""
    dice = dice_of(Pool(proficiency=2, challenge=2))
    dice, missed = downgrade(dice, "ability", 1, "x")
    dice, missed_too = downgrade(dice, "difficulty", 2, "x")
    assert counts(dice) == Pool(proficiency=1, ability=1, difficulty=2)
    assert missed == missed_too == 0
