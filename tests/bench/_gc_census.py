"""Diagnosis for the bench's server child: what the collector's young generations hold.

With ``POOLHALL_BENCH_GC_CENSUS=FILE`` (or ``FILE:reclaim``, the reclaims only) in its
environment, the bench's server child (``_server_child.py``)
writes to FILE, at the start of every collection, its generation, how many objects each
generation it scans holds, and how long it took; every ``--every``-th such line also counts
those objects by type (the most common first). On SIGUSR2 it unfreezes everything, runs a
full collection and writes how many objects it found unreachable: the cyclic garbage that
was frozen alive and died frozen since the last such reclaim. ``FILE:stalls`` instead
writes every event-loop callback that held the loop :data:`STALL` seconds of CPU or more,
with the collector's share of it. Slows the server: never in a measured run.
"""

from __future__ import annotations

import gc
import signal
import time
from collections import Counter
from typing import IO, Any

__all__ = ["STALL", "GcCensus", "watch_stalls"]

STALL = 0.003
"""CPU seconds of one callback from which :func:`watch_stalls` writes it down."""


def watch_stalls(out: IO[str]) -> None:
    """Time every callback the event loop runs (asyncio's ``Handle._run``) in CPU seconds of
    the loop's thread, and write down the long ones with what the collector took of them."""
    import asyncio.events

    in_gc = [0.0, 0.0]  # CPU seconds in collections so far; when the current one started

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            in_gc[1] = time.thread_time()
        else:
            in_gc[0] += time.thread_time() - in_gc[1]

    gc.callbacks.append(on_gc)
    run = asyncio.events.Handle._run

    def timed(handle: asyncio.events.Handle) -> None:
        cpu, wall, collected = time.thread_time(), time.perf_counter(), in_gc[0]
        run(handle)
        took = time.thread_time() - cpu
        if took >= STALL:
            out.write(f"{time.time():.3f} stall cpu {1000 * took:.1f} ms wall "
                      f"{1000 * (time.perf_counter() - wall):.1f} ms gc "
                      f"{1000 * (in_gc[0] - collected):.1f} ms: {handle!r:.160}\n")
            out.flush()

    # asyncio's own method patched with a plain function (its parameter is not named self)
    asyncio.events.Handle._run = timed  # type: ignore[method-assign, assignment]


class GcCensus:
    """Counts the young generations' objects at each collection and writes them to a file."""

    def __init__(self, out: IO[str], *, collections: bool = True, every: int = 5,
                 top: int = 25) -> None:
        self._out = out
        self._every = every
        self._top = top
        self._seen = 0
        self._started = 0.0
        self._sizes: list[int] = []
        if collections:
            gc.callbacks.append(self.callback)
        signal.signal(signal.SIGUSR2, self.reclaim)

    def reclaim(self, signum: int, frame: object) -> None:
        """Count the garbage hidden among the frozen objects (by collecting it)."""
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        started = time.perf_counter()
        found = gc.collect()
        took = 1000 * (time.perf_counter() - started)
        gc.freeze()
        self._out.write(f"{time.time():.3f} RECLAIM frozen {frozen} found {found} "
                        f"in {took:.0f} ms\n")
        self._out.flush()

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        generation = info.get("generation", 2)
        if phase == "start":
            self._seen += 1
            objects = [gc.get_objects(g) for g in range(min(generation, 1) + 1)]
            self._sizes = [len(found) for found in objects]
            if self._seen % self._every == 0:
                types = Counter(type(o).__qualname__ for found in objects for o in found)
                self._out.write(f"  types: {types.most_common(self._top)}\n")
            del objects
            self._started = time.perf_counter()
            return
        took = 1000 * (time.perf_counter() - self._started)
        self._out.write(f"{time.time():.3f} gen {generation} young {self._sizes} "
                        f"took {took:.1f} ms collected {info.get('collected')}\n")
        self._out.flush()
