"""A campaign hub: the one writer of a campaign, serializing its commands and joins.

Work reaches the hub through its inbox. The hub takes whatever has queued, decides each command
in order against its state (folding the new events at once, so the next decision sees them),
hands the whole batch to the group committer, and only when it is durable broadcasts each event
(encoded once) to every subscriber, then answers each sender. A join is handled between
batches: the new subscriber gets everything up to the head from the log, then live events, so
there is never a gap nor a duplicate.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any

import msgspec

from events import core
from events.base import Event, Recorded
from events.codec import encode
from events.errors import Rejected, StoreError
from events.log import AppendRequest, CommandRecord, EventLog, PreparedEvent, prepare
from events.messages import Ack, ErrorReply, OutgoingEventFrame, View, Welcome
from projections.campaign import CampaignState, Member, evolve
from server import rules
from server.auth import hash_token, tokens_match
from server.rebuild import CommandIndex, load_hub_state
from server.rules.base import Decision
from server.subscriber import Subscriber
from server.writer import GroupCommitter

__all__ = ["CATCH_UP_PAGE", "CampaignHub", "CommandWork", "JoinWork"]

logger = logging.getLogger(__name__)

CATCH_UP_PAGE = 2000
MAX_BATCH = 256


class CommandWork(msgspec.Struct, kw_only=True):
    """A command from a member, and where to answer it."""

    command: Any
    member: Member
    subscriber: Subscriber
    done: asyncio.Future[None]


class JoinWork(msgspec.Struct, kw_only=True):
    """A member joining with the last sequence number they already have."""

    member: Member
    since: int
    subscriber: Subscriber
    done: asyncio.Future[Welcome]


def _unavailable(command_id: str) -> ErrorReply:
    return ErrorReply(id=command_id, code="unavailable", path=None,
                      message="the log could not store this; retry it")


class CampaignHub:
    """The single writer and broadcaster of one campaign."""

    def __init__(
        self,
        *,
        state: CampaignState,
        commands: CommandIndex,
        log: EventLog,
        committer: GroupCommitter,
        rng: random.Random,
        clock: Callable[[], str],
        token_for: Callable[[str, str], str],
    ) -> None:
        self.state = state
        self.commands = commands
        self._log = log
        self._committer = committer
        self._rng = rng
        self._clock = clock
        self._token_for = token_for
        self.subscribers: set[Subscriber] = set()
        self._inbox: asyncio.Queue[CommandWork | JoinWork | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.closing = False
        self._stale = False
        """True while the state could not be reloaded from the log: work is refused."""
        self._standing: list[bytes] | None = None
        """The encoded standing views of the state as it is, computed at the first join after
        a change (odds of big pools take milliseconds; a reconnecting table joins at once)."""

    @property
    def campaign(self) -> str:
        return self.state.campaign

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"hub-{self.campaign}")

    def submit(self, work: CommandWork | JoinWork) -> None:
        """Queue work for the hub; refused with ``shutting_down`` once the hub is closing."""
        if self.closing:
            raise Rejected("shutting_down", "the server is shutting down; retry shortly", None)
        self._inbox.put_nowait(work)

    def leave(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)

    async def stop(self) -> None:
        """Finish the work already queued, then stop."""
        self.closing = True
        if self._task is not None and not self._task.done():
            self._inbox.put_nowait(None)
            await self._task

    # ---- the loop ---------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            work = await self._inbox.get()
            if work is None:
                return
            batch = [work]
            while len(batch) < MAX_BATCH and not self._inbox.empty():
                batch.append(self._inbox.get_nowait())  # type: ignore[arg-type]
            stop = batch[-1] is None
            if self._stale and not await self._reload():
                self._refuse_unavailable([item for item in batch if item is not None])
            else:
                commands: list[CommandWork] = []
                for item in batch:
                    if isinstance(item, JoinWork):
                        await self._process_safely(commands)
                        commands = []
                        self._attach(item)
                    elif isinstance(item, CommandWork):
                        commands.append(item)
                await self._process_safely(commands)
            if stop:
                return

    async def _process_safely(self, batch: list[CommandWork]) -> None:
        """Process a batch; if anything unforeseen breaks, answer it and reload from the log.

        A hub that died would leave its table hanging; a reload costs one read of the log and
        leaves the state exactly what is durable.
        """
        try:
            await self._process(batch)
        except Exception:
            logger.exception("a batch of %s failed; reloading its state from the log",
                             self.campaign)
            for work in batch:
                if not work.done.done():
                    self._reply(work, ErrorReply(id=work.command.id, code="internal",
                                                 message="the server failed on this command; "
                                                 "retry it", path=None))
            await self._reload()

    async def _reload(self) -> bool:
        """Rebuild the state and command index from the log, off the event loop.

        If the log cannot be read either, the hub stays up but stale: it answers every command
        and join with ``unavailable`` and tries the reload again with the next work, so a
        passing disk error never leaves a table hanging nor acts on a state the log lacks.
        """
        try:
            self.state, self.commands = await asyncio.to_thread(
                load_hub_state, self._log, self.campaign)
        except Exception:
            logger.exception("reloading %s from the log failed; refusing its work until a "
                             "reload succeeds", self.campaign)
            self._stale = True
            return False
        self._stale = False
        self._standing = None
        return True

    def _refuse_unavailable(self, items: list[CommandWork | JoinWork]) -> None:
        refusal = Rejected("unavailable", "the campaign's log cannot be read; retry shortly")
        for item in items:
            if isinstance(item, JoinWork):
                if not item.done.done():
                    item.done.set_exception(refusal)
            else:
                self._reply(item, ErrorReply(id=item.command.id, code=refusal.code,
                                             message=refusal.message, path=None))

    def _reply(self, work: CommandWork, message: Ack | ErrorReply) -> None:
        work.subscriber.push(encode(message))
        if not work.done.done():
            work.done.set_result(None)

    async def _process(self, batch: list[CommandWork]) -> None:
        """Decide, make durable, broadcast, answer: in that order, for a batch of commands."""
        if not batch:
            return
        if self._stale:  # an earlier part of this batch left the state unknown
            self._refuse_unavailable(list(batch))
            return
        decided: list[tuple[CommandWork, AppendRequest, list[Event], Decision]] = []
        in_batch: dict[str, str] = {}
        at = self._clock()
        for work in batch:
            command_id = work.command.id
            earlier = self.commands.get(command_id)
            if earlier is not None or command_id in in_batch:
                actor = earlier.actor if earlier else in_batch[command_id]
                if actor != work.member.member:
                    self._reply(work, ErrorReply(id=command_id, code="conflict", path="$.id",
                                                 message="command id already used by another"
                                                 " member"))
                elif earlier is not None:
                    member, token = self._replayed_invitation(command_id)
                    self._reply(work, Ack(id=command_id, seqs=earlier.seqs, member=member,
                                          token=token))
                else:  # the same command twice in one batch: answer it once it is durable
                    decided.append((work, None, [], None))  # type: ignore[arg-type]
                continue
            outcome = self._decide(work)
            if outcome is None:
                continue
            new_events, prepared, ctx = outcome
            head = self.state.head
            request = AppendRequest(
                campaign=self.campaign, expected_head=head, events=prepared,
                actor=work.member.member, command_id=command_id, at=at,
            )
            for offset, event in enumerate(new_events, start=1):
                evolve(self.state, Recorded(seq=head + offset, at=at, actor=work.member.member,
                                            command=command_id, event=event))
            in_batch[command_id] = work.member.member
            decided.append((work, request, new_events, ctx))
        requests = [request for _, request, _, _ in decided if request is not None]
        try:
            results = await self._committer.append(requests) if requests else []
        except StoreError as error:  # the writer is gone (shutting down): nothing was stored
            results = [error] * len(requests)
        by_request = iter(results)
        answers: dict[str, Ack | ErrorReply] = {}
        changed: list[Event] = []
        failed = False
        for work, request, new_events, ctx in decided:
            command_id = work.command.id
            if request is None:  # the same command twice in one batch: the same answer
                self._reply(work, answers.get(command_id) or _unavailable(command_id))
                continue
            seqs = next(by_request)
            if not isinstance(seqs, list):  # not stored; nor is any later one (heads chain)
                failed = True
                answers[command_id] = _unavailable(command_id)
                self._reply(work, answers[command_id])
                continue
            if seqs:
                self.commands[request.command_id] = CommandRecord(
                    request.actor, seqs[0], seqs[-1])
            for seq, stored in zip(seqs, request.events, strict=True):
                self._broadcast(encode(OutgoingEventFrame(
                    seq=seq, at=request.at, actor=request.actor, command=request.command_id,
                    event=msgspec.Raw(stored.payload))))
            changed.extend(new_events)
            answers[command_id] = Ack(id=command_id, seqs=seqs, member=ctx.issued_member,
                                      token=ctx.issued_token)
            self._reply(work, answers[command_id])
        if failed:  # the state ran ahead of the log: make it what is durable again
            logger.error("an append failed in %s; reloading its state from the log",
                         self.campaign)
            await self._reload()
        if changed:
            self._standing = None
        if not self._stale:  # views of a state the log lacks would mislead the table
            for view in self._views(changed):
                self._broadcast(encode(view))
        self._close_removed(changed)

    def _decide(self, work: CommandWork) -> tuple[list[Event], tuple[PreparedEvent, ...],
                                                   Decision] | None:
        """Decide one command against the state as it stands; answer it if it is refused.

        The sender's rights are those of their membership now, not when they joined: a member
        removed since then (their connection closing) is refused whatever they send.
        """
        command_id = work.command.id
        member = self._current_member(work.member)
        if member is None:
            self._reply(work, ErrorReply(id=command_id, code="unauthorized", path=None,
                                         message="you are no longer a member of this table"))
            return None
        ctx = Decision(self.state, member, self._rng,
                       lambda: self._token_for(self.campaign, command_id))
        try:
            new_events = rules.decide(ctx, work.command)
            prepared = tuple(prepare(event) for event in new_events)
        except Rejected as refusal:
            if refusal.path is None and refusal.code == "invalid":  # a rule let a limit slip
                logger.warning("%s in %s refused: %s", type(work.command).__name__,
                               self.campaign, refusal.message)
            self._reply(work, ErrorReply(id=command_id, code=refusal.code,
                                         message=refusal.message, path=refusal.path))
            return None
        except Exception:  # a bug in a rule must cost one command, not the campaign
            logger.exception("deciding %s in %s failed", type(work.command).__name__,
                             self.campaign)
            self._reply(work, ErrorReply(id=command_id, code="internal",
                                         message="the server failed to decide this command",
                                         path=None))
            return None
        return new_events, prepared, ctx

    def _current_member(self, member: Member) -> Member | None:
        """The sender's membership as the state has it now; ``None`` once removed."""
        if member.admin:
            return member  # the admin token acts as GM everywhere and is no member
        current = self.state.members.get(member.member)
        return current if current is not None and current.active else None

    def _close_removed(self, events: list[Event]) -> None:
        """Close the connections of members these events removed, once they have seen it."""
        removed = {event.member for event in events if isinstance(event, core.MemberRemoved)}
        for subscriber in tuple(self.subscribers):
            if subscriber.member in removed:
                self.subscribers.discard(subscriber)
                subscriber.close_after_queued(1008, "removed from the campaign")

    def _replayed_invitation(self, command_id: str) -> tuple[str | None, str | None]:
        """The member and token a retried invite issued the first time, or ``(None, None)``.

        A token derives from the command id and the state keeps every member's token hash,
        so the answer is found in memory, without reading the log on the event loop.
        """
        token = self._token_for(self.campaign, command_id)
        token_hash = hash_token(token)
        for member in self.state.members.values():
            if tokens_match(member.token_hash, token_hash):
                return member.member, token
        return None, None

    def _views(self, changed: list[Event]) -> list[View]:
        """The views these events changed (the odds of a check that was just modified)."""
        return self._derived("views", changed) if changed else []

    def _derived(self, function: str, *arguments: Any) -> list[View]:
        """Call the game system's optional view function; a failure costs only the views."""
        compute = getattr(rules.rules_module(self.state.system), function, None)
        if compute is None:
            return []
        try:
            return list(compute(self.state, *arguments))
        except Exception:  # derived data must never take the table down
            logger.exception("%s of %s failed", function, self.campaign)
            return []

    def _broadcast(self, frame: bytes) -> None:
        for subscriber in tuple(self.subscribers):
            subscriber.push(frame)
            if subscriber.dropped:  # it fell behind: it resumes from the log when it returns
                self.subscribers.discard(subscriber)

    # ---- joining ----------------------------------------------------------------------

    def _attach(self, join: JoinWork) -> None:
        head = self.state.head
        if join.since > head:
            join.done.set_exception(Rejected(
                "invalid", f"since {join.since} is past the campaign's head {head}", "$.since"))
            return
        welcome = Welcome(role=join.member.role, member=join.member.member,
                          campaign=self.campaign, name=self.state.name,
                          system=self.state.system, head=head)
        if self._stale:
            self._refuse_unavailable([join])
            return
        if self._current_member(join.member) is None:  # removed while the join was queued
            join.done.set_exception(Rejected(
                "unauthorized", f"this token does not open {self.campaign!r}", "$.token"))
            return
        subscriber = join.subscriber
        subscriber.member = None if join.member.admin else join.member.member
        self.subscribers.add(subscriber)
        subscriber.push(encode(welcome))
        if join.since < head:
            self._schedule_catch_up(subscriber, join.since, head)
        if self._standing is None:
            self._standing = [encode(view) for view in self._derived("standing_views")]
        for frame in self._standing:  # after the catch-up: the views are of the head
            subscriber.push(frame)
        join.done.set_result(welcome)

    def _schedule_catch_up(self, subscriber: Subscriber, since: int, head: int) -> None:
        """Replay ``(since, head]`` from the log ahead of the live frames already queued."""

        async def catch_up(target: Subscriber) -> None:
            after = since
            while after < head:
                upto = min(after + CATCH_UP_PAGE, head)
                # The generator runs (and reads SQLite) in the worker thread, inside list().
                rows = await asyncio.to_thread(list, self._log.rows(self.campaign, after, upto))
                for row in rows:
                    await target.send_now(encode(OutgoingEventFrame(
                        seq=row.seq, at=row.at, actor=row.actor, command=row.command_id,
                        event=msgspec.Raw(row.payload))))
                after = upto

        subscriber.push(catch_up)
