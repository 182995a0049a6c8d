"""Group commit: one writer thread appends the requests of every campaign in batches.

Hubs hand their append requests to :meth:`GroupCommitter.append` and wait. The writer takes
whatever has queued up while the previous transaction was being made durable and commits it as
one transaction on its own thread, so a thousand commands cost a handful of fsyncs, and the
event loop never blocks on the disk. The writer's thread goes from one commit to the next by
itself, and a large backlog starts a commit before the loop has queued all of it, so the loop
(running the hubs the last answers woke) and the commit overlap on two cores.

The writer is also the one that knows whether the disk takes writes: it reports every failed
or successful append and checkpoint to the :class:`~poolhall.server.health.LogHealth` it is given,
checks the free space beside the log once a second, and while appends are failing tries a
probe write once a second so the log recovers without a command having to fail first.
Repeated failures are logged once per episode and interval
(:class:`~poolhall.server.health.FailureLog`). Once a second it also looks at the WAL's size: past
its limit at two looks in a row while a checkpoint cannot copy it back (a reader outside the server
holding an old snapshot), the log is reported degraded in ``/health`` and in the log, with the size
and the limit.

Between two commits the writer also does the log's housekeeping, if it has any (SQLite: the
WAL started over once the checkpointer finds it past its limit,
:meth:`poolhall.events.sqlite_backend.SqliteLog.checkpoint`), and when the queue is idle the
checkpointer's tick does it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from poolhall.events.errors import ConcurrencyError, StoreError
from poolhall.events.log import AppendRequest, AppendResult, ServerLog
from poolhall.events.sqlite_backend import JOURNAL_SIZE_LIMIT
from poolhall.server.health import FailureLog, LogHealth

__all__ = ["GroupCommitter"]

logger = logging.getLogger(__name__)

CHECKPOINT_SECONDS = 0.1
WATCH_EVERY = 10
"""Checkpoint ticks between two looks at the free disk space (and two probe writes)."""

EARLY_BATCH = 256
"""Requests queued behind an idle writer at which it starts on them at once, without
waiting for the rest of what the loop is running: with a thousand hubs answered at once,
the first few hundred commit while the loop runs the others (the two overlap on two cores);
a few dozen are left to gather, as one fsync costs more than the loop's time for them. Half
the last batch, when that is more."""

WAL_LOOKS = 2
"""Looks in a row (a second apart) the WAL must be past its limit before it is reported: under
a heavy writer it passes the limit for a moment before the writer starts it over."""

MiB = 2**20


def _mib(size: int) -> str:
    """``353 MiB``, ``0.3 MiB``."""
    return f"{size / MiB:.0f} MiB" if size >= 10 * MiB else f"{size / MiB:.1f} MiB"


_Waiting = tuple[int, "asyncio.Future[list[AppendResult]]"]


class GroupCommitter:
    """The single writer of an event log."""

    def __init__(self, log: ServerLog, max_batch: int = 2000, *,
                 health: LogHealth | None = None, directory: Path | None = None,
                 reserve_bytes: int = 0, clock: Callable[[], str] | None = None) -> None:
        self._log = log
        self._max_batch = max_batch
        self.health = health if health is not None else LogHealth()
        self._directory = directory
        self._reserve = reserve_bytes
        self._clock = clock
        self._append_failures = FailureLog(logger, "append")
        self._checkpoint_failures = FailureLog(logger, "checkpoint")
        self._low_disk = FailureLog(logger, "disk", interval=60.0)
        self._housework_failures = FailureLog(logger, "index housekeeping", interval=60.0)
        self._big_wal = FailureLog(logger, "the WAL", interval=60.0, level=logging.WARNING,
                                   failing="past its limit", ended="back under its limit")
        self.wal_limit = JOURNAL_SIZE_LIMIT
        """Bytes of WAL past which the log is reported degraded (tests lower it)."""
        self._wal_looks = 0
        self._lock = threading.Lock()
        """Guards the queue and :attr:`_busy`, shared by the loop and the writer's thread."""
        self._requests: list[AppendRequest] = []
        """Queued requests, in order (plain lists: asyncio.Queue's own bookkeeping cost ~2 µs
        a request in each direction, a tenth of the budget at 50k/s)."""
        self._waiting: list[_Waiting] = []
        """Each queued append: how many of :attr:`_requests` it made, and who waits for them."""
        self._busy = False
        """Whether the writer's thread is committing (it takes what queued meanwhile)."""
        self._kicked = False
        self._early = EARLY_BATCH
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drained: asyncio.Future[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="poolhall-writer")
        self._checkpointer: asyncio.Task[None] | None = None
        self.batches = 0
        self.appended = 0
        self._closing = False

    def start(self) -> None:
        """Start the writer task, and the checkpointer beside it, on the running loop."""
        self.check_free_space()
        self._loop = asyncio.get_running_loop()
        self._checkpointer = asyncio.create_task(self._checkpoint_every(CHECKPOINT_SECONDS))

    @property
    def checkpoint_failures(self) -> int:
        """Checkpoints failed in a row so far (0 once one succeeds)."""
        return self._checkpoint_failures.failures

    def check_free_space(self) -> None:
        """Mark the disk failing while its free space is under the reserve (cheap: statvfs)."""
        if not self._reserve or self._directory is None:
            return
        try:
            stats = os.statvfs(self._directory)
        except OSError as error:
            problem = f"cannot read the free space: {error.strerror or error}"
        else:
            free = stats.f_bavail * stats.f_frsize
            if free >= self._reserve:
                self._low_disk.succeeded()
                self.health.recovered("disk")
                return
            problem = (f"{free // 2**20} MiB free, under the reserve of "
                       f"{self._reserve // 2**20} MiB; commands are refused")
        self._low_disk.failed(problem)
        self.health.failed("disk", problem)

    def check_wal(self) -> None:
        """Report the log degraded while its WAL is past :attr:`wal_limit` and checkpoints
        cannot copy it back; recovered once they can (cheap: a stat)."""
        size_of = getattr(self._log, "wal_size", None)
        if size_of is None:  # a log with no WAL (PostgreSQL's is the database's business)
            return
        size = size_of()
        if size <= self.wal_limit or not getattr(self._log, "wal_held", True):
            self._wal_looks = 0
            self._big_wal.succeeded()
            self.health.recovered("wal")
            return
        self._wal_looks += 1
        if self._wal_looks < WAL_LOOKS:
            return
        why = (f"the WAL file is {_mib(size)}, its limit {_mib(self.wal_limit)}: a reader "
               "holds an old snapshot of the log (a backup, a long read, sqlite3 left open), "
               "so checkpoints cannot copy the WAL back; it grows with every append until "
               "that reader lets go")
        self._big_wal.failed(why)
        self.health.degraded("wal", why)

    async def _checkpoint_every(self, seconds: float) -> None:
        """Keep the WAL short from a thread of its own, never inside a commit; once a second
        look at the free space and, while appends fail, try a probe write."""
        tick = 0
        while True:
            await asyncio.sleep(seconds)
            while (self._has_housework() and not self._requests and not self._busy
                   and not self._closing):
                if not await self._housekeeping():
                    break  # the disk refuses: the next tick tries again
            await self._checkpoint()
            tick += 1
            if tick % WATCH_EVERY == 0:
                self.check_free_space()
                self.check_wal()
                if self.health.failing("append"):
                    await self._probe()

    async def _checkpoint(self) -> None:
        try:
            checkpoint = getattr(self._log, "checkpoint", None)  # see log_contract.Maintenance
            if checkpoint is not None:
                await asyncio.to_thread(checkpoint)
        except Exception as error:
            self._checkpoint_failures.failed(error)
            self.health.failed("checkpoint", str(error))
        else:
            self._checkpoint_failures.succeeded()
            self.health.recovered("checkpoint")

    async def _probe(self) -> None:
        """One small write on the writer's thread (after any batch in progress)."""
        if self._closing:
            return
        probe = getattr(self._log, "probe", None)
        if probe is None:  # a log that cannot probe: let the next append be the trial
            self.health.recovered("append")
            return
        at = self._clock() if self._clock is not None else ""
        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, probe, at)
        except Exception as error:
            self._append_failures.failed(f"probe write: {error}")
        else:
            self._append_failures.succeeded()
            self.health.recovered("append")

    def _has_housework(self) -> bool:
        return bool(getattr(self._log, "has_housework", False))

    async def _housekeeping(self) -> bool:
        """One step of the log's housekeeping on the writer's thread (after any commit);
        whether it succeeded."""
        try:
            await asyncio.get_running_loop().run_in_executor(
                self._executor, self._log.housekeeping)  # type: ignore[attr-defined]
        except Exception as error:  # the disk: appends will say so; retried later
            self._housework_failures.failed(error)
            return False
        self._housework_failures.succeeded()
        return True

    def _report(self, results: list[AppendResult]) -> int:
        """Tell the health model what this batch met: a failed commit, or a good one; the
        events it stored."""
        stored = 0
        failure: StoreError | None = None
        for result in results:
            if isinstance(result, list):
                stored += len(result)
            elif (failure is None and isinstance(result, StoreError)
                  and not isinstance(result, ConcurrencyError)):
                failure = result
        if failure is not None:
            self._append_failures.failed(failure)
            self.health.failed("append", str(failure).removeprefix("append failed: "))
        elif stored:
            self._append_failures.succeeded()
            self.health.recovered("append")
        return stored

    def append(self, requests: list[AppendRequest]
               ) -> asyncio.Future[list[AppendResult]]:
        """Append requests durably: await the future this returns for each request's result,
        its sequence numbers or the error it met.

        A plain function returning the future (``await committer.append(...)`` as before):
        a coroutine around it cost a frame and a resumption more per append, ~1 µs at
        50,000 a second. Raises :class:`StoreError` at once if the writer is not running.
        """
        loop = self._loop
        if loop is None or self._closing:
            raise StoreError("the writer is not running")
        future: asyncio.Future[list[AppendResult]] = asyncio.Future(loop=loop)
        if not requests:
            future.set_result([])
            return future
        with self._lock:  # unbounded: never waits (but for the writer taking a batch)
            self._requests += requests
            self._waiting.append((len(requests), future))
            if not self._busy:
                if len(self._requests) >= self._early:  # a large backlog: the writer starts
                    self._start()  # on it now, and the rest queue while it commits
                elif not self._kicked:
                    self._kicked = True  # once what is ready to run now has queued its own
                    loop.call_soon(self._kick)
        return future

    def _kick(self) -> None:
        with self._lock:
            self._kicked = False
            if not self._busy and self._requests:
                self._start()

    def _start(self) -> None:
        """Put the writer's thread to work on what is queued (the lock held, writer idle)."""
        batch, waiting = self._take()
        self._busy = True
        self._executor.submit(self._write, batch, waiting)

    def _take(self) -> tuple[list[AppendRequest], list[_Waiting]]:
        """What is queued, up to ``max_batch`` requests (whole appends); the lock held."""
        requests, waiting = self._requests, self._waiting
        if len(requests) <= self._max_batch:
            self._requests, self._waiting = [], []
        else:
            count, end = 0, 0
            while count < self._max_batch:
                count += waiting[end][0]
                end += 1
            self._requests, self._waiting = requests[count:], waiting[end:]
            requests, waiting = requests[:count], waiting[:end]
        self._early = max(EARLY_BATCH, len(requests) // 2)
        return requests, waiting

    def _write(self, batch: list[AppendRequest], waiting: list[_Waiting]) -> None:
        """The writer's thread, while there is work: commit a batch, take what queued
        meanwhile, hand the results to the loop (one call for the batch), do one step of the
        log's housekeeping if it has any, and commit what it took, with no trip through the
        busy event loop in between.

        The next batch is taken before the answers are handed over: once they are, the loop
        runs the hubs they wake, whose next appends would otherwise join the batch still
        queued, and two cohorts that overlap (one committing while the loop runs the other)
        would merge into one that does not."""
        loop = self._loop
        assert loop is not None
        while batch:
            try:
                outcome: list[AppendResult] | Exception = self._log.append_batch(batch)
            except Exception as error:  # a bug (the store turns SQLite's errors into results)
                outcome = error
            idle = False
            with self._lock:
                if self._requests:
                    following = self._take()
                else:
                    following = ([], [])
                    self._busy = False
                    idle = self._drained is not None
            loop.call_soon_threadsafe(self._committed, waiting, len(batch), outcome)
            if idle:  # stop() waits: everything queued is answered
                loop.call_soon_threadsafe(self._went_idle)
            if getattr(self._log, "has_housework", False):
                try:
                    self._log.housekeeping()  # type: ignore[attr-defined]
                except Exception as error:  # the disk: appends will say so; retried later
                    loop.call_soon_threadsafe(self._housework_failures.failed, error)
                else:
                    loop.call_soon_threadsafe(self._housework_failures.succeeded)
            batch, waiting = following

    def _went_idle(self) -> None:
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def _committed(self, waiting: list[_Waiting], size: int,
                   outcome: list[AppendResult] | Exception) -> None:
        """On the loop: answer each append of a committed batch."""
        if isinstance(outcome, Exception):
            if not self.health.failing("append"):  # its traceback, once per episode
                logger.error("append batch raised", exc_info=outcome)
            results: list[AppendResult] = (
                [StoreError(f"append failed: {outcome}")] * size)
        else:
            results = outcome
        self.batches += 1
        self.appended += self._report(results)
        if len(waiting) == size:  # one request each, the usual case: no slicing
            for (_, future), result in zip(waiting, results, strict=True):
                if not future.done():
                    future.set_result([result])
        else:
            start = 0
            for count, future in waiting:
                if not future.done():
                    future.set_result(results[start:start + count])
                start += count

    async def stop(self) -> None:
        """Commit everything queued so far, then stop the writer; later appends are refused."""
        self._closing = True
        if self._checkpointer is not None:
            self._checkpointer.cancel()
        drained = None
        with self._lock:
            if not self._busy and self._requests:
                self._start()
            if self._busy:
                assert self._loop is not None
                drained = self._drained = self._loop.create_future()
        if drained is not None:
            await drained
        self._executor.shutdown(wait=True)
        await self._checkpoint()  # a failure is logged and reported: shutdown goes on
