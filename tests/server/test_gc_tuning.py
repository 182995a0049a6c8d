"""The collector's tuning: applied at start, visible in /health, freezing after joins, and
reclaiming frozen cycles; the collector's pauses are counted."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import time
import urllib.request
import weakref
from pathlib import Path

from poolhall.server.app import Server
from poolhall.server.gc_tuning import (
    LONG_PAUSES_MS,
    SWEEP_INTERVAL,
    YOUNG_THRESHOLD,
    GcStats,
    GcTuning,
)
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN
from tests.server.raw import RawPeer


class _Node:
    """A container the collector tracks, able to form a cycle."""

    def __init__(self) -> None:
        self.other: object = None


def _tracked_in_a_generation(obj: object) -> bool:
    return any(candidate is obj for generation in range(3)
               for candidate in gc.get_objects(generation))


async def _health(server: Server) -> dict[str, object]:
    url = f"http://127.0.0.1:{server.port}/health?format=json"

    def get() -> dict[str, object]:
        with urllib.request.urlopen(url, timeout=5) as response:
            return dict(json.loads(response.read()))

    return await asyncio.to_thread(get)


async def test_the_tuning_is_applied_at_start_and_shown_in_health(tmp_path: Path) -> None:
    """A started server has frozen what start-up built and says so, with its setting, in
    /health's JSON; with the setting at 0 it freezes nothing."""
    for setting, freezes in ((64, 1), (0, 0)):
        server = Server(tmp_path / f"gc{setting}.db", "127.0.0.1", 0, rng=random.Random(1),
                        admin_token=ADMIN_TOKEN, settings=Settings(gc_freeze_joins=setting))
        await server.start()
        try:
            status = (await _health(server))["gc"]
            assert isinstance(status, dict)
            assert status["freeze_after_joins"] == setting
            assert status["freezes"] == freezes
            assert len(status["collections"]) == len(status["pause_ms"]) == 3
        finally:
            await server.stop()
    assert gc.callbacks.count(server.gc.stats.callback) == 0  # stop() takes its callback back


async def test_a_burst_of_joins_is_frozen_once_it_settles(tmp_path: Path) -> None:
    """Joins past the setting, then a pause: what the connections hold leaves the collector's
    generations (and the table still answers)."""
    server = Server(tmp_path / "joins.db", "127.0.0.1", 0, rng=random.Random(1),
                    admin_token=ADMIN_TOKEN, settings=Settings(gc_freeze_joins=3))
    server.gc._settle = 0.05
    await server.start()
    try:
        peers = [await RawPeer.open(server.url) for _ in range(3)]
        before = server.gc.freezes
        for peer in peers:
            assert (await peer.join(ADMIN_TOKEN, None))["type"] == "welcome"
        subscriber = next(iter(server._connections))
        for _ in range(200):
            if server.gc.freezes > before:
                break
            await asyncio.sleep(0.01)
        assert server.gc.freezes == before + 1
        assert not _tracked_in_a_generation(subscriber)  # frozen: out of every scan
        assert gc.is_tracked(subscriber)
        for peer in peers:
            await peer.close()
    finally:
        await server.stop()


async def test_what_survives_a_sweep_of_the_young_generations_is_frozen(tmp_path: Path) -> None:
    """Every sweep interval, the young generations are collected and their survivors frozen:
    an object that lives on leaves the collector's scans without any join; a young cycle
    already dropped is freed, not frozen. /health counts the sweeps."""
    server = Server(tmp_path / "sweep.db", "127.0.0.1", 0, rng=random.Random(1),
                    admin_token=ADMIN_TOKEN, settings=Settings(gc_freeze_joins=64))
    server.gc._sweep_interval = 0.05
    await server.start()
    try:
        survivor, a, b = _Node(), _Node(), _Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        assert _tracked_in_a_generation(survivor)
        sweeps = server.gc.sweeps
        for _ in range(200):
            if server.gc.sweeps > sweeps:
                break
            await asyncio.sleep(0.01)
        assert server.gc.sweeps > sweeps
        assert gc.is_tracked(survivor)
        assert not _tracked_in_a_generation(survivor)
        assert gone() is None
        status = (await _health(server))["gc"]
        assert isinstance(status, dict)
        assert status["sweeps"] >= 1
    finally:
        await server.stop()
    gc.unfreeze()


async def test_the_young_threshold_is_raised_while_running_and_put_back(tmp_path: Path) -> None:
    """A started server collects generation 0 every YOUNG_THRESHOLD allocations, not
    CPython's 700; stopped, it leaves the thresholds as it found them. With freezing off, the
    collector is left as CPython ships it."""
    before = gc.get_threshold()
    for setting, young in ((64, YOUNG_THRESHOLD), (0, before[0])):
        server = Server(tmp_path / f"t{setting}.db", "127.0.0.1", 0, rng=random.Random(1),
                        admin_token=ADMIN_TOKEN, settings=Settings(gc_freeze_joins=setting))
        await server.start()
        try:
            assert gc.get_threshold() == (young, *before[1:])
        finally:
            await server.stop()
        assert gc.get_threshold() == before
    gc.unfreeze()


