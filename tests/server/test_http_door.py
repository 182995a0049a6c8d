"""The HTTP door: repeated headers, the host names the server answers to, and the headers every
answer carries (issue 26, items 3, 8 and 9).

A real server on port 0 with a real SQLite file; requests are written by hand over a real
socket (:mod:`tests.server.http_raw`), since no client library sends a header twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response

from poolhall.server.allowed_hosts import AllowedHosts
from poolhall.server.app import Server
from poolhall.server.http_door import FAILED, REFUSED, HttpDoor
from poolhall.server.settings import Settings
from tests.conftest import ADMIN_TOKEN, until
from tests.serve_process import free_port, poolhall, start_serve
from tests.server.http_raw import Reply, handshake_lines, parse_reply, send_request


@asynccontextmanager
async def server_with(tmp_path: Path, **settings: object) -> AsyncIterator[Server]:
    """A real server on 127.0.0.1:0 with the given settings."""
    server = Server(tmp_path / "poolhall.db", "127.0.0.1", 0, rng=random.Random(3),
                    admin_token=ADMIN_TOKEN, settings=Settings(**settings))  # type: ignore[arg-type]
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def assert_secured(reply: Reply) -> None:
    """The answer carries the page's policy and nosniff, once each."""
    assert "default-src 'none'" in reply.header("Content-Security-Policy")
    assert reply.header("X-Content-Type-Options") == "nosniff"


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.exc_info]


# ---- repeated headers (item 3) ------------------------------------------------------------


@pytest.mark.parametrize("header", ["Host", "Origin", "Upgrade"])
async def test_a_handshake_repeating_a_one_valued_header_is_400(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, header: str) -> None:
    """Two Host, Origin or Upgrade lines on a handshake: 400 naming the header, no traceback."""
    async with server_with(tmp_path) as server:
        port = server.port
        repeated = {"Host": f"Host: localhost:{port}",
                    "Origin": f"Origin: http://127.0.0.1:{port}",
                    "Upgrade": "Upgrade: websocket"}[header]
        extra = [f"Origin: http://127.0.0.1:{port}"] if header == "Origin" else []
        reply = await send_request(port, handshake_lines(port, *extra, repeated))
        assert reply.status == 400
        assert f"header {header} given more than once".encode() in reply.body
        assert_secured(reply)
        assert not tracebacks(caplog)
        assert server.door.refused == 1
        assert server.door.failed == 0


