"""The browser table's files, served over HTTP on the WebSocket port (``process_request``).

The page (``clients/web/``: ES modules, custom elements, CSS and SVG, no build step) is read
from the installed package once at start-up, so ``pip install .`` carries the table and a
request costs a dictionary lookup. JavaScript and CSS are sent without their comments and
indentation (:mod:`poolhall.server.lean_text`), and text files gzipped, both once, when the
file is first asked for (gzipping at start-up cost ~8 ms for the 80 files, a quarter of the
server's start, and most are never asked for by one process; a file takes ~0.1 ms): a browser
whose ``Accept-Encoding`` takes gzip gets the compressed body (``Content-Encoding: gzip``, its
own ``ETag``), any other client the plain one, and both answers say ``Vary: Accept-Encoding``
so a cache never hands one to the other. Each file is answered with its content type, an
``ETag`` (a client revalidates with ``If-None-Match`` and gets ``304``), and headers that
keep the page to itself: a Content-Security-Policy allowing scripts, styles and connections
from this origin only (no inline script, nothing from another origin: the table works on a
LAN without the internet) and ``frame-ancestors 'none'``.

A WebSocket handshake that carries an ``Origin`` (every browser sends one) is refused with
``403`` unless :class:`~poolhall.server.allowed_hosts.AllowedHosts` trusts it: the page's own origin
at a host name the server answers to, ``--base-url``'s, or one of ``--allowed-origins``. A page
elsewhere (even one whose DNS name was pointed at this server) cannot act at this table with
a member's browser. Clients that are not browsers send no ``Origin`` and are let through.

Only ``GET`` and ``HEAD`` reach :meth:`WebTable.respond`: any other method is answered 405
before it is routed, and an answer to ``HEAD`` loses its body on the way out
(:mod:`poolhall.server.http_methods`).

Tokens never travel in a request line: a join link carries the token in the URL fragment,
which browsers do not send, and the page sends it only inside the WebSocket's ``join``.

Reading files of the ``clients`` package is reading package data, not importing client code:
the server still depends on nothing above it.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
from dataclasses import dataclass
from functools import cached_property
from http import HTTPStatus
from importlib import resources
from importlib.resources.abc import Traversable

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from poolhall.server.allowed_hosts import AllowedHosts
from poolhall.server.http_door import REFUSED
from poolhall.server.http_headers import CONTENT_SECURITY_POLICY, header_list, secure
from poolhall.server.lean_text import KINDS, lean

__all__ = ["Asset", "CONTENT_SECURITY_POLICY", "WebTable", "accepts_gzip", "compressed",
           "load_assets"]

logger = logging.getLogger(__name__)

_CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".png": "image/png",
    ".ico": "image/x-icon",
}

PAGES = {"/": "index.html", "/index.html": "index.html", "/replay": "replay.html",
         "/owner": "owner.html",
         "/report": "report.html"}
"""Paths a person opens, and the file each one is; every other file is under ``/static/``."""


_COMPRESSIBLE = (".html", ".js", ".css", ".svg", ".json", ".webmanifest")
"""Text files: gzip shrinks them to a quarter or so; images are compressed already."""


@dataclass(frozen=True)
class Asset:
    """One file of the page, read once; ``body`` what is sent of it, ``gzipped`` that body's
    gzip encoding when that is smaller."""

    source: bytes
    content_type: str
    etag: str
    compressible: bool = False
    """A text file, which gzip shrinks (images are compressed already)."""
    lean_kind: str | None = None
    """The grammar of a file sent without its comments (a value of
    :data:`~poolhall.server.lean_text.KINDS`), or ``None``: sent as it is."""

    @cached_property
    def body(self) -> bytes:
        """The file as sent: made lean on the first request (tree-sitter parses it then)."""
        return lean(self.source, self.lean_kind) if self.lean_kind else self.source

    @cached_property
    def gzipped(self) -> bytes | None:
        """The body gzipped, if it is compressible and that is smaller: made on the first
        request that looks (the response's ``Vary`` depends on it too), then kept."""
        return compressed(self.body) if self.compressible else None

    @property
    def gzip_etag(self) -> str:
        """The compressed body's entity tag: another representation, so another tag."""
        return self.etag[:-1] + '-gz"'


def compressed(body: bytes) -> bytes | None:
    """``body`` gzipped (no timestamp: the same file gives the same bytes), or ``None`` if
    that is not smaller."""
    packed = gzip.compress(body, compresslevel=9, mtime=0)
    return packed if len(packed) < len(body) else None


def accepts_gzip(header: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``gzip`` or ``*`` with a q above 0,
    unless gzip itself is given q=0)."""
    weights: dict[str, float] = {}
    for part in header.split(","):
        name, _, parameters = part.strip().partition(";")
        quality = 1.0
        for parameter in parameters.split(";"):
            key, _, value = parameter.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if name.strip():
            weights[name.strip().lower()] = quality
    if "gzip" in weights:
        return weights["gzip"] > 0
    return weights.get("*", 0.0) > 0


def load_assets(root: Traversable | None = None) -> dict[str, Asset]:
    """Every servable file under ``clients/web`` by its path relative to it (``app.js``,
    ``systems/narrative.js``); files of other kinds (a stray ``.py``, a README) are left out."""
    root = root if root is not None else resources.files("poolhall.clients") / "web"
    assets: dict[str, Asset] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            name = prefix + entry.name
            if entry.is_dir():
                walk(entry, name + "/")
                continue
            suffix = "." + entry.name.rpartition(".")[2]
            if suffix not in _CONTENT_TYPES:
                continue
            source = entry.read_bytes()
            kind = KINDS.get(suffix)
            # the tag names what is sent: the file, and whether it is sent lean
            digest = hashlib.sha256(source + (kind or "").encode()).hexdigest()[:20]
            assets[name] = Asset(source, _CONTENT_TYPES[suffix], f'"{digest}"',
                                 suffix in _COMPRESSIBLE, kind)

    if root.is_dir():
        walk(root, "")
    return assets


class WebTable:
    """Answers the page's HTTP requests and checks the origin of WebSocket handshakes."""

    def __init__(self, hosts: AllowedHosts | None = None,
                 assets: dict[str, Asset] | None = None) -> None:
        self.assets = assets if assets is not None else load_assets()
        self.hosts = hosts if hosts is not None else AllowedHosts()
        """The host names and page origins the server trusts."""

    def respond(self, connection: ServerConnection, request: Request) -> Response | None:
        """The answer to ``request``, or ``None`` to go on with a WebSocket handshake."""
        path = request.path.partition("?")[0]
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return self._check_origin(connection, request)
        name = PAGES.get(path)
        if name is None and path.startswith("/static/"):
            name = path.removeprefix("/static/")
        asset = self.assets.get(name) if name is not None else None
        if asset is None:
            return self._plain(connection, HTTPStatus.NOT_FOUND, "not found\n")
        packed = asset.gzipped is not None \
            and accepts_gzip(header_list(request.headers, "Accept-Encoding"))
        body, etag = (asset.gzipped, asset.gzip_etag) if packed and asset.gzipped is not None \
            else (asset.body, asset.etag)
        fresh = not {asset.etag, asset.gzip_etag} & _etags(
            header_list(request.headers, "If-None-Match"))
        response = connection.respond(HTTPStatus.OK if fresh else HTTPStatus.NOT_MODIFIED, "")
        del response.headers["Content-Type"]
        del response.headers["Content-Length"]
        if fresh:
            response.body = body
            response.headers["Content-Type"] = asset.content_type
            response.headers["Content-Length"] = str(len(body))
            if packed:
                response.headers["Content-Encoding"] = "gzip"
        if asset.gzipped is not None:
            response.headers["Vary"] = "Accept-Encoding"
        response.headers["ETag"] = etag
        response.headers["Cache-Control"] = "no-cache"  # revalidate: a new version shows at once
        secure(response.headers)
        return response

    def _check_origin(self, connection: ServerConnection, request: Request) -> Response | None:
        origin = request.headers.get("Origin")
        if origin is None:  # not a browser: tokens, not origins, guard those
            return None
        host = request.headers.get("Host", "")
        if self.hosts.origin_allowed(origin, host):
            return None
        logger.warning("%s (403): origin %r may not open the table (host %r)", REFUSED,
                       origin[:200], host[:200])
        return self._plain(connection, HTTPStatus.FORBIDDEN,
                           "this page's origin may not open the table; see --base-url and "
                           "--allowed-origins\n")

    @staticmethod
    def _plain(connection: ServerConnection, status: HTTPStatus, text: str) -> Response:
        response = connection.respond(status, text)
        secure(response.headers)
        return response


def _etags(header: str) -> set[str]:
    """The entity tags an ``If-None-Match`` header lists (weak ones compared as strong)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}
