"""The work a hub is given (a member's command, a member's join) and how each is answered.

The server queues these in a hub's inbox (:meth:`poolhall.server.hub.CampaignHub.submit`); each
carries where its answer goes: the sender's subscriber, and a future the connection waits on. They
are apart from :mod:`poolhall.server.hub` because the connection handler builds them and every part
of a hub's flow answers them, while none of that needs the hub: answering is pushing one encoded
frame and resolving the future, or failing a join's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec

from poolhall.events.codec import encode
from poolhall.events.errors import Rejected
from poolhall.events.messages import Ack, ErrorReply, Welcome
from poolhall.projections.campaign import Member
from poolhall.server.subscriber import Subscriber

__all__ = ["CommandWork", "FollowWork", "JoinWork", "refuse_unavailable", "reply", "unavailable"]


class CommandWork(msgspec.Struct, kw_only=True):
    """A command from a member, and where to answer it."""

    command: Any
    member: Member
    subscriber: Subscriber
    answered: Callable[[], None]
    """Called once, when the first answer is pushed (the member's command is no longer in
    flight). A plain call: the future this was (created, given a callback, resolved, its
    callback run a turn of the loop later) cost ~1.5 µs a command, and nothing awaited it."""
    replied: bool = False
    """Whether an answer was pushed already (:func:`reply`)."""


class JoinWork(msgspec.Struct, kw_only=True):
    """A member joining with the last sequence number they already have (and its hash)."""

    member: Member
    since: int
    subscriber: Subscriber
    done: asyncio.Future[Welcome]
    since_hash: str | None = None
    replay: bool = False
    table: bool = False

    @property
    def viewer(self) -> str | None:
        """Whose eyes the join reads with, as privacy names them (``None``: the admin)."""
        return None if self.member.admin else self.member.member


class FollowWork(msgspec.Struct):
    """Another process appended to the campaign (on a shared log): read what it appended,
    fold it, broadcast it, between two batches."""


def unavailable(command_id: str) -> ErrorReply:
    """The answer to a command the log did not store: nothing happened, so a retry is safe."""
    return ErrorReply(id=command_id, code="unavailable", path=None,
                      message="the log could not store this; retry it")


def reply(work: CommandWork, message: Ack | ErrorReply) -> None:
    """Answer a command: the frame goes to its sender in order with the events it caused."""
    work.subscriber.push(encode(message))
    if not work.replied:
        work.replied = True
        work.answered()


def refuse_unavailable(items: list[CommandWork | JoinWork]) -> None:
    """Refuse work while the campaign's log cannot be read (the state is not known)."""
    refusal = Rejected("unavailable", "the campaign's log cannot be read; retry shortly")
    for item in items:
        if isinstance(item, JoinWork):
            if not item.done.done():
                item.done.set_exception(refusal)
        else:
            reply(item, ErrorReply(id=item.command.id, code=refusal.code,
                                   message=refusal.message, path=None))
