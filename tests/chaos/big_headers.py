"""Chaos trial: requests with huge headers that never end (issue 26, item 1).

::

    python tests/chaos/big_headers.py                          # 64 connections, one address
    python tests/chaos/big_headers.py --option addresses=4     # from four addresses
    python tests/chaos/big_headers.py --quick

Each attacking connection sends a request line and then ``headers`` header lines of
``header_bytes`` bytes each, as fast as the server takes them, and never the blank line that
ends the request; when the server answers or closes, it starts again. ``connections`` such
connections per address, from ``addresses`` addresses (127.0.0.10 and up). Found by a red-team
pass: the server read up to 128 headers of 8 KB per request on the event loop, 64 such
connections took it from 52 to 266 MB (never released) and another table's p99 from 6.3 to
318 ms. Prints the honest table's figures and the server's RSS; the door's counts (requests
being read, waiting, refused as too large) are watched through ``/health``. Options:
``addresses``, ``connections``, ``headers``, ``header_bytes``, ``settle`` (seconds after the
attack before the door's counts are read again: connections waiting unread for their turn
notice their peer has gone only when the join timeout closes them, 10 s by default).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext  # noqa: E402
from _requests import address, after_attack, connect_from, ended, watch_door  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402

WATCHED = ("reading_requests", "waiting_requests", "oversized_requests")


async def attack(ctx: AttackContext) -> None:
    line = b"X-Big: " + b"a" * (ctx.options["header_bytes"] - 9) + b"\r\n"
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
                writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                for _ in range(ctx.options["headers"]):
                    if reading.done() or ctx.time_left() <= 0:
                        break
                    writer.write(line)
                    await asyncio.wait_for(writer.drain(), max(0.01, ctx.time_left()))
                    ctx.count("header bytes sent", len(line))
                await asyncio.wait_for(asyncio.shield(reading), max(0.01, ctx.time_left()))
                ended(ctx, reading.result())
            except TimeoutError:
                ctx.count("still open at the end")
            except ConnectionError as error:
                ctx.count(f"reset by the server ({type(error).__name__})")
            finally:
                reading.cancel()
                writer.transport.abort()

    watch = asyncio.ensure_future(watch_door(ctx, WATCHED))
    await asyncio.gather(*(one(address(a)) for a in range(ctx.options["addresses"])
                           for _ in range(ctx.options["connections"])))
    await watch
    await after_attack(ctx, WATCHED, ctx.options["settle"])


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    found = figures["attacker"]["figures"]  # type: ignore[index]
    counters = figures["attacker"]["counters"]  # type: ignore[index]
    return [
        Check("oversized requests are refused (431) before they are read whole",
              counters.get("answered 431 Request Header Fields Too Large", 0) > 0),
        Check("nothing is held for an unfinished request once the attacker is gone",
              found.get("reading_requests after") == 0
              and found.get("waiting_requests after") == 0),
    ]


TRIAL = Trial(name="big-headers", script=Path(__file__).resolve(), attack=attack,
              full={"addresses": 1, "connections": 64, "headers": 126, "header_bytes": 8000,
                    "settle": 11},
              quick={"addresses": 2, "connections": 16, "headers": 126, "header_bytes": 8000,
                     "settle": 2},
              checks=checks)

if __name__ == "__main__":
    sys.exit(main(TRIAL, "huge request headers that never end"))
