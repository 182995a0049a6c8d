"""Diagnosis for the bench's server child: what the collector's young generations hold.

With ``POOLHALL_BENCH_GC_CENSUS=FILE`` (or ``FILE:reclaim``, the reclaims only) in its
environment, ``table_load.py``'s server child
writes to FILE, at the start of every collection, its generation, how many objects each
generation it scans holds, and how long it took; every ``--every``-th such line also counts
those objects by type (the most common first). On SIGUSR2 it unfreezes everything, runs a
full collection and writes how many objects it found unreachable: the cyclic garbage that
was frozen alive and died frozen since the last such reclaim. Slows the server: never in a
measured run.
"""

from __future__ import annotations

import gc
import signal
import time
from collections import Counter
from typing import IO, Any

__all__ = ["GcCensus"]


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
