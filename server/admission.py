"""Who may hold a connection and try a token: the sans-I/O core of the server's door.

One outsider must not lock a table out. Three limits, all counted per *source* (an IPv4
address, or an IPv6 /64, since one IPv6 host owns a whole /64 and could rotate through it):

- connections open at once, per source and in total (the total kept under the process's file
  descriptor limit by :mod:`poolhall.server.gate`), so idle sockets cannot use up the descriptors;
- failed joins: a source that sends more than ``failures_allowed`` wrong tokens within
  ``failure_window`` seconds has its further joins refused (``rate_limited``) until the window
  ends, before any token is hashed or looked up;
- what was refused is not logged one line per attempt (a flood would fill the disk) but
  counted, and :meth:`Admission.summary` turns the counts into one line per interval.

:class:`Admission` does no I/O and reads no clock: callers pass ``now`` (seconds on any
monotonic clock), so the rules are tested without a socket or a sleep. :mod:`poolhall.server.gate`
wraps it for the asyncio server.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass

from poolhall.events.errors import ErrorCode
from poolhall.server.rates import TokenBucket

__all__ = ["Admission", "Refusal", "source_of"]

MAX_TRACKED_SOURCES = 10_000
"""Sources whose failed joins are remembered at once: bounds the memory a botnet can cost.
Past it, expired windows are forgotten first, then the oldest."""


def source_of(peer: object) -> str:
    """The source a connection counts under, from its peer address (``peername``).

    IPv4 addresses (also IPv4-mapped IPv6 ones) count as themselves, IPv6 addresses by their
    /64 prefix; anything else (a Unix socket) is ``"local"``.
    """
    if not isinstance(peer, tuple) or not peer or not isinstance(peer[0], str):
        return "local"
    host = peer[0].split("%", 1)[0]  # drop an IPv6 zone id
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a connection or a join was turned away, and when to try again."""

    code: ErrorCode
    """Stable and machine-readable: ``too_many_connections`` or ``rate_limited``."""
    message: str
    """Plain words for the person at the keyboard."""
    retry_after: int
    """Seconds after which trying again may succeed."""


@dataclass(slots=True)
class _Failures:
    """Failed joins of one source in its current window."""

    since: float
    count: int


MAX_REQUEST_WAIT = 10.0
"""Most seconds a paced HTTP request waits (a handshake's own timeout is the join timeout)."""


