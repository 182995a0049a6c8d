"""Why a connection to a server ended, or never opened, in words for people; what is wrong
with a server address.

``poolhall watch`` says ``reconnecting… (WHY)`` and the CLI ``cannot reach the server at URL:
WHY``: a server that closed the connection and said why (a removed member, a shutdown) is not
one that stopped answering, and a reason is never empty (an exception raised without a
message is named by its kind).
"""

from __future__ import annotations

import re
import ssl
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from websockets.frames import Close

__all__ = ["url_problem", "why_closed", "why_unreachable"]

NOT_ANSWERING = "the server is not answering"
"""No close frame came: the server stopped, was killed, or the network between us dropped."""

_CLOSE_CODES = {
    1000: "it ended the connection",
    1001: "it is stopping or restarting",
    1008: "it refused what this client sent",
    1011: "it failed: internal error",
    1013: "it is overloaded: try again later",
}
"""The words for a close frame without a reason, by its code (RFC 6455, section 7.4.1)."""

_KINDS: dict[type[BaseException], str] = {
    TimeoutError: "no answer in time",
    ConnectionRefusedError: "connection refused",
    ConnectionResetError: "the connection was reset",
    ConnectionAbortedError: "the connection was aborted",
    BrokenPipeError: "the connection was closed while sending",
    EOFError: "the connection was closed before an answer",
}
"""The words for an exception raised without a message, by its kind."""


def why_closed(close: Close | None) -> str:
    """Why the server ended a connection: the reason of its close frame, else its code in
    words; :data:`NOT_ANSWERING` when no close frame came."""
    if close is None:
        return NOT_ANSWERING
    said = close.reason or _CLOSE_CODES.get(close.code, f"close code {close.code}")
    return f"the server closed the connection: {said}"


def why_unreachable(error: BaseException, url: str) -> str:
    """The line for a connection to ``url`` that failed with ``error``: its reason, never
    empty, and what to check.

    A ``wss://`` address whose TLS handshake may have failed is said so, with the likely
    cause: a server without TLS in front of it answers a TLS handshake with nothing, then a
    reset (its join timeout), which read on its own as a server that is not running.
    """
    words = _words(error)
    if url.lower().startswith("wss://") and _tls_failed(error):
        return (f"cannot reach the server at {url}: the TLS handshake failed ({words}); is "
                f"the server behind TLS? For a server without TLS use ws://{url[6:]}")
    return f"cannot reach the server at {url}: {words}. Is `poolhall serve` running?"


def _tls_failed(error: BaseException) -> bool:
    """Whether ``error`` may have ended a connection before its TLS handshake completed (a
    certificate refused is not that: its message says what to do)."""
    if isinstance(error, ssl.SSLCertVerificationError):
        return False
    return isinstance(error, (ssl.SSLError, TimeoutError, ConnectionResetError, EOFError))


def _words(error: BaseException) -> str:
    """``error``'s own message, else its kind in plain words."""
    said = str(error).strip()
    if said:
        return said
    for kind, words in _KINDS.items():
        if isinstance(error, kind):
            return words
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(error).__name__).lower()
    return spaced.removesuffix(" error") + " (no message)"


def url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a server address (``--url``), in words; ``None`` if it
    reads as one.

    Checked before connecting: the URL parser raises a bare ``ValueError`` for a port out of
    range or not a number, or a bracket left open, and would print a traceback; a port 0 would
    silently become the scheme's default one.
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return ("has a host that cannot be read (an IPv6 address goes in brackets, as in "
                "ws://[::1]:8765)")
    if parts.scheme.lower() not in ("ws", "wss"):
        return "is not a websocket address"
    if not parts.hostname:
        return "names no host"
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        given = parts.netloc.rpartition("@")[2].rpartition("]")[2].rpartition(":")[2]
        return f"has the port {given!r}: a port is a number from 1 to 65535"
    return None
