"""Expensive views (exact odds) are computed off the event loop that serves every table.

A game system declares its views in two steps. On the loop it names **what** to compute: a
:class:`Compute` carries the view's cheap part (built from the state at once), a top-level
function and a small, hashable, picklable input. **The computation** runs in a worker process
(:class:`ViewWorkers`), so a member who keeps changing a pool of 20 dice costs other tables
nothing: one uncached narrative pool of 20 dice takes ~0.1 s of a core, which on the loop would
stall every campaign's rolls and ``/health`` for as long.

Between the two sits :class:`ViewQueue`, one per campaign, with no I/O (unit-tested without
processes):

- results are kept in a server-wide LRU :class:`ResultCache` keyed by (function, input), so the
  same pool seen again, or a burst of members joining, costs a dictionary lookup;
- changes are coalesced per view: while a view's computation is in flight, newer changes only
  replace its pending input, and when the computation returns only the latest input is computed
  next; a result that is no longer current is never sent;
- work per campaign is bounded: at most ``in_flight`` computations of a campaign are handed to
  the workers at once (so campaigns take turns in the workers' queue), and at most ``backlog``
  views wait behind them; past that, a view says its odds were not computed.

While a computation is pending the table keeps the view it has (the last odds stay on screen
until the new ones arrive, a fraction of a second); a view is sent only once complete. When odds
are not computed (the worker failed, took longer than its time budget, or the campaign has too
many views waiting) the view is sent without them, its ``note`` saying why.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

try:
    import resource
except ImportError:  # not on Windows: no memory limit there
    resource = None  # type: ignore[assignment]

from poolhall.events.base import ViewData
from poolhall.events.messages import View

if TYPE_CHECKING:  # imported when the first computation starts the workers (5 ms a start)
    import multiprocessing.process
    from concurrent.futures import ProcessPoolExecutor

__all__ = [
    "Compute",
    "Job",
    "NotComputed",
    "ResultCache",
    "ViewQueue",
    "ViewSpec",
    "ViewResult",
    "ViewWorkers",
    "WORKER_NICENESS",
    "computed",
]

logger = logging.getLogger(__name__)

WORKER_NICENESS = 10
"""How much lower than the server's the workers' CPU priority is (``nice``): on a machine with
fewer free cores than busy workers, the loop that answers every table runs first."""

ViewResult = dict[str, object]
"""The fields a computation fills in a view's data (``{"odds": OddsSummary(...)}``)."""
Job = tuple[Callable[[Any], ViewResult], Hashable]
"""What a worker runs: a top-level function and its input; also the key of its cached result."""


@dataclass(frozen=True)
class Compute:
    """A view whose costly part is computed off the loop: ``data`` with the fields
    ``function(input)`` returns, or with its ``note`` saying why they were not computed (they
    keep their defaults: ``null``)."""

    about: str
    """What the view is about (``check:<id>``): a newer view about it replaces this one."""
    data: ViewData
    """The view's cheap part, built from the state at once; its costly fields left null."""
    function: Callable[[Any], ViewResult]
    """A module-level function, so that a worker process can find it by name; it returns the
    costly fields, typed (Structs pickle)."""
    input: Hashable
    """Small, hashable and picklable: the pool's dice counts, a TN, a DT."""

    @property
    def job(self) -> Job:
        return (self.function, self.input)

    @property
    def key(self) -> str:
        return self.about

    def complete(self, result: ViewResult) -> View:
        return View(about=self.about, data=msgspec.structs.replace(self.data, **result))

    def not_computed(self, reason: str) -> View:
        return View(about=self.about, data=msgspec.structs.replace(
            self.data, note=f"odds not computed: {reason}"))


ViewSpec = View | Compute
"""What a game system's ``views`` and ``standing_views`` return: ready views and computations."""


def computed(specs: Iterable[ViewSpec]) -> list[View]:
    """The views, computed here and now (for tests and tools; never on the server's loop)."""
    return [spec if isinstance(spec, View) else spec.complete(spec.function(spec.input))
            for spec in specs]


class NotComputed(Exception):
    """A computation that gave no result; its message says why, for the view's note."""


