"""The bare peer of ``table_load.py``: a ``websockets`` server that only parses and broadcasts.

It answers the protocol's shape closely enough for the same load generator to drive it (join
with a welcome and, joining a table with events, a snapshot's sequence number; ``create_campaign``
and ``invite`` acknowledged with a token; ``roll`` broadcast to the table as an event frame
with the next sequence number, then acknowledged), but it stores nothing, checks no right and
no limit, and rolls with :mod:`random`. What poolhall does beyond this is what its durability,
rules, limits and projections cost: the ratio of the two is the figure ``table_load.py``
prints.

Like poolhall it runs websockets' asyncio server without compression; frames go out with
``websockets.broadcast`` (a write per frame, no awaiting a slow client) and ``send``.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Callable
from datetime import UTC, datetime

import msgspec
from websockets.asyncio.server import ServerConnection, broadcast, serve

__all__ = ["BarePeer"]


class Message(msgspec.Struct):
    """Any client message, parsed (as poolhall does, by msgspec) into the fields used here."""

    type: str
    id: str | None = None
    token: str | None = None
    campaign: str | None = None
    expression: str | None = None


class _Table:
    def __init__(self, name: str) -> None:
        self.name = name
        self.head = 1  # the campaign's creation
        self.members: set[ServerConnection] = set()


_decode = msgspec.json.Decoder(Message).decode
_encoder = msgspec.json.Encoder()


def _text(message: dict[str, object]) -> str:
    """JSON in a text frame, as poolhall sends it."""
    return _encoder.encode(message).decode()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class BarePeer:
    """Tables in memory; a token opens one table (or, the admin's, creates tables)."""

    def __init__(self, admin_token: str, rng: Callable[[int, int], int] = random.randint) -> None:
        self.admin_token = admin_token
        self.tables: dict[str, _Table] = {}
        self.tokens: dict[str, tuple[str, str]] = {}
        self._roll = rng
        self.port = 0

    async def start(self) -> None:
        self._server = await serve(self._handle, "127.0.0.1", 0, compression=None,
                                   max_size=2**20, max_queue=64)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self._server.close()
        await self._server.wait_closed()

    def _event(self, table: _Table, actor: str, command: str, event: dict[str, object]) -> None:
        table.head += 1
        broadcast(table.members, _text({
            "type": "event", "seq": table.head, "at": _now(), "actor": actor,
            "command": command, "event": event, "hash": ""}))

    async def _handle(self, connection: ServerConnection) -> None:
        table: _Table | None = None
        member = ""
        try:
            async for frame in connection:
                message = _decode(frame)
                if message.type == "join":
                    if message.token == self.admin_token:
                        member = "admin"
                    elif message.token in self.tokens:
                        campaign, member = self.tokens[message.token]
                        table = self.tables[campaign]
                        table.members.add(connection)
                    else:
                        await connection.send(_text({"type": "error", "code": "unauthorized",
                                                     "message": "unknown token"}))
                        continue
                    await connection.send(_text({"type": "welcome", "role": "gm",
                                                 "head": table.head if table else 0}))
                    if table is not None and table.head:
                        await connection.send(_text({"type": "snapshot", "seq": table.head}))
                elif message.type == "create_campaign":
                    name = message.campaign or f"table-{len(self.tables) + 1}"
                    token = secrets.token_urlsafe(16)
                    self.tables[name], self.tokens[token] = _Table(name), (name, "gm")
                    await connection.send(_text({"type": "ack", "id": message.id, "seqs": [1],
                                                 "campaign": name, "token": token}))
                elif message.type == "invite" and table is not None:
                    token = secrets.token_urlsafe(16)
                    self.tokens[token] = (table.name, f"p{len(self.tokens)}")
                    self._event(table, member, message.id or "", {"type": "member_invited"})
                    await connection.send(_text({"type": "ack", "id": message.id,
                                                 "seqs": [table.head], "token": token}))
                elif message.type == "roll" and table is not None:
                    faces = [self._roll(1, 6), self._roll(1, 6)]
                    self._event(table, member, message.id or "", {
                        "type": "dice_rolled", "expression": message.expression,
                        "terms": [{"sides": 6, "faces": faces, "sign": 1}], "constant": 1,
                        "total": sum(faces) + 1})
                    await connection.send(_text({"type": "ack", "id": message.id,
                                                 "seqs": [table.head]}))
        finally:
            if table is not None:
                table.members.discard(connection)


def serve_bare(admin_token: str) -> None:
    """Run the bare peer until stdin closes (the ``--serve-bare`` child, ``_server_child.py``)."""
    import sys

    async def main() -> None:
        peer = BarePeer(admin_token)
        await peer.start()
        print(f"READY {peer.port} 0 0", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await peer.stop()

    asyncio.run(main())
