"""Base classes and constrained field types shared by every event and command.

Events are frozen, keyword-only msgspec Structs in a tagged union: the tag field is ``type``
and the tag is the snake_case class name (``DiceRolled`` -> ``dice_rolled``). Commands follow
the same pattern and carry the client's command id. Limits live on the types
(``Annotated[int, Meta(...)]``) so that a validation error names the JSON path at fault.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

import msgspec
from msgspec import Meta

__all__ = [
    "MemberRole",
    "ViewData",
    "ROLES",
    "Command",
    "CommandId",
    "Count",
    "Event",
    "Name",
    "Reason",
    "Recorded",
    "Role",
    "Seq",
    "Slug",
    "Value",
    "snake_case",
]

_CAMEL_BOUNDARY = re.compile(r"(?<!^)(?=[A-Z])")


def snake_case(class_name: str) -> str:
    """Return the wire tag for a class name: ``DestinyFlipped`` -> ``destiny_flipped``."""
    return _CAMEL_BOUNDARY.sub("_", class_name).lower()


Slug = Annotated[
    str,
    Meta(
        pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$",
        description="a lowercase id: letters, digits, '-' and '_', at most 40 characters",
    ),
]
Name = Annotated[str, Meta(min_length=1, max_length=80, description="a name for people")]
Reason = Annotated[str, Meta(max_length=120, description="why, in a few words")]
CommandId = Annotated[
    str, Meta(min_length=1, max_length=64, description="client-generated, unique per campaign")
]
Seq = Annotated[int, Meta(ge=0, description="per-campaign event sequence number")]
Count = Annotated[int, Meta(ge=1, le=100, description="how many dice")]
Role = Annotated[str, Meta(pattern=r"^(gm|player|spectator)$")]
ROLES = ("gm", "player", "spectator")
MemberRole = Literal["gm", "player", "spectator", "admin", "replay"]
Visibility = Literal["public", "gm", "blind", "self"]
"""Who sees a roll before its epoch's seed is revealed (:mod:`poolhall.projections.privacy`):
everyone; the GM only (a GM's secret roll); the GM only, not even the player who rolled (blind); the
player who rolled and the GM (self)."""
"""A role at the table as the server tells it (``welcome``): one of :data:`ROLES` read from the
log, ``admin`` for the admin token's session, which no member of the log has, or ``replay`` for
a replay link's (``replay_shared``), which reads one replay and nothing else."""


class Event(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    tag_field="type",
    tag=snake_case,
    gc=False,
):
    """Something that happened at the table. Subclasses are named in the past tense.

    Unknown fields are ignored (msgspec's default), so that a reader one version older still
    decodes an event that has gained an optional field: msgspec's schema-evolution rule.

    ``gc=False``: an event is an immutable value that cannot form a reference cycle, so the
    garbage collector need not track the hundreds of thousands a rebuild creates.

    ``schema_version`` is stored beside each payload; bump it (and register an upcaster in
    :mod:`poolhall.events.codec`) when a stored payload can no longer be decoded as it stands.
    """

    schema_version: ClassVar[int] = 1


class Value(msgspec.Struct, frozen=True, kw_only=True):
    """A value inside an event or command: stats, a skill, a pool, a rolled die.

    Unknown fields are ignored here as on events, for older readers. Inside a command they
    are refused all the same (``"stats": {"agilty": 3}`` is an ``invalid`` error naming its
    path, never a value silently dropped): commands are decoded against strict twins of
    these classes, see :mod:`poolhall.events.strict`.
    """


class Command(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    tag_field="type",
    tag=snake_case,
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """Something a member asks the table to do. ``id`` makes a retry idempotent.

    Unknown fields are refused, at any depth (:mod:`poolhall.events.strict`): a typo is an error.
    Fields left at their defaults are not sent (as on ``join``): the frame is smaller, and a
    command that uses nothing new (a public roll, say) still reaches an older server, which
    would refuse an unknown ``"visibility": "public"``.
    """

    id: CommandId


class Recorded(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An event as the log holds it: its sequence, when, who, and for which command."""

    seq: int
    at: str
    actor: str
    command: str
    event: Event


class ViewData(msgspec.Struct, frozen=True, kw_only=True, tag_field="view"):
    """Base of the typed views a game system sends (:class:`poolhall.events.messages.View`'s
    ``data``).

    Derived data, never stored: each subclass is tagged (``view``) by what it shows
    (``narrative_check_odds``), and registered in its system's vocabulary. A view whose
    costly part was not computed has it ``null`` and says why in its ``note``.
    """
