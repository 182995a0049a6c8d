"""Which pools a Shadowrun 3 test may draw on, and how many dice: every limit of the source.

:func:`pool_cap` answers for one pool and one test: refused (with the source's sentence), or
allowed up to a cap (None: no limit beyond what is left). :func:`check_draws` turns a refusal
into :class:`poolhall.events.errors.Rejected` with code ``rule``, the quoted rule, and the path of
the draw at fault (``$.pools.combat``). Decisions beyond the source are marked **decision**.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from poolhall.events.errors import Rejected
from poolhall.events.sr3 import POOLS, PoolName, Sr3Skill, Sr3Stats
from poolhall.projections.sr3_pools import pool_lines

__all__ = [
    "Situation",
    "Verdict",
    "MAGIC_KINDS",
    "MAGICAL_SKILL_KINDS",
    "SORCERY_KINDS",
    "TASK_SKILL_KINDS",
    "QUOTES",
    "pool_cap",
    "drawable",
    "spent",
    "check_draws",
]

MAGIC_KINDS = frozenset({"spell", "spell_defense", "dispelling", "drain", "spell_resistance",
                         "conjuring", "magical_skill"})
MAGICAL_SKILL_KINDS = frozenset({"spell", "spell_defense", "dispelling", "conjuring",
                                 "magical_skill"})
SORCERY_KINDS = frozenset({"spell", "spell_defense", "dispelling"})
TASK_SKILL_KINDS = frozenset({"technical", "build_repair", "knowledge", "language"})

QUOTES: dict[str, str] = {
    "combat_tests": "Players may allocate dice from the Combat Pool to any offensive or defensive"
                    " combat-related tests",
    "combat_offensive": "The maximum number of Combat Pool dice that a player can add to any "
                        "offensive test is equal to his or her character's rating in the skill "
                        "for which he is making the test.",
    "surprised": "Surprised characters may not use Combat Pool dice to defend themselves.",
    "combat_magic": "A player can only use Combat Pool dice to augment or resist magic-related "
                    "tests in the case of elemental manipulation spells.",
    "combat_astral": "Because the physical Attribute of Quickness does not exist on the astral, "
                     "the Astral Combat Pool serves Combat Tests made on the astral plane.",
    "control_vcr": "Only characters with a Vehicle Control Rig can use a Control Pool.",
    "control_tests": "The Control Pool is used by riggers to augment tests strictly relating to "
                     "controlling a rigged vehicle.",
    "control_rigged": "If a rigger is driving or piloting a vehicle that she is not currently "
                      "rigged into, she cannot use Control Pool for tests concerning that "
                      "vehicle.",
    "control_max": "The maximum number of Control Pool dice that a character can add to any "
                   "control-related test is equal to the base number of skill dice involved in "
                   "the test.",
    "hacking_asist": "Hacking Pool is only available to characters using a hot ASIST "
                     "interface.",
    "hacking_matrix": "Hacking Pool dice may be added to any test conducted in the Matrix.",
    "hacking_except": "Hacking Pool dice may be added to any test conducted in the Matrix with "
                      "the exception of Etiquette (Matrix) Tests and Body or Willpower Tests "
                      "made to resist the effects of gray or black IC that is damaging to the "
                      "decker.",
    "hacking_max": "The maximum number of Hacking Pool dice that may be used for any test is "
                   "equal to the base number of skill or attribute dice in use.",
    "spell_magician": "A magician uses dice from the Spell Pool to augment Sorcery Tests.",
    "spell_tests": "Dice from the Spell Pool can be used to augment Spell Success Tests and "
                   "Drain Resistance Tests in spellcasting, Dispelling, and for Spell Defense.",
    "spell_conjuring": "Dice from the Spell Pool cannot be used to augment Conjuring or any "
                       "other magic-related tests.",
    "spell_max": "The maximum number of Spell Pool dice that a character can add to a Sorcery "
                 "Test is equal to her base Sorcery Skill dice used in that test.",
    "astral_combat_magician": "Magicians also can use a variant of the Combat Pool called the "
                              "Astral Combat Pool.",
    "astral_combat_plane": "The Astral Combat Pool relates to Combat Tests made on the astral "
                           "plane.",
    "astral_combat_offensive": "The Astral Combat Pool is similar to the Combat Pool: no more "
                               "dice on an offensive test than the rating in the skill used.",
    "task_skills": "Task Pool works with the following Intelligence-linked skills: Technical, "
                   "Build/Repair, Knowledge and Language. You may not use it to fire a pistol "
                   "or talk to a contact.",
    "task_perception": "This Intelligence bonus does not affect Perception Tests.",
    "task_none": "The Task Pool grants extra dice when the device is activated: this character "
                 "has no encephalon or cerebral booster.",
    "astral_plane": "Astral Pool dice can be used for any test made while on the astral plane or"
                    " metaplanes, except for Magical Skill Tests.",
    "astral_none": "The Astral Pool contains a number of dice equal to the initiate's grade: "
                   "this character is not an initiate.",
    "left": "Once dice are drawn from the pool, those dice are no longer available for use until"
            " the pool refreshes at the beginning of the next Combat Turn.",
}


class Situation(msgspec.Struct, frozen=True, kw_only=True):
    """What the limits look at: the kind of test, its skill, its base dice, the flags."""

    kind: str
    skill: Sr3Skill | None = None
    base_dice: int = 0
    surprised: bool = False
    rigged: bool = False
    astral: bool = False
    magic: bool = False
    elemental: bool = False


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    """Allowed up to ``cap`` (None: unlimited), or refused by the rule quoted in ``rule``."""

    allowed: bool
    cap: int | None = None
    rule: str = ""


def _refuse(key: str) -> Verdict:
    return Verdict(allowed=False, rule=QUOTES[key])


def _cap(cap: int, key: str) -> Verdict:
    return Verdict(allowed=True, cap=cap, rule=QUOTES[key])


_FREE = Verdict(allowed=True)


def _combat(s: Situation) -> Verdict:
    if s.surprised:
        return _refuse("surprised")
    if s.astral:  # **decision**: on the astral plane only the Astral Combat Pool helps
        return _refuse("combat_astral")
    magical = s.magic or s.elemental or s.kind in MAGIC_KINDS
    if magical and not s.elemental:
        return _refuse("combat_magic")
    if s.kind in ("dodge", "damage_resistance"):
        return _FREE
    if s.kind == "combat" or (s.kind == "spell" and s.elemental):
        return _cap(s.skill.rating if s.skill else 0, "combat_offensive")
    return _refuse("combat_magic" if magical else "combat_tests")


def _astral_combat(s: Situation, stats: Sr3Stats) -> Verdict:
    if stats.magic <= 0:
        return _refuse("astral_combat_magician")
    if not s.astral or s.kind not in ("combat", "dodge", "damage_resistance"):
        return _refuse("astral_combat_plane")
    if s.surprised:
        return _refuse("surprised")
    if s.kind == "combat":  # **decision**: "similar to the Combat Pool", so the same limits
        return _cap(s.skill.rating if s.skill else 0, "astral_combat_offensive")
    return _FREE


def _control(s: Situation, stats: Sr3Stats) -> Verdict:
    if stats.vcr <= 0:
        return _refuse("control_vcr")
    if s.kind != "control":
        return _refuse("control_tests")
    if not s.rigged:
        return _refuse("control_rigged")
    return _cap(s.base_dice, "control_max")


def _hacking(s: Situation, stats: Sr3Stats) -> Verdict:
    if not stats.hot_asist:
        return _refuse("hacking_asist")
    if s.kind in ("matrix_etiquette", "ic_resistance"):
        return _refuse("hacking_except")
    if s.kind != "matrix":
        return _refuse("hacking_matrix")
    return _cap(s.base_dice, "hacking_max")


def _spell(s: Situation, stats: Sr3Stats) -> Verdict:
    if stats.magic <= 0:
        return _refuse("spell_magician")
    if s.kind == "drain":
        return _FREE
    if s.kind in SORCERY_KINDS:
        return _cap(s.base_dice, "spell_max")
    if s.kind in MAGIC_KINDS or s.magic:
        return _refuse("spell_conjuring")
    return _refuse("spell_tests")


def _task(s: Situation, stats: Sr3Stats) -> Verdict:
    if stats.encephalon + stats.cerebral_booster <= 0:
        return _refuse("task_none")
    if s.kind == "perception":
        return _refuse("task_perception")
    skill = s.skill
    if skill is None or skill.attribute != "intelligence" or skill.kind not in TASK_SKILL_KINDS:
        return _refuse("task_skills")
    return _FREE


def _astral(s: Situation, stats: Sr3Stats) -> Verdict:
    if stats.initiate_grade <= 0:
        return _refuse("astral_none")
    if not s.astral or s.kind in MAGICAL_SKILL_KINDS:
        return _refuse("astral_plane")
    return _FREE


def pool_cap(pool: str, situation: Situation, stats: Sr3Stats) -> Verdict:
    """May this test draw on ``pool``, and up to how many dice (before what is left)?"""
    match pool:
        case "combat":
            return _combat(situation)
        case "astral_combat":
            return _astral_combat(situation, stats)
        case "control":
            return _control(situation, stats)
        case "hacking":
            return _hacking(situation, stats)
        case "spell":
            return _spell(situation, stats)
        case "task":
            return _task(situation, stats)
        case "astral":
            return _astral(situation, stats)
    raise ValueError(f"unknown pool {pool!r}")


def drawable(situation: Situation, stats: Sr3Stats, left: Mapping[str, int]
             ) -> dict[PoolName, int]:
    """Pool -> the most dice this test may draw from it now (pools it may not use left out)."""
    out: dict[PoolName, int] = {}
    for pool in POOLS:
        verdict = pool_cap(pool, situation, stats)
        if not verdict.allowed:
            continue
        most = left.get(pool, 0) if verdict.cap is None else min(verdict.cap, left.get(pool, 0))
        if most > 0:
            out[pool] = most
    return out


def spent(situation: Situation, stats: Sr3Stats, left: Mapping[str, int],
          full: Mapping[str, int]) -> tuple[PoolName, ...]:
    """The pools that would help this test but have no die left (``left``) of a pool that had
    some (``full``): spent this Combat Turn, until the pools refresh. A pool the test may not
    use, or may draw none from (an offensive test with skill 0), is not among them."""
    return tuple(pool for pool in POOLS
                 if (verdict := pool_cap(pool, situation, stats)).allowed
                 and verdict.cap != 0 and left.get(pool, 0) <= 0 and full.get(pool, 0) > 0)


def check_draws(draws: Mapping[PoolName, int], situation: Situation, stats: Sr3Stats,
                left: Mapping[str, int]) -> None:
    """Refuse the first draw that breaks a rule, quoting it, with the path of that draw."""
    names = {line.pool: line.pool.replace("_", " ").title() for line in pool_lines(stats)}
    for pool, count in draws.items():
        path = f"$.pools.{pool}"
        verdict = pool_cap(pool, situation, stats)
        if not verdict.allowed:
            raise Rejected("rule", f'"{verdict.rule}"', path)
        if verdict.cap is not None and count > verdict.cap:
            raise Rejected("rule", f'at most {verdict.cap} {names[pool]} Pool dice on this '
                                   f'test: "{verdict.rule}"', path)
        available = left.get(pool, 0)
        if count > available:
            raise Rejected("rule", f"only {available} {names[pool]} Pool dice left: "
                                   f'"{QUOTES["left"]}"', path)
