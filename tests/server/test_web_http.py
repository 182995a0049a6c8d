"""The browser table over HTTP on the WebSocket port: the page and its files with their content
types and ETags, the headers that keep the page to itself, and the origin check on handshakes.

A real server on port 0 with a real SQLite file; requests go over a real socket (``http.client``
in a thread, the way a browser's request arrives).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from poolhall.events import core
from poolhall.server.app import Server
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Table

Reply = tuple[int, dict[str, str], bytes]


def fetch(url: str, path: str, headers: dict[str, str] | None = None) -> Reply:
    """GET ``path`` from the server at ``url`` (its ws:// address): status, headers, body."""
    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


async def get(url: str, path: str, headers: dict[str, str] | None = None) -> Reply:
    return await asyncio.to_thread(fetch, url, path, headers)


@pytest.mark.parametrize(("path", "content_type", "starts"), [
    ("/", "text/html; charset=utf-8", b"<!doctype html>"),
    ("/static/app.js", "text/javascript; charset=utf-8", b"import"),
    ("/static/elements/ph-log.js", "text/javascript; charset=utf-8", b"import"),
    ("/static/table.css", "text/css; charset=utf-8", b":root"),
    ("/static/icon.svg", "image/svg+xml", b"<svg"),
])
async def test_the_page_and_its_files_come_with_their_content_types(
        table: Table, path: str, content_type: str, starts: bytes) -> None:
    """A browser asks for the page and its files: each has its type, length and an ETag."""
    status, headers, body = await get(table.url, path)
    assert status == 200
    assert headers["content-type"] == content_type
    assert int(headers["content-length"]) == len(body)
    assert body.lstrip().startswith(starts)
    assert headers["etag"].startswith('"')
    assert headers["cache-control"] == "no-cache"


async def test_an_unchanged_file_is_revalidated_with_a_304_and_no_body(table: Table) -> None:
    """The browser comes back with the ETag it has: 304, nothing sent again; a stale one: 200."""
    _, first, body = await get(table.url, "/static/app.js")
    status, headers, again = await get(table.url, "/static/app.js",
                                       {"If-None-Match": first["etag"]})
    assert (status, again, headers["etag"]) == (304, b"", first["etag"])
    status, _, weak = await get(table.url, "/static/app.js",
                                {"If-None-Match": f'"stale", W/{first["etag"]}'})
    assert status == 304
    assert weak == b""
    status, _, fresh = await get(table.url, "/static/app.js", {"If-None-Match": '"stale"'})
    assert status == 200
    assert fresh == body


async def test_every_answer_keeps_the_page_to_itself(table: Table) -> None:
    """The page, a file and a 404 all carry the CSP (no inline script, nothing from elsewhere,
    no framing) and the headers that stop sniffing and referrers."""
    for path in ("/", "/static/table.css", "/nowhere"):
        _, headers, _ = await get(table.url, path)
        policy = headers["content-security-policy"]
        assert "default-src 'none'" in policy
        assert "script-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert "'unsafe-inline'" not in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("path", ["/nowhere", "/static/", "/static/nothing.js",
                                  "/static/../server/web.py", "/static/%2e%2e/pyproject.toml",
                                  "/app.js"])
async def test_an_unknown_path_is_404(table: Table, path: str) -> None:
    """Anything that is not the page or one of its files: 404, never a file from elsewhere."""
    status, headers, body = await get(table.url, path)
    assert status == 404
    assert body == b"not found\n"
    assert headers["content-type"].startswith("text/plain")


async def test_a_handshake_from_another_origin_is_refused(table: Table) -> None:
    """A page on another site cannot open the table with a member's browser: 403."""
    with pytest.raises(InvalidStatus) as refused:
        async with connect(table.url, origin="http://evil.example"):  # type: ignore[arg-type]
            pass
    assert refused.value.response.status_code == 403
    assert b"--allowed-origins" in refused.value.response.body


async def test_its_own_origin_and_no_origin_may_open_the_table(table: Table) -> None:
    """The page's own origin (the Host it asked for) and a client with no Origin (the Python
    client, the CLI) are let through, and join."""
    port = urlsplit(table.url).port
    for origin in (f"http://127.0.0.1:{port}", None):
        async with connect(table.url, origin=origin) as socket:  # type: ignore[arg-type]
            await socket.send(json.dumps({"type": "join", "token": ADMIN_TOKEN}))
            assert json.loads(await socket.recv())["type"] == "welcome"


@pytest.fixture
async def proxied(tmp_path: Path) -> AsyncIterator[Server]:
    """A server whose operator allowed the proxy's origin (``--allowed-origins``)."""
    server = Server(tmp_path / "poolhall.db", "127.0.0.1", 0, rng=random.Random(1),
                    admin_token=ADMIN_TOKEN,
                    settings=Settings(allowed_origins="https://table.example.org/, "
                                                      "https://other.example"))
    await server.start()
    yield server
    await server.stop()


async def test_an_allowed_origin_may_open_the_table_and_no_other(proxied: Server) -> None:
    """Behind a proxy at https://table.example.org the page's handshakes are let in."""
    for origin in ("https://table.example.org", "https://other.example"):
        async with connect(proxied.url, origin=Origin(origin)):
            pass
    with pytest.raises(InvalidStatus) as refused:
        async with connect(proxied.url, origin=Origin("https://table.example.org.evil.example")):
            pass
    assert refused.value.response.status_code == 403


async def test_no_token_reaches_the_servers_log_even_at_debug_level(
        table: Table, caplog: pytest.LogCaptureFixture) -> None:
    """With ``poolhall -v serve`` websockets logs every frame: a join's token and the token an
    invite's ack carries are logged by kind and size only, never in clear (not even a part)."""
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="websockets")  # as -v sets it (a CLI test in this
    caplog.set_level(logging.DEBUG, logger="websockets.server")  # process may have raised it)
    campaign, gm = await table.create_campaign("d12")
    ack = await gm.call(core.Invite, role="player", name="Ana")
    assert ack.token
    await table.connect(campaign, ack.token)
    said = "\n".join(record.getMessage() for record in caplog.records
                     if not record.name.startswith(("websockets.client", "clients")))
    # frames read were logged, by size (frames the server writes itself, several at a time,
    # bypass websockets' own frame log: server/subscriber.py)
    assert "< TEXT [" in said
    for token in (ADMIN_TOKEN, ack.token):
        pieces = {token[i:i + 8] for i in range(3, len(token) - 8)}  # past the "ph_" prefix
        assert not [piece for piece in pieces if piece in said], token


async def test_every_file_the_page_names_is_served(table: Table) -> None:
    """Each stylesheet, icon, script and module preload that index.html names answers 200
    (a stale name would be a failed request in every browser)."""
    _, _, page = await get(table.url, "/")
    named = re.findall(r'(?:href|src)="(/static/[^"]+)"', page.decode())
    assert len(named) >= 10
    assert "/static/app.js" in named
    for path in named:
        status, _, _ = await get(table.url, path)
        assert status == 200, path
