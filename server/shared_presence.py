"""Who is connected, across the server processes of a shared (PostgreSQL) log.

Each hub counts its own connections (:mod:`poolhall.server.table_feed`); this keeps the
presence board (:mod:`poolhall.server.presence_board`) in step with them, and the hubs in step
with the board, in a thread of its own: nothing here runs per command, nor blocks the event
loop.

- When a hub's set of connected members changes (a member's first connection here, or their
  last), :meth:`SharedPresence.changed` queues it; the thread publishes it (the latest set
  of each campaign, however many changes queued meanwhile), which notifies the campaign.
- When a campaign's presence changed anywhere (the process's listening connection hears it:
  :mod:`poolhall.server.shared_log`), or a hub loads, or the listener is back after a drop,
  :meth:`SharedPresence.look` queues a read; the thread reads who is connected through the
  other processes, and the hub, on the loop, sends every ``table`` watcher the new set if it
  changed.
- Every heartbeat (a fifth of ``--presence-expiry``: 1 s by default) the thread says the
  process lives and forgets the processes that have not for the expiry (5 s by default), so
  a process killed with ``kill -9`` leaves its members shown for that long at most.

When the database cannot be reached, what was queued is kept and tried again after a pause;
one line is logged when it fails and one when it works again. Stopping withdraws the process:
its members are gone from the other pages at once (if the database answers within
:data:`STOP_WAIT`; otherwise they expire as a killed process's do).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING

from poolhall.events.errors import StoreError
from poolhall.server.presence_board import PresenceBoard

if TYPE_CHECKING:
    from poolhall.server.hub import CampaignHub

__all__ = ["HEARTBEATS_PER_EXPIRY", "STOP_WAIT", "SharedPresence", "process_id"]

logger = logging.getLogger(__name__)

HEARTBEATS_PER_EXPIRY = 5
"""Heartbeats per expiry: a process may miss four in a row (a busy machine, a slow
statement, a short cut from the database) before the others forget it."""


STOP_WAIT = 10.0
"""Seconds a stop waits for the presence thread to finish what it is doing before it leaves
this process's rows to expire (a database that stopped answering holds the thread)."""


def process_id() -> str:
    """This process's id on the board: its machine and pid, for an operator reading the
    table, and a random part, unique per start (a pid is reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class SharedPresence:
    """This process's side of the presence board (see the module docstring)."""

    def __init__(self, board: PresenceBoard, hubs: Mapping[str, CampaignHub],
                 expiry: float) -> None:
        if not expiry > 0:
            raise ValueError(f"--presence-expiry must be more than 0 seconds, not {expiry}")
        self.board = board
        self._hubs = hubs
        self.heartbeat = expiry / HEARTBEATS_PER_EXPIRY
        self._loop = asyncio.get_running_loop()
        self._lock = threading.Lock()
        self._writes: dict[str, dict[str, int]] = {}
        self._reads: set[str] = set()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="poolhall-presence",
                                        daemon=True)
        self.failing = False
        """True while the board cannot be reached (for operators and tests)."""

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and withdraw this process (called in a worker thread: it joins)."""
        self._stop.set()
        self._wake.set()
        if self._thread.ident is not None:  # started
            self._thread.join(timeout=STOP_WAIT)
            if self._thread.is_alive():  # stuck on a database that does not answer (a cut
                # network drops packets, no reset): withdrawing would wait for its connection
                # as long, and the process would never exit
                logger.warning("the presence board did not answer within %g s; this process's "
                               "connections are left to expire by themselves", STOP_WAIT)
                return
        try:
            self.board.close()
        except StoreError as error:
            logger.warning("could not withdraw this process's connections from the presence "
                           "board (%s); they expire by themselves", error)

    # ---- on the event loop ----------------------------------------------------------------

    def changed(self, campaign: str, members: dict[str, int]) -> None:
        """This process's connections to ``campaign`` changed (a hub's, on the loop)."""
        with self._lock:
            self._writes[campaign] = members
        self._wake.set()

    def look(self, campaign: str) -> None:
        """Read who is connected to ``campaign`` elsewhere, if it is loaded here."""
        if campaign in self._hubs:
            with self._lock:
                self._reads.add(campaign)
            self._wake.set()

    def look_all(self) -> None:
        """Read who is connected elsewhere to every campaign loaded here (the notifications
        of changes may have been lost with the listening connection)."""
        with self._lock:
            self._reads.update(self._hubs)
        self._wake.set()

    def _tell(self, campaign: str, members: frozenset[str]) -> None:
        hub = self._hubs.get(campaign)
        if hub is not None:
            hub.present_elsewhere(members)

    # ---- in the thread --------------------------------------------------------------------

    def _run(self) -> None:
        due = 0.0  # when the next heartbeat is due (time.monotonic)
        while not self._stop.is_set():
            self._wake.wait(max(0.0, due - time.monotonic()))
            self._wake.clear()
            if self._stop.is_set():
                return
            with self._lock:
                writes, self._writes = self._writes, {}
                reads, self._reads = self._reads, set()
            try:
                self._publish(writes)
                if time.monotonic() >= due:
                    self.board.beat()
                    due = time.monotonic() + self.heartbeat
                self._read(reads)
            except Exception as error:  # the thread must outlive any failure: kept, retried
                self._keep(writes, reads)
                if not self.failing:
                    logger.warning("the presence board cannot be reached (%s); who is "
                                   "connected through other processes may be out of date "
                                   "until it can", error,
                                   exc_info=not isinstance(error, StoreError))
                    self.failing = True
                self._stop.wait(self.heartbeat)
                continue
            if self.failing:
                logger.info("the presence board is reachable again")
                self.failing = False

    def _publish(self, writes: dict[str, dict[str, int]]) -> None:
        """Publish each campaign's set, taking each out of ``writes`` once it is done."""
        for campaign in list(writes):
            self.board.publish(campaign, writes[campaign])
            del writes[campaign]

    def _read(self, reads: set[str]) -> None:
        """Read each campaign, taking each out of ``reads`` once it is handed to the loop."""
        for campaign in list(reads):
            found = self.board.elsewhere(campaign)
            reads.discard(campaign)
            if not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self._tell, campaign, found)

    def _keep(self, writes: dict[str, dict[str, int]], reads: set[str]) -> None:
        """Queue again what failed, unless a newer change of it queued meanwhile."""
        with self._lock:
            for campaign, members in writes.items():
                self._writes.setdefault(campaign, members)
            self._reads.update(reads)
