"""The pools derived from a character, exactly as the source gives them, with their formulas."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from poolhall.projections.sr3_pools import (
    astral_combat_pool,
    astral_pool,
    character_sheet,
    combat_pool,
    control_pool,
    hacking_pool,
    karma_pool,
    pool_sizes,
    spell_pool,
    task_pool,
)
from tests.sr3.sr3_support import decker, mage, rigger, stats, street_sam

attribute = st.integers(min_value=1, max_value=30)
rating = st.integers(min_value=0, max_value=30)


def test_rule_combat_pool_is_quickness_intelligence_willpower_halved() -> None:
    """"A character's Combat Pool is equal to his Quickness, Intelligence and Willpower
    Ratings, divided by 2, rounded down."""
    line = combat_pool(stats(quickness=6, intelligence=5, willpower=4))
    assert line.size == 7  # 15 // 2
    assert line.formula == "(Quickness 6 + Intelligence 5 + Willpower 4) // 2 = 7"
    assert combat_pool(stats(quickness=6, intelligence=5, willpower=5)).size == 8


def test_rule_combat_pool_follows_augmented_attributes() -> None:
    """"Spells, powers and cyberware that affect the Quickness, Intelligence or Willpower
    Attributes will also affect the Combat Pool": the sheet's attributes are the current ones."""
    assert combat_pool(stats(quickness=4)).size == 6
    assert combat_pool(stats(quickness=8)).size == 8


def test_rule_heavy_armor_reduces_combat_pool_one_die_per_two_points() -> None:
    """"Characters wearing heavy armor reduce their Combat Pools by 1 die for every 2 points
    by which the armor's Ballistic or Impact Armor Rating exceeds the Quickness Rating"."""
    light = stats(quickness=4, intelligence=4, willpower=4, ballistic=5, impact=3)
    assert combat_pool(light).size == 6  # exceeds by 1: no whole 2 points
    heavy = stats(quickness=4, intelligence=4, willpower=4, ballistic=8, impact=3)
    line = combat_pool(heavy)
    assert line.size == 4  # exceeds by 4: -2
    assert "heavy armor (Ballistic 8 exceeds Quickness 4 by 4: 4 // 2 = 2)" in line.formula
    impact = stats(quickness=4, intelligence=4, willpower=4, ballistic=2, impact=9)
    assert combat_pool(impact).size == 4  # Impact exceeds by 5: -2
    assert "Impact 9" in combat_pool(impact).formula


