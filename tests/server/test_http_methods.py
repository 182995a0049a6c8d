"""The HTTP methods the server answers: GET, and HEAD (GET's answer without its body, spending
no report ticket); any other method is 405 with ``Allow: GET, HEAD`` and changes nothing.

They were all answered as GET was: POST, DELETE or a made-up method got 200 and the page, HEAD
got the whole body, and a HEAD or DELETE of a report's one-time path spent its ticket, so the
member's GET then found 404 (a link preview's HEAD would burn the link).

A real server on port 0 with a real SQLite file; requests are written by hand over a real
socket (:mod:`tests.server.http_raw`), since client libraries will not send a made-up method or
read a HEAD's headers as sent.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from poolhall.events import core
from poolhall.server.allowed_hosts import AllowedHosts
from poolhall.server.app import Server
from poolhall.server.http_door import HttpDoor
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, Table
from tests.server.http_raw import Reply, handshake_lines, send_request
from tests.server.raw import RawPeer


@asynccontextmanager
async def server_with(tmp_path: Path) -> AsyncIterator[Server]:
    """A real server on 127.0.0.1:0."""
    server = Server(tmp_path / "poolhall.db", "127.0.0.1", 0, rng=random.Random(7),
                    admin_token=ADMIN_TOKEN, settings=Settings())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def request(method: str, path: str, port: int, *extra: str) -> list[str]:
    return [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", *extra]


def assert_not_allowed(reply: Reply, method: str) -> None:
    """405, ``Allow: GET, HEAD``, a line of plain text naming the method, secured."""
    assert reply.status == 405
    assert reply.header("Allow") == "GET, HEAD"
    assert reply.header("Content-Type") == "text/plain; charset=utf-8"
    assert f"the method {method!r} is not answered here".encode() in reply.body
    assert b"GET and HEAD only" in reply.body
    assert "default-src 'none'" in reply.header("Content-Security-Policy")
    assert reply.header("X-Content-Type-Options") == "nosniff"


def without_date(reply: Reply) -> dict[str, list[str]]:
    return {name: values for name, values in reply.headers.items() if name != "date"}


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "TRACE", "OPTIONS",
                                    "FOO", "get"])
async def test_a_method_other_than_get_or_head_is_405_everywhere(tmp_path: Path,
                                                                 method: str) -> None:
    """The page, a file, /health, a path that is nothing and a WebSocket handshake: each is
    answered 405 with Allow, never the page (they were all 200 with the page)."""
    async with server_with(tmp_path) as server:
        port = server.port
        for source, path in enumerate(["/", "/static/app.js", "/health", "/nothing"], 2):
            reply = await send_request(port, request(method, path, port),
                                       source=f"127.0.0.{source}")
            assert_not_allowed(reply, method)
        handshake = handshake_lines(port)
        handshake[0] = f"{method} / HTTP/1.1"
        assert_not_allowed(await send_request(port, handshake), method)
        assert server.door.failed == 0


@pytest.mark.parametrize("body", [
    pytest.param(["Content-Length: 11", "", "name=value!"], id="form"),
    pytest.param(["Transfer-Encoding: chunked", "", "5", "hello", "0", ""], id="chunked"),
])
async def test_a_post_with_a_body_is_405_not_a_dropped_connection(tmp_path: Path,
                                                                  body: list[str]) -> None:
    """A form's POST carries a body, which websockets' parser drops without a word: the
    server answers it 405 before that."""
    async with server_with(tmp_path) as server:
        port = server.port
        lines = request("POST", "/", port, *body)
        reply = await send_request(port, ("\r\n".join(lines) + "\r\n").encode())
        assert_not_allowed(reply, "POST")


async def test_a_head_is_the_gets_answer_without_its_body(tmp_path: Path) -> None:
    """HEAD of the page, a file (plain and gzipped), /health, a 304 and a 404: the status and
    every header GET gets (Content-Length that of GET's body), and no body."""
    async with server_with(tmp_path) as server:
        port = server.port
        etag = (await send_request(port, request("GET", "/static/app.js", port))
                ).header("ETag")
        asked = [("/", ()), ("/static/app.js", ()), ("/static/app.js",
                                                     ("Accept-Encoding: gzip",)),
                 ("/static/app.js", (f"If-None-Match: {etag}",)), ("/health", ()),
                 ("/nothing", ())]
        for n, (path, extra) in enumerate(asked):
            source = f"127.0.0.{n + 2}"
            got = await send_request(port, request("GET", path, port, *extra), source=source)
            head = await send_request(port, request("HEAD", path, port, *extra),
                                      source=source)
            assert head.status == got.status, path
            if path == "/health":  # its counts move between the two requests
                assert head.header("Content-Type") == got.header("Content-Type")
                assert int(head.header("Content-Length")) > 0
            else:
                assert without_date(head) == without_date(got), (path, extra)
            if got.status != 304:  # a 304 has no body, nor its length
                assert int(head.header("Content-Length")) == len(got.body) > 0, path
            assert head.body == b"", path


async def test_the_websocket_handshake_is_unchanged(tmp_path: Path) -> None:
    """A GET handshake still opens the WebSocket (101); a HEAD one is refused by websockets
    as before (no body with it)."""
    async with server_with(tmp_path) as server:
        port = server.port
        assert (await send_request(port, handshake_lines(port))).status == 101
        head = handshake_lines(port)
        head[0] = "HEAD / HTTP/1.1"
        refused = await send_request(port, head, source="127.0.0.2")
        assert refused.status == 405
        assert refused.body == b""


async def _ticket(table: Table) -> str:
    """A report ticket's path for the GM of a campaign with one session of rolls."""
    _, gm = await table.create_campaign("d12", name="Preview Night")
    await gm.call(core.StartSession, title="Heist")
    await gm.call(core.Roll, expression="2d6")
    assert gm.campaign is not None
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(gm._token, gm.campaign)
        await peer.send({"type": "report", "id": "report-0001", "session": 1})
        return str((await peer.recv_until("report", timeout=10))["path"])
    finally:
        await peer.close()


async def _ready(port: int, path: str) -> Reply:
    """HEAD ``path`` until the page is made (not 202): a HEAD may ask as often as it likes."""
    for _ in range(120):
        reply = await send_request(port, request("HEAD", path, port), timeout=30)
        if reply.status != 202:
            return reply
        await asyncio.sleep(0.5)
    raise AssertionError("the report was still being made after a minute")


async def test_a_head_or_delete_of_a_report_link_does_not_spend_it(table: Table) -> None:
    """A link preview's HEAD (twice) and a DELETE leave the ticket for the member's GET,
    which gets the page whose length the HEAD announced; the GET spends it as before."""
    port = table.server.port
    path = await _ticket(table)
    first = await _ready(port, path)
    assert first.status == 200
    assert first.body == b""
    assert first.header("Content-Type") == "text/html; charset=utf-8"
    again = await send_request(port, request("HEAD", path, port))
    assert again.status == 200
    assert_not_allowed(await send_request(port, request("DELETE", path, port)), "DELETE")
    page = await send_request(port, request("GET", path, port), timeout=30)
    assert page.status == 200
    assert b"Preview Night" in page.body
    assert int(first.header("Content-Length")) == len(page.body)
    assert without_date(first) == without_date(page)
    spent = await send_request(port, request("GET", path, port))
    assert spent.status == 404
    after = await send_request(port, request("HEAD", path, port))
    assert (after.status, after.body) == (404, b"")
    assert int(after.header("Content-Length")) == len(spent.body)


async def test_the_door_alone_refuses_other_methods_before_the_route() -> None:
    """The door used without the gate (a server of tests, a door wired otherwise) refuses a
    DELETE itself: the route never sees it."""
    seen: list[str] = []

    def route(connection: ServerConnection, request: Request) -> Response | None:
        seen.append(request.method)
        return connection.respond(200, "the page\n")

    door = HttpDoor(AllowedHosts(), route)
    async with serve(lambda connection: asyncio.sleep(0), "127.0.0.1", 0,
                     process_request=door.process_request,
                     process_response=door.process_response) as ws:
        port = ws.sockets[0].getsockname()[1]
        assert_not_allowed(await send_request(port, request("DELETE", "/", port)), "DELETE")
        head = await send_request(port, request("HEAD", "/", port))
        assert (head.status, head.body, head.header("Content-Length")) == (200, b"", "9")
    assert seen == ["HEAD"]
