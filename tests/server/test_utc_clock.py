"""The server's clock: the text an event's time is recorded with."""

from __future__ import annotations

from datetime import UTC, datetime

from poolhall.server.app import utc_now
from poolhall.server.utc_clock import UtcClock


def _datetime_text(ns: int) -> str:
    """The text datetime gives for the instant ``ns`` (what events always recorded)."""
    moment = datetime.fromtimestamp(ns // 1_000_000 / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_the_clock_writes_what_datetime_wrote_for_the_same_instant() -> None:
    """ISO 8601 in UTC to the millisecond, across seconds, days and a leap year's end, and
    after a step back of the wall clock (its cached second is not trusted)."""
    instants = [1_795_458_322_413_000_123, 1_795_458_322_999_999_999, 1_795_458_323_000_000_000,
                1_795_458_323_007_500_000, 1_735_689_599_999_000_000, 1_735_689_600_000_000_000,
                1_795_458_322_001_000_000, 0]
    readings = iter(instants)
    clock = UtcClock(time_ns=lambda: next(readings))
    for ns in instants:
        assert clock() == _datetime_text(ns)


def test_the_clock_reads_the_time_now() -> None:
    """Without a time source given it reads the wall clock, as utc_now does."""
    before, now, after = utc_now(), UtcClock()(), utc_now()
    assert before <= now <= after
    assert now.endswith("Z")
    assert len(now) == len(before)
