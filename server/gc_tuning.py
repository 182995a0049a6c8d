"""The garbage collector at a server holding thousands of connections: measured, and kept off
the long-lived objects.

CPython's collector finds reference cycles by scanning every tracked container. Its full
(generation 2) collection scans all of them, and a server holding 10,000 connections has about
a million (~100 per connection: the websockets connection, its protocol, streams, tasks,
futures, the subscriber). Each full collection then held the event loop for about half a
second: p99 from a command to the last client of its table was 595 ms at 1,000 commands/s.

Those objects live as long as their connection, so scanning them again and again finds
nothing. :class:`GcTuning` moves them out of the collector's view with :func:`gc.freeze` once
a burst of joins has settled (and once after start-up, for the campaigns' state), so a full
collection scans only what was allocated since; what survives any collection is frozen
too (it was just found alive). Objects that live seconds rather than as long as a connection
(what a connection's next receive waits on: websockets' coroutines, futures and frame parser,
replaced by each message it sends, about a dozen each) are frozen by a sweep of the young
generations every :data:`SWEEP_INTERVAL` (a tenth of a second), so no collection scans them
twice; and generation 0 is collected every :data:`YOUNG_THRESHOLD` allocations rather than
700. Freezing is cheap (it splices lists), and objects frozen are still freed by reference
counting when they die; a cycle among them is only reclaimed after :meth:`GcTuning.reclaim`
(or never, if frozen forever; about a dozen objects per connection that closed measured; full
collections run every 5 or 25 sweeps during 10,000 joins found 0-10; a minute at 1,000
commands/s among 10,000 connections, swept ten times a second, froze none). So frozen
objects are unfrozen and collected in one full collection after many connections have closed
(:data:`RECLAIM_AFTER_CLOSES`, or as many as are open), at most once a
:data:`RECLAIM_INTERVAL`.

:class:`GcStats` counts collections and their pauses per generation (through
:data:`gc.callbacks`) for ``/health?format=json``, so an operator or a benchmark sees what the
collector cost.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Any

__all__ = ["LONG_PAUSES_MS", "RECLAIM_AFTER_CLOSES", "RECLAIM_INTERVAL", "SWEEP_INTERVAL",
           "YOUNG_THRESHOLD", "GcStats", "GcTuning"]

logger = logging.getLogger(__name__)

SETTLE = 1.0
"""Seconds without a join after which the joins since the last freeze are frozen."""
BURST_FREEZE = 16
"""Times ``freeze_after_joins`` joins after which a burst still going on is frozen anyway: a
storm of thousands of joins must not leave them all to full collections until it ends."""
RECLAIM_AFTER_CLOSES = 1_000
"""Connections closed since the last reclaim after which frozen cycles are collected (or more:
:meth:`GcTuning.closed`)."""
RECLAIM_INTERVAL = 60.0
"""Seconds at least between two such full collections."""
SWEEP_INTERVAL = 0.1
"""Seconds between two sweeps of the young generations: what survives one is frozen.

A sweep's cost is the objects alive in the young generations, each scanned once and then
frozen, so sweeping often costs about what sweeping seldom does and pauses for less: at
10,000 clients and 1,000 commands/s a sweep a second, put off while the last one took long
(after a sweep of ``d`` seconds the next waited ``d / 0.02``), let up to 2.5 s of survivors
pile up (90,000 objects) and held the loop ~50 ms; a tenth of a second's are 1-3 ms."""
LONG_PAUSES_MS = (2, 5, 10, 20, 50)
"""Milliseconds of CPU from which :class:`GcStats` counts a collection as long, per level."""
YOUNG_THRESHOLD = 10_000
"""Net allocations of tracked objects between two collections of generation 0 (CPython: 700).

Each collection scans the young objects alive at that moment (at 1,000 commands/s, mostly
the commands in flight and the pending receives since the last sweep), whatever the
threshold: at 700 there were ~36 a second at 1,000 commands/s; 10,000 makes them ~14 times
rarer. The count is net of the tracked objects freed, frozen ones included, so while each
message's new receive replaced an old frozen one generation 0 grew far past the threshold
(68,000 objects, ~50 ms of CPU to collect, between sweeps a second apart): the sweeps, not this
threshold, are what bound the young generations."""


