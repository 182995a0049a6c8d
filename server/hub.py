"""A campaign hub: the one writer of a campaign, serializing its commands and joins.

Work reaches the hub through its inbox. The hub takes whatever has queued, decides each command
in order against its state (folding the new events at once, so the next decision sees them),
hands the whole batch to the group committer, and only when it is durable broadcasts each event
(encoded once) to every subscriber, then answers each sender. A join is handled between
batches: a subscriber within :data:`RESUME_LIMIT` events of the head gets the events it missed
from the log, one further behind (or joining afresh) a snapshot of the table at the head; then
live events, so there is never a gap nor a duplicate. Older history is read a page at a time on
request (:meth:`CampaignHub.history_page`), off the event loop and outside the hub's queue;
so is the table at any earlier seq (:meth:`CampaignHub.state_at`).

A hub is loaded when its campaign is first used (:mod:`server.rebuild`) and holds a bounded
state; every :attr:`~server.settings.Settings.snapshot_every` events it stores that state
(:mod:`server.stored_snapshots`), encoded on the loop (a copy: the state changes in place) and
written in a worker thread. The server unloads a hub nobody is connected to once it has been
idle a while (:meth:`CampaignHub.idle_for`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import msgspec

from events import core
from events.base import Event, Recorded
from events.codec import encode
from events.errors import Rejected, StoreError
from events.framed_pages import STORED_PAGE, FramePage
from events.log import (
    Appended,
    AppendRequest,
    CommandRecord,
    EventLog,
    PreparedEvent,
    prepare,
)
from events.messages import (
    Ack,
    ErrorReply,
    History,
    OutgoingEventFrame,
    StateAt,
    View,
    ViewsAt,
    Welcome,
)
from projections.campaign import CampaignState, Member, evolve
from server import auth, rules
from server.command_index import CommandIndex
from server.divergence import check_history, needs_lookup
from server.health import LogHealth
from server.page_cache import PageCache
from server.rebuild import load_hub_state
from server.rules.base import Decision
from server.sealed_tokens import recall_issued, sealed_for
from server.snapshots import SnapshotCache, history_page, snapshot_at
from server.stored_snapshots import SnapshotStore, encode_state
from server.subscriber import Subscriber
from server.table_feed import TableFeed
from server.views import Job, NotComputed, ViewQueue, ViewResult, ViewSpec, ViewWorkers
from server.writer import GroupCommitter

__all__ = ["CATCH_UP_PAGE", "CATCH_UP_READ", "CATCH_UP_READS_AHEAD", "PAGES_EVERY", "RESUME_LIMIT",
           "CampaignHub", "CommandWork", "JoinWork"]

logger = logging.getLogger(__name__)

CATCH_UP_PAGE = STORED_PAGE
"""Events written per step of a catch-up: about 60 KB, the most a joining client holds in its
socket's buffer while it reads; the size of a stored page, so that stored pages are read."""
PAGES_EVERY = 5 * STORED_PAGE
"""Events appended between two stores of a campaign's complete pages: one short write
transaction per 1,000 events, as often as a snapshot's."""
CATCH_UP_READ = 2_000
"""Events read from the log and encoded per trip to a worker thread (about 650 KB, shared
through the page cache). Pages of 2,000 encoded one by one on the event loop once cost an
unrelated table 413 ms of p99 under a storm of since=0 joins; here they are encoded off it."""
CATCH_UP_READS_AHEAD = 2
"""Reads of one catch-up under way ahead of the one whose pages are being written: SQLite
builds the frames (about 2 µs of CPU an event) with the interpreter lock released, so two
reads keep both cores of a small machine busy while the event loop writes."""
MAX_BATCH = 256
RESUME_LIMIT = 1_000
"""Most events a resuming client is sent to catch up; one further behind gets a snapshot of
the table (one message, whatever the log's length) unless it asks for a replay."""


class CommandWork(msgspec.Struct, kw_only=True):
    """A command from a member, and where to answer it."""

    command: Any
    member: Member
    subscriber: Subscriber
    done: asyncio.Future[None]


