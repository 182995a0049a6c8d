"""The group committer on a real log file: every append answered once, in order, durable;
the writer's thread takes what queued during a commit itself, and a large backlog starts
committing before the loop has queued all of it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from poolhall.events.errors import ConcurrencyError, StoreError
from poolhall.events.log import Appended, AppendRequest, AppendResult, CommandRecord
from poolhall.events.sqlite_backend import SqliteLog, SqliteReader
from poolhall.server import writer
from poolhall.server.writer import GroupCommitter
from tests.events.store_contract import opened, request, rolled


class RecordingLog(SqliteLog):
    """The real log, noting each batch it is handed (its size, and when on the monotonic
    clock), and able to hold the writer's thread inside a commit until released."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.sizes: list[int] = []
        self.started: list[float] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.fail_next = False

    def append_batch(self, requests: Sequence[AppendRequest]) -> list[AppendResult]:
        self.sizes.append(len(requests))
        self.started.append(time.monotonic())
        self.entered.set()
        self.release.wait(10)
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("a bug in the store")
        return super().append_batch(requests)


@pytest.fixture
async def committed(tmp_path: Path) -> AsyncIterator[tuple[RecordingLog, GroupCommitter]]:
    log = RecordingLog(tmp_path / "log.db")
    committer = GroupCommitter(log)
    committer.start()
    yield log, committer
    log.release.set()
    await committer.stop()
    log.close()


def _first(campaign: str, command: str) -> AppendRequest:
    return request(campaign, 0, opened(campaign), command=command)


async def test_many_submitters_each_get_their_own_gap_free_sequence(
        committed: tuple[RecordingLog, GroupCommitter]) -> None:
    """600 hubs (more than a batch starts early at) append 5 commands each, one awaited at a
    time: every append is answered with its own next number, and the file holds exactly
    those events, each chain intact."""
    log, committer = committed
    hubs, rounds = 600, 5

    async def hub(k: int) -> list[int]:
        seqs: list[int] = []
        for head in range(rounds):
            event = opened(f"h{k}") if head == 0 else rolled(head)
            (result,) = await committer.append([request(f"h{k}", head, event,
                                                        command=f"h{k}-{head}")])
            assert isinstance(result, Appended), result
            seqs += result
        return seqs

    answers = await asyncio.gather(*(hub(k) for k in range(hubs)))
    assert answers == [[1, 2, 3, 4, 5]] * hubs
    assert sum(log.sizes) == hubs * rounds == committer.appended
    assert max(log.sizes) < hubs  # the hubs were split into cohorts that overlap
    reader = SqliteReader(log.path)
    assert [reader.head(f"h{k}") for k in (0, 299, 599)] == [rounds] * 3
    checked, problems = reader.verify()
    assert (checked, problems) == (hubs * rounds, [])


async def test_a_large_backlog_starts_committing_before_the_rest_is_queued(
        committed: tuple[RecordingLog, GroupCommitter]) -> None:
    """Appends queued in one pass of the loop: once EARLY_BATCH of them wait, the writer
    starts on those, and the rest make the next batch (which waits for the loop otherwise)."""
    log, committer = committed
    count = writer.EARLY_BATCH + 100
    answers = await asyncio.gather(*(committer.append([_first(f"c{k}", f"id{k}")])
                                     for k in range(count)))
    assert answers == [[[1]]] * count
    assert log.sizes == [writer.EARLY_BATCH, 100]


async def test_a_few_appends_wait_for_the_loop_and_go_as_one_batch(
        committed: tuple[RecordingLog, GroupCommitter]) -> None:
    """Below EARLY_BATCH the writer starts once the loop has run what was ready: one fsync
    for all of them, not one for the first and another for the rest."""
    log, committer = committed
    await asyncio.gather(*(committer.append([_first(f"c{k}", f"id{k}")]) for k in range(40)))
    assert log.sizes == [40]


async def test_the_writer_takes_what_queued_during_a_commit_without_the_loop(
        committed: tuple[RecordingLog, GroupCommitter]) -> None:
    """While the loop is busy (here: blocked outright), the writer's thread goes on from one
    commit to the next batch by itself; the loop only hears the answers."""
    log, committer = committed
    log.release.clear()
    first = committer.append([_first("a", "a1")])
    await asyncio.to_thread(log.entered.wait, 10)  # the writer holds "a" inside its commit
    second = [committer.append([_first(f"b{k}", f"b{k}")]) for k in range(3)]
    log.release.set()
    blocked_from = time.monotonic()
    time.sleep(0.5)  # the event loop does nothing at all meanwhile
    blocked_until = time.monotonic()
    assert await first == [[1]]
    assert await asyncio.gather(*second) == [[[1]]] * 3
    assert log.sizes == [1, 3]
    assert blocked_from < log.started[1] < blocked_until


