"""What a free roll's text stands for: plain dice (``2d6+1``), else the campaign's own notation.

People type what they roll into one field, wherever they roll: ``poolhall roll`` and the table
page's roll form. ``2d6+1`` is dice in any campaign; on a narrative table ``2g 1p`` is a free
pool, on an SR3 table ``6d6 tn5`` a test, on a d12 table ``5d12 dt7`` a basic test. This
module is the one reading of that text, used by both: the CLI reads it before sending, and the
server reads a ``roll`` the page sent as it is (:func:`poolhall.server.rules.core.as_typed`),
so the page carries no copy of any system's grammar and says what the CLI says.
"""

from __future__ import annotations

import msgspec

from poolhall.events import core
from poolhall.events.base import Command
from poolhall.events.dice import parse_dice
from poolhall.events.errors import NotationError
from poolhall.events.systems import SYSTEMS

__all__ = ["in_notation"]


def in_notation(system: str, roll: core.Roll) -> Command:
    """``roll`` itself when its expression is plain dice; else the command of ``system`` its
    expression stands for, with the roll's id, character, visibility and reason.

    Raises :class:`NotationError`: the dice's words when the text is no notation of the
    system either (``unexpected 'x'``), the system's when it starts like one and is wrong
    (``cannot read '1x' as narrative dice``), :class:`~poolhall.events.errors.NeedsCharacter`
    when it is a character's test and names none. Every system's roll keeps the roll's reason
    (a d12 basic test as its label)."""
    try:
        parse_dice(roll.expression)
    except NotationError as dice_error:
        parsed = SYSTEMS[system].parse_roll(roll.expression, roll.character)
        if parsed is None:
            raise dice_error from None
    else:
        return roll
    fields = parsed.__struct_fields__
    if roll.visibility != "public" and "visibility" not in fields:
        raise NotationError("this roll is made in front of the table: it cannot be private", 0)
    kept = {name: value for name, value in (("visibility", roll.visibility),
                                            ("reason", roll.reason)) if value and name in fields}
    if roll.reason and "reason" not in fields:  # said, rather than dropped without a word
        raise NotationError(f"{type(parsed).__name__} keeps no reason: leave it empty", 0)
    return msgspec.structs.replace(parsed, id=roll.id, **kept)
