"""Core events and commands every campaign shares, whatever its game system.

System-specific events live beside this module in ``events/<system>.py``; the character
stats of every system form the tagged union :data:`poolhall.events.systems.Stats`.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from poolhall.events.base import Command, Event, Name, Reason, Role, Slug, Visibility
from poolhall.events.character_io import CharacterImported, ImportCharacter
from poolhall.events.conditions import ConditionChanged, SetCondition
from poolhall.events.dice import MAX_EXPRESSION_LENGTH, RolledTerm
from poolhall.events.fair import COMMANDS as FAIR_COMMANDS
from poolhall.events.fair import EVENTS as FAIR_EVENTS
from poolhall.events.fair import FairStamp
from poolhall.events.systems import SYSTEM_IDS, Stats

__all__ = [
    "COMMANDS",
    "EVENTS",
    "CampaignCreated",
    "CharacterCreated",
    "CharacterImported",
    "CharacterRetired",
    "AssignCharacters",
    "CharacterUpdated",
    "CharactersAssigned",
    "ConditionChanged",
    "CreateCampaign",
    "CreateCharacter",
    "DiceRolled",
    "EndSession",
    "GameSessionEnded",
    "GameSessionStarted",
    "ImportCharacter",
    "Invite",
    "MemberInvited",
    "MemberRemoved",
    "RemoveMember",
    "ReplayShared",
    "RetireCharacter",
    "RetryKey",
    "Roll",
    "SetCondition",
    "ShareReplay",
    "StartSession",
    "SystemId",
    "TokenHash",
    "UpdateCharacter",
]

SystemId = Annotated[str, Meta(pattern="^(" + "|".join(SYSTEM_IDS) + ")$")]
TokenHash = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$")]
Expression = Annotated[str, Meta(min_length=1, max_length=MAX_EXPRESSION_LENGTH)]
Characters = Annotated[tuple[Slug, ...], Meta(max_length=20)]
RetryKey = Annotated[str, Meta(
    min_length=22, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
    description="a random secret drawn for this one command and sent with every try of it:"
                " a retry that brings it gets the token the command issued")]
"""Never stored nor put in an event: the issued token is kept sealed under it (see
:mod:`poolhall.server.sealed_tokens`), so a copy of the database does not yield the token."""


# ---- events -------------------------------------------------------------------------------


class CampaignCreated(Event, frozen=True, kw_only=True):
    """A campaign was opened for a game system."""

    campaign: Slug
    name: Name
    system: SystemId


class MemberInvited(Event, frozen=True, kw_only=True):
    """Someone was invited to the table with a role; only the hash of their token is kept."""

    member: Slug
    name: Name
    role: Role
    characters: Characters = ()
    token_hash: TokenHash = ""
    """Always in the log; never in what a client receives (:mod:`poolhall.events.client_payload`),
    where it reads as empty."""


class MemberRemoved(Event, frozen=True, kw_only=True):
    """A member left the table; their token no longer opens it."""

    member: Slug
    reason: Reason = ""


class CharactersAssigned(Event, frozen=True, kw_only=True):
    """The GM changed which characters a player plays: ``characters`` is the whole new list
    (empty: none). What the player may act for follows it from this event on."""

    member: Slug
    characters: Characters = ()


class CharacterCreated(Event, frozen=True, kw_only=True):
    """A character joined the campaign, with the stats of its game system."""

    character: Slug
    name: Name
    stats: Stats


class CharacterUpdated(Event, frozen=True, kw_only=True):
    """A character's name or stats changed (the whole new stats, not a patch)."""

    character: Slug
    name: Name | None = None
    stats: Stats | None = None


class CharacterRetired(Event, frozen=True, kw_only=True):
    """The GM retired a character (``name``: as the table knew it): it leaves the table for
    good, its id is never given to another, and the log before keeps it by name. A player who
    played it was given the list without it just before (``characters_assigned``)."""

    character: Slug
    name: Name
    reason: Reason = ""


class GameSessionStarted(Event, frozen=True, kw_only=True):
    """The table sat down for a game session."""

    session: Annotated[int, Meta(ge=1)]
    title: Annotated[str, Meta(max_length=80)] = ""


class GameSessionEnded(Event, frozen=True, kw_only=True):
    """The game session ended."""

    session: Annotated[int, Meta(ge=1)]


class DiceRolled(Event, frozen=True, kw_only=True):
    """A free roll in XdN notation, with every face that came up and the total."""

    character: Slug | None = None
    expression: Expression
    terms: tuple[RolledTerm, ...]
    constant: int = 0
    total: int
    reason: Reason = ""
    fair: FairStamp | None = None
    """Where the dice came from (epoch, nonce, client seeds): see :mod:`poolhall.events.fair`."""
    visibility: Visibility = "public"
    """Who sees it before its epoch's seed is revealed (:mod:`poolhall.projections.privacy`)."""


class ReplayShared(Event, frozen=True, kw_only=True):
    """The GM made a replay readable by a link: its token opens nothing but the replay of one
    game session (``session``), or of the campaign up to ``last`` (``session`` 0). Removing
    the link's ``member`` (``member_removed``) revokes it."""

    member: Slug
    name: Name
    session: Annotated[int, Meta(ge=0)] = 0
    last: Annotated[int, Meta(ge=0)] = 0
    """The last event of a campaign-wide replay (the head when it was shared); 0 for a
    session's replay, which runs to the session's end."""
    token_hash: TokenHash = ""
    """Always in the log; never in what a client receives
    (:mod:`poolhall.events.client_payload`)."""


