"""The Python client keeps reading a newer server whose events carry fields it does not know."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from poolhall.clients.client import Client
from poolhall.events import core, sr3
from poolhall.events.errors import CommandRejected

FIXTURES = Path(__file__).parents[1] / "fixtures" / "events"


def grown(value: Any) -> Any:
    """``value`` with an unknown field in every object but the maps (skills) themselves."""
    if isinstance(value, dict):
        inner = {key: grown(item) for key, item in value.items()}
        return inner if value.keys() <= {"pistols", "etiquette", "electronics"} else {
            **inner, "added_in_a_later_version": [1, {"x": None}]}
    if isinstance(value, list):
        return [grown(item) for item in value]
    return value


def frame(seq: int, fixture: str) -> str:
    """An event frame as a newer server sends it, grown at every depth."""
    payload = json.loads((FIXTURES / f"{fixture}.v1.json").read_text())["payload"]
    return json.dumps({"type": "event", "seq": seq, "at": "2026-11-23T09:00:00.000Z",
                       "actor": "gm", "command": f"c-{seq}", "signature": "later",
                       "event": grown(payload)})


async def newer_server(connection: ServerConnection) -> None:
    """Answer a join with a welcome and two events, every object carrying an extra field."""
    join = json.loads(await connection.recv())
    assert join["type"] == "join"
    await connection.send(json.dumps({
        "type": "welcome", "role": "gm", "member": "gm", "campaign": "test-campaign",
        "name": "Test Campaign", "system": "sr3", "head": 2, "motd": "added later"}))
    await connection.send(frame(1, "campaign_created"))
    await connection.send(frame(2, "character_created"))
    await connection.wait_closed()


async def test_client_folds_events_with_unknown_fields_from_a_newer_server() -> None:
    """Unknown fields at the top of a frame, in the event and in nested stats are ignored."""
    async with serve(newer_server, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        async with Client(f"ws://127.0.0.1:{port}", "ph_token", "test-campaign",
                          reconnect=False) as table:
            await table.wait_for_seq(2, timeout=10)
            sam = table.state.characters["sam"]
            assert isinstance(sam.stats, sr3.Sr3Stats)
            assert sam.stats.skills["pistols"].rating == 5
            assert [recorded.seq for recorded in table.drain()] == [1, 2]


async def test_an_error_code_added_later_still_reaches_the_caller() -> None:
    """A newer server's error code, unknown to this client, is passed on as it came: the
    command is refused with that code and message, and the client goes on reading."""

    async def refusing_server(connection: ServerConnection) -> None:
        json.loads(await connection.recv())  # the join
        await connection.send(json.dumps({
            "type": "welcome", "role": "gm", "member": "gm", "campaign": "test-campaign",
            "name": "Test Campaign", "system": "sr3", "head": 1}))
        await connection.send(frame(1, "campaign_created"))
        command = json.loads(await connection.recv())
        await connection.send(json.dumps({
            "type": "error", "id": command["id"], "code": "quota_exceeded",
            "message": "this server's monthly dice are spent", "path": None}))
        await connection.wait_closed()

    async with serve(refusing_server, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        async with Client(f"ws://127.0.0.1:{port}", "ph_token", "test-campaign",
                          reconnect=False) as table:
            with pytest.raises(CommandRejected) as refused:
                await table.call(core.Roll, expression="1d6")
            # the client keeps a newer server's code as it came (clients/client.py casts it to
            # ErrorCode), so this comparison is one the types call impossible
            assert refused.value.code == "quota_exceeded"  # type: ignore[comparison-overlap]
            assert "monthly dice" in refused.value.message
            assert table.state.head == 1
