"""Chaos trial: members that join with ``since=0`` on a long log and never read (attack 6).

::

    python tests/chaos/slow_readers.py            # 500 stalled readers of a 20,000-event log
    python tests/chaos/slow_readers.py --quick    # 60 of a 2,000-event log

The trial writes a campaign of ``events`` rolls with one spectator into the log before the
server starts (see ``_longlog.py``); the attacker opens ``readers`` connections with a 4 kB
receive buffer that join with ``since=0`` and never read a byte, while the GM keeps rolling
``trickle`` times a second in that campaign so the backlog keeps growing. What does it cost
the server (RSS), does another table's p99 hold, and are the stalled readers closed (and with
which code)? Options: ``events``, ``readers``, ``trickle``,
``members`` (spectator tokens the readers share).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext, hold_until_closed  # noqa: E402
from _raw import Closed  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402


async def attack(ctx: AttackContext) -> None:
    assert ctx.long_log is not None
    campaign, tokens = ctx.long_log["campaign"], ctx.long_log["tokens"]
    gm = await ctx.join_long_log(ctx.long_log["gm_token"])
    await ctx.ready()
    gate = asyncio.Semaphore(32)

    async def stalled(k: int) -> None:
        token = tokens[k % len(tokens)]
        async with gate:
            try:
                sock = await ctx.open(rcvbuf=4096, timeout=5)
                sock.send_json({"type": "join", "token": token, "campaign": campaign,
                                "since": 0, "replay": True})  # the whole log: the worst case
                await sock.drain()
                sock.stop_reading()  # and never read again
            except (OSError, TimeoutError, Closed) as error:
                ctx.count(f"reader connection failed: {type(error).__name__}")
                return
        ctx.count("stalled readers opened")
        try:
            await hold_until_closed(ctx, sock, read=False)
        finally:
            sock.abort()

    async def trickle() -> None:
        rate = ctx.options["trickle"]
        while ctx.time_left() > 0 and rate:
            reply = await gm.call({"type": "roll", "id": ctx.next_id("t"), "expression": "1d6"})
            ctx.count(f"GM trickle rolls: {reply['type']}")
            await asyncio.sleep(1 / rate)

    await asyncio.gather(trickle(), *(stalled(k) for k in range(ctx.options["readers"])))
    await gm.close()


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    return []


TRIAL = Trial(name="slow-readers", script=Path(__file__).resolve(), attack=attack,
              full={"events": 20_000, "readers": 500, "trickle": 5, "members": 1},
              quick={"events": 2_000, "readers": 60, "trickle": 5, "members": 1},
              checks=checks, long_log_role="spectator")

if __name__ == "__main__":
    sys.exit(main(TRIAL, "members joining with since=0 on a long log and never reading"))
