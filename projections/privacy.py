"""Private rolls: which events of a campaign are sealed, for whom, until when.

A roll or check made with a :data:`~poolhall.events.base.Visibility` other than ``public`` opens a
*private subject*: a one-shot roll (``dice_rolled``, ``pool_rolled``, an SR3
``pool_test_rolled``) is a subject of its own, keyed ``roll:<seq>`` or ``test:<number>``; a
check built step by step (a narrative ``check_opened``, a d12 ``threshold_test_started``)
takes in every later event of that check or test (``check:<id>``, ``test:<number>``). While a
subject is pending it is in :attr:`CampaignState.private`; it leaves it when the seed of the
last epoch it was touched in is revealed (``seed_revealed``: at the end of its game session,
see :mod:`poolhall.server.rules.fairness`), and from then on its events are public like any other.

Who sees a pending subject's events (:func:`sees`): the GM (and the admin acting as GM)
always; for ``self``, the member who rolled; nobody else — not even the roller of a ``blind``
roll. Everyone else receives each of its events sealed (:class:`poolhall.events.core.PrivateRoll`)
and a table folded without them (:func:`public_fold`).

This module is pure (no I/O): it is folded by :func:`poolhall.projections.campaign.evolve` and read
by the server's audience filter (:mod:`poolhall.server.audience`) and by the report and the export.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Event, Recorded, Visibility
from poolhall.events.fair import SeedLost, SeedRevealed

__all__ = ["MAX_PENDING", "MAX_PENDING_PER_PLAYER", "MAX_PENDING_PLAYERS", "ONE_SHOT",
           "OPENERS", "PrivateSubject", "hidden_seqs", "makes_private", "pending_seqs",
           "reference_of", "sees", "subject_key", "track"]

MAX_PENDING = 200
"""Private subjects a campaign may hold unrevealed at once: the state stays bounded, and a
table that needs more ends its game session (which reveals them)."""
MAX_PENDING_PLAYERS = 150
"""Of those, the players' private rolls (``blind`` and ``self``) together: the last 50 are
the GM's, so that no player, nor all of them, can leave the GM without secret rolls."""
MAX_PENDING_PER_PLAYER = 50
"""One player's private rolls waiting at once: one player cannot take the others' share."""

ONE_SHOT: frozenset[type[Event]] = frozenset(
    {core.DiceRolled, narrative.PoolRolled, sr3.PoolTestRolled})
"""Rolls that are a private subject by themselves."""
OPENERS: frozenset[type[Event]] = ONE_SHOT | {narrative.CheckOpened, d12.ThresholdTestStarted}
"""The events that carry a roll's visibility (every other event of a subject inherits it)."""

_NOT_OF_A_CHECK: frozenset[type[Event]] = frozenset({narrative.DestinyFlipped})
"""Events naming a check that stay public: the destiny pool is the whole table's."""


class PrivateSubject(msgspec.Struct, kw_only=True, gc=False):
    """A private roll or check not yet revealed: who may see it and which events it holds."""

    visibility: Visibility
    roller: str
    """The member who made it (the actor of its first event)."""
    epoch: int
    """The last epoch it was touched in: revealed with that epoch's seed."""
    seqs: list[int] = msgspec.field(default_factory=list)


def subject_key(event: Event, seq: int) -> str | None:
    """The private subject ``event`` (at ``seq``) would belong to, if any is open for it."""
    kind = type(event)
    if kind is core.DiceRolled or kind is narrative.PoolRolled:
        return f"roll:{seq}"
    if kind in _NOT_OF_A_CHECK:
        return None
    check = getattr(event, "check", None)
    if isinstance(check, str):
        return f"check:{check}"
    test = getattr(event, "test", None)
    if isinstance(test, int):
        return f"test:{test}"
    return None


def reference_of(command: Any) -> tuple[str, str] | None:
    """The subject a command acts on (``check``, ``test`` or ``opposes``) and the field's
    path, for refusing a member who may not see it as if it did not exist. ``open_check``
    names a check to be, not one to act on: its id is refused by the rule that keeps
    ``secret-`` ids for secret checks, in the same words whether one exists or not."""
    if isinstance(command, narrative.OpenCheck):
        return None
    for field, prefix in (("check", "check"), ("test", "test"), ("opposes", "test")):
        value = getattr(command, field, None)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return f"{prefix}:{value}", f"$.{field}"
    return None


def track(private: dict[str, PrivateSubject], recorded: Recorded, epoch: int) -> None:
    """Fold ``recorded`` into the pending subjects (``epoch``: the state's epoch now).

    With none pending (nearly always), only an opener made in private opens one: every other
    event returns at once, without its subject's key (a third of a rebuild's fold)."""
    event = recorded.event
    if not private and (type(event) not in OPENERS
                        or getattr(event, "visibility", "public") == "public"):
        return
    if isinstance(event, SeedRevealed | SeedLost):  # lost: shown whole, marked so (not "checkable")
        for name in [name for name, subject in private.items()
                     if subject.epoch <= event.epoch]:
            del private[name]
        return
    key = subject_key(event, recorded.seq)
    if key is None:
        return
    subject = private.get(key)
    if subject is None:
        visibility: Visibility = getattr(event, "visibility", "public") \
            if type(event) in OPENERS else "public"
        if visibility == "public":
            return
        subject = private[key] = PrivateSubject(visibility=visibility, roller=recorded.actor,
                                                epoch=epoch)
    subject.seqs.append(recorded.seq)
    subject.epoch = epoch


def makes_private(events: Iterable[Event]) -> bool:
    """Whether ``events`` (a command's, not yet folded) open a private subject: a roll or
    check made with a visibility other than ``public``. (Later events of a subject need no
    look: a pending subject keeps its epoch private, see ``CampaignState.epoch_is_private``.)"""
    return any(type(event) in OPENERS and getattr(event, "visibility", "public") != "public"
               for event in events)


def sees(subject: PrivateSubject, member: str | None, role: str) -> bool:
    """Whether a member (``None``: the admin) with ``role`` sees a pending subject's events."""
    if member is None or role in ("gm", "admin"):
        return True
    return subject.visibility == "self" and member == subject.roller


def hidden_seqs(private: Mapping[str, PrivateSubject], member: str | None,
                role: str) -> dict[int, Visibility]:
    """The seqs a member may not see yet, with the visibility each is sealed under."""
    return {seq: subject.visibility for subject in private.values()
            if not sees(subject, member, role) for seq in subject.seqs}


def pending_seqs(private: Mapping[str, PrivateSubject]) -> Iterable[int]:
    """Every seq of every pending subject."""
    return (seq for subject in private.values() for seq in subject.seqs)