class GcStats:
    """Collections and their pauses per generation, measured from :data:`gc.callbacks`.

    A pause is counted twice: on the wall clock (what the event loop lost) and in the
    thread's CPU time (what the collector itself cost: on a busy machine the wall clock also
    counts the time the process waited for a core). Pauses of at least each of
    :data:`LONG_PAUSES_MS` are counted too, in CPU time: the total says what the collector
    cost, these whether it can hold a command past a latency target (a p99 of 20 ms is not
    met while a collection of 20 ms runs twice a second), and a benchmark takes their
    difference over a step, which the longest pause since start cannot give."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter,
                 cpu_clock: Callable[[], float] = time.thread_time) -> None:
        self._clock = clock
        self._cpu_clock = cpu_clock
        self._started: tuple[float, float] | None = None
        self.collections = [0, 0, 0]
        self.pause_seconds = [0.0, 0.0, 0.0]
        self.cpu_seconds = [0.0, 0.0, 0.0]
        self.max_pause_seconds = [0.0, 0.0, 0.0]
        self.long_pauses = [0] * len(LONG_PAUSES_MS)

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        """Called by the collector at the start and the stop of every collection."""
        if phase == "start":
            self._started = (self._clock(), self._cpu_clock())
            return
        if self._started is None:
            return
        pause = self._clock() - self._started[0]
        cpu = self._cpu_clock() - self._started[1]
        self._started = None
        generation = info.get("generation", 2)
        self.collections[generation] += 1
        self.pause_seconds[generation] += pause
        self.cpu_seconds[generation] += cpu
        self.max_pause_seconds[generation] = max(self.max_pause_seconds[generation], pause)
        for level, at_least in enumerate(LONG_PAUSES_MS):
            if cpu * 1000 >= at_least:
                self.long_pauses[level] += 1

    def status(self) -> dict[str, Any]:
        """Counts, total and longest pauses (ms, wall clock and CPU) per generation, and how
        many collections of any generation took at least each of ``long_pauses_at_ms`` of
        CPU. (Not the objects frozen: counting them walks them all, 50 ms at 10,000
        connections.)"""
        return {"collections": list(self.collections),
                "pause_ms": [round(1000 * s, 3) for s in self.pause_seconds],
                "cpu_ms": [round(1000 * s, 3) for s in self.cpu_seconds],
                "max_pause_ms": [round(1000 * s, 3) for s in self.max_pause_seconds],
                "long_pauses_at_ms": list(LONG_PAUSES_MS), "long_pauses": list(self.long_pauses)}


class GcTuning:
    """Freeze long-lived objects after bursts of joins; reclaim frozen cycles now and then.

    ``freeze_after_joins`` joins since the last freeze, then :data:`SETTLE` seconds without
    one, trigger a freeze (0 turns freezing off: the collector as CPython ships it). Every
    ``sweep_interval`` seconds the young generations are collected and what survives is
    frozen too (:meth:`sweep`).
    """

    def __init__(self, freeze_after_joins: int, *, settle: float = SETTLE,
                 reclaim_after_closes: int = RECLAIM_AFTER_CLOSES,
                 reclaim_interval: float = RECLAIM_INTERVAL,
                 sweep_interval: float = SWEEP_INTERVAL,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.freeze_after_joins = freeze_after_joins
        self._settle = settle
        self._sweep_interval = sweep_interval
        self._sweeper: asyncio.TimerHandle | None = None
        self._thresholds: tuple[int, int, int] | None = None
        """CPython's thresholds while the young one is raised (put back by :meth:`stop`)."""
        self.sweeps = 0
        """Sweeps of the young generations so far (not counted in :attr:`freezes`)."""
        self._reclaim_after_closes = reclaim_after_closes
        self._reclaim_interval = reclaim_interval
        self._monotonic = monotonic
        self.stats = GcStats()
        self._joins = 0
        self._closes = 0
        self._timer: asyncio.TimerHandle | None = None
        self._reclaimed_at = monotonic()
        self.freezes = 0
        self.reclaims = 0

    @property
    def enabled(self) -> bool:
        return self.freeze_after_joins > 0

    def start(self) -> None:
        """Measure collections; freeze what start-up built (the campaigns' state)."""
        gc.callbacks.append(self.stats.callback)
        if self.enabled:
            gc.callbacks.append(self._after_collection)
            self.freeze()
            self._thresholds = gc.get_threshold()
            gc.set_threshold(YOUNG_THRESHOLD, *self._thresholds[1:])
            if self._sweep_interval > 0:
                self._sweeper = asyncio.get_running_loop().call_later(
                    self._sweep_interval, self._sweep_and_again)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
        for callback in (self.stats.callback, self._after_collection):
            if callback in gc.callbacks:
                gc.callbacks.remove(callback)

    def _after_collection(self, phase: str, info: dict[str, Any]) -> None:
        """Freeze what survived a collection: it has just been scanned and found alive, so
        nothing is frozen as garbage. After a full one, the next scans only what came after
        (one at 10,000 connections still cost 175 ms of CPU without this); after a young one
        (generation 0 reaching its threshold between two sweeps, in a burst of work), the
        next sweep does not scan its survivors a second time."""
        if phase != "stop":
            return
        gc.freeze()
        if info.get("generation") == 2:
            self.freezes += 1

    def joined(self) -> None:
        """A connection joined: freeze once the burst it belongs to has settled."""
        if not self.enabled:
            return
        self._joins += 1
        if self._joins < self.freeze_after_joins:
            return
        if self._joins >= BURST_FREEZE * self.freeze_after_joins:
            self.freeze()
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self._settle, self._settled)

    def closed(self, still_open: int = 0) -> None:
        """A connection closed: after many, collect the cycles frozen among the departed.

        "Many" is :data:`RECLAIM_AFTER_CLOSES`, or as many as are still open if more: a
        reclaim walks every live object, so its cost is spread over as many closes as there
        are connections (each leaves about a dozen objects in cycles until then).
        """
        if not self.enabled:
            return
        self._closes += 1
        if (self._closes >= max(self._reclaim_after_closes, still_open)
                and self._monotonic() - self._reclaimed_at >= self._reclaim_interval):
            self.reclaim()

    def _sweep_and_again(self) -> None:
        """Sweep, and the next one a sweep interval from now however long this one took (a
        put-off sweep only finds more, not less, to scan)."""
        self._sweeper = asyncio.get_running_loop().call_later(self._sweep_interval,
                                                             self._sweep_and_again)
        self.sweep()

    def sweep(self) -> None:
        """Collect the young generations and freeze what survived them.

        Without it, objects living seconds (what each connection's next receive waits on)
        piled up in generations 1 and 2 between freezes: at 10,000 clients and 1,000
        commands/s, gen-1 collections of 30,000-75,000 objects took 20-40 ms of CPU each,
        and full ones up to 100 ms, while every one of those objects was alive. Swept every
        :data:`SWEEP_INTERVAL`, the young generations hold only that long's survivors.
        """
        gc.collect(1)
        gc.freeze()
        self.sweeps += 1

    def _settled(self) -> None:
        self._timer = None
        self.freeze()

    def freeze(self) -> None:
        """Collect the young generations, then move every tracked object out of view."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        gc.collect(1)  # garbage still young is freed, not frozen
        gc.freeze()
        self._joins = 0
        self.freezes += 1

    def reclaim(self) -> None:
        """One full collection over everything, then freeze again."""
        gc.unfreeze()
        started = time.perf_counter()
        found = gc.collect()
        gc.freeze()
        self._closes = 0
        self._reclaimed_at = self._monotonic()
        self.reclaims += 1
        logger.info("reclaimed %d objects in a full collection of %.0f ms", found,
                    1000 * (time.perf_counter() - started))

    def status(self) -> dict[str, Any]:
        """For ``/health?format=json``: the setting, freezes and the collector's pauses."""
        return {"freeze_after_joins": self.freeze_after_joins, "freezes": self.freezes,
                "sweeps": self.sweeps, "reclaims": self.reclaims, **self.stats.status()}
