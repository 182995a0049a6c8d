"""A hub's way back to what the log holds, when its state ran ahead of the log or behind it.

The hub folds each decision into its state at once, before the append; when an append fails,
or another process appended to the campaign first (a shared log: a lost race), that state is
no longer the log's. It comes back by a reload (:meth:`HubResync.reload`: the latest stored
snapshot and the events after it, read off the event loop) or, while batches keep losing
races, more cheaply: the copy kept before the batch (:meth:`HubResync.keep`, for
:data:`CONTENDED_SECONDS` after a race was lost) and the events the other process appended
(:meth:`HubResync.read_missed`, which a follow uses too). A log that cannot be read leaves
the hub stale until a reload succeeds.

It is apart from :mod:`poolhall.server.hub` because it is bookkeeping of its own (whether
the state is stale, when a copy is worth keeping, the counts operators read) that the batch
pipeline need not read: the hub asks it for a copy before deciding, hands it what the core
settled (:meth:`HubResync.after_settled`), and reloads through it after a failure.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from poolhall.events.base import Event
from poolhall.events.errors import StoreError
from poolhall.events.log import ServerLog, StoredRow
from poolhall.server.derived_writes import DerivedWrites
from poolhall.server.health import FailureLog
from poolhall.server.hub_core import HubCore, Kept, Publish, Settled
from poolhall.server.hub_follow import rows_after
from poolhall.server.hub_views import HubViews
from poolhall.server.rebuild import load_hub_state
from poolhall.server.snapshots import SnapshotCache
from poolhall.server.stored_snapshots import SnapshotStore

__all__ = ["CONTENDED_SECONDS", "HubResync"]

logger = logging.getLogger("poolhall.server.hub")
"""The hub's logger: these lines are the hub's, as operators and their filters know them."""

CONTENDED_SECONDS = 10.0
"""Seconds after a batch lost a race to another process (a shared log) during which each
batch keeps a copy of the state first: if it loses too, the hub goes back to the copy and
reads what the other process appended, rather than reloading the campaign."""


class HubResync:
    """Reloads, lost races and missed events of one hub's state, and whether it is stale."""

    def __init__(self, core: HubCore, *, log: ServerLog, store: SnapshotStore,
                 snapshot_every: int, views: HubViews, snapshots: SnapshotCache,
                 writes: DerivedWrites, publish: Callable[[Publish], None],
                 after_change: Callable[[list[Event]], None]) -> None:
        """``publish`` broadcasts a frame of events another process appended;
        ``after_change`` is the hub's, for what follows new events (views, the table)."""
        self._core = core
        self._campaign = core.state.campaign
        self._log = log
        self._store = store
        self._every = snapshot_every
        self._views = views
        self._snapshots = snapshots
        self._writes = writes
        self._publish = publish
        self._after_change = after_change
        self.stale = False
        """True while the state could not be reloaded from the log: work is refused."""
        self.conflicts = 0
        """Batches another process appended to first (a shared log), decided again."""
        self._contended_until = 0.0
        """Until when batches keep a copy of the state to go back to if they lose a race
        (for :data:`CONTENDED_SECONDS` after the last one lost)."""
        self.reloads = 0
        """Times the state was rebuilt from the log after a failure (for operators, tests)."""
        self._failures = FailureLog(logger, f"the log of {self._campaign}", 10.0,
                                    failing="cannot be read", ended="can be read again")
        """A line when reads start failing, then at most one every ten seconds: while the
        database is away every batch tries a read, and a traceback each filled the log."""

    def keep(self) -> Kept | None:
        """A copy of the state for the batch about to be decided to go back to if it loses a
        race; ``None`` (no copy) unless one was lost lately."""
        return self._core.keep() if time.monotonic() < self._contended_until else None

    async def reload(self) -> bool:
        """Rebuild the state and command index from the log, off the event loop.

        If the log cannot be read either, the hub stays up but stale: it answers every command
        and join with ``unavailable`` and tries the reload again with the next work, so a
        passing disk error never leaves a table hanging nor acts on a state the log lacks.
        """
        self.reloads += 1
        try:
            self._core.reloaded(*await asyncio.to_thread(
                load_hub_state, self._log, self._store, self._campaign, self._every))
            sent = self._core.sent
            head = self._core.state.head
            missed = (await rows_after(self._log, self._campaign, sent, head)
                      if sent < head else [])
        except Exception as error:
            self._failed(error, "its work is refused until a reload succeeds")
            self.stale = True
            return False
        self._failures.succeeded()
        self.stale = False
        self._views.state_changed()
        self._snapshots.clear()
        self._writes.reloaded(self._core.state.head)
        if missed:  # appended by another process (a shared log) since the last broadcast
            self._after_change(self._send_rows(missed, fold=False))
        return True

    async def after_settled(self, settled: Settled, kept: Kept | None) -> None:
        """Make the state what is durable again when it ran ahead of the log (``kept``: the
        copy :meth:`keep` made before the batch, if any)."""
        if settled.reload == "conflict":  # the other writer's events (broadcast by the
            self.conflicts += 1  # reload), then ours, decided again
            self._contended_until = time.monotonic() + CONTENDED_SECONDS
            if settled.lost_race and kept is not None:
                self._core.restore(kept)  # the log took none of the batch: the state before
                self._views.state_changed()  # it, and what the other process appended
                self._snapshots.clear()
                if await self.read_missed():
                    return
            await self.reload()
        else:  # "retried": its recorded answer is sent, what was decided again dropped;
            if settled.reload == "failed":  # "failed": once (later commands are refused)
                logger.error("an append failed in %s; reloading its state", self._campaign)
            await self.reload()

    async def read_missed(self) -> bool:
        """Fold and broadcast what other processes appended after the state's head (a shared
        log); whether the read succeeded. A follow tries again at the next head heard; a batch
        that lost a race reloads instead."""
        try:
            rows = await rows_after(self._log, self._campaign, self._core.state.head)
        except Exception as error:
            self._failed(error, "the events other processes appended are read again later")
            return False
        self._failures.succeeded()
        self._after_change(self._send_rows(rows, fold=True))
        return True

    def _failed(self, error: Exception, then: str) -> None:
        """Log a failed read (throttled); one that is not the store's is a bug: its traceback
        is logged once."""
        if not isinstance(error, StoreError) and self._failures.failures == 0:
            logger.error("reading %s from the log failed unexpectedly", self._campaign,
                         exc_info=error)
        self._failures.failed(f"{error}; {then}")

    def _send_rows(self, rows: list[StoredRow], *, fold: bool) -> list[Event]:
        """Broadcast rows appended by another process (folded first when ``fold``); their
        events."""
        publishes, events = self._core.take_rows(rows, fold=fold)
        for publish in publishes:
            self._publish(publish)
        return events
