"""What each member at a table may see while private rolls wait to be revealed.

The hub keeps two tables while a campaign holds a pending private roll
(:mod:`poolhall.projections.privacy`): its own state, which decides every command and which the GM
sees, and the *public* table (:class:`PublicTable`), the same log folded without the pending
private events, which every other member sees (in ``table`` messages, snapshots and
``state_at``), except that a player with a ``self`` roll pending sees a table of their own:
the public one with their self rolls in it. Every event frame goes whole to whoever
:func:`~poolhall.projections.privacy.sees` its subject and sealed (:func:`sealed_frame`) to
everyone else; reads of the log (catch-ups, history pages, a snapshot's recent events) seal the
same seqs (:func:`hidden_for`). When the seed is revealed the public table is dropped (it is
the hub's state again) and the hub sends every member the events it sealed (``revealed``).

Nothing here is done for a campaign without a pending private roll: the public table does not
exist, :func:`hidden_for` is empty, and frames go out as they always did.
"""

from __future__ import annotations

import copy
from collections.abc import Collection

import msgspec

from poolhall.events.base import Recorded, Visibility
from poolhall.events.codec import encode
from poolhall.events.core import PrivateRoll
from poolhall.events.fair import FairStamp
from poolhall.events.log import ServerLog, to_recorded
from poolhall.events.messages import OutgoingEventFrame
from poolhall.projections.campaign import CampaignState, evolve, fold_sealed
from poolhall.projections.privacy import (
    OPENERS,
    PrivateSubject,
    hidden_seqs,
    sees,
    subject_key,
)
from poolhall.server.stored_snapshots import Folded, SnapshotStore, fold_from

__all__ = ["PublicTable", "fold_public", "hidden_for", "role_of", "sealed_event",
           "sealed_frame", "self_rollers", "subject_at", "view_about"]


class _FrameHead(msgspec.Struct):
    """The fields of an event frame a sealed copy keeps."""

    seq: int
    at: str
    actor: str
    command: str


_HEAD = msgspec.json.Decoder(_FrameHead)


class _StampOf(msgspec.Struct):
    """The fair stamp of an event, if it drew dice."""

    fair: FairStamp | None = None


class _FrameStamp(msgspec.Struct):
    """The fair stamp of a frame's event."""

    event: _StampOf


_STAMP = msgspec.json.Decoder(_FrameStamp)
_EVENT_STAMP = msgspec.json.Decoder(_StampOf)


def sealed_event(payload: bytes | str, visibility: Visibility) -> bytes:
    """The ``private_roll`` a member who may not see the event ``payload`` (its JSON) gets in
    its place: its visibility, and a roll's fair stamp (:func:`sealed_frame`)."""
    return encode(PrivateRoll(visibility=visibility, fair=_EVENT_STAMP.decode(payload).fair))


class _About(msgspec.Struct):
    about: str = ""


_ABOUT = msgspec.json.Decoder(_About)


def sealed_frame(frame: bytes, visibility: Visibility) -> bytes:
    """The frame of a private event as a member who may not see it receives it: the seq, time,
    actor and command id, a ``private_roll`` event, and no hash (a hash of a small payload
    could be searched for the roll that gives it).

    A roll keeps its fair stamp (epoch, nonce, the client seeds' digest: none of it says
    anything of the dice): without it, the member's verifier saw the epoch's next roll skip a
    nonce, and took an honest table for a forged one."""
    head = _HEAD.decode(frame)
    fair = _STAMP.decode(frame).event.fair
    return encode(OutgoingEventFrame(
        seq=head.seq, at=head.at, actor=head.actor, command=head.command,
        event=msgspec.Raw(encode(PrivateRoll(visibility=visibility, fair=fair))), hash=""))


def view_about(frame: bytes) -> str:
    """The ``about`` of an encoded ``view`` message (what it is the view of)."""
    return _ABOUT.decode(frame).about


def role_of(state: CampaignState, member: str | None) -> str:
    """A connection's role as privacy reads it (``None``: the admin, who acts as GM)."""
    if member is None:
        return "admin"
    found = state.members.get(member)
    return found.role if found is not None else "spectator"


