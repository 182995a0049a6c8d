"""What a process of a shared (PostgreSQL) log runs beside its hubs, started and stopped as
one: following the other processes' appends (:mod:`poolhall.server.shared_log`) and telling
them who is connected here (:mod:`poolhall.server.shared_presence`). A SQLite server is the
only process of its log and runs neither. Imported only for a shared log: psycopg."""

from __future__ import annotations

import logging

from poolhall.events.log_contract import Deployment
from poolhall.server.health import LogHealth
from poolhall.server.loaded_campaigns import LoadedCampaigns
from poolhall.server.log_throttle import OncePerInterval
from poolhall.server.shared_log import SharedLog
from poolhall.server.shared_presence import SharedPresence, process_id

__all__ = ["POOL_FAILURES_INTERVAL", "SharedDeployment"]

POOL_FAILURES_INTERVAL = 10.0
"""Seconds between two of psycopg's pool lines ``error connecting in …``: while the database
is away each pool logs one at every try (about one a second each), and ``/health`` already says
the log is failing (the monitor-health page's promise: a line when a fault starts, then at
most one every ten seconds). Its ``reconnection attempt in pool … failed`` lines, one each
time the readers' pool stops trying by itself (every few seconds while the database is away,
:data:`~poolhall.events.postgres_backend.log.RECONNECT_SECONDS`), are let through as
rarely."""


class SharedDeployment:
    """This process's part in a deployment of several: its followers and its presence."""

    def __init__(self, shared: Deployment, loaded: LoadedCampaigns, health: LogHealth,
                 presence_expiry: float) -> None:
        self.presence = loaded.presence = SharedPresence(
            shared.presence_board(process_id(), presence_expiry), loaded.hubs, presence_expiry)
        """Who is connected through the other processes; told who is connected here."""
        self.followers = SharedLog(shared.url, loaded, health)
        """What keeps this process's hubs up with the others' appends."""
        self._pool_failures = OncePerInterval("error connecting in", POOL_FAILURES_INTERVAL)
        self._pool_gave_up = OncePerInterval("reconnection attempt in pool",
                                             POOL_FAILURES_INTERVAL)
        self._started = False

    def start(self) -> None:
        logging.getLogger("psycopg.pool").addFilter(self._pool_failures)
        logging.getLogger("psycopg.pool").addFilter(self._pool_gave_up)
        self.presence.start()
        self.followers.start()
        self._started = True

    def stop(self) -> None:
        """Blocking (the listener's and the presence thread's ends): call it off the loop.
        Stopping the presence withdraws this process's members from the others' pages, and
        its row (written as it opened the log, before :meth:`start`) from the board, so a
        start that failed between the two leaves no live process behind."""
        if self._started:
            self.followers.stop()
        self.presence.stop()
        logging.getLogger("psycopg.pool").removeFilter(self._pool_failures)
        logging.getLogger("psycopg.pool").removeFilter(self._pool_gave_up)
