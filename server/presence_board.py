"""Who is connected to each campaign, across the server processes of one deployment.

The page's **At the table** shows a member connected when they are connected to *any*
process of the deployment. Each process knows its own connections (:mod:`poolhall.server.table_feed`
counts them); the board is where a process says which of its members are connected and reads
those connected through the others. A small interface of its own, apart from the event log,
so that each backend keeps it beside its log (its interface,
:class:`poolhall.events.log_contract.PresenceBoard`, is the contract's):
:class:`poolhall.events.postgres_backend.presence.PostgresPresence` in the database, shared by
several processes, and :class:`MemoryPresence` here, in memory, for processes of one Python
process (the reference the contract tests hold both to).

The board's calls may block (a database round trip): the server makes them in a thread of its
own, never on the event loop, and only when presence changes or at the heartbeat
(:mod:`poolhall.server.shared_presence`). A SQLite server is the only process of its log: it
has no board at all, and counts its connections exactly as before.

Expiry: a process that stops beating (``kill -9``, its machine gone, the database out of its
reach) is forgotten once it has not beaten for ``expiry`` seconds; its members stop showing
elsewhere, and the processes that notice tell every page of those campaigns.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime

from poolhall.events.log_contract import PresenceBoard

__all__ = ["MemoryPresence", "PresenceBoard", "PresenceSpace"]


class PresenceSpace:
    """What the in-memory boards of one Python process share: the rows a database would hold,
    and the listeners it would notify."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self.beats: dict[str, tuple[float, float]] = {}
        """Each live process's last heartbeat, and its expiry."""
        self.since: dict[str, str] = {}
        """Since when each process that entered says the deployment has been serving."""
        self.rows: dict[str, dict[str, dict[str, int]]] = {}
        """Each live process's connections, by campaign, by member."""
        self._listeners: list[Callable[[str], None]] = []

    def listen(self, heard: Callable[[str], None]) -> None:
        """Call ``heard(campaign)`` whenever a campaign's presence changes."""
        self._listeners.append(heard)

    def notify(self, campaigns: list[str]) -> None:
        """Tell every listener (outside the lock, as a database delivers after commit)."""
        for campaign in campaigns:
            for heard in self._listeners:
                heard(campaign)


class MemoryPresence:
    """A :class:`PresenceBoard` in memory: its processes are those on one
    :class:`PresenceSpace` (a new space: the only process)."""

    def __init__(self, process: str, *, expiry: float,
                 space: PresenceSpace | None = None) -> None:
        self.process = process
        self.expiry = expiry
        self.space = space if space is not None else PresenceSpace()
        self._mine: dict[str, dict[str, int]] = {}
        self._since: str | None = None

    def _alive(self) -> list[str]:
        """Renew the heartbeat (under the space's lock); if this process had been forgotten,
        its rows again: the campaigns to notify."""
        space = self.space
        forgotten = self.process not in space.beats
        space.beats[self.process] = (space.clock(), self.expiry)
        if not forgotten:
            return []
        if self._since is not None:
            space.since[self.process] = self._since
        space.rows[self.process] = {c: dict(m) for c, m in self._mine.items()}
        return list(self._mine)

    def enter(self, opened_at: str) -> str:
        space = self.space
        with space.lock:
            now = space.clock()
            live = [since for process, since in space.since.items()
                    if self._live(process, now)]
            self._since = min(live, key=datetime.fromisoformat, default=opened_at)
            self._alive()
            space.since[self.process] = self._since
        return self._since

    def publish(self, campaign: str, members: Mapping[str, int]) -> None:
        members = {member: count for member, count in members.items() if count > 0}
        with self.space.lock:
            told = self._alive()
            same = members.keys() == self._mine.get(campaign, {}).keys()
            rows = self.space.rows.setdefault(self.process, {})
            if members:
                rows[campaign] = self._mine[campaign] = members
            else:
                rows.pop(campaign, None)
                self._mine.pop(campaign, None)
        self.space.notify(sorted({*told, *([] if same else [campaign])}))

    def elsewhere(self, campaign: str) -> frozenset[str]:
        space = self.space
        with space.lock:
            now = space.clock()
            return frozenset(member for process, rows in space.rows.items()
                             if process != self.process and self._live(process, now)
                             for member in rows.get(campaign, {}))

    def _live(self, process: str, now: float) -> bool:
        """Whether ``process`` beat within its own expiry."""
        beaten, expiry = self.space.beats.get(process, (-1.0, 0.0))
        return beaten >= now - expiry

    def beat(self) -> list[str]:
        space = self.space
        with space.lock:
            told = self._alive()
            now = space.clock()
            expired: set[str] = set()
            for process in list(space.beats):
                if not self._live(process, now):
                    del space.beats[process]
                    space.since.pop(process, None)
                    expired.update(space.rows.pop(process, {}))
        changed = sorted({*told, *expired})
        space.notify(changed)
        return changed

    def close(self) -> None:
        with self.space.lock:
            self.space.beats.pop(self.process, None)
            self.space.since.pop(self.process, None)
            gone = sorted(self.space.rows.pop(self.process, {}))
            self._mine.clear()
        self.space.notify(gone)