async def test_several_requests_in_one_append_are_answered_together(
        committed: tuple[RecordingLog, GroupCommitter]) -> None:
    """An append of many requests (a hub's batch) beside single ones: each gets its own
    results, sliced in order, and a stale head refuses that request alone."""
    log, committer = committed
    batch = [_first("x", "x1"), request("x", 1, rolled(1), command="x2"),
             request("x", 9, rolled(2), command="x3")]
    both = await asyncio.gather(committer.append(batch),
                                committer.append([_first("y", "y1")]))
    (one, two, stale), (single,) = both
    assert (one, two, single) == ([1], [2], [1])
    assert isinstance(stale, ConcurrencyError)
    assert SqliteReader(log.path).head("x") == 2


async def test_a_duplicate_command_id_gets_its_recorded_answer_alone(
        committed: tuple[RecordingLog, GroupCommitter]) -> None:
    """The same id again in its campaign appends nothing and gets its recorded answer; the
    batch's other requests commit (a creation of its own: one id opens one campaign only,
    ``tests/server/test_create_across_servers.py``)."""
    log, committer = committed
    assert await committer.append([_first("d", "same")]) == [[1]]
    again, other = await asyncio.gather(
        committer.append([request("d", 1, rolled(1), command="same")]),
        committer.append([_first("e", "other")]))
    assert again == [CommandRecord("gm", 1, 1)]
    assert other == [[1]]
    assert SqliteReader(log.path).head("d") == 1


async def test_a_store_that_raises_fails_its_batch_only(
        committed: tuple[RecordingLog, GroupCommitter]) -> None:
    """A bug in the store fails every request of that batch with a StoreError (nothing is
    acknowledged that is not durable); the next batch commits."""
    log, committer = committed
    log.fail_next = True
    (failed,) = await committer.append([_first("f", "f1")])
    assert isinstance(failed, StoreError)
    assert committer.health.failing("append")
    assert await committer.append([_first("f", "f2")]) == [[1]]
    assert not committer.health.failing("append")


async def test_stop_commits_what_is_queued_and_refuses_the_rest(tmp_path: Path) -> None:
    """stop() waits for the commit in progress and what queued behind it; the appends made
    before it are all durable, and any after it are refused at once."""
    log = RecordingLog(tmp_path / "log.db")
    committer = GroupCommitter(log)
    committer.start()
    log.release.clear()
    first = committer.append([_first("s", "s1")])
    await asyncio.to_thread(log.entered.wait, 10)
    rest = [committer.append([_first(f"t{k}", f"t{k}")]) for k in range(5)]
    stopping = asyncio.create_task(committer.stop())
    await asyncio.sleep(0.05)
    assert not stopping.done()  # the commit is held: stop waits for it
    with pytest.raises(StoreError):
        committer.append([_first("late", "late")])
    log.release.set()
    await stopping
    assert await first == [[1]]
    assert await asyncio.gather(*rest) == [[[1]]] * 5
    log.close()
    assert SqliteReader(log.path).campaigns() == ["s"] + [f"t{k}" for k in range(5)]


async def test_a_retried_command_through_the_writer_gets_its_recorded_answer(
        tmp_path: Path) -> None:
    """Idempotency through the group committer: a command id already appended, sent again
    (with any head), appends nothing and is answered with what it appended."""
    log = SqliteLog(tmp_path / "log.db")
    committer = GroupCommitter(log)
    committer.start()
    for k in range(40):
        event = opened("m") if k == 0 else rolled(k)
        assert await committer.append([request("m", k, event, command=f"m{k}")]) == [[k + 1]]
    (again,) = await committer.append([request("m", 40, rolled(1), command="m3")])
    assert again == CommandRecord("gm", 4, 4)
    assert log.head("m") == 40
    await committer.stop()
    log.close()


async def test_an_idle_writer_empties_a_wal_grown_past_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once appends stop, the checkpointer's next ticks get the WAL emptied: the
    checkpointer asks (:meth:`SqliteLog.checkpoint`) and the idle writer's thread does it,
    so the file does not keep the size that a burst of appends gave it."""
    from poolhall.events.sqlite_backend import log as store

    monkeypatch.setattr(store, "JOURNAL_SIZE_LIMIT", 64 * 1024)
    log = SqliteLog(tmp_path / "log.db")
    # the checkpointer waits out the burst: on a slow machine its ticks during the burst
    # would already start the WAL over, leaving it at the limit rather than past it
    burst_over = threading.Event()
    checkpoint = log.checkpoint
    monkeypatch.setattr(log, "checkpoint", lambda: checkpoint() if burst_over.is_set() else None)
    committer = GroupCommitter(log)
    committer.start()
    wal = log.path.with_name(log.path.name + "-wal")
    assert await committer.append([request("w", 0, opened("w"), command="w0")]) == [[1]]
    for k in range(1, 60):
        await committer.append([request("w", 1 + 8 * (k - 1), *[rolled(1)] * 8, command=f"w{k}")])
    grown = wal.stat().st_size
    burst_over.set()
    deadline = time.monotonic() + 5
    while wal.stat().st_size and time.monotonic() < deadline:
        await asyncio.sleep(writer.CHECKPOINT_SECONDS)
    assert grown > 64 * 1024
    assert wal.stat().st_size == 0
    assert await committer.append([request("w", 473, rolled(2), command="w60")]) == [[474]]
    await committer.stop()
    assert log.verify() == (474, [])
    log.close()
