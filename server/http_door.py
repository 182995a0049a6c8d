"""Every HTTP request's first stop, before ``/health``, the page or a WebSocket handshake.

:class:`HttpDoor` wraps the server's router (``process_request``) and its answers
(``process_response``):

- a request that repeats a one-valued header (two ``Host``, ``Origin`` or ``Upgrade``) is
  answered 400, before any part of the server reads it (:mod:`poolhall.server.http_headers`);
- a request whose ``Host`` is not a name the server answers to is answered 403 (DNS
  rebinding: :mod:`poolhall.server.allowed_hosts`);
- a request of a method other than ``GET`` and ``HEAD`` is answered 405, and an answer to
  ``HEAD`` is sent without its body (:mod:`poolhall.server.http_methods`; the gate refuses
  those methods earlier still, this covers a door used without it);
- an error while answering is answered 500 - never websockets' own 500, which logged a 1.3 KB
  traceback per request: 16.7 KB/s of log per address, with no token needed;
- every answer, whoever made it, carries the Content-Security-Policy and ``nosniff``.

Refusals and failures are logged as one line a minute at most (each kind its own
:class:`~poolhall.server.log_throttle.OncePerInterval`, saying how many it held back); the first
failure of each minute keeps its traceback, since a 500 is a bug to find.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import MultipleValuesError
from websockets.http11 import Request, Response

from poolhall.server.allowed_hosts import AllowedHosts
from poolhall.server.http_headers import duplicated, secure
from poolhall.server.http_methods import ALLOWED, not_allowed, without_body
from poolhall.server.log_throttle import OncePerInterval

__all__ = ["FAILED", "REFUSED", "HttpDoor"]

logger = logging.getLogger(__name__)

REFUSED = "refused an HTTP request"
"""How a refusal's log line begins (throttled: one a minute)."""
FAILED = "an HTTP request failed"
"""How a failure's log line begins (throttled: one a minute, with its traceback)."""
LOG_INTERVAL = 60.0

Route = Callable[[ServerConnection, Request], Response | None | Awaitable[Response | None]]


class HttpDoor:
    """Checks each request's headers and host, routes it, and secures every answer."""

    def __init__(self, hosts: AllowedHosts, route: Route) -> None:
        self.hosts = hosts
        self._route = route
        self.refused = 0
        """Requests refused for a repeated header or a host name not this server's."""
        self.failed = 0
        """Requests answered 500."""
        self._refusals = OncePerInterval(REFUSED, LOG_INTERVAL)
        self._failures = OncePerInterval(FAILED, LOG_INTERVAL, keep_traceback=True)
        self._loggers = (logger, logging.getLogger("poolhall.server.web"))

    def open(self) -> None:
        """Start throttling the door's log lines (and the origin check's, in
        :mod:`poolhall.server.web`)."""
        for each in self._loggers:
            each.addFilter(self._refusals)
            each.addFilter(self._failures)

    def close(self) -> None:
        for each in self._loggers:
            each.removeFilter(self._refusals)
            each.removeFilter(self._failures)

    async def process_request(self, connection: ServerConnection,
                              request: Request) -> Response | None:
        """The answer to ``request``, or ``None`` to go on with the WebSocket handshake."""
        try:
            refusal = self._refuse(connection, request)
            if refusal is not None:
                return refusal
            if request.method not in ALLOWED:
                return not_allowed(connection.protocol, request.method)
            answer = self._route(connection, request)
            return await answer if inspect.isawaitable(answer) else answer
        except MultipleValuesError as error:  # a repeated header read somewhere as one
            return self._refused(connection, request, f"header {error} given more than once")
        except Exception:
            self.failed += 1
            logger.error("%s: %s %s from %s", FAILED, request.method, request.path[:200],
                         _peer(connection), exc_info=True)
            return connection.respond(HTTPStatus.INTERNAL_SERVER_ERROR,
                                      "the server failed to answer; retry later\n")

    def _refuse(self, connection: ServerConnection, request: Request) -> Response | None:
        repeated = duplicated(request.headers)
        if repeated is not None:
            return self._refused(connection, request, f"header {repeated} given more than once")
        host = request.headers.get("Host")
        if host is None:
            return self._refused(connection, request, "no Host header")
        if not self.hosts.host_allowed(host):
            return self._refused(
                connection, request, f"this server does not answer to the host name "
                f"{host[:100]!r}; see --base-url and --allowed-origins", HTTPStatus.FORBIDDEN)
        return None

    def _refused(self, connection: ServerConnection, request: Request, why: str,
                 status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> Response:
        self.refused += 1
        logger.warning("%s (%d): %s, from %s", REFUSED, status.value, why, _peer(connection))
        return connection.respond(status, why + "\n")

    @staticmethod
    def process_response(connection: ServerConnection, request: Request,
                         response: Response) -> None:
        """Every answer carries the security headers (those it did not set itself); an
        answer to ``HEAD`` loses its body."""
        secure(response.headers)
        without_body(request, response)


def _peer(connection: ServerConnection) -> str:
    address = getattr(connection, "source", None)
    if address is None:
        remote = connection.remote_address
        address = remote[0] if isinstance(remote, tuple) and remote else "?"
    return str(address)
