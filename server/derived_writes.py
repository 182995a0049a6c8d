"""What a hub writes besides events: its state's snapshots.

They are derived data, rebuilt from the log if lost, and written in worker threads
after a batch changed the state, never in the way of an append or a broadcast. They are apart
from :mod:`poolhall.server.hub` because they are bookkeeping of their own (when each is due, which
write is under way, what a failure costs) that the hub's flow need not read: the hub calls
:meth:`DerivedWrites.after_change` once per batch that changed its state and waits for the
writes under way when it stops.
"""

from __future__ import annotations

import asyncio
import logging

from poolhall.events.log import ServerLog
from poolhall.server.hub_owner import HubOwner
from poolhall.server.stored_snapshots import SnapshotStore, encode_state

__all__ = ["DerivedWrites"]

logger = logging.getLogger("poolhall.server.hub")
"""The hub's logger: these lines are the hub's, as operators and their filters know them."""



class DerivedWrites:
    """One hub's snapshot stores: when each is due, and the tasks writing them."""

    def __init__(self, owner: HubOwner, *, log: ServerLog, store: SnapshotStore,
                 snapshot_every: int) -> None:
        self._owner = owner
        self._log = log
        self._store = store
        self._every = snapshot_every
        self._stored_at = owner.state.head
        """The head when the state was last stored (or loaded: the load stored as it folded)."""
        self._saving: set[asyncio.Task[None]] = set()

    @property
    def busy(self) -> bool:
        """Whether a write is under way: a hub is not idle (nor unloaded) meanwhile."""
        return bool(self._saving)

    def reloaded(self, head: int) -> None:
        """The state was loaded again from the log, which stored it as it folded."""
        self._stored_at = head

    def after_change(self) -> None:
        """A batch changed the state: store what is due of it."""
        self._store_if_due()

    async def wait(self) -> None:
        """Wait for the writes under way (the hub is stopping); their failures are logged."""
        await asyncio.gather(*self._saving, return_exceptions=True)

    def _store_if_due(self) -> None:
        """Store the state once ``snapshot_every`` events have passed since it was last
        stored: encoded here (a copy, ~0.1 ms), written in a worker thread. Only a state the
        log holds is stored (a failed append reloads first, and a stale hub stores nothing)."""
        owner = self._owner
        state = owner.state
        head = state.head
        if owner.stale or self._every <= 0 or head - self._stored_at < self._every:
            return
        self._stored_at = head
        campaign = state.campaign
        row = (head, owner.head_hash, encode_state(state))

        async def save() -> None:
            try:
                await asyncio.to_thread(self._store.save, campaign, [row])
            except Exception:  # derived data: the next load folds a little longer
                logger.exception("storing the snapshot of %s at #%d failed", campaign, head)

        task = asyncio.create_task(save(), name=f"snapshot-{campaign}-{head}")
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

