"""What may answer a Shadowrun 3 test (``opposes``), and what an answer takes from the test.

An answer settles the test it answers: the roller may no longer reroll it with Karma Pool
(the reference's decision, "once another test opposes a test, its result stands"). Any test
could answer any other, so a teammate's Chemistry test "against" a Pistols shot took its Karma
reroll away, a character dodged their own shot, and a Dodge's pool limits looked only at the
flags typed on it: a mundane dodged an astral attack with Combat Pool, a magician a pistol
shot with Astral Combat Pool, anyone a Stunbolt, though the source says "A player can only
use Combat Pool dice to augment or resist magic-related tests in the case of elemental
manipulation spells."

So a test answers another only when (besides being as private as it, see
:mod:`poolhall.server.rules.privacy`):

- it is another character's: "Opposed test: both sides roll"; one does not take damage from
  one's own attack ("Whenever a character takes damage from a ranged or melee attack ...");
- it is of a kind that answers that test: a Dodge answers an attack (a ``combat`` test, or an
  elemental manipulation ``spell``: "The player uses these dice to dodge or resist damage from
  such spells in the same manner as normal Ranged Combat Tests"); damage resistance answers a
  combat test or a spell; spell resistance, spell defense and dispelling answer a spell; a
  Drain Resistance Test answers nothing (it resists the magician's own spell); a combat test
  is answered by those or, in melee, by the defender's own combat test; a test of any other
  kind answers any test that is not an attack, as an opposed test; no test answers a test
  that resists something (drain, a Dodge, damage, a spell, IC): a teammate's Physics test
  "against" a Drain test took its Karma reroll away;
- the test was rolled in this scene: a scene that is over is settled.

**Decision**: a Dodge and damage resistance take the situation of the attack they answer:
on the astral plane when it was (so the Astral Combat Pool, not the Combat Pool, helps them),
about magic and elemental when it was a spell. A flag typed on the answer that the attack does
not have is refused, naming the flag. A melee defender's combat test answering a combat test
takes its plane the same way. poolhall does not know who is on which side: another
character's test that may answer a test is taken as the opponent's.
"""

from __future__ import annotations

from typing import Any

import msgspec

from poolhall.events.errors import Rejected
from poolhall.projections.sr3 import GameState, TestRecord
from poolhall.server.rules.sr3_dodge import DODGE_QUOTES
from poolhall.server.rules.sr3_limits import MAGIC_KINDS, QUOTES

__all__ = ["ATTACK_ANSWERS", "SPELL_ANSWERS", "RESISTING", "ANSWER_QUOTES", "is_attack",
           "check_answers", "with_attack_situation"]

ATTACK_ANSWERS = frozenset({"dodge", "damage_resistance"})
"""Kinds that answer an attack on the character, and take its situation."""
SPELL_ANSWERS = frozenset({"spell_resistance", "spell_defense", "dispelling"})
"""Kinds that answer a spell only."""
RESISTING = {"drain": "the drain of its magician's own spell", "dodge": "an attack",
             "damage_resistance": "an attack's damage", "spell_resistance": "a spell",
             "spell_defense": "a spell", "ic_resistance": "the damage of IC"}
"""Kinds that resist something, and what: they answer a test; no test answers them."""
_FLAGS = ("astral", "magic", "elemental")

ANSWER_QUOTES = {
    "attack": DODGE_QUOTES["once"],
    "opposed": "Opposed test: both sides roll; net successes decide.",
}
"""The rules a refusal quotes: the source's sentence on dodging or soaking an attack, and
the rules README's on opposed tests (standard SR3)."""


def is_attack(record: TestRecord) -> bool:
    """Whether a test is an attack a character may be hit by: a combat test or a spell."""
    return record.kind in ("combat", "spell")


def _named(record: TestRecord) -> str:
    """``test #8, mara's chemistry test (other)``: which test, in words."""
    what = record.skill or record.attribute or "dice"
    return f"test #{record.test}, {record.character}'s {what} test " \
           f"({record.kind.replace('_', ' ')})"


def _refuse(message: str, path: str = "$.opposes") -> Rejected:
    return Rejected("rule", message, path)


def _dodge_refusal(other: TestRecord) -> str | None:
    """Why a Dodge does not answer ``other``: it is no attack, or a spell that is not an
    elemental manipulation (None: it may)."""
    if other.kind == "spell" and not other.elemental:
        return (f"{_named(other)}, is not an elemental manipulation spell: a Dodge answers "
                f'only such spells ("{QUOTES["combat_magic"]}"); resist it with a spell '
                "resistance test")
    if other.kind not in ("combat", "spell"):
        return (f"{_named(other)}, is not an attack: a Dodge answers a ranged or melee "
                "attack (a combat test) or an elemental manipulation spell: "
                f'"{ANSWER_QUOTES["attack"]}"')
    return None


