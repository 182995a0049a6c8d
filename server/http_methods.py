"""The HTTP methods the server answers: ``GET``, and ``HEAD`` (``GET``'s answer without its body).

Nothing is ever sent to the server over HTTP: the page, its files, ``/health`` and the report
pages are read, and a WebSocket handshake is a ``GET``. Every other method (``POST``, ``PUT``,
``DELETE``, ``TRACE``, ``OPTIONS``, a made-up one) is answered ``405 Method Not Allowed`` with
``Allow: GET, HEAD`` and changes nothing. They were once answered as ``GET`` was, so a
``DELETE`` of a report's one-time path spent its ticket.

The gate reads the method off the request line before websockets parses the request
(:func:`method_of`): websockets' parser drops a request that carries a body (a form's
``POST``) by closing the connection without a word, and a wrong method is what brings one.

Nor does a ``GET`` or ``HEAD`` carry a body here: one that declares one (``Content-Length``
other than 0, or ``Transfer-Encoding``) is answered ``400`` naming the header
(:func:`body_header_of`, :func:`carries_body`), where websockets' parser would drop it
unanswered; and a body the server read past would be taken for the next request (or for
WebSocket frames), the ambiguity request smuggling lives on.

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

__all__ = ["ALLOW", "ALLOWED", "bad_request", "body_header_of", "carries_body", "method_of",
           "not_allowed", "without_body"]

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


def body_header_of(request: bytes) -> tuple[str, str] | None:
    """The header by which a whole request declares a body, and its value: a
    ``Content-Length`` other than 0 (websockets takes 0, which some devices send) or any
    ``Transfer-Encoding``; ``None`` if it declares none."""
    for line in request.split(b"\r\n")[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        name, value = name.strip().lower(), value.strip()
        if name == b"transfer-encoding" or (name == b"content-length" and value != b"0"):
            shown = value.decode("latin-1")
            shown = shown if len(shown) <= _SHOWN else shown[:_SHOWN] + "..."
            return ("Transfer-Encoding" if name == b"transfer-encoding" else "Content-Length",
                    shown)
    return None


def carries_body(protocol: ServerProtocol, header: tuple[str, str]) -> Response:
    """The 400 answer to a request that declares a body by ``header`` (name, value)."""
    name, value = header
    response = protocol.reject(
        HTTPStatus.BAD_REQUEST,
        f"the request carries a body ({name}: {value}): this server reads none; send GET or"
        " HEAD without one\n")
    secure(response.headers)
    return response


def bad_request(protocol: ServerProtocol, why: str) -> Response:
    """The 400 answer to a request websockets could not parse, saying ``why``."""
    response = protocol.reject(HTTPStatus.BAD_REQUEST, f"{why}\n")
    secure(response.headers)
    return response


def without_body(request: Request, response: Response) -> None:
    """An answer to ``HEAD`` loses its body and keeps its status and headers (its
    ``Content-Length`` stays that of the body ``GET`` gets); any other answer is left as is."""
    if request.method == "HEAD":
        response.body = b""
