"""The WAL starts over under a writer that never pauses (:meth:`SqliteLog.checkpoint`)."""

from __future__ import annotations

import sqlite3
import threading
import time
from itertools import pairwise
from pathlib import Path

import pytest

from poolhall.events.sqlite_backend import SqliteLog
from poolhall.events.sqlite_backend import log as store
from tests.events.store_contract import opened, request, rolled

LIMIT = 256 * 1024


def _wal(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def _append_until(log: SqliteLog, stop: threading.Event, failures: list[object]) -> None:
    """The writer's part as the group committer plays it: batches of ten campaigns' rolls
    one after another, with no pause but one housekeeping step between two when the log has
    work (the WAL to empty, a move, a merge)."""
    heads = {f"c{k}": 0 for k in range(10)}
    log.append_batch([request(c, 0, opened(c), command=f"{c}-open") for c in heads])
    for c in heads:
        heads[c] = 1
    n = 0
    while not stop.is_set():
        n += 1
        results = log.append_batch([request(c, heads[c], *[rolled(k % 6 + 1) for k in range(8)],
                                            command=f"{c}-{n}") for c in heads])
        for c in heads:
            heads[c] += 8
        failures.extend(r for r in results if not isinstance(r, list))
        if log.has_housework:
            log.housekeeping()


def test_the_wal_starts_over_under_a_writer_that_never_pauses(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A passive checkpoint alone never catches up with a writer that commits all the time,
    so the WAL grew for good; once it is past the limit and a checkpoint copied every frame
    it saw, the writer empties it between two commits, and it stays small."""
    monkeypatch.setattr(store, "JOURNAL_SIZE_LIMIT", LIMIT)
    log = SqliteLog(tmp_path / "log.db")
    stop, failures = threading.Event(), list[object]()
    writer = threading.Thread(target=_append_until, args=(log, stop, failures))
    writer.start()
    sizes = []
    try:
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            log.checkpoint()
            sizes.append(_wal(log.path))
            time.sleep(0.01)
    finally:
        stop.set()
        writer.join()
    written = log.head("c0") * 10 * 300  # about 300 bytes a row: several times the limit
    log.close()
    assert not failures
    assert written > 8 * LIMIT
    later = sizes[len(sizes) // 2:]
    assert max(later) < 40 * LIMIT, later  # a move's writes over the limit at most
    emptied = sum(after < before for before, after in pairwise(later))
    assert emptied >= 5, later  # the file only shrinks when emptied: again and again


def _past_the_limit(path: Path) -> SqliteLog:
    """A log of 320 events whose WAL has grown past a limit of 64 KiB."""
    log = SqliteLog(path)
    log.append_batch([request("a", 0, opened("a"), *[rolled(1)] * 7, command="a0")])
    for n in range(1, 40):
        log.append_batch([request("a", n * 8, *[rolled(1)] * 8, command=f"a{n}")])
    return log


def test_a_reader_holding_the_wal_is_not_waited_for_again_at_once(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    """A reader in the middle of a read keeps the WAL from being emptied: the writer's try
    gives way at once, and the next waits :data:`RESTART_BACKOFF`, so a long
    read does not cost the writer a try at every checkpoint."""
    monkeypatch.setattr(store, "JOURNAL_SIZE_LIMIT", 64 * 1024)
    log = _past_the_limit(tmp_path / "log.db")
    try:
        assert _wal(log.path) > 64 * 1024
        with sqlite3.connect(log.path) as reader:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM events").fetchone()  # holds the newest snapshot
            log.checkpoint()
            assert log.has_housework
            log.housekeeping()  # the reader is busy: the writer gives way (no busy wait)
            assert _wal(log.path) > 64 * 1024
            log.checkpoint()
            assert not log.has_housework  # not asked again for a while
            reader.execute("COMMIT")
        log._restart_after = 0.0
        log.checkpoint()
        log.housekeeping()
        assert _wal(log.path) == 0
        assert log.verify() == (320, [])
    finally:
        log.close()


def test_a_checkpoint_of_a_short_wal_leaves_it(tmp_path: Path) -> None:
    """Under the limit the WAL is only copied back, never emptied by force."""
    log = SqliteLog(tmp_path / "log.db")
    try:
        log.append_batch([request("a", 0, opened("a"), command="a0")])
        before = _wal(log.path)
        log.checkpoint()
        assert _wal(log.path) == before > 0
    finally:
        log.close()


def test_a_request_nobody_takes_lapses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log whose writer keeps no house (a script appending by itself, never calling
    :meth:`SqliteLog.housekeeping`) is not left without checkpoints: the request to the
    writer lapses after :data:`RESTART_BACKOFF`, and checkpoints copy again."""
    monkeypatch.setattr(store, "JOURNAL_SIZE_LIMIT", 64 * 1024)
    log = _past_the_limit(tmp_path / "log.db")
    try:
        with sqlite3.connect(log.path) as reader:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM events").fetchone()
            log.checkpoint()  # the reader keeps the checkpoint's TRUNCATE out: asks the writer
            reader.execute("COMMIT")
        assert log.has_housework
        log.checkpoint()  # asked a moment ago: copies nothing yet
        assert _wal(log.path) > 64 * 1024
        log._restart_asked_at -= store.RESTART_BACKOFF
        log.checkpoint()  # nobody took it: the checkpoint empties the idle log's WAL itself
        assert not log.has_housework
        assert _wal(log.path) == 0
    finally:
        log.close()
