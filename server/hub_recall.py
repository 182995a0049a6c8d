"""A retried command's recorded answer, read back from the log: the one read a hub makes for
a single command (:class:`server.hub_core.Recall`).

The batch logic (:mod:`server.hub_core`) knows a command id was carried out before and by whom,
but not an invite's answer: tokens are random and the log keeps only their hashes, so the token
an invite issued comes back only unsealed from the log (:mod:`server.sealed_tokens`). That read
is I/O, so it is the shell's (:meth:`server.hub.CampaignHub._carry_out`), made here.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from events import core
from events.log import CommandRecord, ServerLog
from events.messages import Ack, ErrorReply
from server.hub_work import unavailable
from server.sealed_tokens import recall_issued

__all__ = ["replayed_answer"]

logger = logging.getLogger("server.hub")
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