class ResultCache:
    """The latest results by (function, input), the least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self._size = max(size, 0)
        self._results: OrderedDict[Job, ViewResult] = OrderedDict()

    def __len__(self) -> int:
        return len(self._results)

    def get(self, job: Job) -> ViewResult | None:
        result = self._results.get(job)
        if result is not None:
            self._results.move_to_end(job)
        return result

    def put(self, job: Job, result: ViewResult) -> None:
        self._results[job] = result
        self._results.move_to_end(job)
        while len(self._results) > self._size:
            self._results.popitem(last=False)


class ViewQueue:
    """One campaign's views on their way to the workers: what is pending, what is running.

    The hub :meth:`offer`\\ s every view a change declares and sends what comes back at once
    (ready views and cached results); it hands :meth:`take`'s jobs to the workers and gives
    each result to :meth:`finished`, which returns the view to send if it is still current.
    """

    def __init__(self, cache: ResultCache, *, in_flight: int, backlog: int) -> None:
        self.cache = cache
        self._in_flight = max(in_flight, 1)
        self._backlog = max(backlog, 0)
        self._latest: dict[str, Compute] = {}
        """The newest computation each view waits for (a ready view removes its entry)."""
        self._waiting: dict[str, None] = {}
        """Views whose latest computation is still to be handed out, oldest first."""
        self._running: dict[str, Job] = {}
        self.started = 0
        """Computations handed out so far (fewer than the changes, when they come in bursts)."""

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def running(self) -> int:
        return len(self._running)

    def offer(self, spec: ViewSpec) -> View | None:
        """The view to send now, or ``None`` if it follows once computed."""
        if isinstance(spec, View):  # e.g. a check just rolled: no odds coming for it now
            self._forget(spec.about)
            return spec
        result = self.cache.get(spec.job)
        if result is not None:
            self._forget(spec.key)
            return spec.complete(result)
        key = spec.key
        if key not in self._latest and len(self._waiting) >= self._backlog:
            return spec.not_computed("too many views are waiting at this table; "
                                     "the next change asks again")
        self._latest[key] = spec
        if key not in self._running:
            self._waiting[key] = None
        return None

    def take(self) -> list[tuple[str, Job]]:
        """The jobs to start now: the oldest waiting views, up to the in-flight limit."""
        jobs = []
        while self._waiting and len(self._running) < self._in_flight:
            key = next(iter(self._waiting))
            del self._waiting[key]
            job = self._latest[key].job
            self._running[key] = job
            self.started += 1
            jobs.append((key, job))
        return jobs

    def finished(self, key: str, job: Job, outcome: ViewResult | NotComputed
                 ) -> View | None:
        """Record a job's outcome; the view to send if it is still the one the table wants."""
        self._running.pop(key, None)
        if not isinstance(outcome, NotComputed):
            self.cache.put(job, outcome)
        spec = self._latest.get(key)
        if spec is None:  # replaced by a ready view meanwhile
            return None
        if spec.job == job:
            del self._latest[key]
            if isinstance(outcome, NotComputed):
                return spec.not_computed(str(outcome))
            return spec.complete(outcome)
        result = self.cache.get(spec.job)  # a newer input came in meanwhile
        if result is not None:
            del self._latest[key]
            return spec.complete(result)
        self._waiting[key] = None
        return None

    def waits_for(self, key: str) -> bool:
        """Whether the table is owed view ``key`` (queued or being computed): an answer for it
        found in the cache now must go to the whole table, not only to whoever asked."""
        return key in self._latest

    def _forget(self, key: str) -> None:
        """Drop what a view waited for: a newer one has been sent."""
        self._latest.pop(key, None)
        self._waiting.pop(key, None)


# ---- the worker processes -------------------------------------------------------------------


class _OverBudget(Exception):
    """Raised inside a worker when a computation outlives its time budget."""


def _on_alarm(signum: int, frame: object) -> None:
    raise _OverBudget


class _OverMemory(Exception):
    """Raised inside a worker when a computation needed more memory than the worker may have."""


