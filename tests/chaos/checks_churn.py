"""Chaos trial: open narrative checks of 16-20 dice changed as fast as possible (attack 8).

::

    python tests/chaos/checks_churn.py            # 20 open checks churned by one player
    python tests/chaos/checks_churn.py --quick    # 12

Every change to an open check makes the server recompute its exact odds (a view broadcast to
the table). One player opens ``checks`` checks for their character (5 Proficiency + 10 Ability
+ 3 Boost = 18 dice) and, one coroutine per check on one connection, adds and removes a Boost
die in turn, as fast as answered; when a check has taken its 40 modifications it is cancelled
and opened again. Does another campaign's p99 (and ``/health``) hold? Options: ``checks``
(the full trial's 20 is the most one player may have open; it was 48 before the players'
shares of open checks).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext  # noqa: E402
from _raw import Closed, RawSocket  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402

STATS = {"system": "narrative", "agility": 5,
         "skills": {"Ranged (Light)": {"rank": 5, "characteristic": "agility"}}}


class Caller:
    """Many commands in flight on one socket; one reader routes each answer to its caller."""

    def __init__(self, sock: RawSocket) -> None:
        self.sock = sock
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                _, payload = await self.sock.recv(3600)
                if payload.startswith((b'{"type":"ack"', b'{"type":"error"')):
                    frame = json.loads(payload)
                    future = self.waiting.pop(frame.get("id"), None)
                    if future is not None and not future.done():
                        future.set_result(frame)
        except (Closed, TimeoutError) as error:
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(error)

    async def call(self, command: dict[str, Any]) -> dict[str, Any]:
        future = asyncio.get_running_loop().create_future()
        self.waiting[command["id"]] = future
        self.sock.send_json(command)
        return await asyncio.wait_for(future, 30)


async def attack(ctx: AttackContext) -> None:
    campaign, _, gm = await ctx.campaign("churn")
    ack = await gm.call({"type": "create_character", "id": ctx.next_id("ch"), "character": "ace",
                         "name": "Ace", "stats": STATS})
    assert ack["type"] == "ack", ack
    token = await ctx.invite(gm, "player", ("ace",))
    await gm.close()
    sock = await ctx.open()
    welcome = await sock.join(token, campaign)
    assert welcome["type"] == "welcome", welcome
    caller = Caller(sock)

    async def prepare(check: str) -> None:
        for command in ({"type": "open_check", "character": "ace", "skill": "Ranged (Light)",
                         "check": check},
                        {"type": "add_dice", "check": check, "kind": "ability", "count": 10},
                        {"type": "add_dice", "check": check, "kind": "boost", "count": 3}):
            reply = await caller.call({**command, "id": ctx.next_id("p")})
            ctx.count(f"setup commands: {reply['type']} {reply.get('code', '')}".strip())

    names = [f"c{k}" for k in range(ctx.options["checks"])]
    await asyncio.gather(*(prepare(name) for name in names))
    await ctx.ready()

    async def churn(check: str) -> None:
        add, base, generation = True, check, 0
        while ctx.time_left() > 0:
            reply = await caller.call({"type": "add_dice" if add else "remove_dice",
                                       "id": ctx.next_id("m"), "check": check, "kind": "boost"})
            if reply["type"] == "ack":
                ctx.count("changes accepted")
                add = not add
                continue
            ctx.count(f"changes refused: {reply.get('code')}")
            if "modifications" in reply.get("message", ""):
                await caller.call({"type": "cancel_check", "id": ctx.next_id("x"),
                                   "check": check})
                generation += 1  # a cancelled check keeps its id: the new one needs another
                check = f"{base}-{generation}"
                await prepare(check)
                ctx.count("checks reopened")
                add = True
            elif reply.get("code") == "rate_limited":
                await asyncio.sleep(0.05)

    try:
        await asyncio.gather(*(churn(name) for name in names))
    except Closed as closed:
        ctx.count(f"closed by the server: {closed.code}")
    ctx.figures["changes accepted per second"] = round(
        ctx.counters["changes accepted"] / ctx.seconds)
    caller.reader.cancel()
    await sock.close()


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    return []


TRIAL = Trial(name="checks-churn", script=Path(__file__).resolve(), attack=attack,
              full={"checks": 20}, quick={"checks": 12}, checks=checks)

if __name__ == "__main__":
    sys.exit(main(TRIAL, "open narrative checks of 18 dice changed as fast as answered"))
