"""The nginx configuration of docs/how-to/several-servers.md, run as written: three real
servers on one PostgreSQL behind it, started with the guide's flags; the page, a
browser-origin join, a player whose process is killed resuming through the proxy on another,
and the guide's rate limit counting handshakes, not the page's files."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from poolhall.clients.client import Client
from poolhall.clients.links import join_link
from poolhall.events import core
from tests.missing import missing
from tests.serve_process import ROOT, free_port, serve_database

GUIDE = ROOT / "docs" / "how-to" / "several-servers.md"


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx")
                                      else None)
    if found is None:
        missing("nginx is not installed: run `sh tests/install-nginx.sh`",
                "CI never skips this test")
    return found


def guide_config(ports: list[int], proxy: int) -> str:
    """The guide's nginx block, its ports swapped for free ones."""
    config: str
    (config,) = re.findall(r"```nginx\n(.*?)```", GUIDE.read_text(), re.S)
    for old, new in zip((8765, 8766, 8767), ports, strict=True):
        config = config.replace(f"127.0.0.1:{old}", f"127.0.0.1:{new}")
    return config.replace("listen 127.0.0.1:8080;", f"listen 127.0.0.1:{proxy};")


def guide_flags() -> tuple[str, ...]:
    """The flags the guide starts every ``poolhall serve`` with behind the proxy."""
    (flags,) = re.findall(r'^behind_proxy="([^"]*)"$', GUIDE.read_text(), re.M)
    return tuple(shlex.split(flags))


def connections(port: int) -> int:
    """The connections a server holds (its ``/health``)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health?format=json",
                                timeout=5) as reply:
        found = re.search(r'"connections":\s*(\d+)', reply.read().decode())
    assert found is not None
    return int(found.group(1)) - 1  # not counting the connection asking


@pytest.fixture
def deployment(postgres_url: str, tmp_path: Path) -> Iterator[tuple[int, list[int], dict[
        int, subprocess.Popen[bytes]]]]:
    """Three servers and the guide's nginx: the proxy's port, the servers' ports, processes."""
    binary = nginx_binary()
    ports = [free_port() for _ in range(3)]
    processes: dict[int, subprocess.Popen[bytes]] = {}
    nginx = None
    try:
        for n, port in enumerate(ports):
            processes[port] = serve_database(postgres_url, port, tmp_path,
                                             tmp_path / f"serve{n}.log", options=guide_flags())
        proxy = free_port()
        prefix = tmp_path / "nginx"
        prefix.mkdir()
        (prefix / "nginx.conf").write_text(guide_config(ports, proxy))
        nginx = subprocess.Popen([binary, "-p", str(prefix), "-c", "nginx.conf",
                                  "-g", "daemon off; master_process off;"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{proxy}/health", timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline or nginx.poll() is not None:
                    raise RuntimeError("nginx did not start: " + (
                        prefix / "error.log").read_text()) from None
                time.sleep(0.1)
        yield proxy, ports, processes
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(10)
        for process in processes.values():
            if process.poll() is None:
                process.terminate()
        for process in processes.values():
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


async def test_the_guides_nginx_serves_the_page_and_a_player_survives_their_process(
        deployment: tuple[int, list[int], dict[int, subprocess.Popen[bytes]]],
        tmp_path: Path) -> None:
    """Through the proxy: the page, a join from the page's origin, a killed process."""
    proxy, ports, processes = deployment
    url = f"ws://127.0.0.1:{proxy}"
    with urllib.request.urlopen(f"http://127.0.0.1:{proxy}/", timeout=5) as reply:
        assert reply.status == 200
        assert "text/html" in reply.headers["Content-Type"]

    admin = Client(url, next(tmp_path.glob("poolhall-*.admin-token")).read_text().strip(), None)
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Behind nginx", system="d12")
    await admin.close()
    assert created.campaign
    assert created.token
    link = join_link(url, created.campaign, created.token)
    assert link.startswith(f"http://127.0.0.1:{proxy}/#campaign=")

    origin = f"http://127.0.0.1:{proxy}"  # what the browser sends from the join link's page
    async with connect(url, origin=origin) as browser:  # type: ignore[arg-type]
        await browser.send(json.dumps({"type": "join", "token": created.token,
                                       "campaign": created.campaign, "since": 0}))
        assert json.loads(await browser.recv())["type"] == "welcome"

    player = Client(url, created.token, created.campaign, reconnect_for=60)
    await player.connect()
    first = await player.call(core.Roll, expression="1d6")
    deadline = time.monotonic() + 10  # the admin's and the browser's connections close
    while sum(counts := [connections(port) for port in ports]) != 1:
        assert time.monotonic() < deadline, counts
        await asyncio.sleep(0.1)
    on = [port for port, count in zip(ports, counts, strict=True) if count == 1]
    processes[on[0]].send_signal(signal.SIGKILL)
    processes[on[0]].wait(10)
    second = await player.call(core.Roll, expression="1d8")  # resumed through the proxy
    await player.wait_for_seq(second.seqs[-1], timeout=30)
    assert player.reconnects >= 1
    assert [r.seq for r in player.state.rolls] == [first.seqs[-1], second.seqs[-1]]
    assert second.seqs[-1] == first.seqs[-1] + 1
    await player.close()
    await asyncio.sleep(0)


PAGE_FILES = sorted(path.relative_to(ROOT / "clients" / "web").as_posix()
                    for path in (ROOT / "clients" / "web").rglob("*")
                    if path.suffix in (".js", ".css", ".svg"))
"""Every file a table's page may load (one narrative table loads 39 of them)."""


async def status_of(port: int, request: bytes) -> int:
    """The HTTP status the proxy answers ``request`` with (the connection then closed)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        return int((await reader.readline()).split()[1])
    finally:
        writer.close()


def get(path: str) -> bytes:
    """A browser's request for ``path``."""
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()


HANDSHAKE = (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
             b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")


async def test_the_guides_rate_limit_counts_handshakes_not_the_pages_files(
        deployment: tuple[int, list[int], dict[int, subprocess.Popen[bytes]]]) -> None:
    """One browser opening a table fetches about 40 files over its six connections through
    the proxy: none is refused (a limit on every request refused a dozen, and the page could
    not load), while a burst of handshakes from one address still meets the proxy's limit."""
    proxy, _, _ = deployment
    assert len(PAGE_FILES) > 45
    browser = asyncio.Semaphore(6)  # a browser's connections to one host over HTTP/1.1

    async def load(name: str) -> int:
        async with browser:
            return await status_of(proxy, get(f"/static/{name}"))

    files = await asyncio.gather(*(load(name) for name in PAGE_FILES))
    assert {name: status for name, status in zip(PAGE_FILES, files, strict=True)
            if status != 200} == {}

    handshakes = await asyncio.gather(*(status_of(proxy, HANDSHAKE) for _ in range(60)))
    assert sorted(set(handshakes)) == [101, 503], handshakes
