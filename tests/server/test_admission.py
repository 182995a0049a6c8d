"""The door's rules without a socket: connection caps, the failed-join throttle, its summary."""

from __future__ import annotations

import logging

import pytest

from poolhall.server.admission import MAX_REQUEST_WAIT, Admission, source_of
from poolhall.server.log_throttle import ACCEPT_FAILED, OncePerInterval


def door(**limits: float) -> Admission:
    settings = {"max_connections": 10, "max_per_source": 3, "failures_allowed": 3,
                "failure_window": 60.0, **limits}
    return Admission(**settings)  # type: ignore[arg-type]


def test_the_connection_over_the_per_address_cap_is_refused_and_others_still_come_in() -> None:
    """The fourth connection from one address is refused; another address is not affected."""
    admission = door()
    assert [admission.connect("10.0.0.1") for _ in range(3)] == [None, None, None]
    refusal = admission.connect("10.0.0.1")
    assert refusal is not None
    assert refusal.code == "too_many_connections"
    assert "too many connections from your address (3)" in refusal.message
    assert admission.connect("10.0.0.2") is None
    assert admission.open_from("10.0.0.1") == 3
    assert admission.total == 4


def test_a_closed_connection_makes_room_again() -> None:
    """Once one of its connections closes, the address may open another."""
    admission = door()
    for _ in range(3):
        admission.connect("10.0.0.1")
    admission.disconnect("10.0.0.1")
    assert admission.connect("10.0.0.1") is None


def test_the_total_cap_refuses_everyone_once_full() -> None:
    """Past the total cap, even a new address is refused, with a retry time."""
    admission = door(max_connections=2)
    admission.connect("10.0.0.1")
    admission.connect("10.0.0.2")
    refusal = admission.connect("10.0.0.3")
    assert refusal is not None
    assert refusal.retry_after > 0
    assert "the server is full (2 connections)" in refusal.message
    assert admission.refused_connections == 1


def test_ipv6_addresses_count_by_their_64_prefix() -> None:
    """One IPv6 host cannot dodge the per-address cap by rotating through its /64."""
    assert source_of(("2001:db8::1", 5000, 0, 0)) == source_of(("2001:db8::2", 5000, 0, 0))
    assert source_of(("2001:db8:0:1::1", 5000, 0, 0)) != source_of(("2001:db8::1", 5000, 0, 0))
    assert source_of(("::ffff:192.0.2.7", 5000, 0, 0)) == "192.0.2.7"
    assert source_of(("192.0.2.7", 5000)) == "192.0.2.7"
    assert source_of("") == "local"


def test_a_source_is_throttled_after_too_many_failed_joins() -> None:
    """After three failures in the window the fourth join is refused with a retry time."""
    admission = door()
    for at in (0.0, 1.0, 2.0):
        assert admission.check_join("10.0.0.9", at) is None
        admission.join_failed("10.0.0.9", at)
    refusal = admission.check_join("10.0.0.9", 10.0)
    assert refusal is not None
    assert refusal.code == "rate_limited"
    assert refusal.retry_after == 50
    assert "retry in 50 s" in refusal.message
    assert admission.check_join("10.0.0.8", 10.0) is None  # another address is not affected


def test_the_throttle_lifts_when_the_window_ends() -> None:
    """A throttled source may try again once its window is over."""
    admission = door()
    for _ in range(3):
        admission.join_failed("10.0.0.9", 0.0)
    assert admission.check_join("10.0.0.9", 59.0) is not None
    assert admission.check_join("10.0.0.9", 60.0) is None


def test_failures_spread_over_windows_are_not_throttled() -> None:
    """Two failures a minute, for ever, never reach a limit of three per minute."""
    admission = door()
    for minute in range(10):
        admission.join_failed("10.0.0.9", minute * 60.0)
        admission.join_failed("10.0.0.9", minute * 60.0 + 1)
        assert admission.check_join("10.0.0.9", minute * 60.0 + 2) is None


