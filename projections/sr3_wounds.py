"""Shadowrun 3's wound modifiers, from the Physical and Stun Condition Monitors.

**Decision** (standard SR3, not in the sources): each monitor has 10 boxes; 1 box filled is a
Light wound, 3 a Moderate one, 6 a Serious one, 10 is Deadly (Physical) or unconscious (Stun).
Each level has one modifier, as standard SR3's Damage Modifiers table gives it: +1 / +2 / +3 to
every target number and the same figure off the initiative score (Light −1, Moderate −2,
Serious −3); a full monitor still counts 3. The modifiers of the two monitors add up. A wounded
initiative score never drops below 0. A character whose Stun monitor is full is unconscious and
whose Physical monitor is full is dying (both full: dying): neither acts, so they roll no
initiative and are left out of every Combat Phase pass while the monitor stays full.
"""

from __future__ import annotations

from collections.abc import Mapping

from poolhall.events.sr3_values import Incapacity

__all__ = ["BOXES", "wound_level", "wound_modifier", "wounded_initiative", "incapacity"]

BOXES = 10
_LEVELS = ((10, "deadly", 3), (6, "serious", 3), (3, "moderate", 2), (1, "light", 1))


def wound_level(boxes: int) -> tuple[str, int]:
    """The wound level of a monitor with ``boxes`` filled, and its modifier."""
    for least, name, modifier in _LEVELS:
        if boxes >= least:
            return name, modifier
    return "unhurt", 0


def wound_modifier(conditions: Mapping[str, int]) -> int:
    """The modifier of a character's two monitors, added together: what is added to every
    target number and taken off the initiative score."""
    return sum(wound_level(conditions.get(track, 0))[1] for track in ("physical", "stun"))


def wounded_initiative(rolled: int, wounds: int) -> int:
    """An initiative score of ``rolled`` (Reaction + the dice) less the wound modifier; a score
    is never negative, so a badly hurt character's is 0 and they do not act in the first pass
    (only scores above 0 act)."""
    return max(rolled - wounds, 0)


def incapacity(conditions: Mapping[str, int]) -> Incapacity | None:
    """Why a character cannot act, or None: ``dying`` when the Physical monitor is full (it
    wins, being the graver), ``unconscious`` when the Stun monitor is."""
    if conditions.get("physical", 0) >= BOXES:
        return "dying"
    if conditions.get("stun", 0) >= BOXES:
        return "unconscious"
    return None