@given(attribute, attribute, attribute, rating, rating)
def test_combat_pool_is_never_negative_and_armor_only_lowers_it(q: int, i: int, w: int,
                                                                 ballistic: int,
                                                                 impact: int) -> None:
    """Heavy armor only takes dice away, never below zero, and never when under Quickness."""
    bare = combat_pool(stats(quickness=q, intelligence=i, willpower=w)).size
    armored = combat_pool(stats(quickness=q, intelligence=i, willpower=w, ballistic=ballistic,
                                impact=impact)).size
    assert 0 <= armored <= bare == (q + i + w) // 2
    excess = max(ballistic, impact) - q
    assert armored == max(bare - max(excess, 0) // 2, 0)


def test_rule_control_pool_is_reaction_plus_twice_vcr() -> None:
    """"A rigger's Control Pool is equal to the character's Reaction, modified only by his or
    her vehicle control rig (VCR) cyberware": Reaction + 2 x VCR rating."""
    line = control_pool(rigger())
    assert line.size == 4 + 2 * 2
    assert line.formula == "Reaction 4 + 2 x VCR 2 = 8"


def test_rule_control_pool_ignores_other_reaction_bonuses() -> None:
    """"Reaction bonuses from other sources are of no help": wired reflexes do not count."""
    wired = stats(reaction=4, reaction_bonus=6, vcr=1)
    assert control_pool(wired).size == 6
    natural = stats(quickness=5, intelligence=3, vcr=1)  # Reaction (5 + 3) // 2 = 4
    assert control_pool(natural).size == 6


def test_rule_only_characters_with_a_vcr_have_a_control_pool() -> None:
    """"Only characters with a Vehicle Control Rig can use a Control Pool."""
    line = control_pool(stats(reaction=6))
    assert (line.available, line.size) == (False, 0)


def test_rule_hacking_pool_is_intelligence_plus_mpcp_over_three() -> None:
    """"Hacking Pool is calculated by adding the user's Intelligence Rating and cyberterminal
    MPCP, then dividing the total by 3 (round down)."""
    assert hacking_pool(stats(intelligence=6, mpcp=8, hot_asist=True)).size == 4
    assert hacking_pool(stats(intelligence=6, mpcp=9, hot_asist=True)).size == 5


def test_rule_hacking_pool_follows_modifiers_to_intelligence() -> None:
    """"Any modifiers to the user's Intelligence will affect this calculation, whether
    originating from cyberware, bioware or magic": the sheet's Intelligence is the current one
    (a cerebral booster's level included)."""
    assert hacking_pool(stats(intelligence=6, mpcp=8, hot_asist=True)).size == 4
    assert hacking_pool(stats(intelligence=7, mpcp=8, hot_asist=True,
                              cerebral_booster=1)).size == 5


def test_rule_hacking_pool_only_with_hot_asist() -> None:
    """"Hacking Pool is only available to characters using a hot ASIST interface."""
    line = hacking_pool(stats(intelligence=6, mpcp=9, hot_asist=False))
    assert (line.available, line.size) == (False, 0)


def test_rule_encephalon_math_spu_and_task_pool_add_to_hacking_pool() -> None:
    """"Both increase the user's Hacking Pool by a number of dice equal to the encephalon or
    math SPU rating. The Task Pool provided by a chipjack expert driver with a Computer
    activesoft would also be used as additional Hacking Pool dice" - all cumulative."""
    line = hacking_pool(stats(intelligence=6, mpcp=8, hot_asist=True, encephalon=1, math_spu=2,
                              task_activesoft=3))
    assert line.size == 4 + 1 + 2 + 3
    assert line.formula == ("(Intelligence 6 + MPCP 8) // 3 = 4 + encephalon 1 + math SPU 2 "
                            "+ task pool (Computer activesoft) 3 = 10")
    assert hacking_pool(decker()).size == 7


def test_rule_spell_pool_is_intelligence_willpower_magic_over_three() -> None:
    """"A character's Spell Pool is equal to Intelligence plus Willpower plus Magic Rating,
    divided by 3, rounded down."""
    assert spell_pool(mage()).size == (5 + 6 + 6) // 3
    assert not spell_pool(stats(magic=0)).available


def test_rule_astral_combat_pool_is_intelligence_willpower_charisma_halved() -> None:
    """"Astral Combat Pool is determined by adding Intelligence plus Willpower plus Charisma,
    divided by 2, and rounded down."""
    assert astral_combat_pool(mage()).size == (5 + 6 + 5) // 2
    assert not astral_combat_pool(street_sam()).available


def test_rule_astral_pool_equals_initiate_grade() -> None:
    """"The Astral Pool contains a number of dice equal to the initiate's grade."""
    assert astral_pool(mage()).size == 2
    assert astral_pool(stats(magic=6, initiate_grade=5)).size == 5
    assert not astral_pool(stats(magic=6)).available


def test_decision_task_pool_is_encephalon_plus_cerebral_booster() -> None:
    """Decision: "The Cerebral Booster's Task Pool dice function as an Encephalon's"; each
    gives its rating in Task Pool dice."""
    assert task_pool(stats(encephalon=2, cerebral_booster=1)).size == 3
    assert not task_pool(stats()).available


def test_rule_karma_pool_humans_one_per_ten_then_one_per_twenty() -> None:
    """"Humans earn Karma Pool at a rate of 1 karma pool point per 10 total karma earned until
    100 total karma points are acquired. Thereafter, they gain pool at the rate of one point
    per 20 total karma."""
    assert [karma_pool(k, False)[0] for k in (0, 9, 10, 99, 100, 119, 120, 140, 300)] == \
        [0, 0, 1, 9, 10, 10, 11, 12, 20]


def test_rule_karma_pool_metahumans_one_per_fifteen_then_one_per_thirty() -> None:
    """"Metahumans earn Karma Pool at a rate of 1 karma pool point per 15 total karma earned
    until 150 total karma points are acquired. Thereafter, they gain pool at the rate of one
    point per 30 total points."""
    assert [karma_pool(k, True)[0] for k in (0, 14, 15, 149, 150, 179, 180, 210, 450)] == \
        [0, 0, 1, 9, 10, 10, 11, 12, 20]


@given(st.integers(min_value=0, max_value=3000), st.booleans())
def test_karma_pool_matches_counting_every_point_of_karma(karma: int, metahuman: bool) -> None:
    """Walking up one karma point at a time and adding a pool point at each threshold agrees."""
    step, cap, later = (15, 150, 30) if metahuman else (10, 100, 20)
    pool = 0
    for earned in range(1, karma + 1):
        if ((earned <= cap and earned % step == 0)
                or (earned > cap and (earned - cap) % later == 0)):
            pool += 1
    assert karma_pool(karma, metahuman)[0] == pool


@given(st.integers(min_value=0, max_value=3000))
def test_humans_never_have_less_karma_pool_than_metahumans(karma: int) -> None:
    """The human rate is faster at every total."""
    assert karma_pool(karma, False)[0] >= karma_pool(karma, True)[0]


def test_character_sheet_shows_each_pool_with_its_formula() -> None:
    """The sheet lists every pool, the Karma Pool and initiative, each with how it was made."""
    sheet = character_sheet(street_sam())
    by_pool = {line.pool: line for line in sheet.pools}
    assert list(by_pool) == ["combat", "control", "hacking", "spell", "astral_combat", "task",
                             "astral"]
    assert by_pool["combat"].size == 7
    assert "Quickness 6" in by_pool["combat"].formula
    assert by_pool["control"].formula == "no vehicle control rig: no Control Pool"
    assert (sheet.karma.size, sheet.karma.formula) == (4, "human: karma 40 // 10 = 4")
    assert sheet.initiative == "Reaction 5 + 4 + 3d6"
    assert pool_sizes(mage()) == {"combat": 7, "control": 0, "hacking": 0, "spell": 5,
                                  "astral_combat": 8, "task": 0, "astral": 2}
