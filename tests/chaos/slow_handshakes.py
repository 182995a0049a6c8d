"""Chaos trial: handshakes sent a byte at a time, from many addresses (issue 26, item 2).

::

    python tests/chaos/slow_handshakes.py                        # 20 addresses x 64
    python tests/chaos/slow_handshakes.py --option interval_ms=20
    python tests/chaos/slow_handshakes.py --quick

Each attacking connection sends a request line and then one header's value ``chunk`` bytes
every ``interval_ms``, never ending the request (slowloris); when the server answers or closes
it, it starts again at once. ``per_address`` connections from each of ``addresses`` addresses
(127.0.0.10 and up), which fills every address's connection cap. Found by a red-team pass:
1,280 such connections from 20 addresses raised another table's p99 from 12 to 209 ms. Prints
the honest table's figures and the server's RSS; the door's counts (requests being read, and
waiting for their address's turn) are watched through ``/health``. Options: ``addresses``,
``per_address``, ``interval_ms``, ``chunk``, ``reading_cap`` (the server's unfinished
requests per address: at most this many of an address's are read at once, checked),
``settle`` (seconds after the attack before the door's counts are read again: connections
waiting unread for their turn notice their peer has gone only when the join timeout closes
them, 10 s by default).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext  # noqa: E402
from _requests import address, after_attack, connect_from, ended, watch_door  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402

WATCHED = ("reading_requests", "waiting_requests", "reading_most_per_address")


async def attack(ctx: AttackContext) -> None:
    interval = ctx.options["interval_ms"] / 1000
    chunk = b"a" * ctx.options["chunk"]
    await ctx.ready()

    async def one(source: str) -> None:
        while ctx.time_left() > 0:
            try:
                reader, writer = await connect_from(ctx, source)
            except (OSError, TimeoutError) as error:
                ctx.count(f"connect failed: {type(error).__name__}")
                await asyncio.sleep(0.1)
                continue
            ctx.count("connections opened")
            reading = asyncio.ensure_future(reader.read(200))
            try:
                writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                while not reading.done() and ctx.time_left() > 0:
                    await asyncio.wait([reading], timeout=min(interval, ctx.time_left()))
                    if not reading.done():
                        writer.write(chunk)
                        ctx.count("bytes trickled", len(chunk))
                if reading.done():
                    ended(ctx, reading.result())
                else:
                    ctx.count("still open at the end")
            except ConnectionError as error:
                ctx.count(f"reset by the server ({type(error).__name__})")
            finally:
                reading.cancel()
                writer.transport.abort()

    watch = asyncio.ensure_future(watch_door(ctx, WATCHED))
    await asyncio.gather(*(one(address(a)) for a in range(ctx.options["addresses"])
                           for _ in range(ctx.options["per_address"])))
    await watch
    await after_attack(ctx, WATCHED, ctx.options["settle"])


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    found = figures["attacker"]["figures"]  # type: ignore[index]
    per_address = found.get("most reading_most_per_address", 0)
    return [  # per address: the total also counts the honest table's own handshakes
        Check(f"at most {options['reading_cap']} unfinished requests read per address "
              f"(most seen from one: {per_address}; in all: "
              f"{found.get('most reading_requests')})",
              0 < per_address <= options["reading_cap"]),
        Check("an address's further connections wait, unread, for a turn",
              found.get("most waiting_requests", 0) > 0
              or options["per_address"] <= options["reading_cap"]),
        Check("nothing is held for an unfinished request once the attacker is gone",
              found.get("reading_requests after") == 0
              and found.get("waiting_requests after") == 0),
    ]


TRIAL = Trial(name="slow-handshakes", script=Path(__file__).resolve(), attack=attack,
              full={"addresses": 20, "per_address": 64, "interval_ms": 100, "chunk": 1,
                    "reading_cap": 8, "settle": 11},
              quick={"addresses": 4, "per_address": 24, "interval_ms": 100, "chunk": 1,
                     "reading_cap": 8, "settle": 2},
              checks=checks)

if __name__ == "__main__":
    sys.exit(main(TRIAL, "slow handshakes from many addresses"))
