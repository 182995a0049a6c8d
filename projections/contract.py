"""The ``projections`` part of a game system's contract (see :mod:`poolhall.events.contract`).

Each ``projections/<id>.py`` exports ``PROJECTION``, a :class:`Projection` of its own state
type: mypy checks that ``initial_state``, ``evolve`` and ``snapshot`` agree on that type where
the module builds it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import msgspec

from poolhall.events.base import Recorded

__all__ = ["Named", "Projection", "TableView"]


class Named(Protocol):
    """Anything with a name for people (a character)."""

    @property
    def name(self) -> str: ...


class TableView(Protocol):
    """What ``describe`` may read of the campaign: its characters and the system's state.

    A protocol, not :class:`poolhall.projections.campaign.CampaignState` itself, which holds every
    system's state type: the system modules would import the campaign, which imports them.
    """

    @property
    def characters(self) -> Mapping[str, Named]: ...

    @property
    def game(self) -> object: ...

S = TypeVar("S", bound=msgspec.Struct)
"""A system's state: its part of :attr:`poolhall.projections.campaign.CampaignState.game`."""


@dataclass(frozen=True)
class Projection(Generic[S]):
    """How a game system folds its events, and how it tells people what happened."""

    system: str
    """The system id, as registered in :data:`poolhall.events.systems.SYSTEMS`."""
    state: type[S]
    """The type of the system's part of the campaign state."""
    initial_state: Callable[[], S]
    """The system's state before any event."""
    evolve: Callable[[S, Recorded], S]
    """Folds one of the system's own events (pure: no I/O, no clock, no randomness)."""
    describe: Callable[[Recorded, TableView], str]
    """One line for people, for ``poolhall watch``, about any of the system's events."""
    table: type[msgspec.Struct]
    """The type of what the table shows of the state in a snapshot (tagged by ``system``)."""
    snapshot: Callable[[S], msgspec.Struct]
    """What the table shows of the state (open checks, destiny pool, combat turn), bounded
    whatever the campaign's length, as a :attr:`table`: the system's part of the snapshot a
    joining member gets, onto which it folds live events."""
    replay_start: Callable[[S], S] | None = None
    """The state a replay link starts from, given the state just before its first event: what
    stands (the destiny pool's points, the combat's order, the next test's number), with
    nothing recorded before the replay (no check, test, roll or spend; see
    :mod:`poolhall.projections.replay_start`). ``None``: the system's initial state."""
    fold_sealed: Callable[[S, Recorded], None] | None = None
    """What a table folded without one of the system's pending private events (the public
    table, :mod:`poolhall.server.audience`) still takes from it, if anything: only what the
    table already knows (SR3: a test declared in public is no longer waiting once rolled).
    ``None``: nothing."""
    unfinished: Callable[[S, str], bool] | None = None
    """Whether the private subject ``key`` (``check:<id>``, ``test:<number>``, see
    :mod:`poolhall.projections.privacy`) is a check or test still being built: revealed with its
    epoch's seed, the rest of it would be played in front of the table
    (:func:`poolhall.server.rules.privacy.unfinished_secrets`). ``None``: the system's private
    rolls are one-shot."""
    holding: Callable[[S, str], str | None] | None = None
    """Why ``character`` may not be retired now, if it is in something open of this system:
    the rest of a sentence after the character's name ("is in the open combat: end it
    first"); ``None`` when nothing holds it. Retiring refuses rather than withdraw a
    character from an open thing that its events would then point at (see
    ``docs/how-to/retire-a-character.md``). Every registered system sets it (the
    contract test checks)."""
    retired: Callable[[S, str], None] | None = None
    """What the system's state lets go of when ``character`` retires
    (:class:`poolhall.events.core.CharacterRetired`), folded after the campaign's part:
    only what no event refers to (SR3: its declared test, a preview of odds with no dice
    rolled). ``None``: nothing."""