def test_the_summary_is_one_line_of_counts_then_nothing() -> None:
    """Failed joins, throttled joins and refused connections are summed up in one line."""
    admission = door(max_per_source=1)
    for _ in range(5):
        admission.join_failed("10.0.0.9", 0.0)
    admission.join_failed("10.0.0.8", 0.0)
    admission.check_join("10.0.0.9", 1.0)
    admission.connect("10.0.0.7")
    admission.connect("10.0.0.7")
    line = admission.summary(2.0)
    assert line == ("6 failed joins from 2 addresses, 1 joins refused as rate_limited from "
                    "1 address, 1 connections refused from 1 address; 1/10 connections open, "
                    "1 addresses rate limited")
    assert admission.summary(3.0) is None


def test_memory_for_failed_joins_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A botnet of more addresses than are tracked costs a bounded table, not one per address."""
    monkeypatch.setattr("poolhall.server.admission.MAX_TRACKED_SOURCES", 100)
    admission = door()
    for n in range(1000):
        admission.join_failed(f"10.0.{n // 256}.{n % 256}", 0.0)
    assert len(admission._failures) <= 100
    assert admission.summary(0.0) is not None
    assert len(admission._interval.failed_sources) == 0


def test_a_repeated_log_line_goes_out_once_per_interval_with_a_count(
        caplog: pytest.LogCaptureFixture) -> None:
    """A thousand accept() failures log one line; the next interval's line counts the rest."""
    now = [0.0]
    throttle = OncePerInterval(ACCEPT_FAILED, 60.0, clock=lambda: now[0])
    log = logging.getLogger("tests.accept_failures")
    log.addFilter(throttle)
    try:
        with caplog.at_level(logging.ERROR, "tests.accept_failures"):
            for _ in range(1000):
                try:
                    raise OSError(24, "Too many open files")
                except OSError:
                    log.error(ACCEPT_FAILED + "\nsocket: <socket>", exc_info=True)
                now[0] += 0.01
            log.error("something else")
            now[0] = 61.0
            log.error(ACCEPT_FAILED, exc_info=(OSError, OSError(24, "Too many open files"),
                                               None))
    finally:
        log.removeFilter(throttle)
    lines = [record.getMessage() for record in caplog.records]
    assert lines == [
        f"{ACCEPT_FAILED}: [Errno 24] Too many open files (repeats are logged once per 60 s)",
        "something else",
        f"{ACCEPT_FAILED}: [Errno 24] Too many open files (999 more since the last such line,"
        " not logged)",
    ]
    assert all(record.exc_info is None for record in caplog.records)


def test_an_address_asking_faster_than_its_request_rate_waits_its_turn() -> None:
    """Past its burst an address's HTTP requests queue at its rate, one after another (not all
    released together), never more than MAX_REQUEST_WAIT; another address is not affected;
    each late answer is counted for /health."""
    admission = door(request_rate=2.0, request_burst=2)
    assert [admission.request_delay("10.0.0.1", 0.0) for _ in range(4)] == [0, 0, 0.5, 1.0]
    assert admission.request_delay("10.0.0.2", 0.0) == 0
    assert admission.request_delay("10.0.0.1", 1.5) == 0.0  # the queue has drained by then
    assert admission.status(1.5)["paced_requests"] == 2
    slow = door(request_rate=0.01, request_burst=1)
    assert slow.request_delay("10.0.0.3", 0.0) == 0
    assert slow.request_delay("10.0.0.3", 0.0) == MAX_REQUEST_WAIT


def test_a_file_of_the_page_costs_a_fifth_of_a_request() -> None:
    """Two dozen files of one page load fit a burst of ten requests (at a fifth each), so a
    table behind one NAT address opens at once; a handshake still costs a whole request."""
    from poolhall.server.gate import PAGE_FILE_COST

    admission = door(request_rate=2.0, request_burst=10)
    delays = [admission.request_delay("10.0.0.1", 0.0, PAGE_FILE_COST) for _ in range(24)]
    assert delays == [0] * 24
    assert admission.request_delay("10.0.0.1", 0.0) == 0  # 4.8 + 1 of 10
    assert admission.request_delay("10.0.0.1", 0.0, PAGE_FILE_COST) == 0
