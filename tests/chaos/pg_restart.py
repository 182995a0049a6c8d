"""Chaos trial: PostgreSQL stopped (as by a crash) and started again under load.

::

    python tests/chaos/pg_restart.py           # 3 servers, 9 players, 5 s down
    python tests/chaos/pg_restart.py --quick   # 2 servers, 4 players, 2 s down

The trial makes a PostgreSQL cluster of its own (``initdb`` into a temporary directory with
Debian's binaries, ``/usr/lib/postgresql/<version>/bin``, on its own port and socket
directory; run as the ``postgres`` user when this runs as root), so it never stops a server
anyone else uses. Server processes share a database of it; players spread over them keep
rolls in flight. The cluster is then stopped with ``pg_ctl stop -m immediate`` (no shutdown
checkpoint: a crash) and started again after a few seconds. While it is down every server must
answer ``/health`` with 503 and commands with ``unavailable``; once it is back every server
must answer 200 again by itself (no restart), and at the end nothing acknowledged is lost, no
player saw a gap or a duplicate, and the chains verify. Prints the figures and a
``CHAOS-RESULT`` line; exit 0 only if every verdict holds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _several import (  # noqa: E402
    Player,
    Servers,
    finish,
    health_status,
    open_table,
    player_checks,
    result_line,
)

from tests.serve_process import free_port  # noqa: E402


class Cluster:
    """A PostgreSQL cluster of this trial's own, in ``work``."""

    def __init__(self, work: Path) -> None:
        versions = sorted(Path("/usr/lib/postgresql").iterdir(), key=lambda p: int(p.name))
        self.bin = versions[-1] / "bin"
        self.work = work
        self.data, self.socket = work / "data", work / "socket"
        self.port = free_port()
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        self.url = f"postgresql://postgres@/postgres?host={self.socket}&port={self.port}"

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_postgres, *args], check=True, capture_output=True,
                       timeout=120)

    def create(self) -> None:
        self.socket.mkdir()
        if self.as_postgres:
            shutil.chown(self.work, "postgres")
            shutil.chown(self.socket, "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                  "--auth=trust", "--no-sync")

    def start(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-l",
                  str(self.work / "postgres.log"), "-o",
                  f"-p {self.port} -k {self.socket} -c listen_addresses=''", "start")

    def crash(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-m", "immediate",
                  "stop")

    def stop(self) -> None:
        subprocess.run([*self.as_postgres, str(self.bin / "pg_ctl"), "-D", str(self.data),
                        "-w", "-m", "fast", "stop"], capture_output=True, timeout=60)


async def wait_for(ports: list[int], status: int, seconds: float) -> float | None:
    """Seconds until every port's /health answers ``status``, or None past ``seconds``."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        found = await asyncio.gather(*(asyncio.to_thread(health_status, p) for p in ports))
        if all(code == status for code in found):
            return time.monotonic() - started
        await asyncio.sleep(0.1)
    return None


async def trial(cluster: Cluster, servers: Servers, args: argparse.Namespace
                ) -> tuple[list[Player], str, dict[str, object]]:
    campaign, tokens, head = await open_table(servers.ports[0], servers.admin_token(),
                                              args.players)
    players = [Player(f"p{n}", tokens[n % len(tokens)], campaign, servers.ports, n, head,
                      args.window) for n in range(args.players)]
    stop = asyncio.Event()
    running = [asyncio.create_task(p.run(stop, servers.alive)) for p in players]
    await asyncio.sleep(args.before)
    acked_before = sum(len(p.acks) for p in players)
    await asyncio.to_thread(cluster.crash)
    print(f"PostgreSQL stopped (-m immediate) after {acked_before} acknowledged commands")
    to_503 = await wait_for(servers.ports, 503, args.down + 10)
    await asyncio.sleep(max(0.0, args.down - (to_503 or 0)))
    refused_down = sum(p.refused.get("unavailable", 0) for p in players)
    acked_down_start = sum(len(p.acks) for p in players)
    await asyncio.to_thread(cluster.start)
    print("PostgreSQL started again")
    to_200 = await wait_for(servers.ports, 200, 60)
    await asyncio.sleep(args.after)
    stop.set()
    await finish(players, running, servers.url, campaign)
    figures: dict[str, object] = {
        "acked before the stop": acked_before, "seconds to 503 on every server": to_503,
        "unavailable answers while down": refused_down,
        "seconds to 200 on every server after the start": to_200,
        "acked after the start": sum(len(p.acks) for p in players) - acked_down_start}
    return players, campaign, figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--servers", type=int)
    parser.add_argument("--players", type=int)
    parser.add_argument("--down", type=float)
    parser.add_argument("--window", type=int, default=4)
    parser.add_argument("--keep", action="store_true", help="keep the logs and the cluster")
    args = parser.parse_args()
    args.servers = args.servers or (2 if args.quick else 3)
    args.players = args.players or (4 if args.quick else 9)
    args.down = args.down or (2.0 if args.quick else 5.0)
    args.before = args.after = 1.5 if args.quick else 4.0
    work = Path(tempfile.mkdtemp(prefix="poolhall-chaos-pg-restart-"))
    cluster = Cluster(work)
    servers = Servers(cluster.url, work / "servers", args.servers)
    checks: list[tuple[str, bool]] = []
    figures: dict[str, object] = {}
    try:
        cluster.create()
        cluster.start()
        servers.work.mkdir()
        servers.start()
        players, campaign, figures = asyncio.run(trial(cluster, servers, args))
        checks, more = player_checks(players, cluster.url, campaign)
        figures.update(more)
        print(f"figures: {figures}")
        checks += [
            ("every server answered /health 503 while PostgreSQL was down",
             figures["seconds to 503 on every server"] is not None),
            ("commands were answered unavailable while it was down",
             int(figures["unavailable answers while down"]) > 0),  # type: ignore[call-overload]
            ("every server answered /health 200 again by itself",
             figures["seconds to 200 on every server after the start"] is not None),
            ("commands were acknowledged after the start",
             int(figures["acked after the start"]) > 0),  # type: ignore[call-overload]
        ]
    except Exception as error:  # say it loudly, still clean up
        checks.append((f"the trial ran: {type(error).__name__}: {error}", False))
    finally:
        codes = servers.stop()
        checks.append(("every server stopped cleanly on SIGTERM", all(c == 0 for c in codes)))
        store_errors = servers.tracebacks("poolhall.events.errors.StoreError: ")
        unexpected = servers.tracebacks() - store_errors
        checks.append(("no traceback in the servers' output but the database's absence",
                       unexpected == 0))
        cluster.stop()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if result_line("pg-restart", checks, figures) else 1


if __name__ == "__main__":
    sys.exit(main())
