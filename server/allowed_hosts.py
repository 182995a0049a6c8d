"""Which host names a request may name, and which page origins may open a WebSocket.

A browser sends the name it was given in ``Host``, and a page's origin in ``Origin``. Comparing
the two with each other is not enough: a page at ``http://evil.example:8765`` whose DNS name
is then pointed at the server's address (DNS rebinding) sends ``Host: evil.example:8765`` and
``Origin: http://evil.example:8765``, which agree. So both are checked against the names the
server was *given*, never against each other alone:

- loopback names (``localhost``, ``*.localhost``), the machine's own host name, and any IP
  address literal: none of these can be pointed elsewhere by a stranger's DNS, and an address
  literal is the origin the browser really connected to;
- the host given by ``--host`` (when it is a name, not a wildcard address);
- the host of ``--base-url`` (the address people open the table at, e.g. behind a proxy);
- the hosts of ``--allowed-origins``.

An ``Origin`` is let in when it is exactly ``--base-url``'s origin or one of
``--allowed-origins``, or when it is the page's own origin (its host and port are the request's
``Host``) *and* that host is allowed. Ports are not compared for ``Host``: a proxy may forward
another port, and rebinding keeps the port anyway. :class:`AllowedHosts` does no I/O.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = ["AllowedHosts", "host_name"]

WILDCARDS = frozenset({"", "0.0.0.0", "::", "*"})
"""``--host`` values that bind every address rather than naming one."""


def host_name(authority: str) -> str | None:
    """The host of a ``Host`` header or URL authority, lowercased, without port or brackets
    (``[::1]:8765`` -> ``::1``); ``None`` if it is not a well-formed one."""
    authority = authority.strip().lower()
    if not authority or any(c in authority for c in "/?#@ \t"):
        return None
    if authority.startswith("["):
        host, closed, rest = authority[1:].partition("]")
        if not closed:
            return None
    else:
        host, colon, port = authority.partition(":")
        rest = colon + port
    if rest and not (rest.startswith(":") and rest[1:].isdigit()):
        return None
    return host.rstrip(".") or None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lowercased, no path or trailing slash."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}" if parts.netloc else ""


class AllowedHosts:
    """The host names this server answers to and the page origins it trusts."""

    def __init__(self, bind_host: str = "127.0.0.1", base_url: str = "",
                 allowed_origins: Iterable[str] = (), machine_name: str | None = None) -> None:
        self.origins = frozenset(o for o in (_origin(url) for url in (base_url,
                                                                      *allowed_origins)) if o)
        """Origins let in as they are (``--base-url`` and ``--allowed-origins``)."""
        names = {"localhost"}
        machine = (machine_name if machine_name is not None else socket.gethostname()).lower()
        if machine:
            names.add(machine)
            if "." not in machine:
                names.add(machine + ".local")  # the name mDNS gives it on a LAN
        bound = bind_host.strip().lower().strip("[]")
        if bound not in WILDCARDS:
            names.add(bound)
        for origin in self.origins:
            name = host_name(urlsplit(origin).netloc)
            if name:
                names.add(name)
        self.names = frozenset(names)
        """Host names accepted besides address literals and ``*.localhost``."""

    @classmethod
    def of(cls, bind_host: str, base_url: str, allowed_origins: str) -> AllowedHosts:
        """From the server's ``--host``, ``--base-url`` and comma-separated
        ``--allowed-origins``."""
        return cls(bind_host, base_url,
                   [o for o in (part.strip() for part in allowed_origins.split(",")) if o])

    def host_allowed(self, authority: str) -> bool:
        """Whether a ``Host`` header names this server."""
        host = host_name(authority)
        if host is None:
            return False
        return host in self.names or host.endswith(".localhost") or _is_address(host)

    def origin_allowed(self, origin: str, authority: str) -> bool:
        """Whether a page at ``origin`` may open a WebSocket on a request for ``authority``
        (its ``Host``): a trusted origin, or the page's own origin at an allowed host."""
        wanted = _origin(origin) if "://" in origin else ""
        if not wanted:
            return False  # "null" (a file or sandboxed page), or not an origin at all
        if wanted in self.origins:
            return True
        scheme, _, netloc = wanted.partition("://")
        return (scheme in ("http", "https") and netloc == authority.strip().lower()
                and self.host_allowed(authority))
