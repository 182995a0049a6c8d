"""The table as it stands, in one message: what a member joining from afar receives.

A client far behind the head (``since`` 0 included) gets a :class:`Snapshot` after its
``welcome`` instead of every event: the campaign, its members (never their token hashes), the
characters with their sheets, the game session, the latest free rolls, the game system's table
(open checks or tests with their pools, the destiny pool, the combat, ...: a bounded cut of the
system's state, made by its projection's ``snapshot``, ``table_of`` in
``projections/<system>.py``) and the last events of the log as event frames. The client
sets its state from it (:func:`state_from`) and folds the live events onto it with the same
code as the server; older history comes a page at a time.

This module also holds the whole union of the server's messages (:data:`ServerMessage`), since
the snapshot's table is typed by the projections, which :mod:`poolhall.events.messages` cannot
import.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from poolhall.events.base import MemberRole
from poolhall.events.messages import EventFrame, json_schema
from poolhall.events.messages import ServerMessage as _EventsServerMessage
from poolhall.events.systems import RegisteredSystem, Stats
from poolhall.projections.campaign import CampaignState, Character, FairState, Member, RollEntry
from poolhall.projections.systems import PROJECTIONS

__all__ = [
    "RECENT_EVENTS",
    "SERVER_DECODER",
    "TABLE_ROLLS",
    "CharacterEntry",
    "MemberEntry",
    "OutgoingSnapshot",
    "ReplayLinkEntry",
    "RetiredEntry",
    "ServerMessage",
    "Snapshot",
    "TableNow",
    "TableUnion",
    "observable",
    "protocol_schema",
    "snapshot_of",
    "state_from",
    "table_now_of",
]

RECENT_EVENTS = 50
"""Events of the log a snapshot carries, as frames: the last lines of the table's log."""

TABLE_ROLLS = 10
"""Free rolls of the roll log a snapshot carries (the latest)."""

TableUnion = Union[tuple(part.table for part in PROJECTIONS.values())]  # type: ignore[valid-type]
"""Every system's table, told apart by ``system``."""


class MemberEntry(msgspec.Struct, frozen=True, kw_only=True):
    """Someone at the table as others see them: no token hash, ever."""

    member: str
    name: str
    role: MemberRole
    characters: list[str]
    active: bool = True


class ReplayLinkEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A replay link the GM shared (``share_replay``): revoked by removing its ``member``."""

    member: str
    name: str
    session: int
    """The game session it replays; 0: the campaign up to ``last``."""
    last: int = 0


class CharacterEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A character with the sheet of its game system."""

    character: str
    name: str
    stats: Stats
    conditions: dict[str, int] = msgspec.field(default_factory=dict)
    changed: int = 0
    """The seq of the event that last changed the sheet (name or stats): a client editing the
    sheet sends it back as ``update_character``'s ``based_on``."""
    changed_by: str = ""
    """The member whose command made that change."""


class RetiredEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A retired character (``retire_character``): no longer at the table, named here for
    the lines of the log from before its retirement."""

    character: str
    name: str


class _TableFields(msgspec.Struct, frozen=True, kw_only=True):
    """What a snapshot and a table message share: the table as a campaign's state answers it
    (built by :func:`_table_fields`)."""

    seq: int
    campaign: str
    name: str
    system: RegisteredSystem
    members: list[MemberEntry]
    characters: list[CharacterEntry]
    session: int
    in_session: bool
    rolls: list[RollEntry]
    table: TableUnion  # type: ignore[valid-type]
    replay_links: list[ReplayLinkEntry] = msgspec.field(default_factory=list)
    """Replay links in force (not in ``members``: they have no seat at the table)."""
    fair: FairState = msgspec.field(default_factory=FairState)
    """The fair rolls' epoch: its commitment (never its seed), rolls so far, client seeds."""
    retired: list[RetiredEntry] = msgspec.field(default_factory=list)
    """Retired characters, by the name the log before names them (absent: none, as in a
    snapshot of a server from before retiring)."""


class _SnapshotBase(_TableFields, frozen=True, kw_only=True, tag_field="type",
                    tag="snapshot"):
    head_hash: str
    id: str | None = None
    """Set in the answer to a ``state_at`` request (its id); absent in a join's snapshot."""


class Snapshot(_SnapshotBase, frozen=True, kw_only=True, tag="snapshot", omit_defaults=True):
    """The table as it stands after event ``seq`` (whose chain hash is ``head_hash``).

    ``rolls`` are the latest free rolls, ``table`` the game system's table (bounded: open
    checks or tests and the latest closed ones), ``recent`` the last events of the log, oldest
    first. Live events follow from ``seq + 1``; the standing views (odds) follow as ``view``.
    """

    recent: list[EventFrame]


