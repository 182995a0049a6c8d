"""Chaos trial: join storms with ``since=0`` on a long log (issue 9, attack 9).

::

    python tests/chaos/join_storm.py            # 8 members re-joining a 30,000-event log
    python tests/chaos/join_storm.py --quick    # a 3,000-event log

The trial writes a campaign of ``events`` rolls with ``members`` players into the log before
the server starts (see ``_longlog.py``); each player then joins with ``since=0``, drops the
connection as soon as the welcome arrives (with ``read_all=1``: reads the whole log up to the
welcome's head first), and joins again, as fast as the server lets it. How many joins a second
does the server serve, what do they cost another table's p99, and what is refused (by code)?
Options: ``events``, ``read_all``, ``members``.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext  # noqa: E402
from _raw import Closed, RawSocket  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402


async def attack(ctx: AttackContext) -> None:
    assert ctx.long_log is not None
    campaign, tokens = ctx.long_log["campaign"], ctx.long_log["tokens"]
    await ctx.ready()
    started = time.monotonic()

    async def storm(token: str) -> None:
        while ctx.time_left() > 0:
            sock: RawSocket | None = None
            try:
                sock = await ctx.open(timeout=5)
                # replay: the whole log, the worst a member can ask (since=0 alone gets a
                # snapshot of the table, one message)
                reply = await sock.join(token, campaign, since=0, timeout=10, replay=True)
                if reply.get("type") != "welcome":
                    ctx.count(f"joins refused: {reply.get('code')}")
                    continue
                ctx.count("joins welcomed")
                if not ctx.options["read_all"]:
                    continue
                head, seen = reply["head"], 0
                async with asyncio.timeout(120):
                    while seen < head:  # counted, not decoded: the attacker must stay cheap
                        _, payload = await sock.next_frame()
                        seen += payload.startswith(b'{"type":"event"')
                ctx.count("joins served (whole log read)")
            except Closed as closed:
                ctx.count(f"joins closed by the server: {closed.code}")
            except (OSError, TimeoutError) as error:
                ctx.count(f"joins failed: {type(error).__name__}")
            finally:
                if sock is not None:
                    sock.abort()

    await asyncio.gather(*(storm(token) for token in tokens))
    ctx.figures["joins welcomed per second"] = round(
        ctx.counters["joins welcomed"] / (time.monotonic() - started), 1)


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    return []


TRIAL = Trial(name="join-storm", script=Path(__file__).resolve(), attack=attack,
              full={"events": 30_000, "members": 8, "read_all": 0},
              quick={"events": 3_000, "members": 4, "read_all": 0},
              checks=checks, long_log_role="player")

if __name__ == "__main__":
    sys.exit(main(TRIAL, "joins with since=0 on a long log, as fast as served"))