def hidden_for(state: CampaignState, member: str | None) -> dict[int, Visibility]:
    """The seqs a member may not see yet, each with the visibility it is sealed under."""
    if not state.private:
        return {}
    return hidden_seqs(state.private, member, role_of(state, member))


def subject_at(state: CampaignState, seq: int) -> PrivateSubject | None:
    """The pending private subject event ``seq`` belongs to, if any."""
    for subject in state.private.values():
        if seq in subject.seqs:
            return subject
    return None


class PublicTable:
    """The tables of the members who may not see every pending private roll.

    ``state`` is the table of those who see none of them (``None`` while nothing is pending:
    everyone sees the hub's own state). ``own`` holds a table for each player with a ``self``
    roll pending: the public table with their own self rolls folded whole, so that the roll a
    player made for their eyes only is on their own table too (a Shadowrun test's card), not
    in their log alone. A GM's table is the hub's state."""

    def __init__(self, state: CampaignState | None = None,
                 own: dict[str, CampaignState] | None = None) -> None:
        self.state = state
        self.own: dict[str, CampaignState] = own if own is not None else {}

    def fold(self, full: CampaignState, recorded: Recorded) -> None:
        """Fold ``recorded`` into the hub's state ``full`` and into every table kept here."""
        event = recorded.event
        visibility = getattr(event, "visibility", "public")
        if type(event) in OPENERS and visibility != "public":
            if self.state is None:
                self.state = copy.deepcopy(full)  # the table just before the first private roll
            roller = recorded.actor
            if visibility == "self" and roller not in self.own and _plays(full, roller):
                self.own[roller] = copy.deepcopy(self.state)  # what they saw until now
        evolve(full, recorded)
        if self.state is None:
            return
        key = subject_key(event, recorded.seq)
        subject = full.private.get(key) if key is not None else None
        _fold_into(self.state, recorded, sealed=subject is not None)
        for member, table in self.own.items():
            _fold_into(table, recorded, sealed=subject is not None
                       and not sees(subject, member, role_of(full, member)))
        if not full.private:  # revealed: everyone sees the hub's state again
            self.state = None
            self.own = {}

    def for_member(self, full: CampaignState, member: str | None) -> CampaignState:
        """The table ``member`` sees."""
        if self.state is None or role_of(full, member) in ("gm", "admin"):
            return full
        return self.own.get(member, self.state) if member is not None else self.state


def _fold_into(table: CampaignState, recorded: Recorded, *, sealed: bool) -> None:
    """Fold one event into a member's table: whole, or as the sealed event they are shown."""
    if sealed:
        fold_sealed(table, recorded)
    else:
        evolve(table, recorded)
    table.head = recorded.seq  # the same head: live events follow from it


def self_rollers(state: CampaignState) -> set[str]:
    """The players with a ``self`` roll pending: each has a table of their own
    (:attr:`PublicTable.own`)."""
    return {subject.roller for subject in state.private.values()
            if subject.visibility == "self" and _plays(state, subject.roller)}


def _plays(state: CampaignState, actor: str) -> bool:
    """Whether ``actor`` is a member who sees less than the GM (not the GM, nor the admin,
    who is no member)."""
    found = state.members.get(actor)
    return found is not None and found.role != "gm"


def fold_public(log: ServerLog, store: SnapshotStore, campaign: str, upto: int,
                hidden: Collection[int], every: int) -> Folded:
    """The table after ``upto`` folded without the ``hidden`` events (its head is ``upto``
    all the same): from the nearest stored snapshot before the first hidden event. Called in a
    worker thread. The head hash is empty when event ``upto`` itself is hidden."""
    first = min((seq for seq in hidden if seq <= upto), default=None)
    if first is None:
        return fold_from(log, store, campaign, upto=upto, every=every)
    state, head_hash = fold_from(log, store, campaign, upto=first - 1, every=every)
    last = state.head
    for row in log.rows(campaign, first - 1, upto):
        head_hash = "" if row.seq in hidden else row.hash
        if row.seq not in hidden:
            evolve(state, to_recorded(row))
        else:
            fold_sealed(state, to_recorded(row))
        last = row.seq
    state.head = last  # a hidden last event still moves the head: live events follow it
    return Folded(state, head_hash)