class OutgoingSnapshot(_SnapshotBase, frozen=True, kw_only=True, tag="snapshot",
                       omit_defaults=True):
    """The server's encoding of :class:`Snapshot`: each recent frame sent as it was encoded."""

    recent: list[msgspec.Raw]


class TableNow(_TableFields, frozen=True, kw_only=True, tag_field="type", tag="table"):
    """The table as it stands after event ``seq``, sent after every change to a client that
    joined with ``table`` (the browser page): what a snapshot holds, without the log's recent
    events, plus the members connected now. Such a client shows the table from these and
    never folds events itself; its log is the event frames."""

    connected: list[str]
    """Members with at least one connection open now (by member id)."""
    dice_wait: bool = False
    """Every roll waits for the GM: the server started while the fair-roll epoch held a private
    roll (docs: fairness.md); the GM ends the session (or starts one) to roll on."""



ServerMessage = Union[_EventsServerMessage, Snapshot, TableNow]
"""Every message a server sends."""

SERVER_DECODER: msgspec.json.Decoder[Any] = msgspec.json.Decoder(ServerMessage)


def protocol_schema() -> dict[str, Any]:
    """JSON Schema of every client and server message, the snapshot included."""
    return json_schema(ServerMessage)


def _table_fields(state: CampaignState) -> dict[str, Any]:
    """What a snapshot and a table message share: the table as ``state`` answers it."""
    assert state.system, "a campaign's state has its system from its first event on"
    return {
        "seq": state.head, "campaign": state.campaign, "name": state.name,
        "system": state.system,
        "members": [MemberEntry(member=m.member, name=m.name, role=m.role,
                                characters=list(m.characters), active=m.active)
                    for m in state.members.values() if m.role != "replay"],
        "replay_links": [ReplayLinkEntry(member=m.member, name=m.name,
                                          session=m.replay_session, last=m.replay_last)
                         for m in state.members.values() if m.role == "replay" and m.active],
        "characters": [CharacterEntry(character=c.character, name=c.name, stats=c.stats,
                                      conditions=dict(c.conditions), changed=c.changed,
                                      changed_by=c.changed_by)
                       for c in state.characters.values()],
        "session": state.session, "in_session": state.in_session,
        "rolls": state.rolls[-TABLE_ROLLS:],
        "fair": state.fair,
        "retired": [RetiredEntry(character=c, name=name) for c, name in state.retired.items()],
        "table": PROJECTIONS[state.system].snapshot(state.game),
    }


def snapshot_of(state: CampaignState, head_hash: str,
                recent: list[msgspec.Raw], id: str | None = None) -> OutgoingSnapshot:
    """The snapshot of ``state`` (at its head), carrying ``recent`` encoded event frames
    (``id``: the ``state_at`` request it answers, if any)."""
    return OutgoingSnapshot(head_hash=head_hash, recent=recent, id=id, **_table_fields(state))


def table_now_of(state: CampaignState, connected: list[str],
                 dice_wait: bool = False) -> TableNow:
    """The table message of ``state`` (at its head) with the members ``connected`` now (and
    whether the dice wait for the GM, which only the server knows)."""
    return TableNow(connected=connected, dice_wait=dice_wait, **_table_fields(state))


def observable(state: CampaignState) -> dict[str, Any]:
    """What a snapshot of ``state`` shows, as plain data (its recent events aside): two states
    that answer the table alike (a full fold, a snapshot with events folded onto it) give the
    same value."""
    plain: dict[str, Any] = msgspec.to_builtins(snapshot_of(state, "", []))
    return plain


def state_from(snapshot: Snapshot) -> CampaignState:
    """A campaign state to fold live events onto, from a snapshot.

    Members carry no token hash (the server never sends one); the histories the snapshot cut
    (closed checks, old rolls) stay cut: the state answers what the table shows.
    """
    return CampaignState(
        campaign=snapshot.campaign, name=snapshot.name, system=snapshot.system,
        head=snapshot.seq,
        members={**{m.member: Member(member=m.member, name=m.name, role=m.role,
                                     characters=list(m.characters), token_hash="",
                                     active=m.active)
                    for m in snapshot.members},
                 **{link.member: Member(member=link.member, name=link.name, role="replay",
                                        characters=[], token_hash="",
                                        replay_session=link.session, replay_last=link.last)
                    for link in snapshot.replay_links}},
        characters={c.character: Character(character=c.character, name=c.name, stats=c.stats,
                                           conditions=dict(c.conditions), changed=c.changed,
                                           changed_by=c.changed_by)
                    for c in snapshot.characters},
        retired={entry.character: entry.name for entry in snapshot.retired},
        session=snapshot.session, in_session=snapshot.in_session, rolls=list(snapshot.rolls),
        fair=msgspec.structs.replace(snapshot.fair,
                                     client_seeds=dict(snapshot.fair.client_seeds)),
        game=snapshot.table.game)  # type: ignore[attr-defined]