async def test_repeated_list_headers_read_as_one_line(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """Two Accept lines on /health mean one list (JSON answered); two If-None-Match lines on a
    file too (the second names the file's tag: 304). Neither is a 500."""
    async with server_with(tmp_path) as server:
        port = server.port
        host = f"Host: 127.0.0.1:{port}"
        reply = await send_request(port, ["GET /health HTTP/1.1", host, "Accept: text/plain",
                                          "Accept: application/json"])
        assert reply.status == 200
        assert reply.body.startswith(b'{"status": "ok"')
        etag = (await send_request(port, ["GET /static/app.js HTTP/1.1", host])).header("ETag")
        reply = await send_request(port, ["GET /static/app.js HTTP/1.1", host,
                                          'If-None-Match: "stale"', f"If-None-Match: {etag}"])
        assert reply.status == 304
        assert reply.body == b""
        assert not tracebacks(caplog)


async def test_a_flood_of_bad_requests_logs_one_line(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """Thirty refused requests from one address cost one log line in the minute, no traceback."""
    caplog.set_level(logging.INFO)
    async with server_with(tmp_path) as server:
        port = server.port
        for _ in range(30):
            reply = await send_request(port, handshake_lines(port, f"Host: 127.0.0.1:{port}"))
            assert reply.status == 400
        said = [r for r in caplog.records if r.getMessage().startswith(REFUSED)]
        assert len(said) == 1
        assert "header Host given more than once" in said[0].getMessage()
        assert server.door.refused == 30
        assert not tracebacks(caplog)


# ---- the headers every answer carries (item 8) --------------------------------------------


async def test_health_and_refusals_carry_the_policy_and_nosniff(tmp_path: Path) -> None:
    """/health (200 and 503), a handshake websockets refuses (400, 426) and the 503 of the
    connection cap all carry the Content-Security-Policy and nosniff."""
    async with server_with(tmp_path, max_connections_per_address=1) as server:
        server.gate.refusal_delay = 0.0
        port = server.port
        host = f"Host: 127.0.0.1:{port}"

        async def ask(lines: list[str]) -> Reply:
            await until(lambda: server.gate.admission.total == 0)  # the last one is gone
            return await send_request(port, lines)

        health = await ask(["GET /health HTTP/1.1", host])
        assert health.status == 200
        assert_secured(health)
        server.health.failed("append", "disk I/O error")
        failing = await ask(["GET /health?format=json HTTP/1.1", host])
        assert failing.status == 503
        assert b"disk I/O error" in failing.body
        assert_secured(failing)
        server.health.recovered("append")
        no_key = handshake_lines(port)
        del no_key[4]  # no Sec-WebSocket-Key
        bad = await ask(no_key)
        assert bad.status == 400
        assert_secured(bad)
        no_upgrade = await ask(["GET / HTTP/1.1", host, "Upgrade: websocket"])
        assert no_upgrade.status == 426
        assert_secured(no_upgrade)
        await until(lambda: server.gate.admission.total == 0)
        _, writer = await asyncio.open_connection("127.0.0.1", port)  # fills the cap
        try:
            await until(lambda: server.gate.admission.total == 1)
            full = await send_request(port, handshake_lines(port))
            assert full.status == 503
            assert full.header("Retry-After")
            assert_secured(full)
        finally:
            writer.close()


async def test_a_failure_is_a_secured_500_with_one_traceback_a_minute(
        caplog: pytest.LogCaptureFixture) -> None:
    """A route that fails is answered 500 with the security headers, and logged once a minute
    with its traceback (not once a request)."""

    def broken(connection: ServerConnection, request: Request) -> Response | None:
        raise RuntimeError("a bug in a route")

    door = HttpDoor(AllowedHosts(), broken)
    door.open()
    try:
        async with serve(lambda connection: asyncio.sleep(0), "127.0.0.1", 0,
                         process_request=door.process_request,
                         process_response=door.process_response) as ws:
            port = ws.sockets[0].getsockname()[1]
            for _ in range(5):
                reply = await send_request(port, ["GET /health HTTP/1.1",
                                                  f"Host: 127.0.0.1:{port}"])
                assert reply.status == HTTPStatus.INTERNAL_SERVER_ERROR
                assert_secured(reply)
    finally:
        door.close()
    said = [r for r in caplog.records if r.getMessage().startswith(FAILED)]
    assert len(said) == 1
    assert said[0].exc_info is not None
    assert not [r for r in caplog.records if r.name.startswith("websockets")
                and r.levelno >= logging.ERROR]
    assert door.failed == 5


# ---- what follows a request ---------------------------------------------------------------

SECOND = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
"""A request pipelined behind the first (its Host is never read)."""


def websockets_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("websockets")
            and r.levelno >= logging.ERROR]


async def exchange(port: int, *parts: bytes, half_close: bool = False) -> bytes:
    """Write ``parts`` 0.1 s apart on one connection (then half-close it, if asked); all the
    server sent, until it closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for k, part in enumerate(parts):
            if k:
                await asyncio.sleep(0.1)
            writer.write(part)
        if half_close:
            writer.write_eof()
        async with asyncio.timeout(5):
            return await reader.read()
    finally:
        writer.transport.abort()


async def server_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next frame the server sends (unmasked, under 64 KiB): its opcode and payload."""
    first, size = await reader.readexactly(2)
    if size == 126:
        size = int.from_bytes(await reader.readexactly(2), "big")
    return first & 0x0F, await reader.readexactly(size)


@pytest.mark.parametrize(("following", "later", "half_close"), [
    pytest.param(SECOND, False, False, id="a second request in the same write"),
    pytest.param(SECOND, True, False, id="a second request while the first waits"),
    pytest.param(b"hello, server\r\n", False, False, id="garbage"),
    pytest.param(b"", False, True, id="a half-close"),
])
async def test_what_follows_a_request_leaves_its_answer_alone(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, following: bytes, later: bool,
        half_close: bool) -> None:
    """``GET /health`` followed by more (a pipelined request, in its write or while the
    first waits for its paced answer, or garbage) or by a half-close is answered, once, and
    the connection closed. websockets read what followed as WebSocket frames: the request
    went unanswered and an assertion in websockets was logged with its traceback, once per
    request, from an outsider with no token."""
    async with server_with(tmp_path, request_rate=4, request_burst=1) as server:
        port = server.port
        first = ("\r\n".join(["GET /health HTTP/1.1", f"Host: 127.0.0.1:{port}"])
                 + "\r\n\r\n").encode()
        assert (await send_request(port, first)).status == 200  # the next waits 0.25 s
        parts = (first, following) if later else (first + following,)
        sent = await exchange(port, *parts, half_close=half_close)
        reply = Reply(0, {}, b"") if not sent else parse_reply(sent)
        assert reply.status == 200, sent
        assert reply.body.startswith(b"ok")
        assert b"HTTP/1.1" not in reply.body  # one answer: the second request is not read
        assert_secured(reply)
        await until(lambda: server.gate.admission.total == 0)
    assert not websockets_errors(caplog)
    assert not tracebacks(caplog)


@pytest.mark.parametrize(("body", "named"), [
    pytest.param(["Content-Length: 5", "", "hello"], b"(Content-Length: 5)", id="length"),
    pytest.param(["Transfer-Encoding: chunked", "", "5", "hello", "0", ""],
                 b"(Transfer-Encoding: chunked)", id="chunked"),
])
async def test_a_get_with_a_body_is_400_naming_the_header(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, body: list[str],
        named: bytes) -> None:
    """A GET that carries a body, which websockets' parser dropped without an answer, is
    answered 400 naming the header that declares it; ``Content-Length: 0`` is no body."""
    async with server_with(tmp_path) as server:
        port = server.port
        lines = ["GET /health HTTP/1.1", f"Host: 127.0.0.1:{port}", *body]
        reply = await send_request(port, ("\r\n".join(lines) + "\r\n").encode())
        assert reply.status == 400
        assert named in reply.body
        assert b"this server reads none" in reply.body
        assert_secured(reply)
        empty = await send_request(port, ["GET /health HTTP/1.1", f"Host: 127.0.0.1:{port}",
                                          "Content-Length: 0"])
        assert empty.status == 200
    assert not websockets_errors(caplog)
    assert not tracebacks(caplog)


async def test_a_request_whose_lines_end_in_lf_alone_is_400_at_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Lines ending in LF alone (``printf 'GET / HTTP/1.1\\n\\n' | nc``) are answered 400 in
    words at once; the server waited for a CR LF CR LF that never came until the join timeout
    closed the connection without a word. A CR LF split across two writes is no bare LF."""
    async with server_with(tmp_path, join_timeout=30) as server:
        port = server.port
        for request in (f"GET /health HTTP/1.1\nHost: 127.0.0.1:{port}\n\n",
                        f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\n\r\n"):
            reply = await send_request(port, request.encode(), timeout=3)
            assert reply.status == 400, request
            assert reply.body == (b"a line of the request ends in LF alone: HTTP lines end in"
                                  b" CR LF\n")
            assert_secured(reply)
        split = await exchange(port, b"GET /health HTTP/1.1\r",
                               f"\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        assert parse_reply(split).status == 200
    assert not websockets_errors(caplog)
    assert not tracebacks(caplog)


async def test_frames_sent_before_the_101_are_read_after_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A client must wait for the 101 before it sends a frame (RFC 6455, 4.1), yet websockets
    reads one sent with the handshake, and so does the server: the join is answered after
    the 101. Bytes that are no frame close the connection 1002 after the 101."""
    async with server_with(tmp_path) as server:
        port = server.port
        handshake = ("\r\n".join(handshake_lines(port)) + "\r\n\r\n").encode()
        join = {"type": "join", "token": "not-a-token", "campaign": None, "since": 0}
        early = Frame(Opcode.TEXT, json.dumps(join).encode()).serialize(mask=True)
        for following, opcode in ((early, Opcode.TEXT), (SECOND, Opcode.CLOSE)):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                writer.write(handshake + following)
                async with asyncio.timeout(5):
                    head = await reader.readuntil(b"\r\n\r\n")
                    assert head.startswith(b"HTTP/1.1 101")
                    kind, payload = await server_frame(reader)
            finally:
                writer.transport.abort()
            assert kind == opcode
            if opcode is Opcode.TEXT:
                assert json.loads(payload)["type"] == "error"
            else:
                assert int.from_bytes(payload[:2], "big") == 1002
    assert not websockets_errors(caplog)
    assert not tracebacks(caplog)


# ---- the host names the server answers to (item 9) ----------------------------------------


async def test_a_rebinding_page_is_refused(tmp_path: Path) -> None:
    """A page at evil.example whose name was pointed at the server: its handshake (Host and
    Origin agreeing) and its plain requests are refused 403, naming the options to use."""
    async with server_with(tmp_path) as server:
        port = server.port
        evil = f"evil.example:{port}"
        reply = await send_request(port, handshake_lines(port, f"Origin: http://{evil}",
                                                         host=evil))
        assert reply.status == 403
        assert b"--base-url" in reply.body
        assert_secured(reply)
        health = await send_request(port, ["GET /health HTTP/1.1", f"Host: {evil}"])
        assert health.status == 403
        no_host = await send_request(port, ["GET /health HTTP/1.1"])
        assert no_host.status == 400


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LocalHost", "table.localhost",
                                  "[::1]"])
