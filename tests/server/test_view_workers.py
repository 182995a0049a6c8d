"""The odds workers themselves: a real worker process, no server around it."""

from __future__ import annotations

from typing import Any

import pytest

from poolhall.server.views import ViewWorkers


def broken(n: int) -> dict[str, Any]:
    raise ValueError(f"no odds for {n}")


def square(n: int) -> dict[str, Any]:
    return {"odds": n * n}


async def test_a_failing_computation_raises_its_error_and_the_worker_carries_on() -> None:
    """A bug in a computation reaches the caller as it is; the same worker computes the next."""
    workers = ViewWorkers(workers=1, budget=5.0, cache_size=8)
    try:
        with pytest.raises(ValueError, match="no odds for 3"):
            await workers.compute((broken, 3))
        (pid,) = workers.pids()
        assert await workers.compute((square, 4)) == {"odds": 16}
        assert workers.pids() == [pid]
    finally:
        await workers.stop()
    assert workers.pids() == []


async def test_workers_start_only_when_odds_are_asked_for() -> None:
    """A server whose tables never ask for odds never starts a worker, and stops at once."""
    workers = ViewWorkers(workers=1, budget=5.0, cache_size=8)
    assert workers.pids() == []
    await workers.stop()
    assert workers.pids() == []


def hungry(megabytes: int) -> dict[str, Any]:
    return {"odds": len(bytearray(megabytes * 2**20))}


async def test_a_computation_past_the_workers_memory_is_not_computed_and_the_worker_lives(
        ) -> None:
    """A worker holds at most its memory limit: a computation needing more is answered "not
    computed" (saying so), not by a worker killed or a server swapping, and the same worker
    computes the next."""
    from poolhall.server.views import NotComputed

    workers = ViewWorkers(workers=1, budget=30.0, cache_size=8, memory=400 * 2**20)
    try:
        assert await workers.compute((hungry, 8)) == {"odds": 8 * 2**20}
        (pid,) = workers.pids()
        with pytest.raises(NotComputed, match="needed more than the worker's 400 MiB"):
            await workers.compute((hungry, 1024))
        assert await workers.compute((square, 5)) == {"odds": 25}
        assert workers.pids() == [pid]
    finally:
        await workers.stop()