def _run_with_budget(function: Callable[[Any], ViewResult], argument: Any,
                     budget: float) -> ViewResult:
    """Run in a worker's main thread with an alarm: a computation that takes longer than
    ``budget`` seconds (of the wall clock) stops there, and the worker is free for the next.
    One that needs more memory than the worker's limit (:func:`_prepare`) stops with a
    ``MemoryError``, answered as not computed."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(budget, 0.0))  # 0 disarms it: no budget
    try:
        return function(argument)
    except MemoryError:
        raise _OverMemory from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _prepare(memory: int) -> None:
    """A worker yields the CPU to the event loop (odds may wait, rolls and joins may not), and
    holds at most ``memory`` bytes of data (``RLIMIT_DATA``: its heap and private mappings;
    0: no limit), so its memory is a known part of the server's budget, whatever it is
    asked to compute."""
    os.nice(WORKER_NICENESS)
    if memory > 0 and resource is not None:
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            memory = min(memory, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (memory, hard))


def _processes(executor: ProcessPoolExecutor) -> list[multiprocessing.process.BaseProcess]:
    # concurrent.futures has no public way (before 3.14) to name or stop its workers
    return list((getattr(executor, "_processes", None) or {}).values())


class ViewWorkers:
    """The server's worker processes and its result cache.

    The processes start with the first computation (a server whose tables never ask for odds
    never starts one), with the ``forkserver`` method: the server has threads, which ``fork``
    would copy mid-lock. A worker that dies (killed, out of memory) is replaced, and what it
    owed is computed again once; :meth:`stop` never waits for a computation.
    """

    def __init__(self, *, workers: int, budget: float, cache_size: int,
                 memory: int = 0) -> None:
        self.workers = max(workers, 1)
        self.budget = budget
        self.memory = memory
        """Bytes of data each worker may hold (0: no limit); past it a computation is not
        computed ("needed more memory than ...") and the worker lives on."""
        self.cache = ResultCache(cache_size)
        self._executor: ProcessPoolExecutor | None = None
        self._stopped = False

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and operators)."""
        if self._executor is None:
            return []
        return [process.pid for process in _processes(self._executor) if process.pid]

    async def compute(self, job: Job) -> ViewResult:
        """The result of ``job``; :class:`NotComputed` saying why there is none.

        Any other exception is the computation's own (a bug), raised here as it was there.
        """
        from concurrent.futures.process import BrokenProcessPool  # with the first computation

        for attempt in (1, 2):
            executor = self._current()
            try:
                # submitted from a thread: submit() may start a worker process, which blocks
                # for a third of a second the first time (the forkserver starting)
                future = await asyncio.to_thread(
                    executor.submit, _run_with_budget, job[0], job[1], self.budget)
            except (BrokenProcessPool, RuntimeError):  # broken, or replaced meanwhile
                pass
            else:
                try:
                    return await asyncio.wrap_future(future)
                except BrokenProcessPool:  # its worker died (killed, out of memory)
                    pass
                except _OverBudget:
                    raise NotComputed(f"took longer than {self.budget:g}s") from None
                except _OverMemory:
                    raise NotComputed(f"needed more than the worker's "
                                      f"{self.memory / 2**20:g} MiB") from None
            self._replace(executor)
            if self._stopped:
                raise NotComputed("the server is shutting down")
            if attempt == 2:
                raise NotComputed("the odds worker stopped")
            logger.warning("an odds worker stopped; computing its work again")
        raise AssertionError("unreachable")

    def _current(self) -> ProcessPoolExecutor:
        if self._stopped:
            raise NotComputed("the server is shutting down")
        if self._executor is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("forkserver"),
                initializer=_prepare, initargs=(self.memory,))
        return self._executor

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """Drop a broken pool (once, however many of its computations noticed)."""
        if self._executor is broken:
            self._executor = None
            broken.shutdown(wait=False, cancel_futures=True)

    async def stop(self) -> None:
        """Stop the workers now: a computation in progress is abandoned, not awaited."""
        self._stopped = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = _processes(executor)
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.kill()  # SIGKILL: a stopped (SIGSTOP) worker ignores SIGTERM until resumed
        for process in processes:  # a killed worker exits at once; reap it
            await asyncio.to_thread(process.join, 1)
