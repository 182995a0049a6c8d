"""Group commit: one writer task appends the requests of every campaign in batches.

Hubs hand their append requests to :meth:`GroupCommitter.append` and wait. The writer takes
whatever has queued up while the previous transaction was being made durable and commits it as
one transaction on its own thread, so a thousand commands cost a handful of fsyncs, and the
event loop never blocks on the disk.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from events.errors import StoreError
from events.log import Appended, AppendRequest, EventLog

__all__ = ["GroupCommitter"]

logger = logging.getLogger(__name__)

CHECKPOINT_SECONDS = 0.1

_Pending = tuple[list[AppendRequest], "asyncio.Future[list[Appended | Exception]]"]


class GroupCommitter:
    """The single writer of an event log."""

    def __init__(self, log: EventLog, max_batch: int = 2000) -> None:
        self._log = log
        self._max_batch = max_batch
        self._queue: asyncio.Queue[_Pending | None] = asyncio.Queue()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="poolhall-writer")
        self._task: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self.batches = 0
        self.appended = 0
        self._closing = False

    def start(self) -> None:
        """Start the writer task, and the checkpointer beside it, on the running loop."""
        self._task = asyncio.create_task(self._run(), name="poolhall-writer")
        self._checkpointer = asyncio.create_task(self._checkpoint_every(CHECKPOINT_SECONDS))

    async def _checkpoint_every(self, seconds: float) -> None:
        """Keep the WAL short from a thread of its own, never inside a commit."""
        while True:
            await asyncio.sleep(seconds)
            try:
                await asyncio.to_thread(self._log.checkpoint)
            except Exception:
                logger.exception("checkpoint failed; the next one will retry")

    async def append(self, requests: list[AppendRequest]) -> list[Appended | Exception]:
        """Append requests durably; each result is its sequence numbers or the error it met."""
        if self._task is None or self._task.done() or self._closing:
            raise StoreError("the writer is not running")
        future: asyncio.Future[list[Appended | Exception]] = (
            asyncio.get_running_loop().create_future()
        )
        await self._queue.put((requests, future))
        return await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        stopping = False
        while not stopping:
            item = await self._queue.get()
            if item is None:
                break
            pending = [item]
            size = len(item[0])
            while size < self._max_batch and not self._queue.empty():
                more = self._queue.get_nowait()
                if more is None:
                    stopping = True
                    break
                pending.append(more)
                size += len(more[0])
            batch = [request for requests, _ in pending for request in requests]
            try:
                results = await loop.run_in_executor(self._executor, self._log.append_batch, batch)
            except Exception as error:  # a bug or a dead disk: fail these, keep serving
                logger.exception("append batch failed")
                results = [StoreError(f"append failed: {error}")] * len(batch)
            self.batches += 1
            self.appended += sum(len(r) for r in results if isinstance(r, list))
            start = 0
            for requests, future in pending:
                if not future.done():
                    future.set_result(results[start:start + len(requests)])
                start += len(requests)
        while not self._queue.empty():  # nothing can queue after the stop marker; be sure
            left = self._queue.get_nowait()
            if left is not None and not left[1].done():
                left[1].set_exception(StoreError("the writer stopped"))

    async def stop(self) -> None:
        """Commit everything queued so far, then stop the writer; later appends are refused."""
        self._closing = True
        if self._checkpointer is not None:
            self._checkpointer.cancel()
        if self._task is not None and not self._task.done():
            await self._queue.put(None)
            await self._task
        self._executor.shutdown(wait=True)
        await asyncio.to_thread(self._log.checkpoint)
