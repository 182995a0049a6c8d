"""What an outsider with no token can make the server hold or spend: little, and not for long
(docs: explanation/http-door.md, explanation/load-and-limits.md).

An attacker found two ways past that: large frames sent while the server paused reading
after a refusal were all buffered (64 frames of up to 1 MiB a connection: 972 MB of memory
for 16 connections, and other tables' rolls slowed to seconds), and a refused frame's
``id`` was decoded whole to answer it (an ``id`` of 70,000 objects: 18 ms of the event
loop each)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from poolhall.events.errors import Rejected
from poolhall.server.protocol import MAX_FRAME_BYTES, command_id_of, read_frame
from tests.serve_process import free_port, start_serve

CONNECTIONS = 8
FRAMES = 40
FRAME = json.dumps({"type": "join", "token": "x", "campaign": "x" * (120 * 1024)})
"""Under the size websockets reads at all (128 KiB), over the protocol's (64 KiB)."""


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def _flood(port: int) -> list[object]:
    """CONNECTIONS outsiders each send a bad join, then FRAMES large frames while the server
    pauses reading them; each send is given up on once the server stops reading."""

    async def one() -> object:
        peer = await connect(f"ws://127.0.0.1:{port}", max_size=2**20, open_timeout=10)
        await peer.send('{"type": "join", "token": "no such token"}')
        for _ in range(FRAMES):
            try:
                await asyncio.wait_for(peer.send(FRAME), 0.2)
            except TimeoutError:
                break  # the server stopped reading: TCP holds the sender back
        return peer

    return list(await asyncio.gather(*(one() for _ in range(CONNECTIONS))))


async def test_large_frames_sent_while_refused_are_not_all_held(tmp_path: Path) -> None:
    """Eight connections with no token send 40 frames of 120 KiB each (38 MiB in all) while
    their refusals pause the server's reading: it holds a few frames a connection, not all
    of them (it held every one: 64 of up to 1 MiB a connection)."""
    port = free_port()
    server = start_serve(tmp_path / "poolhall.db", port, log=tmp_path / "serve.log")
    try:
        before = _rss_mib(server.pid)
        peers = await _flood(port)
        await asyncio.sleep(0.3)
        grown = _rss_mib(server.pid) - before
        for peer in peers:
            peer.transport.abort()  # type: ignore[attr-defined]
        assert grown < 20, f"the server grew by {grown:.0f} MiB"
    finally:
        server.kill()
        server.wait()


def test_a_refused_frames_id_is_read_only_when_it_is_a_short_string() -> None:
    """The error reply's ``id`` is a short string or nothing: an ``id`` of any other kind is
    not built, and a frame over the protocol's size is not read for one at all."""
    bomb = json.dumps({"type": "join", "id": [{"a": [1, 2, 3]}] * 3000, "token": "x"})
    assert len(bomb) < MAX_FRAME_BYTES
    assert command_id_of(bomb) is None
    assert command_id_of('{"type": "roll", "id": "c-1", "expression": 5}') == "c-1"
    assert command_id_of('{"id": "' + "x" * 65 + '"}') is None
    oversized = json.dumps({"id": "c-2", "expression": "x" * MAX_FRAME_BYTES})
    assert command_id_of(oversized) is None


def test_a_type_given_twice_is_said_so() -> None:
    """Two ``type`` keys read "invalid value 'roll'; did you mean 'roll'?": now it says the
    key is given twice."""
    with pytest.raises(Rejected) as refusal:
        read_frame('{"type": "history", "id": "x1", "before": 3, "type": "roll"}')
    assert (refusal.value.code, refusal.value.path) == ("unknown_type", "$.type")
    assert "`type` is given more than once: give it once" in str(refusal.value)
