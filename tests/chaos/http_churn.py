"""Chaos trial: an outsider churning plain HTTP requests, 60 at a time.

::

    python tests/chaos/http_churn.py                  # GET /health, 20 s
    python tests/chaos/http_churn.py --option path=1  # GET / without Upgrade (a failed handshake)
    python tests/chaos/http_churn.py --quick

Each request is a new TCP connection from the attacker's address, answered by the server
(``/health`` even over the connection caps; a handshake without ``Upgrade`` with 426). Found
by a red-team pass: answered at once, 1,000 of them a second raised another table's p99 from
9 to 180 ms. Options: ``path`` (0 ``/health``, 1 ``/``), ``parallel``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import ATTACKER_ADDRESS, AttackContext  # noqa: E402
from _trial import Trial, main  # noqa: E402


async def attack(ctx: AttackContext) -> None:
    path = "/health" if ctx.options["path"] == 0 else "/"
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    await ctx.ready()

    async def churn() -> None:
        while ctx.time_left() > 0:
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", ctx.port, local_addr=(ATTACKER_ADDRESS, 0))
                writer.write(request)
                status = await asyncio.wait_for(reader.read(200), 5)
                ctx.count(status.split(b"\r\n", 1)[0].decode(errors="replace"))
                writer.close()
            except Exception as error:  # refused, reset, timed out: all figures
                ctx.count(type(error).__name__)

    await asyncio.gather(*(churn() for _ in range(ctx.options["parallel"])))
    ctx.figures["requests per second"] = round(sum(ctx.counters.values()) / ctx.seconds)


TRIAL = Trial(name="http-churn", script=Path(__file__).resolve(), attack=attack,
              full={"path": 0, "parallel": 60}, quick={"path": 0, "parallel": 20})

if __name__ == "__main__":
    sys.exit(main(TRIAL, "plain HTTP churn"))