class PrivateRoll(Event, frozen=True, kw_only=True):
    """What a member who may not see a private roll receives in its place, until its epoch's
    seed is revealed: that something was rolled in private, by the frame's ``actor``, and
    nothing else (no dice, count, pool, odds or result; the frame's ``hash`` is empty too).

    Never in the log: the server writes it into frames only (:mod:`poolhall.server.audience`).
    """

    visibility: Visibility
    fair: FairStamp | None = None
    """A roll's place among its epoch's rolls (epoch, nonce, client seeds' digest): nothing of
    its dice, but a member's verifier counts it as a sealed roll, not as a nonce skipped."""


EVENTS: tuple[type[Event], ...] = (
    CampaignCreated,
    MemberInvited,
    MemberRemoved,
    CharacterCreated,
    CharacterUpdated,
    GameSessionStarted,
    GameSessionEnded,
    DiceRolled,
    ReplayShared,
    CharacterImported,
    ConditionChanged,
    CharactersAssigned,
    CharacterRetired,
    *FAIR_EVENTS,
)


# ---- commands -----------------------------------------------------------------------------


class CreateCampaign(Command, frozen=True, kw_only=True):
    """Open a new campaign (admin token only); the ack carries the GM's token. Without
    ``campaign``, its id is made from ``name`` ("Édge of the Empire" is
    ``edge-of-the-empire``), as a member's is (see ``invite``)."""

    name: Name
    system: SystemId
    campaign: Slug | None = None
    retry_key: RetryKey | None = None


class Invite(Command, frozen=True, kw_only=True):
    """Invite a member (GM or admin); the ack carries their token, shown only once, and
    the member's id, made from ``name`` (else the first character, else the role): "Ørjan"
    is ``orjan``, a name with no Latin letter or digit takes the role (``player-2`` when
    ``player`` is taken). A name a member at the table already has takes a number ("GM 2"),
    so that two members are never listed alike."""

    role: Role
    name: Name | None = None
    characters: Characters = ()
    retry_key: RetryKey | None = None


class RemoveMember(Command, frozen=True, kw_only=True):
    """Remove a member from the table (GM only)."""

    member: Slug
    reason: Reason = ""


class AssignCharacters(Command, frozen=True, kw_only=True):
    """Set the characters a player plays (GM only), for a player invited before their
    characters were made, or one who changes character: ``characters`` is the whole new list;
    as at an invite, a character may be one the player is yet to create."""

    member: Slug
    characters: Characters = ()


class CreateCharacter(Command, frozen=True, kw_only=True):
    """Create a character (GM, or the player the character is reserved for)."""

    character: Slug
    name: Name
    stats: Stats


class UpdateCharacter(Command, frozen=True, kw_only=True):
    """Change a character's name or stats (GM, or the player who owns it)."""

    character: Slug
    name: Name | None = None
    stats: Stats | None = None
    based_on: Annotated[int, Meta(ge=0)] | None = None
    """The ``changed`` of the character as the sender read it (the seq of the event that last
    changed its sheet): when the sheet changed since, the update is refused (``conflict``)
    rather than writing a sheet made from the old one over that change. Omitted: no check,
    the update is applied to whatever the sheet is now."""


class RetireCharacter(Command, frozen=True, kw_only=True):
    """Retire a character (GM only): it leaves every sheet, list and picker, whoever played
    it no longer does, and its id is not reused. Refused while it is in something open (a
    check, a test, a combat or encounter): end that first."""

    character: Slug
    reason: Reason = ""


class StartSession(Command, frozen=True, kw_only=True):
    """Start a game session (GM only)."""

    title: Annotated[str, Meta(max_length=80)] = ""


class EndSession(Command, frozen=True, kw_only=True):
    """End the current game session (GM only)."""


class Roll(Command, frozen=True, kw_only=True):
    """A free roll in XdN notation, for a character or for no one in particular; an
    expression that is not XdN is read in the campaign's own notation, as ``poolhall roll``
    reads it (``2g 1p``, ``6d6 tn5``, ``5d12 dt7``), and rolled as that system's command."""

    expression: Expression
    character: Slug | None = None
    reason: Reason = ""
    visibility: Visibility = "public"
    """``gm``: the GM's secret roll; ``blind``: a player's roll only the GM sees; ``self``:
    a player's roll only they and the GM see. Revealed to all with its epoch's seed."""


class ShareReplay(Command, frozen=True, kw_only=True):
    """Make a replay readable by a link (GM only): one game session's (``session``), or the
    whole campaign's as it stands now (``session`` omitted). The ack carries the link's token,
    shown once; ``remove_member`` with the ack's ``member`` revokes the link."""

    session: Annotated[int, Meta(ge=1)] | None = None
    name: Name | None = None
    retry_key: RetryKey | None = None


COMMANDS: tuple[type[Command], ...] = (
    CreateCampaign,
    Invite,
    RemoveMember,
    CreateCharacter,
    UpdateCharacter,
    StartSession,
    EndSession,
    Roll,
    ShareReplay,
    ImportCharacter,
    SetCondition,
    AssignCharacters,
    RetireCharacter,
    *FAIR_COMMANDS,
)

