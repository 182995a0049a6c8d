"""At most one log line per interval for a fault that repeats, saying how many it held back.

A fault that repeats on every attempt must not fill the log: when the process runs out of file
descriptors, asyncio logs ``socket.accept() out of system resource`` with a traceback on every
failed ``accept()`` - and retries a hundred at a time: 122,699 tracebacks (54 MB) in 15 s under
1,012 idle connections. Every such line in the server goes through one :class:`LogThrottle`,
which only decides (no logging, its clock injected, so it is tested without a sleep):

- :class:`OncePerInterval`, a :class:`logging.Filter` over it, for lines logged by code that
  is not ours (asyncio's failed ``accept()``) and for the HTTP door's refusals and failures
  (:mod:`poolhall.server.http_door`);
- :class:`poolhall.server.health.FailureLog`, for the writer's failing appends, checkpoints
  and disk, and joins whose token the log cannot look up (:mod:`poolhall.server.joins`);
- the hub's joins refused as diverged (:mod:`poolhall.server.hub`).

The gate's summary of refused connections and joins (:mod:`poolhall.server.admission`,
:mod:`poolhall.server.gate`) is another shape: a tally of several counts and distinct addresses,
logged by a timer even after the flood stopped, so it keeps its own interval.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["ACCEPT_FAILED", "Admitted", "LogThrottle", "OncePerInterval"]

ACCEPT_FAILED = "socket.accept() out of system resource"
"""How asyncio's event loop begins the message of a failed ``accept()``."""


class Admitted(NamedTuple):
    """A line to log now, and what it may say of the ones held back before it."""

    held: int
    """Occurrences held back since the last line let through."""
    elapsed: float | None
    """Seconds since the last line let through; ``None`` for the first."""


class LogThrottle:
    """Let one occurrence per ``interval`` seconds be logged; count the others.

    One throttle per kind of line: :meth:`admit` is called for every occurrence, and the
    caller logs only when it returns something.
    """

    def __init__(self, interval: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._last: float | None = None
        self.held = 0
        """Occurrences held back since the last one let through."""

    def admit(self) -> Admitted | None:
        """Count one occurrence: ``None`` if its line is to be held back, else what the line
        may say of those held back since the last one."""
        now = self._clock()
        last = self._last
        if last is not None and now - last < self.interval:
            self.held += 1
            return None
        admitted = Admitted(self.held, None if last is None else now - last)
        self.held, self._last = 0, now
        return admitted

    def restart(self) -> None:
        """Forget the last line: the next occurrence is let through (a new episode)."""
        self._last, self.held = None, 0


class OncePerInterval(logging.Filter):
    """Let one record starting with ``prefix`` through per ``interval`` seconds.

    The record let through is one line, unless ``keep_traceback``: then it keeps its traceback
    (a failure that is a bug to find is worth one traceback a minute, not one a request).
    """

    def __init__(self, prefix: str, interval: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, *,
                 keep_traceback: bool = False) -> None:
        super().__init__()
        self.prefix = prefix
        self.keep_traceback = keep_traceback
        self._throttle = LogThrottle(interval, clock)

    @property
    def interval(self) -> float:
        return self._throttle.interval

    @property
    def suppressed(self) -> int:
        """Records held back since the last one let through."""
        return self._throttle.held

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.startswith(self.prefix):
            return True
        admitted = self._throttle.admit()
        if admitted is None:
            return False
        error = record.exc_info[1] if record.exc_info and not self.keep_traceback else None
        line = message.splitlines()[0] + (f": {error}" if error is not None else "")
        if admitted.held:
            line += f" ({admitted.held} more since the last such line, not logged)"
        else:
            line += f" (repeats are logged once per {self.interval:g} s)"
        record.msg, record.args = line, None
        if not self.keep_traceback:
            record.exc_info = record.exc_text = None  # one line, not a traceback per attempt
        return True
