"""A campaign hub: the one writer of a campaign, serializing its commands and joins.

Work reaches the hub through its inbox. The hub takes whatever has queued and hands the
commands to its sans-I/O core (:class:`poolhall.server.hub_core.HubCore`), which decides each in
order against the state (folding the new events at once, so the next decision sees them) and says
what to append; the hub hands that to the group committer, gives the core the results, and
carries out what the core makes of them: only once the events are durable, each event's frame
(encoded once) to every subscriber (sealed for whoever may not see a pending private roll),
then each sender's answer, then a reload if the state ran ahead of the log. The core decides;
this module only moves work in and frames out (:meth:`CampaignHub._process` reads as those
steps). The views those events changed (exact odds and the like) follow, those that need
computing once the workers are done (:mod:`poolhall.server.hub_views`).

A join is attached between batches (:mod:`poolhall.server.hub_joins`); who is connected and which
frame each is sent is :mod:`poolhall.server.hub_audience`. Older history is read a page at a time on
request, off the event loop and outside the hub's queue; so is the table at any earlier seq
(:mod:`poolhall.server.hub_reads`). Getting the state back to what the log holds, after a failed
append or a race lost to another process, is :mod:`poolhall.server.hub_resync`.

A hub is loaded when its campaign is first used (:mod:`poolhall.server.rebuild`) and holds a bounded
state; every :attr:`~poolhall.server.settings.Settings.snapshot_every` events it stores that state
(:mod:`poolhall.server.stored_snapshots`), encoded on the loop (a copy: the state changes in place)
and written in a worker thread (:mod:`poolhall.server.derived_writes`). The server unloads a hub
nobody is connected to once it has been idle a while (:meth:`CampaignHub.idle_for`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from functools import partial

from poolhall.events.base import Event, Visibility
from poolhall.events.codec import encode
from poolhall.events.errors import Rejected, StoreError
from poolhall.events.log import AppendRequest, AppendResult, ServerLog
from poolhall.events.messages import ErrorReply
from poolhall.projections.campaign import CampaignState
from poolhall.projections.privacy import pending_seqs
from poolhall.server import auth
from poolhall.server.audience import PublicTable, hidden_for
from poolhall.server.command_index import CommandIndex
from poolhall.server.command_lookups import CommandLookups
from poolhall.server.derived_writes import DerivedWrites
from poolhall.server.fair_seeds import FairSeeds
from poolhall.server.health import LogHealth
from poolhall.server.hub_audience import Audience
from poolhall.server.hub_core import RETRY_SECONDS, HubCore, Publish, Reply
from poolhall.server.hub_follow import FollowRequests, release
from poolhall.server.hub_joins import HubJoins
from poolhall.server.hub_reads import HubReads
from poolhall.server.hub_recall import carry_out
from poolhall.server.hub_resync import HubResync
from poolhall.server.hub_views import HubViews
from poolhall.server.hub_work import (
    CommandWork,
    FollowWork,
    JoinWork,
    refuse_unavailable,
    reply,
)
from poolhall.server.page_cache import PageCache
from poolhall.server.snapshots import SnapshotCache
from poolhall.server.stored_snapshots import SnapshotStore
from poolhall.server.subscriber import Subscriber
from poolhall.server.table_feed import TableFeed
from poolhall.server.views import ViewWorkers
from poolhall.server.writer import GroupCommitter

__all__ = ["CampaignHub", "CommandWork", "JoinWork"]  # the work items live in server.hub_work

Queued = CommandWork | JoinWork | FollowWork | None
"""What the inbox holds: work, or ``None`` to stop."""

logger = logging.getLogger(__name__)

MAX_BATCH = 256


class CampaignHub:
    """The single writer and broadcaster of one campaign."""

    def __init__(
        self,
        *,
        state: CampaignState,
        commands: CommandIndex,
        head_hash: str,
        log: ServerLog,
        store: SnapshotStore,
        committer: GroupCommitter,
        lookups: CommandLookups,
        seeds: FairSeeds,
        clock: Callable[[], str],
        workers: ViewWorkers,
        health: LogHealth | None = None,
        view_backlog: int = 64,
        pages: PageCache | None = None,
        new_token: Callable[[], str] = auth.new_token,
        snapshot_every: int = 1000,
        public: PublicTable | None = None,
        presence: Callable[[str, dict[str, int]], None] | None = None,
    ) -> None:
        self._core = HubCore(state=state, commands=commands, head_hash=head_hash,
                             public=public, seeds=seeds.for_state, new_token=new_token)
        """The batch logic and the state it changes, with no I/O
        (:mod:`poolhall.server.hub_core`)."""
        self._log = log
        self.pins = 0
        """Connections joined or joining (and loads waiting for it): never unloaded while any."""
        self._idle_since = time.monotonic()
        self._committer = committer
        self._lookups = lookups
        """Reads a batch's command ids with the other hubs' (:mod:`.command_lookups`)."""
        self._seeds = seeds
        """The epoch seeds each decision rolls with (:mod:`poolhall.server.fair_seeds`)."""
        self._clock = clock
        self._health = health
        """While it says the log is failing, commands are refused before they are decided."""
        self._table = TableFeed(None if presence is None else partial(presence, state.campaign),
                                lambda: self._seeds.waits(self.state))
        """Who watches the ``table`` message and who is connected (``presence``: told this
        process's members whenever they change, on a shared log)."""
        self._inbox: asyncio.Queue[Queued] = asyncio.Queue()
        self._follows = FollowRequests()
        """Whether a follow is queued, and who waits for it (:meth:`catch_up`)."""
        self._task: asyncio.Task[None] | None = None
        self.closing = False
        self._snapshots = SnapshotCache()
        """The last event frames as broadcast and the snapshot of the head, encoded once."""
        self._audience = Audience(self, self._snapshots)
        """Who is connected, and which frame each is sent (:mod:`poolhall.server.hub_audience`)."""
        self._writes = DerivedWrites(self, log=log, store=store, snapshot_every=snapshot_every)
        """Snapshots and catch-up pages, stored after the batches that change the state."""
        self._views = HubViews(self, broadcast=self._audience.broadcast_view, workers=workers,
                               backlog=view_backlog)
        self.view_queue = self._views.queue
        """The views waiting for the odds workers (for operators, tests)."""
        self._pages = pages if pages is not None else PageCache()
        """Encoded catch-up pages, shared with the server's other campaigns."""
        self._joins = HubJoins(self, log=log, pages=self._pages, snapshots=self._snapshots,
                               table=self._table, views=self._views, audience=self._audience)
        """Attaches joins between batches (:mod:`poolhall.server.hub_joins`)."""
        self.reads = HubReads(self, log=log, store=store, views=self._views,
                              snapshot_every=snapshot_every)
        """History pages and past tables, read outside the queue
        (:mod:`poolhall.server.hub_reads`)."""
        self._resync = HubResync(self._core, log=log, store=store, snapshot_every=snapshot_every,
                                 views=self._views, snapshots=self._snapshots,
                                 writes=self._writes, publish=self._audience.publish,
                                 after_change=self._after_change)
        """Back to what the log holds after a failure or a lost race; whether the state is
        stale (:mod:`poolhall.server.hub_resync`)."""

    @property
    def joined_once(self) -> bool:
        """True once a member joined: a hub only ever loaded for joins that were refused (a
        wrong token) is unloaded sooner (see :data:`poolhall.server.app.UNJOINED_GRACE`)."""
        return self._joins.joined_once

    @property
    def subscribers(self) -> set[Subscriber]:
        """The connections joined to this table."""
        return self._audience.subscribers

    @property
    def state(self) -> CampaignState:
        """The campaign's table as the log has it (the GM's: every pending private roll)."""
        return self._core.state

    @property
    def commands(self) -> CommandIndex:
        """The command ids the campaign accepted lately (idempotent retries)."""
        return self._core.commands

    @property
    def head_hash(self) -> str:
        """The chain hash of the head event, kept with the state: welcomes carry it."""
        return self._core.head_hash

    @property
    def public(self) -> PublicTable:
        """The table members who may not see the pending private rolls see (none pending:
        no table of its own), folded beside the state (:mod:`poolhall.server.audience`)."""
        return self._core.public

    @property
    def campaign(self) -> str:
        return self.state.campaign

    @property
    def stale(self) -> bool:
        """Whether the state could not be reloaded from the log (work is refused meanwhile)."""
        return self._resync.stale

    @property
    def conflicts(self) -> int:
        """Batches another process appended to first (a shared log), decided again."""
        return self._resync.conflicts

    @property
    def reloads(self) -> int:
        """Times the state was rebuilt from the log after a failure (for operators, tests)."""
        return self._resync.reloads

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"hub-{self.campaign}")

    def submit(self, work: CommandWork | JoinWork) -> None:
        """Queue work for the hub; refused with ``shutting_down`` once the hub is closing."""
        if self.closing:
            raise Rejected("shutting_down", "the server is shutting down; retry shortly", None)
        self._inbox.put_nowait(work)

    async def catch_up(self) -> None:
        """Fold what other processes appended up to now (a shared log), before going on: a
        join whose token another process issued waits for it. Gives up quietly if the log
        cannot be read (the join is then judged on the state as it is)."""
        waiter = self._follows.wait()
        self.follow(None)
        if not self._follows.queued:  # closing: nothing will follow
            self._follows.forget(waiter)
            return
        await asyncio.wait({waiter}, timeout=10)

    def follow(self, head: int | None) -> None:
        """Another process appended up to ``head`` (``None``: it may have; read the log):
        read the events this hub lacks, fold and broadcast them between two batches."""
        if self.closing or (head is not None and head <= self.state.head):
            return
        if self._follows.ask():
            self._inbox.put_nowait(FollowWork())

    def leave(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)
        if self._table.left(subscriber) and not self.stale:
            self._table.broadcast(self._audience.table_of)

    def present_elsewhere(self, members: frozenset[str]) -> None:
        """The members connected to the campaign through other processes now (a shared log:
        :mod:`poolhall.server.shared_presence`): every watcher sees who came or went."""
        if self._table.elsewhere(members) and not self.stale:
            self._table.broadcast(self._audience.table_of)

    def pin(self) -> None:
        """A connection is joining or joined: keep the hub loaded."""
        self.pins += 1

    def unpin(self) -> None:
        """A connection left (or its join failed)."""
        self.pins -= 1
        self._idle_since = time.monotonic()

    def idle_for(self, now: float) -> float:
        """Seconds since anyone was connected or any work was done; 0 while either is."""
        if self.pins or not self._inbox.empty() or self._views.busy or self._writes.busy:
            return 0.0
        return now - self._idle_since

    async def stop(self) -> None:
        """Finish the work already queued, then stop."""
        self.closing = True
        if self._task is not None and not self._task.done():
            self._inbox.put_nowait(None)
            await self._task
        await self._views.stop()
        await self._writes.wait()

    # ---- the loop ---------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            work = await self._inbox.get()
            if work is None:
                return
            batch = [work]
            while len(batch) < MAX_BATCH and not self._inbox.empty():
                batch.append(self._inbox.get_nowait())  # type: ignore[arg-type]
            if self.stale and (self._log_failing() or not await self._resync.reload()):
                self._refuse_while_stale(batch)
            else:
                await self._run_batch(batch)
            self._idle_since = time.monotonic()
            if batch[-1] is None:
                return

    def _log_failing(self) -> bool:
        """Whether the log is known to fail (``/health``'s 503): a reload would only wait for
        it to fail again (two seconds for a pool connection on PostgreSQL) before the batch is
        refused; the first batch after the log recovers reloads."""
        return self._health is not None and self._health.refusal() is not None

    def _refuse_while_stale(self, batch: Sequence[Queued]) -> None:
        """The log cannot be read: answer the batch ``unavailable`` and release the waiters."""
        release(self._follows.take())  # the reload that ends it reads the log anyway
        refuse_unavailable([item for item in batch if isinstance(item, CommandWork | JoinWork)])

    async def _run_batch(self, batch: Sequence[Queued]) -> None:
        """Commands in order, in runs between the joins and follows that must see their
        results (a join attaches after the commands queued before it are broadcast)."""
        commands: list[CommandWork] = []
        for item in batch:
            if isinstance(item, FollowWork):
                await self._process_safely(commands)
                commands = []
                await self._follow()
            elif isinstance(item, JoinWork):
                await self._process_safely(commands)
                commands = []
                await self._joins.admit(item)
            elif isinstance(item, CommandWork):
                commands.append(item)
        await self._process_safely(commands)

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
                if not work.replied:
                    reply(work, ErrorReply(id=work.command.id, code="internal",
                                           message="the server failed on this command; "
                                           "retry it", path=None))
            await self._resync.reload()

    async def _follow(self) -> None:
        """Read the events other processes appended after our head, fold and broadcast them
        (a shared log); a read that fails is tried again at the next head heard."""
        waiters = self._follows.take()
        try:
            if self.stale:  # the reload reads the log and broadcasts what was missed
                await self._resync.reload()
                return
            pending = set(pending_seqs(self.state.private))
            if await self._resync.read_missed() and pending:
                await self._reveal(pending)
        finally:
            release(waiters)

    def _after_change(self, changed: list[Event]) -> None:
        """What follows new events: views, derived writes, the table, removed members."""
        if changed:
            self._views.state_changed()
            self._writes.after_change()
        if not self.stale:  # views of a state the log lacks would mislead the table
            if changed:
                self._table.broadcast(self._audience.table_of)
            for view in self._views.of_events(changed):
                self._audience.broadcast_view(encode(view))
        self._audience.close_removed(changed)

    async def _process(self, batch: list[CommandWork],
                       retrying_since: float | None = None) -> None:
        """Decide, make durable, broadcast, answer: in that order, for a batch of commands.

        The core (:class:`~poolhall.server.hub_core.HubCore`) decides and says what follows each
        append's result; this carries it out. A command whose append another process beat (a
        shared log) is decided again, once this hub has the events it missed: the sender
        never sees the conflict (for up to :data:`~poolhall.server.hub_core.RETRY_SECONDS` from
        ``retrying_since``, when the commands were first decided)."""
        first_decided = time.monotonic() if retrying_since is None else retrying_since
        pending = set(pending_seqs(self.state.private))
        """Private rolls waiting before the batch: those it reveals are sent whole after it."""
        batch = await self._admit(batch)
        if not batch:
            return
        kept = self._resync.keep()
        decided = self._core.decide(batch, self._clock())
        if decided.replies:  # refusals and retries (seldom: each await costs a coroutine)
            replies = decided.replies
            if decided.unsure:  # a refused id may be an old command's: its retry is answered
                read = await self._lookups.fill(self.commands, self.campaign, [*decided.unsure])
                replies = self._core.answer_recorded(replies, decided.unsure, read=read)
            await self._carry_out(replies)
        settled = self._core.settle(decided, await self._append(decided.requests),
                                    time.monotonic() - first_decided < RETRY_SECONDS)
        await self._carry_out(settled.effects)
        if settled.reload is not None:
            await self._resync.after_settled(settled, kept)
        self._after_change(settled.changed)
        if pending:
            await self._reveal(pending)
        if settled.again:
            await self._decide_again(settled.again, first_decided)

    async def _admit(self, batch: list[CommandWork]) -> list[CommandWork]:
        """The commands of ``batch`` that may be decided now, the epoch's seeds kept for
        them; the others are answered. Nothing is decided on a state the log lacks."""
        if not batch:
            return batch
        if self.stale:  # an earlier part of this batch left the state unknown
            refuse_unavailable(list(batch))
            return []
        refusal = self._health.refusal() if self._health is not None else None
        # while the log fails only retries are answered: read which are
        if refusal is not None and not await self._lookups.fill(
                self.commands, self.campaign, [work.command.id for work in batch]):
            refuse_unavailable(list(batch))
            return []
        batch, refused = self._core.admit(batch, refusal)
        if refused:
            await self._carry_out(refused)
        if batch and not self._seeds.ready(self.state.fair.epoch):
            try:  # stored off the loop, then used
                await asyncio.to_thread(self._seeds.prepare, self.state.fair.epoch)
            except StoreError as error:
                logger.error("keeping the seeds of %s failed: %s", self.campaign, error)
                refuse_unavailable(list(batch))
                return []
        return batch

    async def _append(self, requests: list[AppendRequest]) -> list[AppendResult]:
        """Append through the group committer: one result per request."""
        try:
            return await self._committer.append(requests) if requests else []
        except StoreError as error:  # the writer is gone (shutting down): nothing was stored
            return [error] * len(requests)

    async def _carry_out(self, effects: Sequence[Reply | Publish]) -> None:
        await carry_out(effects, self._audience.publish, self._log, self.campaign)

    async def _decide_again(self, again: list[CommandWork], first_decided: float) -> None:
        """Decide again the commands another process beat, on the state reloaded."""
        if self.stale:
            refuse_unavailable(list(again))
        else:
            await self._process(again, first_decided)

    def hidden_from(self, member: str | None) -> dict[int, Visibility]:
        """The events ``member`` (``None``: the admin) may not see yet, and how each is
        sealed: for the reads a connection makes outside the hub's queue."""
        return hidden_for(self.state, member)

    async def _reveal(self, pending: set[int]) -> None:
        if not self.stale:
            await self._audience.reveal(pending, self._log, self.campaign)
