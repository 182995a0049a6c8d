"""Each game system's projection, by id (the systems are registered once, in events.systems).

The system modules are imported here by name, statically;
:func:`poolhall.events.systems.check_registered` refuses, at import, a registered system without a
``PROJECTION`` here, naming it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from poolhall.events.systems import check_registered
from poolhall.projections import d12, narrative, sr3
from poolhall.projections.contract import Projection

__all__ = ["PROJECTIONS", "GameState", "projection"]

PROJECTIONS: dict[str, Projection[Any]] = {
    part.system: part for part in (narrative.PROJECTION, sr3.PROJECTION, d12.PROJECTION)
}
"""``Any``: each system's part is checked against its own state type where it is built."""
check_registered("projections", PROJECTIONS, "projections/systems.py")

if TYPE_CHECKING:  # the same union as below, spelled out for the type checker
    GameState = narrative.GameState | sr3.GameState | d12.GameState
else:
    from typing import Union
    GameState = Union[tuple(part.state for part in PROJECTIONS.values())]
"""The game system's part of a campaign's state, whichever the system."""


def projection(system_id: str) -> Projection[Any]:
    """The projection of a game system."""
    return PROJECTIONS[system_id]
