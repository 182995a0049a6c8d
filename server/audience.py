"""What each member at a table may see while private rolls wait to be revealed.

The hub keeps two tables while a campaign holds a pending private roll
(:mod:`poolhall.projections.privacy`): its own state, which decides every command and which the GM
sees, and the *public* table (:class:`PublicTable`), the same log folded without the pending
private events, which every other member sees (in ``table`` messages, snapshots and
``state_at``). Every event frame goes whole to whoever :func:`~poolhall.projections.privacy.sees`
its subject and sealed (:func:`sealed_frame`) to everyone else; reads of the log (catch-ups,
history pages, a snapshot's recent events) seal the same seqs (:func:`hidden_for`). When the
seed is revealed the public table is dropped (it is the hub's state again) and the hub sends
every member the events it sealed (``revealed``).

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
from poolhall.events.log import ServerLog, to_recorded
from poolhall.events.messages import OutgoingEventFrame
from poolhall.projections.campaign import CampaignState, evolve, fold_sealed
from poolhall.projections.privacy import OPENERS, PrivateSubject, hidden_seqs, subject_key
from poolhall.server.stored_snapshots import Folded, SnapshotStore, fold_from

__all__ = ["PublicTable", "fold_public", "hidden_for", "role_of", "sealed_frame",
           "subject_at", "view_about"]


class _FrameHead(msgspec.Struct):
    """The fields of an event frame a sealed copy keeps."""

    seq: int
    at: str
    actor: str
    command: str


_HEAD = msgspec.json.Decoder(_FrameHead)


class _About(msgspec.Struct):
    about: str = ""


_ABOUT = msgspec.json.Decoder(_About)


def sealed_frame(frame: bytes, visibility: Visibility) -> bytes:
    """The frame of a private event as a member who may not see it receives it: the seq, time,
    actor and command id, a ``private_roll`` event, and no hash (a hash of a small payload
    could be searched for the roll that gives it)."""
    head = _HEAD.decode(frame)
    return encode(OutgoingEventFrame(
        seq=head.seq, at=head.at, actor=head.actor, command=head.command,
        event=msgspec.Raw(encode(PrivateRoll(visibility=visibility))), hash=""))


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
    """The table as the members who may not see the pending private rolls see it.

    ``state`` is ``None`` while nothing is pending (everyone sees the hub's own state)."""

    def __init__(self, state: CampaignState | None = None) -> None:
        self.state = state

    def fold(self, full: CampaignState, recorded: Recorded) -> None:
        """Fold ``recorded`` into the hub's state ``full`` and into the public table."""
        event = recorded.event
        if self.state is None and type(event) in OPENERS \
                and getattr(event, "visibility", "public") != "public":
            self.state = copy.deepcopy(full)  # the table just before the first private roll
        evolve(full, recorded)
        if self.state is None:
            return
        key = subject_key(event, recorded.seq)
        if key is None or key not in full.private:
            evolve(self.state, recorded)
        else:
            fold_sealed(self.state, recorded)
        self.state.head = recorded.seq  # the same head: live events follow from it
        if not full.private:  # revealed: everyone sees the hub's state again
            self.state = None

    def for_member(self, full: CampaignState, member: str | None) -> CampaignState:
        """The table ``member`` sees."""
        if self.state is None or role_of(full, member) in ("gm", "admin"):
            return full
        return self.state


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
