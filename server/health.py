"""Is the log taking writes? One small model the writer updates and ``/health`` and hubs read.

The log is ``ok``, ``degraded`` or ``failing``. Each part that writes (``append``,
``checkpoint``) fails on its own and recovers on its own: a failed append marks the log failing
until a write succeeds again (an append, or the writer's probe write), a failed checkpoint until
a checkpoint succeeds. Free disk space below the operator's reserve counts as failing too, so
commands are refused *before* the disk is full rather than after, and nothing runs ahead of the
log. Degraded is what an operator must see but that refuses nothing: a WAL past its limit
(a reader holding an old snapshot keeps checkpoints from copying it back, so it grows with
every append until that reader lets go); ``/health`` still answers 200 then.

:class:`FailureLog` turns a fault that repeats ten times a second into one log line when it
starts, one line per interval while it lasts, and one when it ends.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from poolhall.server.http_headers import header_list
from poolhall.server.log_throttle import LogThrottle

__all__ = ["FailureLog", "LogHealth", "Problem", "health_response"]


def _clock_text() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Problem:
    """One way the log is failing: what failed, why, and since when (ISO 8601 UTC, seconds)."""

    part: str
    reason: str
    since: str

    def __str__(self) -> str:
        what = {"disk": "disk nearly full", "wal": "WAL past its limit"}.get(
            self.part, f"{self.part} failed")
        return f"{what}: {self.reason} (since {self.since})"


class LogHealth:
    """Whether the log can take writes now, and if not, why.

    Written from the event loop only (the writer reports there), read by ``/health`` and by
    every hub before it decides a batch.
    """

    def __init__(self, clock: Callable[[], str] = _clock_text) -> None:
        self._clock = clock
        self._problems: dict[str, Problem] = {}
        self._warnings: dict[str, Problem] = {}

    def failed(self, part: str, reason: str) -> None:
        """``part`` (``append``, ``checkpoint``, ``disk``) failed; its first failure dates it."""
        if part not in self._problems:
            self._problems[part] = Problem(part, reason, self._clock())

    def failing_because(self, part: str, reason: str) -> None:
        """``part`` fails, now for ``reason`` (which replaces an earlier one); its first
        failure still dates it. For a fault whose cause changes while it lasts, such as a
        connection that dropped and then cannot be made again."""
        since = self._problems[part].since if part in self._problems else self._clock()
        self._problems[part] = Problem(part, reason, since)

    def degraded(self, part: str, reason: str) -> None:
        """``part`` (``wal``) needs the operator but refuses nothing; the reason is kept up to
        date (the WAL's size), the first time dates it."""
        since = self._warnings[part].since if part in self._warnings else self._clock()
        self._warnings[part] = Problem(part, reason, since)

    def recovered(self, part: str) -> None:
        """``part`` worked again (or is no longer degraded)."""
        self._problems.pop(part, None)
        self._warnings.pop(part, None)

    @property
    def ok(self) -> bool:
        return not self._problems

    def failing(self, part: str) -> bool:
        return part in self._problems

    @property
    def problems(self) -> list[Problem]:
        return list(self._problems.values())

    @property
    def warnings(self) -> list[Problem]:
        """What degrades the log without failing it."""
        return list(self._warnings.values())

    @property
    def status(self) -> str:
        """``failing``, ``degraded`` or ``ok``."""
        return "failing" if self._problems else "degraded" if self._warnings else "ok"

    def refusal(self) -> str | None:
        """Why commands must be refused now (plain words for the sender), or ``None``.

        A failed checkpoint alone does not refuse commands: appends still commit (the WAL
        grows), and the operator sees it in ``/health`` and the log.
        """
        if "disk" in self._problems:
            return "the server's disk is nearly full; retry later (the operator has been told)"
        if "append" in self._problems:
            return "the server cannot write its log just now; retry shortly"
        return None

    def summary(self) -> str:
        """One line for ``/health``: ``failing: append failed: ... (since 2026-...T10:42:01Z)``,
        ``degraded: WAL past its limit: ...``, both when both."""
        parts = []
        if self._problems:
            parts.append("failing: " + "; ".join(str(p) for p in self._problems.values()))
        if self._warnings:
            parts.append("degraded: " + "; ".join(str(p) for p in self._warnings.values()))
        return "; ".join(parts) or "ok"


class FailureLog:
    """Log a repeating failure once when it starts, then at most once per ``interval``
    (a :class:`~poolhall.server.log_throttle.LogThrottle` restarted with each episode)."""

    def __init__(self, logger: logging.Logger, what: str, interval: float = 10.0,
                 monotonic: Callable[[], float] = time.monotonic, *,
                 level: int = logging.ERROR, failing: str = "failing",
                 ended: str = "recovered") -> None:
        self._logger = logger
        self._what = what
        self._throttle = LogThrottle(interval, monotonic)
        self._level = level
        self._failing_words = failing
        """What the lines say of the fault (``WAL past its limit``: ``too large``)."""
        self._ended_words = ended
        self._failing = False
        self.failures = 0
        """Failures in the current episode (0 once it recovered)."""

    def failed(self, error: object) -> None:
        self.failures += 1
        if not self._failing:
            self._failing = True
            self._throttle.restart()
            self._throttle.admit()  # the episode's first line always goes out
            self._logger.log(self._level, "%s %s: %s", self._what, self._failing_words, error)
            return
        admitted = self._throttle.admit()
        if admitted is None:
            return
        self._logger.log(self._level, "%s still %s: %s (%d failures in the last %.0f s)",
                         self._what, self._failing_words, error, admitted.held + 1,
                         admitted.elapsed or 0.0)

    def succeeded(self) -> None:
        if self._failing:
            self._logger.warning("%s %s after %d failure%s", self._what, self._ended_words,
                                 self.failures, "" if self.failures == 1 else "s")
        self._failing = False
        self.failures = 0
        self._throttle.restart()


def health_response(connection: ServerConnection, request: Request, query: str,
                    health: LogHealth, campaigns: int,
                    door: Mapping[str, object] | None = None,
                    gc: Mapping[str, object] | None = None) -> Response:
    """``/health``'s answer: 200 while the log takes writes, 503 with the reason otherwise.

    Plain text by default (``ok 12 campaigns``, ``failing: append failed: database or disk is
    full (since 2026-11-23T10:42:01Z)``, ``degraded: WAL past its limit: ...``: still 200),
    JSON for ``?format=json`` or ``Accept: application/json``. ``door`` (open connections,
    refusals) follows as a second line of ``name=value`` pairs, or as the JSON's
    ``connections`` object; ``gc`` (the collector's tuning and pauses,
    :mod:`poolhall.server.gc_tuning`) only in the JSON, as its ``gc`` object.
    """
    status = HTTPStatus.OK if health.ok else HTTPStatus.SERVICE_UNAVAILABLE
    wants_json = ("format=json" in query.split("&")
                  or "application/json" in header_list(request.headers, "Accept"))
    if not wants_json:
        text = f"ok {campaigns} campaigns" if health.status == "ok" else health.summary()
        if door:
            text += "\n" + " ".join(f"{name}={value}" for name, value in door.items())
        return connection.respond(status, text + "\n")
    body = {"status": health.status, "campaigns": campaigns,
            "problems": [asdict(problem) for problem in health.problems],
            "warnings": [asdict(problem) for problem in health.warnings],
            "connections": dict(door or {}), "gc": dict(gc or {})}
    response = connection.respond(status, json.dumps(body) + "\n")
    del response.headers["Content-Type"]  # respond() set text/plain; headers are a multidict
    response.headers["Content-Type"] = "application/json"
    return response
