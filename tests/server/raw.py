"""A raw protocol peer for tests that need to send what the real client never would."""

from __future__ import annotations

import asyncio
import json
from typing import Any, NoReturn

from websockets.asyncio.client import ClientConnection, connect


class RawPeer:
    """A websocket that speaks JSON text frames by hand."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection

    @classmethod
    async def open(cls, url: str) -> RawPeer:
        # An unbounded receive queue: a test that closes without reading what the server sent
        # (a catch-up) must not leave the server's close reply unread behind a full queue,
        # which cost each such close websockets' 10 s close timeout.
        return cls(await connect(url, max_size=2**24, max_queue=None))

    async def send(self, payload: Any) -> None:
        await self.connection.send(payload if isinstance(payload, str | bytes)
                                   else json.dumps(payload))

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.connection.recv(),
                                                                    timeout))
        return message

    async def recv_until(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:
        """Skip frames until one of ``type == kind`` arrives."""
        while True:
            frame = await self.recv(timeout)
            if frame["type"] == kind:
                return frame

    async def read_all(self, into: list[dict[str, Any]], timeout: float = 5.0) -> NoReturn:
        """Append every frame to ``into`` until the connection ends: this only returns by
        raising, ``ConnectionClosed`` once closed or ``TimeoutError`` after ``timeout`` seconds
        without a frame, for a test to expect with ``pytest.raises`` around this one call."""
        while True:
            into.append(await self.recv(timeout))

    async def join(self, token: str, campaign: str | None, since: int = 0,
                   replay: bool = False) -> dict[str, Any]:
        """Join; ``replay`` asks for every event after ``since`` rather than a snapshot."""
        message: dict[str, Any] = {"type": "join", "token": token, "campaign": campaign,
                                   "since": since}
        if replay:
            message["replay"] = True
        await self.send(message)
        return await self.recv()

    async def join_with(self, token: str, campaign: str, since: int,
                        since_hash: str) -> dict[str, Any]:
        """Join the way a resuming client does: with the hash of its event ``since``."""
        await self.send({"type": "join", "token": token, "campaign": campaign, "since": since,
                         "since_hash": since_hash})
        return await self.recv()

    async def close(self) -> None:
        await self.connection.close()
