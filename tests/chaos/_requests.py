"""Pieces of the trials whose attacker never finishes an HTTP request (``big_headers.py``,
``slow_handshakes.py``): a connection from a given loopback address, how it ended, and a
watch on the server's door counts through ``/health`` while the attack runs.

Attackers connect from 127.0.0.10 and up (``addresses``), one address per simulated host; the
watch asks from 127.0.0.3, so its own requests are never paced with the attacker's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from _attacker import AttackContext

__all__ = ["WATCH_ADDRESS", "address", "after_attack", "connect_from", "ended", "watch_door"]

WATCH_ADDRESS = "127.0.0.3"


def address(k: int) -> str:
    """The ``k``-th attacking address (127.0.0.10, 127.0.0.11, ...)."""
    return f"127.0.0.{10 + k}"


async def connect_from(ctx: AttackContext, source: str,
                       timeout: float = 5.0) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection to the server from ``source``."""
    return await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", ctx.port, local_addr=(source, 0)), timeout)


def ended(ctx: AttackContext, data: bytes) -> None:
    """Count how the server ended one attacking connection: its status line, or a close."""
    if data.startswith(b"HTTP/"):
        ctx.count("answered " + data.split(b"\r\n", 1)[0].decode(errors="replace")[9:])
    else:
        ctx.count("closed by the server without an answer")


async def _health_json(port: int) -> dict[str, Any] | None:
    writer = None
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(
            "127.0.0.1", port, local_addr=(WATCH_ADDRESS, 0)), 2)
        writer.write(f"GET /health?format=json HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     "\r\n".encode())
        data = await asyncio.wait_for(reader.read(), 5)
        return json.loads(data.partition(b"\r\n\r\n")[2])  # type: ignore[no-any-return]
    except (OSError, TimeoutError, ValueError):
        return None
    finally:
        if writer is not None:
            writer.transport.abort()


async def watch_door(ctx: AttackContext, names: tuple[str, ...]) -> None:
    """Until the attack's end, read ``/health`` twice a second and keep the largest value of
    each of ``names`` (the JSON's ``connections`` figures) as ``most <name>``; then, once the
    attack has stopped and a second has passed, the value of each as ``<name> after``."""
    with contextlib.suppress(asyncio.CancelledError):
        while ctx.time_left() > 0:
            body = await _health_json(ctx.port)
            if body is None:
                ctx.count("/health unanswered during the attack")
            else:
                door = body.get("connections", {})
                for name in names:
                    key = f"most {name}"
                    ctx.figures[key] = max(ctx.figures.get(key, 0), int(door.get(name, 0)))
            await asyncio.sleep(0.5)


async def after_attack(ctx: AttackContext, names: tuple[str, ...], settle: float = 1.5) -> None:
    """The door's figures once the attacker's connections are gone (what it held was freed)."""
    await asyncio.sleep(settle)
    body = await _health_json(ctx.port)
    door = body.get("connections", {}) if body else {}
    for name in names:
        ctx.figures[f"{name} after"] = door.get(name, "unanswered")
