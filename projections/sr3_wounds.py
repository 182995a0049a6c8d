"""Shadowrun 3's wound modifiers, from the Physical and Stun Condition Monitors.

**Decision** (standard SR3, not in the sources): each monitor has 10 boxes; 1 box filled is a
Light wound (+1 to every target number), 3 a Moderate one (+2), 6 a Serious one (+3), 10 is
Deadly (Physical) or unconscious (Stun), still +3. The modifiers of the two monitors add up.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["BOXES", "wound_level", "wound_modifier"]

BOXES = 10
_LEVELS = ((10, "deadly", 3), (6, "serious", 3), (3, "moderate", 2), (1, "light", 1))


def wound_level(boxes: int) -> tuple[str, int]:
    """The wound level of a monitor with ``boxes`` filled, and its target number modifier."""
    for least, name, modifier in _LEVELS:
        if boxes >= least:
            return name, modifier
    return "unhurt", 0


def wound_modifier(conditions: Mapping[str, int]) -> int:
    """The target number modifier of a character's two monitors, added together."""
    return sum(wound_level(conditions.get(track, 0))[1] for track in ("physical", "stun"))
