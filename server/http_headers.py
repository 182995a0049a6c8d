"""The headers every HTTP answer carries, and reading a request's headers safely.

Every answer of the server - the page, ``/health``, a refusal, a 500 - carries a
Content-Security-Policy and ``nosniff`` (:func:`secure`), so no answer can be read as a page
that runs script, whatever its body holds.

A request may repeat a header. For the headers that hold one value (``Host``, ``Origin``,
``Upgrade``, the WebSocket key and version) two lines are ambiguous - two proxies may each read
another - so such a request is refused with 400 (:func:`duplicated`). Headers that hold a
comma-separated list (``Accept``, ``If-None-Match``) may be sent as several lines, which mean
the same as one line joining them (RFC 9110, section 5.3): :func:`header_list` reads them so.
"""

from __future__ import annotations

from websockets.datastructures import Headers

__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "SINGLE_VALUED", "duplicated",
           "header_list", "secure"]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
"""Nothing inline, nothing from elsewhere; the page may not be framed (clickjacking)."""

SECURITY_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
)
"""Sent with every answer; an answer that set one of them itself (the report page's own
policy) keeps its own."""

SINGLE_VALUED = ("Host", "Origin", "Upgrade", "Sec-WebSocket-Key", "Sec-WebSocket-Version",
                 "Content-Length")
"""Headers the server reads (or a proxy in front of it may) that hold exactly one value."""


def secure(headers: Headers) -> None:
    """Add each of :data:`SECURITY_HEADERS` that ``headers`` does not have yet."""
    for name, value in SECURITY_HEADERS:
        if name not in headers:
            headers[name] = value


def duplicated(headers: Headers) -> str | None:
    """The first of :data:`SINGLE_VALUED` that ``headers`` holds more than once, if any."""
    for name in SINGLE_VALUED:
        if len(headers.get_all(name)) > 1:
            return name
    return None


def header_list(headers: Headers, name: str) -> str:
    """A list-valued header's lines joined as one (``""`` when absent)."""
    return ", ".join(headers.get_all(name))
