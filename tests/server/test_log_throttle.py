"""The one log throttle: a line per interval, counting what it held back, on an injected
clock (no sleep)."""

from __future__ import annotations

import logging

import pytest

from poolhall.server.health import FailureLog
from poolhall.server.log_throttle import Admitted, LogThrottle, OncePerInterval


def test_the_first_occurrence_goes_out_and_the_rest_of_its_interval_is_counted() -> None:
    """One line per interval; each line knows how many were held back and for how long."""
    now = [100.0]
    throttle = LogThrottle(60.0, clock=lambda: now[0])
    assert throttle.admit() == Admitted(0, None)
    results = []
    for _ in range(5):
        now[0] += 10.0
        results.append(throttle.admit())
    assert results == [None] * 5
    assert throttle.held == 5
    now[0] += 10.0  # 60 s after the first line: exactly one interval
    assert throttle.admit() == Admitted(5, 60.0)
    assert throttle.held == 0
    now[0] += 500.0  # a quiet spell: the next one goes out at once, nothing held
    assert throttle.admit() == Admitted(0, 500.0)


def test_a_restart_lets_the_next_occurrence_through_as_a_first() -> None:
    """A new episode starts afresh: nothing held, no last line."""
    now = [0.0]
    throttle = LogThrottle(10.0, clock=lambda: now[0])
    throttle.admit()
    now[0] = 1.0
    assert throttle.admit() is None
    throttle.restart()
    assert throttle.held == 0
    assert throttle.admit() == Admitted(0, None)


def test_the_filter_passes_other_records_and_keeps_a_traceback_when_asked(
        caplog: pytest.LogCaptureFixture) -> None:
    """Only records with the prefix are throttled; ``keep_traceback`` keeps the first one's
    traceback (the HTTP door's 500s)."""
    now = [0.0]
    throttle = OncePerInterval("boom", 60.0, clock=lambda: now[0], keep_traceback=True)
    log = logging.getLogger("tests.log_throttle")
    log.addFilter(throttle)
    try:
        with caplog.at_level(logging.ERROR, "tests.log_throttle"):
            for _ in range(3):
                try:
                    raise ValueError("bad")
                except ValueError:
                    log.error("boom: GET /", exc_info=True)
                log.error("other")
    finally:
        log.removeFilter(throttle)
    assert [r.getMessage() for r in caplog.records] == [
        "boom: GET / (repeats are logged once per 60 s)", "other", "other", "other"]
    assert caplog.records[0].exc_info is not None
    assert throttle.suppressed == 2


def test_a_failure_episode_logs_its_start_each_interval_and_its_end(
        caplog: pytest.LogCaptureFixture) -> None:
    """FailureLog's wording over the shared throttle; a second episode starts with its own
    first line at once."""
    now = [0.0]
    log = logging.getLogger("tests.failure_episodes")
    failures = FailureLog(log, "append", interval=10.0, monotonic=lambda: now[0])
    with caplog.at_level(logging.WARNING, "tests.failure_episodes"):
        for _ in range(25):
            failures.failed("disk I/O error")
            now[0] += 1.0
        failures.succeeded()
        now[0] += 1.0
        failures.failed("disk I/O error")
    assert [r.getMessage() for r in caplog.records] == [
        "append failing: disk I/O error",
        "append still failing: disk I/O error (10 failures in the last 10 s)",
        "append still failing: disk I/O error (10 failures in the last 10 s)",
        "append recovered after 25 failures",
        "append failing: disk I/O error",
    ]