async def test_loopback_names_open_the_table(tmp_path: Path, host: str) -> None:
    """The page's own origin at a loopback name or address opens the table (101)."""
    async with server_with(tmp_path) as server:
        port = server.port
        where = f"{host}:{server.port}"
        reply = await send_request(port, handshake_lines(port, f"Origin: http://{where}",
                                                         host=where))
        assert reply.status == 101


async def test_the_base_url_opens_the_table_and_no_other_name(tmp_path: Path) -> None:
    """With --base-url http://gamebox.lan:8765 its pages open the table, straight or through
    a proxy that rewrites Host; another name is still refused, and so is a page at the base
    URL's host on another scheme it was not given."""
    async with server_with(tmp_path, base_url="http://gamebox.lan:8765/") as server:
        port = server.port
        own = await send_request(port, handshake_lines(
            port, f"Origin: http://gamebox.lan:{port}", host=f"gamebox.lan:{port}"))
        assert own.status == 101
        proxied = await send_request(port, handshake_lines(
            port, "Origin: http://gamebox.lan:8765"))
        assert proxied.status == 101
        other = await send_request(port, handshake_lines(
            port, f"Origin: http://gamebox.example:{port}", host=f"gamebox.example:{port}"))
        assert other.status == 403


async def test_serve_takes_the_base_url_from_the_environment_as_the_link_commands_do(
        tmp_path: Path) -> None:
    """``POOLHALL_BASE_URL``, set once for a deployment, is read by ``poolhall serve`` too: its
    host is answered. (Only the commands that print links read it, and every request for the
    table's host name was refused 403 unless ``--base-url`` was passed to serve as well.)"""
    port = free_port()
    process = start_serve(tmp_path / "table.db", port, log=tmp_path / "serve.log",
                          environment={"POOLHALL_BASE_URL": "https://table.example.org"})
    try:
        named = await send_request(port, ["GET /health HTTP/1.1", "Host: table.example.org"])
        assert named.status == 200
        other = await send_request(port, ["GET /health HTTP/1.1", "Host: other.example.org"])
        assert other.status == 403
    finally:
        process.terminate()
        process.wait(15)