class JoinWork(msgspec.Struct, kw_only=True):
    """A member joining with the last sequence number they already have (and its hash)."""

    member: Member
    since: int
    subscriber: Subscriber
    done: asyncio.Future[Welcome]
    since_hash: str | None = None
    replay: bool = False
    table: bool = False


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
        head_hash: str,
        log: EventLog,
        store: SnapshotStore,
        committer: GroupCommitter,
        rng: random.Random,
        clock: Callable[[], str],
        workers: ViewWorkers,
        health: LogHealth | None = None,
        view_backlog: int = 64,
        pages: PageCache | None = None,
        new_token: Callable[[], str] = auth.new_token,
        snapshot_every: int = 1000,
    ) -> None:
        self.state = state
        self.commands = commands
        self.head_hash = head_hash
        """The chain hash of the head event, kept with the state: welcomes carry it."""
        self._log = log
        self._store = store
        self._every = snapshot_every
        self._stored_at = state.head
        """The head when the state was last stored (or loaded: the load stored as it folded)."""
        self._saving: set[asyncio.Task[None]] = set()
        self._paged_upto: int | None = None
        """Where the campaign's stored pages end (None: not asked of the log yet)."""
        self._paging = False
        self.pins = 0
        """Connections joined or joining (and loads waiting for it): never unloaded while any."""
        self._idle_since = time.monotonic()
        self.joined_once = False
        """True once a member joined: a hub only ever loaded for joins that were refused (a
        wrong token) is unloaded sooner (see :data:`server.app.UNJOINED_GRACE`)."""
        self._committer = committer
        self._rng = rng
        self._clock = clock
        self._new_token = new_token
        self._health = health
        """While it says the log is failing, commands are refused before they are decided."""
        self.subscribers: set[Subscriber] = set()
        self._table = TableFeed()
        """Who watches the ``table`` message and who is connected."""
        self._inbox: asyncio.Queue[CommandWork | JoinWork | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.closing = False
        self._stale = False
        self._diverged_since_logged = 0
        self._diverged_logged_at: float | None = None
        """True while the state could not be reloaded from the log: work is refused."""
        self.reloads = 0
        """Times the state was rebuilt from the log after a failure (for operators, tests)."""
        self._standing: list[ViewSpec] | None = None
        """The standing views of the state as it is, declared at the first join after a change
        (a reconnecting table joins at once); their odds come from the cache or the workers."""
        self._standing_frames: list[bytes] | None = None
        """Those views encoded, once every one of them is complete."""
        self._workers = workers
        self.view_queue = ViewQueue(workers.cache, in_flight=workers.workers, backlog=view_backlog)
        self._computing: set[asyncio.Task[None]] = set()
        self._snapshots = SnapshotCache()
        self._pages = pages if pages is not None else PageCache()
        """Encoded catch-up pages, shared with the server's other campaigns."""
        """The last event frames as broadcast and the snapshot of the head, encoded once."""

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
        if self._table.left(subscriber) and not self._stale:
            self._table.broadcast(self.state)

    def pin(self) -> None:
        """A connection is joining or joined: keep the hub loaded."""
        self.pins += 1

    def unpin(self) -> None:
        """A connection left (or its join failed)."""
        self.pins -= 1
        self._idle_since = time.monotonic()

    def idle_for(self, now: float) -> float:
        """Seconds since anyone was connected or any work was done; 0 while either is."""
        if self.pins or not self._inbox.empty() or self._computing or self._saving:
            return 0.0
        return now - self._idle_since

    async def stop(self) -> None:
        """Finish the work already queued, then stop."""
        self.closing = True
        if self._task is not None and not self._task.done():
            self._inbox.put_nowait(None)
            await self._task
        for task in tuple(self._computing):  # odds owed to a table that is going away
            task.cancel()
        await asyncio.gather(*self._computing, return_exceptions=True)
        await asyncio.gather(*self._saving, return_exceptions=True)

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
                        if await self._history_holds(item) and await self._recent_ready(item):
                            self._attach(item)
                    elif isinstance(item, CommandWork):
                        commands.append(item)
                await self._process_safely(commands)
            self._idle_since = time.monotonic()
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
        self.reloads += 1
        try:
            self.state, self.commands, self.head_hash = await asyncio.to_thread(
                load_hub_state, self._log, self._store, self.campaign, self._every)
        except Exception:
            logger.exception("reloading %s from the log failed; refusing its work until a "
                             "reload succeeds", self.campaign)
            self._stale = True
            return False
        self._stale = False
        self._standing = None
        self._snapshots.clear()
        self._stored_at = self.state.head
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

    def _refuse_while_failing(self, batch: list[CommandWork]) -> list[CommandWork]:
        """While the log fails or the disk is nearly full, refuse new commands undecided;
        return the rest (retries of commands already carried out, answered from the index).

        Deciding would fold events into the state that the log may not take, and each failed
        append costs a reload of the campaign; refused up front, the state never runs ahead
        of the log, and a failure costs one reload however long it lasts.
        """
        refusal = self._health.refusal() if self._health is not None else None
        if refusal is None:
            return batch
        rest: list[CommandWork] = []
        for work in batch:
            if work.command.id in self.commands:
                rest.append(work)
            else:
                self._reply(work, ErrorReply(id=work.command.id, code="unavailable", path=None,
                                             message=refusal))
        return rest

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
        try:  # old command ids are in the log, not in memory: one read for the batch
            self.commands.look_up([work.command.id for work in batch])
        except Exception:
            logger.exception("reading the command ids of %s failed", self.campaign)
            self._refuse_unavailable(list(batch))
            return
        batch = self._refuse_while_failing(batch)
        if not batch:
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
                    self._reply(work, await self._replayed_answer(work.command, earlier))
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
                sealed_token=sealed_for(work.command, self.campaign, ctx.issued_token),
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
            if not isinstance(seqs, Appended):  # not stored; nor any later one (heads chain)
                failed = True
                answers[command_id] = _unavailable(command_id)
                self._reply(work, answers[command_id])
                continue
            if seqs:
                self.commands.add(request.command_id, CommandRecord(
                    request.actor, seqs[0], seqs[-1]))
                self.head_hash = seqs.hashes[-1]
            for seq, digest, stored in zip(seqs, seqs.hashes, request.events, strict=True):
                frame = encode(OutgoingEventFrame(
                    seq=seq, at=request.at, actor=request.actor, command=request.command_id,
                    event=msgspec.Raw(stored.payload), hash=digest))
                self._snapshots.add(frame)
                self._broadcast(frame)
            changed.extend(new_events)
            answers[command_id] = Ack(id=command_id, seqs=seqs, member=ctx.issued_member,
                                      token=ctx.issued_token)
            self._reply(work, answers[command_id])
        if failed:  # the state ran ahead of the log: make it what is durable again (once:
            # the log now reports failing, so later commands are refused before deciding)
            logger.error("an append failed in %s; reloading its state from the log",
                         self.campaign)
            await self._reload()
        if changed:
            self._standing = None
            self._store_if_due()
            self._store_pages_if_due()
        if not self._stale:  # views of a state the log lacks would mislead the table
            if changed:
                self._table.broadcast(self.state)
            for view in self._views(changed):
                self._broadcast(encode(view))
        self._close_removed(changed)

    def _store_if_due(self) -> None:
        """Store the state once :attr:`_every` events have passed since it was last stored:
        encoded here (a copy, ~0.1 ms), written in a worker thread. Only a state the log
        holds is stored (a failed append reloads first, and a stale hub stores nothing)."""
        head = self.state.head
        if self._stale or self._every <= 0 or head - self._stored_at < self._every:
            return
        self._stored_at = head
        row = (head, self.head_hash, encode_state(self.state))

        async def save() -> None:
            try:
                await asyncio.to_thread(self._store.save, self.campaign, [row])
            except Exception:  # derived data: the next load folds a little longer
                logger.exception("storing the snapshot of %s at #%d failed", self.campaign,
                                 head)

        task = asyncio.create_task(save(), name=f"snapshot-{self.campaign}-{head}")
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    def _store_pages_if_due(self) -> None:
        """Store the complete pages of the catch-up once :data:`PAGES_EVERY` events have
        passed since they were last stored (built and written in a worker thread, one store
        at a time, looked at again when it ends if events came meanwhile): a catch-up then
        reads each page as one value instead of building its 200 frames (about 3 µs of
        SQLite's CPU an event). A failure is logged and those pages skipped: a catch-up
        builds what is not stored."""
        head = self.state.head
        if self._stale or self._paging or (
                self._paged_upto is not None and head - self._paged_upto < PAGES_EVERY):
            return
        self._paging = True

        async def store() -> None:
            try:
                self._paged_upto = await asyncio.to_thread(
                    self._log.store_frame_pages, self.campaign, self._paged_upto, head)
            except Exception:  # derived data: the catch-ups build these pages
                logger.exception("storing the catch-up pages of %s up to #%d failed",
                                 self.campaign, head)
                self._paged_upto = head // STORED_PAGE * STORED_PAGE
            finally:
                self._paging = False
            if self.state.head != head and not self.closing:  # skipped while this ran
                self._store_pages_if_due()

        task = asyncio.create_task(store(), name=f"pages-{self.campaign}-{head}")
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

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
        ctx = Decision(self.state, member, self._rng, self._new_token)
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

    async def _replayed_answer(self, command: Any, record: CommandRecord) -> Ack | ErrorReply:
        """The answer to a command retried after it was carried out: its original ``seqs``,
        and for an invite the member it invited and (given its retry key) their token.

        Tokens are random and the log keeps only hashes, so an invite's token comes back
        only unsealed from the log (:mod:`server.sealed_tokens`): a read off the event loop,
        which retries, being rare, can afford.
        """
        if not isinstance(command, core.Invite):
            return Ack(id=command.id, seqs=record.seqs)
        try:
            member, token = await asyncio.to_thread(
                recall_issued, self._log, self.campaign, record, command)
        except Exception:
            logger.exception("reading what %s issued in %s failed", command.id, self.campaign)
            return _unavailable(command.id)
        return Ack(id=command.id, seqs=record.seqs, member=member, token=token)

    def _views(self, changed: list[Event]) -> list[View]:
        """The views these events changed that can be sent now; the others are computed off
        the loop and broadcast when they arrive (:meth:`_compute`)."""
        if not changed:
            return []
        system = rules.rules(self.state.system)
        ready = [view for spec in self._derived(lambda state: system.views(state, changed))
                 if (view := self.view_queue.offer(spec)) is not None]
        self._start_computing()
        return ready

    def _start_computing(self) -> None:
        for key, job in self.view_queue.take():
            task = asyncio.create_task(self._compute(key, job),
                                       name=f"view-{self.campaign}-{key}")
            self._computing.add(task)
            task.add_done_callback(self._computing.discard)

    async def _compute(self, key: str, job: Job) -> None:
        """Compute one view in a worker; broadcast it if it is still the current one."""
        try:
            outcome: ViewResult | NotComputed = await self._workers.compute(job)
        except NotComputed as error:
            outcome = error
        except Exception:  # derived data must never take the table down
            logger.exception("computing %s of %s failed", key, self.campaign)
            outcome = NotComputed("the computation failed")
        view = self.view_queue.finished(key, job, outcome)
        if view is not None and not self._stale:
            self._broadcast(encode(view))
        self._start_computing()

    def _derived(self, views: Callable[[CampaignState], list[ViewSpec]]) -> list[ViewSpec]:
        """Call one of the game system's view functions; a failure costs only the views."""
        return self._derived_of(self.state, views)

    def _derived_of(self, state: CampaignState,
                    views: Callable[[CampaignState], list[ViewSpec]]) -> list[ViewSpec]:
        """One of the game system's view functions of ``state``; a failure costs only them."""
        try:
            return list(views(state))
        except Exception:  # derived data must never take the table down
            logger.exception("the views of %s failed", self.campaign)
            return []

    def _broadcast(self, frame: bytes) -> None:
        for subscriber in tuple(self.subscribers):
            subscriber.push(frame)
            if subscriber.dropped:  # it fell behind: it resumes from the log when it returns
                self.subscribers.discard(subscriber)

    # ---- joining ----------------------------------------------------------------------

    async def _history_holds(self, join: JoinWork) -> bool:
        """Refuse with ``diverged`` a join whose copy is not this log's history.

        The hash at ``since`` is the head's (in memory) or one indexed read, made off the
        event loop; the hub waits for it between batches, so the head does not move meanwhile.
        """
        if self._stale:
            return True  # refused as unavailable by _attach: the head is not known
        head, found = self.state.head, None
        if needs_lookup(join.since, join.since_hash, head):
            try:
                found = (await asyncio.to_thread(
                    self._log.hashes_at, {self.campaign: join.since})).get(self.campaign)
            except Exception:
                logger.exception("reading the hash of %s #%d failed", self.campaign, join.since)
                self._refuse_unavailable([join])
                return False
        refusal = check_history(since=join.since, since_hash=join.since_hash, head=head,
                                head_hash=self.head_hash, hash_at_since=found)
        if refusal is not None:
            self._log_diverged(refusal.message)
            if not join.done.done():
                join.done.set_exception(refusal)
            return False
        return not join.done.done()  # a join given up while we read is not attached

    def _log_diverged(self, message: str) -> None:
        """One line a minute at most: a member may join with a ``since`` past the head as
        often as the join rate allows, and a line per join filled the log (69 in 10 s)."""
        self._diverged_since_logged += 1
        now = time.monotonic()
        if self._diverged_logged_at is not None and now - self._diverged_logged_at < 60:
            return
        held = self._diverged_since_logged - 1
        logger.warning("join to %s refused: %s%s", self.campaign, message,
                       f" ({held} more such joins since the last line)" if held else "")
        self._diverged_logged_at, self._diverged_since_logged = now, 0

    def _attach(self, join: JoinWork) -> None:
        head = self.state.head
        welcome = Welcome(role=join.member.role, member=join.member.member,
                          campaign=self.campaign, name=self.state.name,
                          system=self.state.system, head=head, head_hash=self.head_hash)
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
        if self._wants_snapshot(join):
            subscriber.push(self._snapshots.frame(self.state, self.head_hash))
        elif join.since < head:
            self._schedule_catch_up(subscriber, join.since, head)
        if self._table.joined(subscriber, subscriber.member, join.table):
            self._table.broadcast(self.state)  # someone came: every watcher sees them
        else:
            self._table.send_to(subscriber, self.state)
        for frame in self._standing_now():  # after the catch-up: the views are of the head
            subscriber.push(frame)
        self._start_computing()
        self.joined_once = True
        join.done.set_result(welcome)

    def _wants_snapshot(self, join: JoinWork) -> bool:
        """A join afresh or from further than :data:`RESUME_LIMIT` gets a snapshot, unless it
        asked for a replay; one within the limit gets exactly the events it missed."""
        head = self.state.head
        if join.replay or join.since >= head:
            return False
        return join.since == 0 or head - join.since > RESUME_LIMIT

    async def _recent_ready(self, join: JoinWork) -> bool:
        """Make sure the last events are at hand for a snapshot (read once after a start or a
        reload, off the event loop, while the head cannot move); refuse the join if the log
        cannot be read."""
        if self._stale or not self._wants_snapshot(join):
            return True
        if self._snapshots.needs_reading(self.state.head):
            try:
                await self._snapshots.read(self._log, self.campaign, self.state.head)
            except Exception:
                logger.exception("reading the last events of %s failed", self.campaign)
                self._refuse_unavailable([join])
                return False
        return not join.done.done()

    async def history_page(self, request: History) -> bytes:
        """The encoded page of events before ``request.before``: history never waits in the
        hub's queue nor holds the event loop. Called by the connection that asked, once
        rate-limited."""
        return await history_page(self._log, self.campaign, self.state.head, request)

    async def state_at(self, request: StateAt) -> tuple[bytes, CampaignState]:
        """The encoded snapshot of the table after event ``request.seq`` (the nearest stored
        snapshot and the events after it, read and folded in a worker thread), and that state:
        like history, outside the hub's queue. Raises :class:`Rejected` for a seq past the
        log's head."""
        return await asyncio.to_thread(snapshot_at, self._log, self._store, self.campaign,
                                       request, self._every)

    async def views_at(self, request: StateAt, state: CampaignState) -> bytes:
        """The encoded ``views_at`` answer: the standing views of ``state`` (a past table),
        their odds from the result cache or the workers (never the event loop), each within
        the workers' time budget; a view whose odds were not computed says why."""
        specs = self._derived_of(state, rules.rules(state.system).standing_views)
        views: list[View] = []
        for spec in specs:
            if isinstance(spec, View):
                views.append(spec)
                continue
            result = self.view_queue.cache.get(spec.job)
            if result is None:
                try:
                    result = await self._workers.compute(spec.job)
                except NotComputed as why:
                    views.append(spec.not_computed(str(why)))
                    continue
                self.view_queue.cache.put(spec.job, result)
            views.append(spec.complete(result))
        return encode(ViewsAt(id=request.id, seq=request.seq, views=views))

    def _standing_now(self) -> list[bytes]:
        """The standing views known now; the others are computed and broadcast when ready."""
        if self._standing_frames is not None and self._standing is not None:
            return self._standing_frames
        if self._standing is None:  # the state changed: declare them again
            system = rules.rules(self.state.system)
            self._standing, self._standing_frames = self._derived(system.standing_views), None
        views = [self.view_queue.offer(spec) for spec in self._standing]
        frames = [encode(view) for view in views if view is not None]
        if len(frames) == len(views):
            self._standing_frames = frames
        return frames

    def _schedule_catch_up(self, subscriber: Subscriber, since: int, head: int) -> None:
        """Replay ``(since, head]`` from the log ahead of the live frames already queued.

        The log is read :data:`CATCH_UP_READ` events per trip to a worker thread (a trip per
        page of 200 capped a catch-up near 100,000 events/s), :data:`CATCH_UP_READS_AHEAD`
        reads ahead of the pages being written, so reading the log (in SQLite, which releases
        the interpreter lock) and writing the socket overlap on every core; each read is
        cached and shared by every catch-up that needs it. A read comes as pages of framed
        events (:class:`~events.framed_pages.FramePage`), each written as it is.
        """

        def read(after: int, upto: int) -> asyncio.Future[list[FramePage]]:
            return asyncio.ensure_future(self._pages.get(
                (self.campaign, after, upto),
                functools.partial(self._log.frame_pages, self.campaign, after, upto,
                                  CATCH_UP_PAGE)))

        async def catch_up(target: Subscriber) -> None:
            reads: deque[tuple[int, int, asyncio.Future[list[FramePage]]]] = deque()
            ahead = since  # where the next read starts
            try:
                while True:
                    while ahead < head and len(reads) <= CATCH_UP_READS_AHEAD:
                        # Reads on multiples of the read size, so that every catch-up shares
                        # them.
                        upto = min((ahead // CATCH_UP_READ + 1) * CATCH_UP_READ, head)
                        reads.append((ahead, upto, read(ahead, upto)))
                        ahead = upto
                    if not reads:
                        return
                    after, upto, reading = reads.popleft()
                    for page in await reading:
                        if not await target.send_page(page.frames):
                            return  # too slow: dropped, it resumes from what it got
                        after += page.events
                    if after < upto:  # the log holds less than the head: never skip
                        raise StoreError(f"{self.campaign} has no events after #{after}")
            finally:
                for _, _, reading in reads:
                    reading.cancel()  # a read ahead no one will take (it still fills the cache)
                    if reading.done() and not reading.cancelled():
                        reading.exception()  # retrieved: the failure was raised or is moot

        subscriber.push(catch_up)
