"""Chaos trial: one member flooding (issue 9, attack 7).

::

    python tests/chaos/flood.py            # 4 connections flooding rolls + 300 spectator readers
    python tests/chaos/flood.py --quick

One player opens ``connections`` connections and keeps ``window`` rolls in flight on each, as
fast as they are answered (refusals are counted by code and ignored, as a script would); at
the same time one spectator token opens ``spectators`` connections that read everything the
flood broadcasts. Does another table's p99 hold, and how many rolls a second does the server
accept from one member? Options: ``connections``, ``window``, ``spectators``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext, hold_until_closed  # noqa: E402
from _raw import Closed, RawSocket  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402


async def attack(ctx: AttackContext) -> None:
    campaign, _, gm = await ctx.campaign("flood")
    player = await ctx.invite(gm, "player")
    spectator = await ctx.invite(gm, "spectator")
    await gm.close()
    await ctx.ready()
    gate = asyncio.Semaphore(32)

    async def gated_reader() -> None:
        async with gate:
            await _reader(ctx, campaign, spectator)

    await asyncio.gather(*(_roller(ctx, campaign, player, k)
                           for k in range(ctx.options["connections"])),
                         *(gated_reader() for _ in range(ctx.options["spectators"])))
    ctx.figures["rolls accepted per second"] = round(
        ctx.counters["rolls accepted"] / ctx.seconds)


async def _joined(ctx: AttackContext, campaign: str, token: str, who: str) -> RawSocket | None:
    """A connection of ``who`` joined to the campaign; None (counted) if that failed."""
    try:
        sock = await ctx.open(timeout=5)
        reply = await sock.join(token, campaign, timeout=5)
    except (OSError, TimeoutError, Closed) as error:
        ctx.count(f"{who} connection failed: {type(error).__name__}")
        return None
    if reply.get("type") != "welcome":
        ctx.count(f"{who} join refused: {reply.get('code')}")
        await sock.close()
        return None
    return sock


async def _roller(ctx: AttackContext, campaign: str, player: str, k: int) -> None:
    """One of the player's connections: ``window`` rolls in flight, one more for each
    answered, until the attack's time is up."""
    sock = await _joined(ctx, campaign, player, "player")
    if sock is None:
        return
    mine: set[str] = set()

    def send() -> None:
        command_id = ctx.next_id(f"f{k}")
        mine.add(command_id)
        sock.send_json({"type": "roll", "id": command_id, "expression": "2d6"})

    try:
        for _ in range(ctx.options["window"]):
            send()
        while ctx.time_left() > 0:
            frame = await sock.recv_json(max(0.01, ctx.time_left()))
            if frame.get("id") not in mine or frame.get("type") not in ("ack", "error"):
                continue
            mine.discard(frame["id"])
            ctx.count("rolls accepted" if frame["type"] == "ack"
                      else f"rolls refused: {frame.get('code')}")
            send()
    except Closed as closed:
        ctx.count(f"player connection closed by the server: {closed.code}")
    except TimeoutError:
        pass
    await sock.close()


async def _reader(ctx: AttackContext, campaign: str, spectator: str) -> None:
    """One of the spectator's connections, reading until the server closes it."""
    sock = await _joined(ctx, campaign, spectator, "spectator")
    if sock is None:
        return
    ctx.count("spectator connections joined")
    await hold_until_closed(ctx, sock, read=True)
    await sock.close()


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    return []


TRIAL = Trial(name="flood", script=Path(__file__).resolve(), attack=attack,
              full={"connections": 4, "window": 64, "spectators": 300},
              quick={"connections": 4, "window": 16, "spectators": 40},
              checks=checks)

if __name__ == "__main__":
    sys.exit(main(TRIAL, "one player flooding rolls on 4 connections, one spectator on 300"))