def _kind_refusal(kind: str, other: TestRecord) -> str | None:
    """Why a test of ``kind`` does not answer ``other`` (None: it may)."""
    words = kind.replace("_", " ")
    resists = RESISTING.get(other.kind)
    if resists is not None:  # else anyone's "answer" took its Karma reroll away
        return (f"{_named(other)}, resists {resists}: it answers a test, and no test answers "
                "it (an answer would settle it, and its roller could no longer reroll it "
                "with Karma Pool)")
    if kind == "drain":
        return ("a Drain Resistance Test resists the drain of the magician's own spell: it "
                "answers no test")
    if kind == "dodge":
        return _dodge_refusal(other)
    if kind == "damage_resistance":
        if not is_attack(other):
            return (f"{_named(other)}, is not an attack: damage resistance answers a combat "
                    f'test or a spell: "{ANSWER_QUOTES["attack"]}"')
        return None
    if kind in SPELL_ANSWERS:
        if other.kind != "spell":
            return f"{_named(other)}, is no spell: {words} answers a spell"
        return None
    if other.kind == "combat" and kind != "combat":
        return (f"{_named(other)}, is an attack: a Dodge, damage resistance or, in melee, the "
                f"defender's combat test answers it, not a {words} test")
    if other.kind == "spell":
        return (f"{_named(other)}, is a spell: a Dodge (of an elemental manipulation spell), "
                "damage resistance, spell resistance, spell defense or dispelling answers "
                f"it, not a {words} test")
    return None


def check_answers(game: GameState, command: Any) -> None:
    """Refuse a test (declared or rolled) that answers a test it may not: its own character's,
    one of a scene that is over, or one its kind does not answer (see the module)."""
    other = game.tests.get(command.opposes) if command.opposes is not None else None
    if other is None:
        return
    if other.character == command.character:
        raise _refuse(f"test #{other.test} is {other.character}'s own: a test answers an "
                      f'opponent\'s ("{ANSWER_QUOTES["opposed"]}"), and a Dodge or damage '
                      f'resistance an attack on the character ("{ANSWER_QUOTES["attack"]}")')
    if other.scene != game.scene:
        raise _refuse(f"test #{other.test} was rolled in scene {other.scene}, which is over: "
                      f"no test answers it in scene {game.scene}")
    why = _kind_refusal(command.kind, other)
    if why is not None:
        raise _refuse(why)


def with_attack_situation(game: GameState, command: Any) -> Any:
    """A Dodge or damage resistance as it answers its attack: on the astral plane when the
    attack was, about magic (and elemental) when it was a spell. A flag typed on the answer
    that the attack lacks is refused naming the flag (a Dodge of a pistol shot "on the astral
    plane" drew the Astral Combat Pool). A melee defender's combat test is on the plane of
    the attack it answers the same way (a mundane answered an astral attack with Combat Pool
    dice). Any other test comes back as it was."""
    other = game.tests.get(command.opposes) if command.opposes is not None else None
    if other is None:
        return command
    if command.kind == "combat" and other.kind == "combat":
        if command.astral and not other.astral:
            raise _refuse(_flag_refusal("astral", other, "combat"), "$.astral")
        return msgspec.structs.replace(command, astral=other.astral)
    if command.kind not in ATTACK_ANSWERS:
        return command
    situation = {"astral": other.astral, "magic": other.magic or other.kind in MAGIC_KINDS,
                 "elemental": other.elemental}
    for flag in _FLAGS:
        if getattr(command, flag) and not situation[flag]:
            raise _refuse(_flag_refusal(flag, other, command.kind), f"$.{flag}")
    return msgspec.structs.replace(command, **situation)


def _flag_refusal(flag: str, other: TestRecord, kind: str) -> str:
    """Why a Dodge, damage resistance or a melee combat test may not have ``flag`` against
    ``other``."""
    words = {"dodge": "a Dodge", "combat": "a combat test"}.get(kind, "damage resistance")
    if flag == "astral":
        return (f"{_named(other)}, was not made on the astral plane, so {words} against it is "
                "not either: the Combat Pool helps it, never the Astral Combat Pool "
                f'("{QUOTES["astral_combat_plane"]}")')
    if flag == "magic":
        return f"{_named(other)}, is no spell, so {words} against it is not about magic"
    return (f"{_named(other)}, is not an elemental manipulation spell, so {words} against it "
            "is not about one")
