"""The campaigns a server holds: every campaign of the log by id, and the hubs of those in use.

A campaign's hub is loaded when it is first joined (from its latest stored snapshot and the
events after it, once however many join at the same time) and unloaded once nobody has been
connected to it for ``--idle-unload`` seconds: the server starts without folding the log, and
memory follows the tables in use. Apart from :mod:`poolhall.server.app` so that the server's module
keeps to connections and its lifecycle; :class:`LoadedCampaigns` is the one place hubs are made,
found and dropped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from poolhall.events.errors import Rejected, StoreError
from poolhall.events.log import CommandRecord, ServerLog
from poolhall.events.log_contract import SeedVault
from poolhall.server.command_lookups import CommandLookups
from poolhall.server.fair_seeds import FairSeeds, inherited_epoch
from poolhall.server.health import LogHealth
from poolhall.server.hub import CampaignHub
from poolhall.server.page_cache import PageCache
from poolhall.server.rebuild import LoadedCampaign, load_hub_state
from poolhall.server.settings import Settings
from poolhall.server.stored_snapshots import SnapshotStore
from poolhall.server.utc_clock import UtcClock
from poolhall.server.views import ViewWorkers
from poolhall.server.writer import GroupCommitter

if TYPE_CHECKING:  # made only on a shared log
    from poolhall.server.shared_presence import SharedPresence

__all__ = ["LoadedCampaigns"]

logger = logging.getLogger("poolhall.server.app")  # one name for the server's lines


class LoadedCampaigns:
    """Which campaigns the log holds, and the hubs of the ones loaded now.

    Made with the server; :meth:`open` gives it the log, the snapshot store and the writer
    once the server has opened them, and reads the log's directory (not its events). A hub
    no join ever succeeded on goes after ``unjoined_grace`` seconds
    (:data:`poolhall.server.app.UNJOINED_GRACE`), the others after ``--idle-unload``.
    """

    def __init__(self, settings: Settings, *, new_seed: Callable[[], bytes], clock: UtcClock,
                 health: LogHealth, workers: ViewWorkers, pages: PageCache,
                 unjoined_grace: float) -> None:
        self.settings = settings
        self._new_seed = new_seed
        self.vault: SeedVault | None = None
        """Where each epoch's seed is kept (set by the server as it opens the log)."""
        self._serving_since = ""
        """Since when the deployment has been serving (ISO 8601, the events' clock): when this
        process opened the log, or on a shared log the time its live processes say then (see
        :meth:`open`). An epoch committed before may come from a backup put back
        (:func:`~.fair_seeds.inherited_epoch`)."""
        self._judged_epochs: dict[str, int] = {}
        """The epoch each campaign had open when this process first loaded it (0: none, or
        this process created it; :mod:`poolhall.server.fair_seeds`): ended at its next roll,
        however often the campaign is unloaded and loaded again before it."""
        self._clock = clock
        self._health = health
        self._workers = workers
        self._pages = pages
        self._unjoined_grace = unjoined_grace
        self.log: ServerLog | None = None
        self.store: SnapshotStore | None = None
        self.committer: GroupCommitter | None = None
        self.lookups: CommandLookups | None = None
        """The hubs' look-ups of command ids, read together (set with the log)."""
        self.hubs: dict[str, CampaignHub] = {}
        """The campaigns loaded now (joined lately), by id."""
        self.campaigns: set[str] = set()
        """Every campaign of the log, loaded or not (read through the index at start)."""
        self.creations: dict[str, tuple[str, CommandRecord]] = {}
        """The command that created each campaign, by command id: a retried creation finds
        its campaign without loading it."""
        self._loading: dict[str, asyncio.Future[CampaignHub]] = {}
        self._unloader: asyncio.Task[None] | None = None
        self.unloads = 0
        """Hubs unloaded after being idle (for operators, tests)."""
        self.shared = False
        """Whether other server processes append to the same log (PostgreSQL): then a
        campaign this process has not heard of may still be in the log."""
        self.presence: SharedPresence | None = None
        """Who is connected through the other processes (a shared log; set by the server)."""
        self.stopping = False
        """Set by the server when its stop begins: no campaign loads, is created or is
        joined after, and every command is answered ``shutting_down`` (the server's
        connection handler, :mod:`poolhall.server.campaign_creation` and
        :mod:`poolhall.server.joins` read it: one flag for the one fact)."""

    async def open(self, log: ServerLog, store: SnapshotStore,
                   committer: GroupCommitter) -> None:
        """Judge since when the deployment has been serving, read which campaigns the log
        holds (not their events), then unload idle hubs every so often if ``--idle-unload``
        is set.

        Since this process opened the log, on a log of one process (SQLite); on a shared log
        since the time the processes live now say
        (:meth:`~poolhall.events.log_contract.PresenceBoard.enter`), so that a process
        restarted beside others (a rolling restart) does not take an epoch begun while they
        served for one from a backup: a backup is put back with every process stopped.
        Raises :class:`~poolhall.events.errors.StoreError` if the presence board cannot be
        written."""
        self.log, self.store, self.committer = log, store, committer
        opened_at = self._clock()
        self._serving_since = opened_at if self.presence is None else \
            await asyncio.to_thread(self.presence.board.enter, opened_at)
        if self._serving_since != opened_at:
            logger.info("the deployment has been serving since %s", self._serving_since)
        self.lookups = CommandLookups(log)
        for campaign, command_id, actor, last in await asyncio.to_thread(log.directory):
            self.know(campaign, command_id, CommandRecord(actor, 1, last))
        if self.settings.idle_unload > 0:
            self._unloader = asyncio.create_task(self._unload_idle(), name="unload-idle")

    async def stop_loading(self) -> None:
        """Stop unloading, let the loads in flight end, and mark every hub closing."""
        if self._unloader is not None:
            self._unloader.cancel()
        await asyncio.gather(*self._loading.values(), return_exceptions=True)
        for hub in self.hubs.values():
            hub.closing = True

    async def stop_hubs(self) -> None:
        """Finish every loaded campaign's queued work."""
        await asyncio.gather(*(hub.stop() for hub in self.hubs.values()))

    def open_hub(self, loaded: LoadedCampaign, seeds: FairSeeds | None = None) -> CampaignHub:
        """Start the hub of a campaign just loaded (or just created) and hold it (``seeds``:
        its epoch seeds, if the load read them already)."""
        assert self.log is not None
        assert self.committer is not None
        assert self.store is not None
        assert self.lookups is not None
        hub = CampaignHub(state=loaded.state, commands=loaded.commands,
                          head_hash=loaded.head_hash, log=self.log, store=self.store,
                          committer=self.committer, lookups=self.lookups,
                          seeds=seeds or self.seeds(loaded.state.campaign, inherited_epoch(
                              loaded.state.fair, self._serving_since)),
                          clock=self._clock,
                          health=self._health,
                          workers=self._workers, view_backlog=self.settings.view_backlog,
                          pages=self._pages, snapshot_every=self.settings.snapshot_every,
                          public=loaded.public,
                          presence=self.presence.changed if self.presence else None)
        self.hubs[loaded.state.campaign] = hub
        hub.start()
        if self.presence is not None:  # who is connected elsewhere already
            self.presence.look(loaded.state.campaign)
        return hub

    def seeds(self, campaign: str, open_epoch: int = 0) -> FairSeeds:
        """The epoch seeds of ``campaign``, kept in the vault (``open_epoch``: the epoch open
        in the state it was loaded with; see :mod:`poolhall.server.fair_seeds`)."""
        assert self.vault is not None
        return FairSeeds(self.vault, campaign, self._new_seed, self._judged_epochs, open_epoch)

    def know(self, campaign: str, command_id: str, creation: CommandRecord) -> None:
        """Count ``campaign`` as one of the log's, created by ``command_id``."""
        self.campaigns.add(campaign)
        self.creations[command_id] = (campaign, creation)

    async def hub_for(self, campaign: str) -> CampaignHub | None:
        """The campaign's hub, loaded if it is not (once, however many join at the same
        time), and pinned: the caller unpins it when its connection leaves. ``None`` if the
        log has no such campaign."""
        if campaign not in self.campaigns and not await self._created_elsewhere(campaign):
            return None
        hub = self.hubs.get(campaign)
        if hub is None:
            loading = self._loading.get(campaign)
            if loading is None:
                loading = self._loading[campaign] = asyncio.ensure_future(
                    self._load_hub(campaign))
                loading.add_done_callback(lambda _: self._loading.pop(campaign, None))
            hub = await asyncio.shield(loading)
        hub.pin()
        return hub

    async def _created_elsewhere(self, campaign: str) -> bool:
        """Whether another process created ``campaign`` (a shared log; one indexed read)."""
        if not self.shared or self.log is None:
            return False
        try:
            found = await asyncio.to_thread(self.log.head, campaign) > 0
        except Exception:
            logger.exception("looking up %s in the log failed", campaign)
            raise Rejected("unavailable", "the log cannot be read; retry shortly",
                           None) from None
        if found:
            self.campaigns.add(campaign)
        return found

    async def load(self, campaign: str) -> CampaignHub | None:
        """The campaign's hub, loaded if it is not (for operators and tests: a connection
        that joins loads it the same way); ``None`` if the log has no such campaign."""
        hub = await self.hub_for(campaign)
        if hub is not None:
            hub.unpin()
        return hub

    async def _load_hub(self, campaign: str) -> CampaignHub:
        """Load a campaign from its latest stored snapshot and the events after it, off the
        event loop; refused ``unavailable`` if the log cannot be read."""
        assert self.log is not None
        assert self.store is not None
        started = time.perf_counter()
        try:
            loaded = await asyncio.to_thread(load_hub_state, self.log, self.store, campaign,
                                             self.settings.snapshot_every)
        except Exception:
            logger.exception("loading %s from the log failed", campaign)
            raise Rejected("unavailable", "the campaign's log cannot be read; retry shortly",
                           None) from None
        if self.stopping:
            raise Rejected("shutting_down", "the server is shutting down; retry shortly", None)
        logger.info("loaded %s at #%d in %.3fs", campaign, loaded.state.head,
                    time.perf_counter() - started)
        seeds = self.seeds(campaign, inherited_epoch(loaded.state.fair, self._serving_since))
        try:  # a lost seed known now, not at the first roll it refuses
            await asyncio.to_thread(seeds.read_current, loaded.state.fair.epoch)
        except StoreError as error:  # read again before the first decision
            logger.error("reading the seed of %s failed: %s", campaign, error)
        return self.open_hub(loaded, seeds)

    async def _unload_idle(self) -> None:
        """Every so often, stop and drop the hubs nobody has used for ``idle_unload``
        seconds: memory follows the tables in use, not every table ever joined."""
        idle = self.settings.idle_unload
        grace = self._unjoined_grace
        while True:
            await asyncio.sleep(max(0.05, min(idle, grace) / 2))
            now = time.monotonic()
            for campaign, hub in list(self.hubs.items()):
                if self.stopping:
                    return
                allowed = idle if hub.joined_once else min(idle, grace)
                if hub.idle_for(now) < allowed or self.hubs.get(campaign) is not hub:
                    continue
                del self.hubs[campaign]  # a join from now on loads it afresh
                self.unloads += 1
                try:
                    await hub.stop()
                except Exception:
                    logger.exception("unloading %s failed", campaign)
                logger.debug("unloaded %s (idle %.0fs)", campaign, idle)