@pytest.mark.parametrize("value", ["table.example.org", "https://a.example,https://b.example",
                                   "http://user@table.example.org", "ftp://table.example.org"])
def test_serve_refuses_a_base_url_that_names_no_host_it_could_answer(
        tmp_path: Path, value: str) -> None:
    """A base URL that is not one http(s) address with a host name is refused at start, naming
    the flag and the variable: it added no host (every request then refused 403) and the
    owner's link was printed on it, an address nobody could open."""
    result = poolhall("serve", "--db", str(tmp_path / "table.db"), "--port", "0",
                      cwd=tmp_path, check=False, environment={"POOLHALL_BASE_URL": value})
    assert result.returncode == 2
    assert "--base-url (or $POOLHALL_BASE_URL) must be one http:// or https:// address" \
        in result.stderr
    assert repr(value) in result.stderr
    assert not (tmp_path / "table.db").exists()


def test_the_names_each_option_adds() -> None:
    """--host (a name, not a wildcard), --base-url and --allowed-origins each add their host;
    address literals are always answered, a stranger's name never."""
    hosts = AllowedHosts.of("gamebox.lan", "https://table.example.org/poolhall",
                            "https://other.example, http://third.example:8080")
    for name in ("gamebox.lan:8765", "table.example.org", "other.example:443",
                 "third.example:8080", "10.0.0.7:8765", "[fe80::1]:8765", "localhost"):
        assert hosts.host_allowed(name), name
    for name in ("evil.example", "table.example.org.evil.example", "", "a b", "x:y"):
        assert not hosts.host_allowed(name), name
    assert not AllowedHosts.of("0.0.0.0", "", "").host_allowed("0.0.0.0.evil.example")
    assert hosts.origin_allowed("https://table.example.org", "127.0.0.1:8765")
    assert not hosts.origin_allowed("null", "127.0.0.1:8765")
    assert not hosts.origin_allowed("http://127.0.0.1:9999", "127.0.0.1:8765")
