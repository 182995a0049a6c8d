"""Chaos trial: connections that never send ``join`` (issue 9, attack 5).

::

    python tests/chaos/never_join.py            # 1,200 silent connections for 20 s
    python tests/chaos/never_join.py --quick    # 150 for 3 s
    python tests/chaos/never_join.py --server-arg=--join-timeout=2   # once that flag exists

An outsider opens ``connections`` websockets that complete the handshake and then say nothing,
plus ``tcp`` plain TCP connections that never even send the HTTP request, and holds them. The
honest table keeps rolling and a member keeps joining it afresh: is anyone locked out, and does
the server close the silent ones (with which close code)? Options (``--option NAME=N``):
``connections``, ``tcp``, ``expect_closed`` (1: a silent connection still open at the end is a
failure, not just a figure; the quick run holds them 2 s, less than a join timeout of 10 s),
``due_after`` (seconds after which a silent connection should have been closed: the join
timeout and a margin; one opened later and still open at the end is not counted against the
server: refused connections are answered a second late, so the outsider's later attempts
land after the first ones were closed).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext, hold_until_closed  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402


async def attack(ctx: AttackContext) -> None:
    await ctx.ready()  # nothing to set up: the attacker is an outsider
    gate = asyncio.Semaphore(64)

    async def one(upgrade: bool) -> None:
        async with gate:
            try:
                sock = await ctx.open(upgrade=upgrade, timeout=5)
            except Exception as error:  # refused, reset, timed out: all figures
                ctx.count(f"{'websocket' if upgrade else 'tcp'} open failed: "
                          f"{type(error).__name__}")
                return
        ctx.count(f"{'websocket' if upgrade else 'tcp'} connections opened")
        try:
            await hold_until_closed(ctx, sock, read=True, due_after=ctx.options["due_after"])
        finally:
            sock.abort()

    await asyncio.gather(*(one(True) for _ in range(ctx.options["connections"])),
                         *(one(False) for _ in range(ctx.options["tcp"])))


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    counters = figures["attacker"]["counters"]  # type: ignore[index]
    still_open = counters.get("still open at the end", 0)
    return [Check("the server closes connections that never join (none still open at the end)",
                  still_open == 0, "correctness" if options["expect_closed"] else "target")]


TRIAL = Trial(name="never-join", script=Path(__file__).resolve(), attack=attack,
              full={"connections": 1200, "tcp": 100, "expect_closed": 1, "due_after": 12},
              quick={"connections": 150, "tcp": 20, "expect_closed": 0, "due_after": 2},
              checks=checks)

if __name__ == "__main__":
    sys.exit(main(TRIAL, "connections that never send join"))