class Admission:
    """Counts connections and failed joins per source, and says which to refuse."""

    SWEEP_AT = 4096
    """Sources whose request pace is remembered before the idle ones are forgotten."""

    def __init__(self, *, max_connections: int, max_per_source: int, failures_allowed: int,
                 failure_window: float, retry_after: float = 10.0,
                 request_rate: float = 10.0, request_burst: int = 30) -> None:
        self.max_connections = max_connections
        self.max_per_source = max_per_source
        self.failures_allowed = failures_allowed
        self.failure_window = failure_window
        self._retry_after = max(1, math.ceil(retry_after))
        self._open: dict[str, int] = {}
        self.total = 0
        """Connections admitted and not yet closed."""
        self._failures: dict[str, _Failures] = {}
        self.request_rate = request_rate
        self.request_burst = request_burst
        self._requests: dict[str, TokenBucket] = {}
        self.paced_requests = 0
        """HTTP requests (handshakes, /health) answered late for coming too fast."""
        # Since start, for /health; and since the last summary, for the log.
        self.refused_connections = 0
        self.failed_joins = 0
        self.throttled_joins = 0
        self._interval = _Interval()

    # ---- connections ----------------------------------------------------------------

    def request_delay(self, source: str, now: float, cost: float = 1.0) -> float:
        """Seconds an HTTP request from ``source`` (a handshake, ``/health``) waits before it
        is answered: 0 within ``request_rate`` (bursts of ``request_burst``, room for a LAN
        party reconnecting at once behind one address), else its turn in the source's queue.
        A file of the page costs ``cost`` (:data:`poolhall.server.gate.PAGE_FILE_COST`) of a
        request.

        Every answer costs the event loop all tables share. Requests past the rate are let
        through one at a time at the rate, not all after the same second: sixty requests
        released together stalled the loop for 40 ms each second. The queue is bounded: a
        request never waits more than :data:`MAX_REQUEST_WAIT`.
        """
        bucket = self._request_bucket(source, now)
        wait = bucket.wait(now, cost)
        if wait >= MAX_REQUEST_WAIT:
            self.paced_requests += 1
            return MAX_REQUEST_WAIT
        bucket.take(now, cost)  # into debt when late: the next request queues behind this one
        if wait > 0:
            self.paced_requests += 1
        return wait

    def may_evict(self, source: str, now: float) -> bool:
        """Whether a new connection from ``source`` may make room in a full server by closing
        the oldest connection that has not joined; if so, it spends one of the source's
        requests (:meth:`request_delay`).

        Without a bound, 1,280 connections from 20 addresses against a cap of 1,000 evicted
        each other as fast as they reconnected (4,400 evictions in 10 s, another table's p99
        at 330 ms); paced, an address evicts at most its request rate, and its further
        connections are refused instead (answered 503 a second late).
        """
        bucket = self._request_bucket(source, now)
        if bucket.wait(now) > 0:
            return False
        bucket.take(now)
        return True

    def _request_bucket(self, source: str, now: float) -> TokenBucket:
        bucket = self._requests.get(source)
        if bucket is None:
            if len(self._requests) >= self.SWEEP_AT:
                self._requests = {key: kept for key, kept in self._requests.items()
                                  if not kept.full(now)}
            bucket = self._requests[source] = TokenBucket(self.request_rate,
                                                          self.request_burst, now)
        return bucket

    def connect(self, source: str) -> Refusal | None:
        """Count a new connection from ``source``, or say why it is refused (then uncounted)."""
        if self.total >= self.max_connections:
            return self._refuse_connection(
                source, f"the server is full ({self.max_connections} connections); "
                        f"retry in {self._retry_after} s")
        if self._open.get(source, 0) >= self.max_per_source:
            return self._refuse_connection(
                source, f"too many connections from your address ({self.max_per_source}); "
                        f"close some or retry in {self._retry_after} s")
        self._open[source] = self._open.get(source, 0) + 1
        self.total += 1
        return None

    def disconnect(self, source: str) -> None:
        """Forget one connection from ``source`` that :meth:`connect` admitted."""
        left = self._open.get(source, 0) - 1
        if left > 0:
            self._open[source] = left
        else:
            self._open.pop(source, None)
        self.total = max(0, self.total - 1)

    def open_from(self, source: str) -> int:
        """Connections from ``source`` open now."""
        return self._open.get(source, 0)

    def _refuse_connection(self, source: str, message: str) -> Refusal:
        self.refused_connections += 1
        self._interval.refused += 1
        self._interval.note(self._interval.refused_sources, source)
        return Refusal("too_many_connections", message, self._retry_after)

    # ---- joins ------------------------------------------------------------------------

    def check_join(self, source: str, now: float) -> Refusal | None:
        """Refuse a join from a source that failed too often lately; ``None`` lets it try."""
        failures = self._failures.get(source)
        if failures is None or failures.count < self.failures_allowed:
            return None
        ends = failures.since + self.failure_window
        if now >= ends:
            del self._failures[source]
            return None
        self.throttled_joins += 1
        self._interval.throttled += 1
        self._interval.note(self._interval.throttled_sources, source)
        wait = max(1, math.ceil(ends - now))
        return Refusal("rate_limited",
                       f"too many failed joins from your address; retry in {wait} s", wait)

    def join_failed(self, source: str, now: float) -> None:
        """Count a join refused for its token (a wrong token, or a campaign it does not open)."""
        self.failed_joins += 1
        self._interval.failed += 1
        self._interval.note(self._interval.failed_sources, source)
        failures = self._failures.get(source)
        if failures is None or now >= failures.since + self.failure_window:
            self._failures.pop(source, None)  # re-inserted last: the dict stays oldest-first
            if len(self._failures) >= MAX_TRACKED_SOURCES:
                self._forget(now)
            self._failures[source] = _Failures(since=now, count=1)
        else:
            failures.count += 1

    def throttled_sources(self, now: float) -> int:
        """Sources whose joins are refused now."""
        return sum(1 for f in self._failures.values()
                   if f.count >= self.failures_allowed and now < f.since + self.failure_window)

    def _forget(self, now: float) -> None:
        """Drop expired windows; if the table is still full, the oldest ones."""
        for source in [s for s, f in self._failures.items()
                       if now >= f.since + self.failure_window]:
            del self._failures[source]
        while len(self._failures) >= MAX_TRACKED_SOURCES:
            del self._failures[next(iter(self._failures))]

    # ---- reporting ----------------------------------------------------------------------

    def summary(self, now: float) -> str | None:
        """One line on what was refused since the last summary, or ``None`` if nothing was.

        Also forgets expired failure windows, so memory follows the sources active lately.
        """
        self._forget(now)
        interval, self._interval = self._interval, _Interval()
        parts = []
        if interval.failed:
            parts.append(f"{interval.failed} failed joins from "
                         f"{interval.count(interval.failed_sources)}")
        if interval.throttled:
            parts.append(f"{interval.throttled} joins refused as rate_limited from "
                         f"{interval.count(interval.throttled_sources)}")
        if interval.refused:
            parts.append(f"{interval.refused} connections refused from "
                         f"{interval.count(interval.refused_sources)}")
        if not parts:
            return None
        return (", ".join(parts) + f"; {self.total}/{self.max_connections} connections open, "
                f"{self.throttled_sources(now)} addresses rate limited")

    def status(self, now: float) -> dict[str, int]:
        """The figures ``/health`` shows: what is open now and what was refused since start."""
        return {"connections": self.total, "max_connections": self.max_connections,
                "refused_connections": self.refused_connections,
                "failed_joins": self.failed_joins, "throttled_joins": self.throttled_joins,
                "rate_limited_addresses": self.throttled_sources(now),
                "paced_requests": self.paced_requests}


class _Interval:
    """What was refused since the last summary, with the distinct sources up to a bound."""

    __slots__ = ("failed", "failed_sources", "refused", "refused_sources", "throttled",
                 "throttled_sources")

    def __init__(self) -> None:
        self.failed = self.throttled = self.refused = 0
        self.failed_sources: set[str] = set()
        self.throttled_sources: set[str] = set()
        self.refused_sources: set[str] = set()

    @staticmethod
    def note(sources: set[str], source: str) -> None:
        if len(sources) < MAX_TRACKED_SOURCES:
            sources.add(source)

    @staticmethod
    def count(sources: set[str]) -> str:
        """``"1 address"``, ``"3 addresses"``, or ``"10000+ addresses"`` past the bound."""
        if len(sources) >= MAX_TRACKED_SOURCES:
            return f"{MAX_TRACKED_SOURCES}+ addresses"
        return "1 address" if len(sources) == 1 else f"{len(sources)} addresses"