async def test_sweeps_keep_their_interval_however_long_one_took() -> None:
    """The next sweep is due one sweep interval after the last began, even after a slow one:
    putting it off let survivors pile up into ever longer sweeps (50 ms at 10,000 clients)."""
    tuning = GcTuning(64)
    loop = asyncio.get_running_loop()
    tuning.start()
    slow = tuning.sweep

    def slow_sweep() -> None:
        slow()
        time.sleep(2 * SWEEP_INTERVAL)  # a sweep over a large young generation

    tuning.sweep = slow_sweep  # type: ignore[method-assign]
    try:
        assert tuning._sweeper is not None
        tuning._sweeper.cancel()  # the sweeps are run by hand here
        started = loop.time()
        tuning._sweep_and_again()
        assert tuning._sweeper.when() - started < 1.5 * SWEEP_INTERVAL
        assert tuning.sweeps == 1
    finally:
        tuning.stop()
        gc.unfreeze()


def test_reclaim_collects_cycles_that_were_frozen() -> None:
    """A cycle frozen while alive and dropped later is freed by a reclaim, not before."""
    tuning = GcTuning(1, reclaim_after_closes=2, reclaim_interval=0.0)
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    gc.freeze()
    try:
        del a, b
        gc.collect()
        assert gone() is not None  # frozen: a full collection does not see it
        tuning.closed()
        assert gone() is not None
        assert tuning.reclaims == 0
        tuning.closed()  # the second close since the last freeze: reclaim
        assert gone() is None
        assert tuning.reclaims == 1
    finally:
        gc.unfreeze()


def test_gc_stats_count_collections_by_generation() -> None:
    """Each collection is counted in its generation, with its pause."""
    stats = GcStats()
    gc.callbacks.append(stats.callback)
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        gc.callbacks.remove(stats.callback)
    assert stats.collections[0] >= 1
    assert stats.collections[2] >= 1
    assert stats.pause_seconds[2] > 0
    assert stats.max_pause_seconds[2] > 0
    assert stats.status()["collections"] == stats.collections


def test_reclaim_waits_for_as_many_closes_as_connections_are_open() -> None:
    """With more connections open than the threshold, a reclaim waits for that many closes."""
    tuning = GcTuning(1, reclaim_after_closes=2, reclaim_interval=0.0)
    for _ in range(4):
        tuning.closed(still_open=5)
    assert tuning.reclaims == 0
    tuning.closed(still_open=5)
    assert tuning.reclaims == 1
    gc.unfreeze()


def test_what_survives_a_full_collection_is_frozen() -> None:
    """After a full collection the survivors are frozen: the next one does not scan them."""
    tuning = GcTuning(64, sweep_interval=0)  # no loop here to sweep on
    tuning.start()
    try:
        survivor = _Node()
        freezes = tuning.freezes
        gc.collect()
        assert tuning.freezes == freezes + 1
        assert gc.is_tracked(survivor)
        assert not _tracked_in_a_generation(survivor)
    finally:
        tuning.stop()
        gc.unfreeze()
    assert tuning._after_collection not in gc.callbacks


def test_gc_stats_count_long_pauses_by_their_cpu_time() -> None:
    """A collection is counted at each level of LONG_PAUSES_MS its CPU time reaches (not its
    wall-clock time, which a busy machine stretches)."""
    wall = iter([0.0, 1.0, 2.0, 2.0005])  # a second of wall clock, then half a millisecond
    cpu = iter([0.0, 0.006, 1.0, 1.0005])  # 6 ms of CPU, then half a millisecond
    stats = GcStats(clock=lambda: next(wall), cpu_clock=lambda: next(cpu))
    for _ in range(2):
        stats.callback("start", {"generation": 1})
        stats.callback("stop", {"generation": 1})
    status = stats.status()
    assert status["long_pauses_at_ms"] == list(LONG_PAUSES_MS)
    assert status["long_pauses"] == [1 if ms <= 6 else 0 for ms in LONG_PAUSES_MS]
    assert status["collections"] == [0, 2, 0]


def test_what_survives_a_young_collection_is_frozen() -> None:
    """A collection of generation 0 (as its threshold triggers between sweeps) freezes its
    survivors too, so the next sweep does not scan them again; its garbage is freed."""
    tuning = GcTuning(64, sweep_interval=0)  # no loop here to sweep on
    tuning.start()
    try:
        survivor, a, b = _Node(), _Node(), _Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        gc.collect(0)
        assert gc.is_tracked(survivor)
        assert not _tracked_in_a_generation(survivor)
        assert gone() is None
    finally:
        tuning.stop()
        gc.unfreeze()
