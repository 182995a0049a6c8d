"""Chaos trial: an outsider churning plain HTTP requests, 60 at a time.

::

    python tests/chaos/http_churn.py                  # GET /health, 20 s
    python tests/chaos/http_churn.py --option path=1  # GET / without Upgrade (a failed handshake)
    python tests/chaos/http_churn.py --option path=2  # a handshake with two Origin headers
    python tests/chaos/http_churn.py --quick

Each request is a new TCP connection from the attacker's address, answered by the server
(``/health`` even over the connection caps; a handshake without ``Upgrade`` with 426). Found
by a red-team pass: answered at once, 1,000 of them a second raised another table's p99 from
9 to 180 ms. With two ``Origin`` headers (``path=2``) each request was answered 500 with a
1.3 KB traceback in the server's log (16.7 KB/s of log per address); it is answered 400, and
the log says so once a minute. Options: ``path`` (0 ``/health``, 1 ``/``, 2 a handshake with
a repeated header), ``parallel``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import ATTACKER_ADDRESS, AttackContext  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402

REQUESTS = {
    0: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    1: "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    2: ("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        "Origin: http://127.0.0.1\r\nOrigin: http://evil.example\r\n\r\n"),
}


async def attack(ctx: AttackContext) -> None:
    request = REQUESTS[ctx.options["path"]].encode()
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


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    if options["path"] != 2:
        return []
    counters = figures["attacker"]["counters"]  # type: ignore[index]
    answered = counters.get("HTTP/1.1 400 Bad Request", 0)
    lines = figures["log_lines_during"]
    return [
        Check("a handshake repeating a header is answered 400", answered > 0
              and not any(key.startswith("HTTP/1.1 500") for key in counters)),
        Check(f"the refusals cost a few log lines, not one each ({lines} for {answered})",
              isinstance(lines, int) and lines <= 5),
    ]


TRIAL = Trial(name="http-churn", script=Path(__file__).resolve(), attack=attack,
              full={"path": 0, "parallel": 60}, quick={"path": 0, "parallel": 20},
              checks=checks)

if __name__ == "__main__":
    sys.exit(main(TRIAL, "plain HTTP churn"))
