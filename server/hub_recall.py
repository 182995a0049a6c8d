"""What the hub's core asks for, carried out: frames published, answers sent, and a retried
command's recorded answer read back from the log, the one read a hub makes for a single command
(:class:`poolhall.server.hub_core.Recall`).

The batch logic (:mod:`poolhall.server.hub_core`) knows a command id was carried out before and by
whom, but not an invite's answer: tokens are random and the log keeps only their hashes, so the
token an invite issued comes back only unsealed from the log (:mod:`poolhall.server.sealed_tokens`).
That read is I/O, so it is the shell's (:func:`carry_out`), made here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

from poolhall.events import core
from poolhall.events.log import CommandRecord, ServerLog
from poolhall.events.messages import Ack, ErrorReply
from poolhall.server.hub_core import Publish, Recall, Reply
from poolhall.server.hub_work import reply, unavailable
from poolhall.server.sealed_tokens import recall_issued

__all__ = ["carry_out", "replayed_answer"]

logger = logging.getLogger("poolhall.server.hub")
"""The hub's logger: these lines are the hub's, as operators and their filters know them."""


async def replayed_answer(log: ServerLog, campaign: str, command: Any,
                          record: CommandRecord) -> Ack | ErrorReply:
    """The answer to a command retried after it was carried out: its original ``seqs``,
    and for an invite the member it invited and (given its retry key) their token.

    The read runs off the event loop; retries of invites, being rare, can afford it.
    """
    if not isinstance(command, core.Invite):
        return Ack(id=command.id, seqs=record.seqs)
    try:
        member, token = await asyncio.to_thread(recall_issued, log, campaign, record, command)
    except Exception:
        logger.exception("reading what %s issued in %s failed", command.id, campaign)
        return unavailable(command.id)
    return Ack(id=command.id, seqs=record.seqs, member=member, token=token)


async def carry_out(effects: Sequence[Reply | Publish], publish: Callable[[Publish], None],
                    log: ServerLog, campaign: str) -> None:
    """Send the frames and answers the core asked for, in order. A :class:`Recall` is read
    from the log once, however many commands of the batch it answers."""
    recalled: dict[Recall, Ack | ErrorReply] = {}
    for effect in effects:
        match effect:
            case Publish():
                publish(effect)
            case Reply(work=work, answer=Recall() as recall):
                if recall not in recalled:
                    recalled[recall] = await replayed_answer(log, campaign, recall.command,
                                                             recall.record)
                reply(work, recalled[recall])
            case Reply(work=work, answer=Ack() | ErrorReply() as answer):
                reply(work, answer)
