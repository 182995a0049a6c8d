"""Group commit: one writer task appends the requests of every campaign in batches.

Hubs hand their append requests to :meth:`GroupCommitter.append` and wait. The writer takes
whatever has queued up while the previous transaction was being made durable and commits it as
one transaction on its own thread, so a thousand commands cost a handful of fsyncs, and the
event loop never blocks on the disk.

The writer is also the one that knows whether the disk takes writes: it reports every failed
or successful append and checkpoint to the :class:`~server.health.LogHealth` it is given,
checks the free space beside the log once a second, and while appends are failing tries a
probe write once a second so the log recovers without a command having to fail first.
Repeated failures are logged once per episode and interval (:class:`~server.health.FailureLog`).

Between two commits the writer also does one step of the log's housekeeping, if it has any
(the command index merged off the commit path: :mod:`events.command_keys`), and when the
queue is idle the checkpointer's tick finishes it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from events.errors import ConcurrencyError, StoreError
from events.log import Appended, AppendRequest, EventLog
from server.health import FailureLog, LogHealth

__all__ = ["GroupCommitter"]

logger = logging.getLogger(__name__)

CHECKPOINT_SECONDS = 0.1
WATCH_EVERY = 10
"""Checkpoint ticks between two looks at the free disk space (and two probe writes)."""

_Pending = tuple[list[AppendRequest], "asyncio.Future[list[Appended | Exception]]"]


class GroupCommitter:
    """The single writer of an event log."""

    def __init__(self, log: EventLog, max_batch: int = 2000, *,
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
        self._queue: deque[_Pending] = deque()  # a plain deque: asyncio.Queue's own
        # bookkeeping cost ~2 µs a request in each direction, a tenth of the budget at 50k/s
        self._wakeup: asyncio.Future[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="poolhall-writer")
        self._task: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self.batches = 0
        self.appended = 0
        self._closing = False

    def start(self) -> None:
        """Start the writer task, and the checkpointer beside it, on the running loop."""
        self.check_free_space()
        self._task = asyncio.create_task(self._run(), name="poolhall-writer")
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

    async def _checkpoint_every(self, seconds: float) -> None:
        """Keep the WAL short from a thread of its own, never inside a commit; once a second
        look at the free space and, while appends fail, try a probe write."""
        tick = 0
        while True:
            await asyncio.sleep(seconds)
            while self._has_housework() and not self._queue and not self._closing:
                if not await self._housekeeping():
                    break  # the disk refuses: the next tick tries again
            await self._checkpoint()
            tick += 1
            if tick % WATCH_EVERY == 0:
                self.check_free_space()
                if self.health.failing("append"):
                    await self._probe()

    async def _checkpoint(self) -> None:
        try:
            await asyncio.to_thread(self._log.checkpoint)
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

    def _report(self, results: list[Appended | Exception]) -> None:
        """Tell the health model what this batch met: a failed commit, or a good one."""
        failure = next((r for r in results if isinstance(r, StoreError)
                        and not isinstance(r, ConcurrencyError)), None)
        if failure is not None:
            self._append_failures.failed(failure)
            self.health.failed("append", str(failure).removeprefix("append failed: "))
        elif any(isinstance(r, list) and r for r in results):
            self._append_failures.succeeded()
            self.health.recovered("append")

    async def append(self, requests: list[AppendRequest]) -> list[Appended | Exception]:
        """Append requests durably; each result is its sequence numbers or the error it met."""
        if self._task is None or self._task.done() or self._closing:
            raise StoreError("the writer is not running")
        future: asyncio.Future[list[Appended | Exception]] = (
            asyncio.get_running_loop().create_future()
        )
        self._queue.append((requests, future))  # unbounded: never waits
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)
        return await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        queue = self._queue
        while True:
            if not queue:
                if self._closing:
                    break
                self._wakeup = loop.create_future()
                await self._wakeup
                self._wakeup = None
                continue
            pending = [queue.popleft()]
            batch = list(pending[0][0])
            singles = len(batch) == 1  # one request each: results map one to one
            while len(batch) < self._max_batch and queue:
                more = queue.popleft()
                pending.append(more)
                batch += more[0]
                singles = singles and len(more[0]) == 1
            try:
                results = await loop.run_in_executor(self._executor, self._log.append_batch, batch)
            except Exception as error:  # a bug (the store turns SQLite's errors into results)
                if not self.health.failing("append"):  # its traceback, once per episode
                    logger.exception("append batch raised")
                results = [StoreError(f"append failed: {error}")] * len(batch)
            self._report(results)
            self.batches += 1
            self.appended += sum(len(r) for r in results if isinstance(r, list))
            if singles:  # the usual case: no slicing
                for (_, future), result in zip(pending, results, strict=True):
                    if not future.done():
                        future.set_result([result])
            else:
                start = 0
                for requests, future in pending:
                    if not future.done():
                        future.set_result(results[start:start + len(requests)])
                    start += len(requests)
            if self._has_housework():
                await self._housekeeping()
        while queue:  # nothing can queue once closing; be sure
            _, future = queue.popleft()
            if not future.done():
                future.set_exception(StoreError("the writer stopped"))

    async def stop(self) -> None:
        """Commit everything queued so far, then stop the writer; later appends are refused."""
        self._closing = True
        if self._checkpointer is not None:
            self._checkpointer.cancel()
        if self._task is not None and not self._task.done():
            if self._wakeup is not None and not self._wakeup.done():
                self._wakeup.set_result(None)
            await self._task
        self._executor.shutdown(wait=True)
        await self._checkpoint()  # a failure is logged and reported: shutdown goes on
