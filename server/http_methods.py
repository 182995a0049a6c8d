"""The HTTP methods the server answers: ``GET``, and ``HEAD`` (``GET``'s answer without its body).

Nothing is ever sent to the server over HTTP: the page, its files, ``/health`` and the report
pages are read, and a WebSocket handshake is a ``GET``. Every other method (``POST``, ``PUT``,
``DELETE``, ``TRACE``, ``OPTIONS``, a made-up one) is answered ``405 Method Not Allowed`` with
``Allow: GET, HEAD`` and changes nothing. They were once answered as ``GET`` was, so a
``DELETE`` of a report's one-time path spent its ticket.

The gate reads the method off the request line before websockets parses the request
(:func:`method_of`): websockets' parser drops a request that carries a body (a form's
``POST``) by closing the connection without a word, and a wrong method is what brings one.

``HEAD`` is answered with the status and headers ``GET`` would get (``Content-Length`` that of
the body ``GET`` would send) and no body (:func:`without_body`), and without ``GET``'s one
effect: it never spends a report's ticket, which a link preview's ``HEAD`` would otherwise
burn before the member opened the link.
"""

from __future__ import annotations

from http import HTTPStatus

from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from poolhall.server.http_headers import secure

__all__ = ["ALLOW", "ALLOWED", "method_of", "not_allowed", "without_body"]

ALLOWED = frozenset({"GET", "HEAD"})
ALLOW = "GET, HEAD"
"""The ``Allow`` header of a 405."""
_SHOWN = 20
"""Characters of a refused method quoted back (a method is one word of the request line,
which may be 8 KiB long)."""


def method_of(request: bytes) -> str | None:
    """The method of a whole request (its first line's first word, read as websockets reads
    it), or ``None`` if the first line has no space: not a request line, which websockets
    refuses as before."""
    line = request.partition(b"\r\n")[0]
    word, space, _ = line.partition(b" ")
    return word.decode("latin-1") if space else None


def not_allowed(protocol: ServerProtocol, method: str) -> Response:
    """The 405 answer to ``method``: secured, with ``Allow`` and a line of plain text."""
    shown = method if len(method) <= _SHOWN else method[:_SHOWN] + "..."
    response = protocol.reject(
        HTTPStatus.METHOD_NOT_ALLOWED,
        f"the method {shown!r} is not answered here: this server answers GET and HEAD only\n")
    response.headers["Allow"] = ALLOW
    secure(response.headers)
    return response


def without_body(request: Request, response: Response) -> None:
    """An answer to ``HEAD`` loses its body and keeps its status and headers (its
    ``Content-Length`` stays that of the body ``GET`` gets); any other answer is left as is."""
    if request.method == "HEAD":
        response.body = b""
