"""Keeping up with the other server processes of a shared (PostgreSQL) log.

Any process may append to any campaign. Each process holds one listening connection
(:class:`poolhall.events.postgres_backend.listener.HeadListener`) that hears every campaign's new
head, with no rows; a loaded campaign's hub then reads the events it lacks by seq, folds them and
broadcasts them (:meth:`poolhall.server.hub.CampaignHub.follow`), in its own queue, so its clients
see every event once, in order, whichever process appended it. A campaign another process created
becomes known here when its first head is heard (or when a join names it).

The same connection hears which campaigns' presence changed (who is connected, through
which process: :mod:`poolhall.server.shared_presence`); a loaded campaign's is read again.

When the listening connection drops, notifications may be lost: ``/health`` reports the
``listener`` part failing meanwhile (commands are not refused: an append reads its
campaign's head under the campaign's lock, so one another process got ahead of is decided
again), and once it listens again every loaded hub reads its head from the log and follows it,
and who is connected elsewhere is read again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from poolhall.events.postgres_backend.listener import HeadListener
from poolhall.server.health import LogHealth
from poolhall.server.loaded_campaigns import LoadedCampaigns

__all__ = ["SharedLog"]

logger = logging.getLogger(__name__)


class SharedLog:
    """The listener of one process, feeding the heads it hears to the loaded hubs."""

    def __init__(self, url: str, loaded: LoadedCampaigns, health: LogHealth) -> None:
        self._loaded = loaded
        self._health = health
        self._loop = asyncio.get_running_loop()
        self.listener = HeadListener(url, on_head=self._from_thread(self._heard),
                                     on_lost=self._from_thread(self._lost),
                                     on_back=self._from_thread(self._back),
                                     on_presence=self._from_thread(self._presence_changed))
        self.heard = 0
        """Heads heard (for operators and tests)."""

    def _from_thread(self, callback: Callable[..., None]) -> Callable[..., None]:
        loop = self._loop

        def call(*args: object) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(callback, *args)

        return call

    def start(self) -> None:
        self.listener.start()

    def stop(self) -> None:
        """Stop listening (called in a worker thread: it joins the listener's)."""
        self.listener.stop()

    def _heard(self, campaign: str, head: int) -> None:
        self.heard += 1
        hub = self._loaded.hubs.get(campaign)
        if hub is not None:
            hub.follow(head)
        elif campaign not in self._loaded.campaigns:
            self._loaded.campaigns.add(campaign)

    def _presence_changed(self, campaign: str) -> None:
        if self._loaded.presence is not None:
            self._loaded.presence.look(campaign)

    def _lost(self, why: str) -> None:
        """The listener dropped, or a try to reconnect failed for a new reason: ``/health``
        names the latest, which is what the operator has to fix."""
        self._health.failing_because("listener", "the database's notifications of other "
                                     f"processes' appends were lost; reconnecting: {why}")

    def _back(self) -> None:
        self._health.recovered("listener")
        for hub in tuple(self._loaded.hubs.values()):
            hub.follow(None)  # read the head from the log: notifications may have been lost
        if self._loaded.presence is not None:
            self._loaded.presence.look_all()
