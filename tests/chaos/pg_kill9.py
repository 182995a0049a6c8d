"""Chaos trial: ``kill -9`` one of three servers on one PostgreSQL under load.

::

    python tests/chaos/pg_kill9.py            # 20 s, 9 players, a kill every 6 s
    python tests/chaos/pg_kill9.py --quick    # 6 s, 6 players, one kill

Three ``poolhall serve`` processes share one PostgreSQL database (``POOLHALL_TEST_POSTGRES``,
else ``postgresql:///poolhall_test``; a fresh schema, dropped after). Players of one campaign
are spread over the three and keep rolls in flight; every few seconds one process gets
SIGKILL (and is started again, so that three keep serving). A player whose process died joins
another from the last event it holds and sends again what was not answered. At the end:
every acknowledged command is in the log, no player saw a gap or a duplicate, none was
acknowledged twice, every player's events are the log's (same hashes), the chains verify.
Prints the figures and a ``CHAOS-RESULT`` line; exit 0 only if every verdict holds.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _several import (  # noqa: E402
    ROOT,
    Player,
    Servers,
    finish,
    health_status,
    open_table,
    player_checks,
    result_line,
)

sys.path.insert(0, str(ROOT))
from tests.postgres import fresh_schema  # noqa: E402
from tests.serve_process import serve_database  # noqa: E402


async def trial(servers: Servers, args: argparse.Namespace) -> tuple[list[Player], str, int]:
    campaign, tokens, head = await open_table(servers.ports[0], servers.admin_token(),
                                              args.players)
    players = [Player(f"p{n}", tokens[n % len(tokens)], campaign, servers.ports, n, head,
                      args.window) for n in range(args.players)]
    stop = asyncio.Event()
    running = [asyncio.create_task(p.run(stop, servers.alive)) for p in players]
    kills = 0
    started = time.monotonic()
    while time.monotonic() - started < args.seconds:
        await asyncio.sleep(min(args.every, args.seconds - (time.monotonic() - started)))
        if time.monotonic() - started >= args.seconds - 0.5:
            break
        victim = random.choice(servers.alive())
        servers.kill(victim)
        kills += 1
        print(f"{time.monotonic() - started:5.1f}s  kill -9 the server on :{victim}")
        await asyncio.sleep(0.5)
        n = servers.ports.index(victim)
        servers.processes[victim] = await asyncio.to_thread(
            serve_database, servers.url, victim, servers.work, servers.work / f"serve{n}.log")
    stop.set()
    await finish(players, running, servers.url, campaign)
    return players, campaign, kills


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--players", type=int)
    parser.add_argument("--every", type=float)
    parser.add_argument("--window", type=int, default=4)
    args = parser.parse_args()
    args.seconds = args.seconds or (6.0 if args.quick else 20.0)
    args.players = args.players or (6 if args.quick else 9)
    args.every = args.every or (3.0 if args.quick else 6.0)
    schema = fresh_schema()
    url = next(schema)
    work = Path(tempfile.mkdtemp(prefix="poolhall-chaos-pg-kill9-"))
    servers = Servers(url, work)
    checks: list[tuple[str, bool]] = []
    figures: dict[str, object] = {}
    try:
        servers.start()
        players, campaign, kills = asyncio.run(trial(servers, args))
        checks, figures = player_checks(players, url, campaign)
        figures["kills"] = kills
        checks.append(("at least one server was killed under load", kills >= 1))
        checks.append(("every server answers /health after the kills",
                       all(health_status(port) == 200 for port in servers.ports)))
        print(f"figures: {figures}")
    except Exception as error:  # say it loudly, still clean up
        checks.append((f"the trial ran: {type(error).__name__}: {error}", False))
    finally:
        servers.stop()
        tracebacks = servers.tracebacks()
        checks.append(("no traceback in the servers' output", tracebacks == 0))
        for _ in schema:  # drops the schema
            pass
        shutil.rmtree(work, ignore_errors=True)
    return 0 if result_line("pg-kill-9", checks, figures) else 1


if __name__ == "__main__":
    sys.exit(main())
