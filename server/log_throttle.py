"""One log line per interval for a fault that repeats on every attempt.

When the process runs out of file descriptors, asyncio logs ``socket.accept() out of system
resource`` with a traceback on every failed ``accept()`` - and retries a hundred at a time:
122,699 tracebacks (54 MB) in 15 s under 1,012 idle connections. :class:`OncePerInterval`
is a :class:`logging.Filter` that lets the first such record of each interval through, as one
line without its traceback, saying how many it held back since the last one. The HTTP door
(:mod:`server.http_door`) throttles its refusals and failures the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["ACCEPT_FAILED", "OncePerInterval"]

ACCEPT_FAILED = "socket.accept() out of system resource"
"""How asyncio's event loop begins the message of a failed ``accept()``."""


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
        self.interval = interval
        self.keep_traceback = keep_traceback
        self._clock = clock
        self._last: float | None = None
        self.suppressed = 0
        """Records held back since the last one let through."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.startswith(self.prefix):
            return True
        now = self._clock()
        if self._last is not None and now - self._last < self.interval:
            self.suppressed += 1
            return False
        held, self.suppressed, self._last = self.suppressed, 0, now
        error = record.exc_info[1] if record.exc_info and not self.keep_traceback else None
        line = message.splitlines()[0] + (f": {error}" if error is not None else "")
        if held:
            line += f" ({held} more since the last such line, not logged)"
        else:
            line += f" (repeats are logged once per {self.interval:g} s)"
        record.msg, record.args = line, None
        if not self.keep_traceback:
            record.exc_info = record.exc_text = None  # one line, not a traceback per attempt
        return True
