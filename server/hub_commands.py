"""One command in a hub's batch: whether it may be decided now, deciding it, answering a retry.

The hub's batch (:meth:`server.hub.CampaignHub._process`) is about order and durability: it
decides each command, appends them all, broadcasts, answers. What one command is answered on
its own — refused while the log fails, refused for a sender no longer a member, refused or
decided by the game system's rules, answered from the log when it is a retry — needs only
the state, the dice and the log it is given, so it is apart from :mod:`server.hub` and
the batch reads as its steps.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from events import core
from events.base import Event
from events.errors import Rejected
from events.log import CommandRecord, PreparedEvent, ServerLog, prepare
from events.messages import Ack, ErrorReply
from projections.campaign import CampaignState, Member
from server import rules
from server.command_index import CommandIndex
from server.fair_seeds import FairSeeds
from server.health import LogHealth
from server.hub_work import CommandWork, reply, unavailable
from server.rules.base import Decision
from server.sealed_tokens import recall_issued

__all__ = ["current_member", "decide", "refuse_while_failing", "replayed_answer"]

logger = logging.getLogger("server.hub")
"""The hub's logger: these lines are the hub's, as operators and their filters know them."""


def refuse_while_failing(batch: list[CommandWork], health: LogHealth | None,
                         commands: CommandIndex) -> list[CommandWork]:
    """While the log fails or the disk is nearly full, refuse new commands undecided;
    return the rest (retries of commands already carried out, answered from the index).

    Deciding would fold events into the state that the log may not take, and each failed
    append costs a reload of the campaign; refused up front, the state never runs ahead
    of the log, and a failure costs one reload however long it lasts.
    """
    refusal = health.refusal() if health is not None else None
    if refusal is None:
        return batch
    rest: list[CommandWork] = []
    for work in batch:
        if work.command.id in commands:
            rest.append(work)
        else:
            reply(work, ErrorReply(id=work.command.id, code="unavailable", path=None,
                                   message=refusal))
    return rest


def decide(work: CommandWork, state: CampaignState, seeds: FairSeeds, at: str,
           new_token: Callable[[], str]) -> tuple[list[Event], tuple[PreparedEvent, ...],
                                                  Decision] | None:
    """Decide one command against the state as it stands; answer it if it is refused.

    The sender's rights are those of their membership now, not when they joined: a member
    removed since then (their connection closing) is refused whatever they send.
    """
    command_id = work.command.id
    member = current_member(state, work.member)
    if member is None:
        reply(work, ErrorReply(id=command_id, code="unauthorized", path=None,
                               message="you are no longer a member of this table"))
        return None
    try:
        ctx = Decision(state, member, None, new_token, seeds.for_state(state, at))
        new_events = rules.decide(ctx, work.command)
        prepared = tuple(prepare(event) for event in new_events)
    except Rejected as refusal:
        if refusal.path is None and refusal.code == "invalid":  # a rule let a limit slip
            logger.warning("%s in %s refused: %s", type(work.command).__name__,
                           state.campaign, refusal.message)
        reply(work, ErrorReply(id=command_id, code=refusal.code,
                               message=refusal.message, path=refusal.path))
        return None
    except Exception:  # a bug in a rule must cost one command, not the campaign
        logger.exception("deciding %s in %s failed", type(work.command).__name__,
                         state.campaign)
        reply(work, ErrorReply(id=command_id, code="internal",
                               message="the server failed to decide this command", path=None))
        return None
    return new_events, prepared, ctx


def current_member(state: CampaignState, member: Member) -> Member | None:
    """The sender's membership as the state has it now; ``None`` once removed."""
    if member.admin:
        return member  # the admin token acts as GM everywhere and is no member
    current = state.members.get(member.member)
    return current if current is not None and current.active else None


async def replayed_answer(log: ServerLog, campaign: str, command: Any,
                          record: CommandRecord) -> Ack | ErrorReply:
    """The answer to a command retried after it was carried out: its original ``seqs``,
    and for an invite the member it invited and (given its retry key) their token.

    Tokens are random and the log keeps only hashes, so an invite's token comes back
    only unsealed from the log (:mod:`server.sealed_tokens`): a read off the event loop,
    which retries, being rare, can afford.
    """
    if not isinstance(command, core.Invite):
        return Ack(id=command.id, seqs=record.seqs)
    try:
        member, token = await asyncio.to_thread(recall_issued, log, campaign, record, command)
    except Exception:
        logger.exception("reading what %s issued in %s failed", command.id, campaign)
        return unavailable(command.id)
    return Ack(id=command.id, seqs=record.seqs, member=member, token=token)
