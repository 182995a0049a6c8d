"""Fault trial: the server is killed under load and its -wal/-shm deleted before it restarts.

::

    python tests/chaos/lost_wal.py [--runs 10] [--campaigns 3] [--seconds 1.5]

Each run starts ``poolhall serve`` as a real process, has a GM roll without pause and a
spectator follow in every campaign, kills the server with SIGKILL, deletes ``poolhall.db-wal``
and ``poolhall.db-shm`` (what the README says never to do) and starts it again on the same
file. It prints, per run and in total: acknowledged events lost (the highest acknowledged
sequence number minus the head the server came back with), what ``poolhall verify`` said of
the file, and how the clients that held lost events ended: told ``diverged`` (the client
stops with ``HistoryDiverged``) or, the failure this trial is for, resumed silently. Exit 1
if any client resumed on a history the server no longer had.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from poolhall.clients.client import Client  # noqa: E402
from poolhall.events import core  # noqa: E402
from poolhall.events.errors import CommandRejected, ConnectionLost, HistoryDiverged  # noqa: E402
from poolhall.events.sqlite_backend import SqliteReader  # noqa: E402
from tests import serve_process  # noqa: E402
from tests.serve_process import free_port  # noqa: E402


def start_serve(db: Path, port: int) -> subprocess.Popen[bytes]:
    """``poolhall serve`` on ``db``, its output appended to ``serve.log`` beside it."""
    return serve_process.start_serve(db, port, log=db.with_name("serve.log"), wait=60)


class Seat:
    """One client at a table and the highest event it was told is durable (or folded)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.acked = 0


async def _roll_forever(seat: Seat, stop: asyncio.Event) -> None:
    try:
        while not stop.is_set():
            ack = await seat.client.call(core.Roll, expression="1d6")
            seat.acked = max(seat.acked, ack.seqs[-1])
    except (ConnectionLost, CommandRejected, TimeoutError):
        return


async def _ending(seat: Seat) -> str:
    """How a client ends once the server is back: ``diverged``, ``resumed`` or ``gave up``.

    A probe command tells: sent while the client is reconnecting, it goes out on the resumed
    connection (a spectator's is refused, which proves the resume as well as an ack does).
    """
    try:
        await seat.client.call(core.Roll, expression="1d4")
    except HistoryDiverged:
        return "diverged"
    except CommandRejected:
        return "resumed"
    except (ConnectionLost, TimeoutError):
        return "gave up"
    return "resumed"


async def one_run(directory: Path, campaigns: int, seconds: float) -> dict[str, int]:
    db = directory / "poolhall.db"
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    server = start_serve(db, port)
    admin_token = (directory / "poolhall.db.admin-token").read_text().strip()
    gms: list[Seat] = []
    followers: list[Seat] = []
    for n in range(campaigns):
        async with Client(url, admin_token) as admin:
            ack = await admin.call(core.CreateCampaign, name=f"Trial {n}", system="d12")
        assert ack.token is not None
        gm = Seat(Client(url, ack.token, ack.campaign, reconnect_for=120, timeout=120))
        await gm.client.connect()
        invite = await gm.client.call(core.Invite, role="spectator")
        follower = Seat(Client(url, invite.token or "", ack.campaign, reconnect_for=120,
                               timeout=120))
        await follower.client.connect()
        gms.append(gm)
        followers.append(follower)
    stop = asyncio.Event()
    rollers = [asyncio.create_task(_roll_forever(seat, stop)) for seat in gms]
    await asyncio.sleep(seconds)
    server.send_signal(signal.SIGKILL)
    server.wait(20)
    stop.set()  # and cancel: Python 3.11's wait_for can swallow a cancel that meets an ack
    for task in rollers:  # a roll re-sent after the restart would be acked as a new event
        task.cancel()
    await asyncio.gather(*rollers, return_exceptions=True)
    for seat in gms + followers:  # what each had when the server died
        seat.acked = max(seat.acked, seat.client.head)
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    checked, problems = SqliteReader(db).verify()
    reader = SqliteReader(db)
    heads = {seat.client.campaign: reader.head(seat.client.campaign or "") for seat in gms}
    server = start_serve(db, port)
    try:
        endings = await asyncio.gather(*(_ending(seat) for seat in gms + followers))
    finally:
        for seat in gms + followers:
            await seat.client.close()
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    lost = sum(max(0, max(g.acked, f.acked) - heads[g.client.campaign])
               for g, f in zip(gms, followers, strict=True))
    holders = [(seat, ending) for seat, ending in zip(gms + followers, endings, strict=True)
               if seat.acked > heads[seat.client.campaign]]
    return {
        "acked lost": lost,
        "verify problems": len(problems),
        "clients holding lost events": len(holders),
        "told diverged": sum(ending == "diverged" for _, ending in holders),
        "resumed silently": sum(ending == "resumed" for _, ending in holders),
        "gave up": sum(ending == "gave up" for _, ending in holders),
        "others resumed": sum(ending == "resumed" for seat, ending in zip(
            gms + followers, endings, strict=True) if seat.acked <= heads[seat.client.campaign]),
    }


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--campaigns", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.5, help="of rolling before the kill")
    args = parser.parse_args()
    totals: dict[str, int] = {}
    started = time.perf_counter()
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="poolhall-lost-wal-") as directory:
            figures = await one_run(Path(directory), args.campaigns, args.seconds)
        print(f"run {run}: " + ", ".join(f"{key} {value}" for key, value in figures.items()))
        for key, value in figures.items():
            totals[key] = totals.get(key, 0) + value
    print(f"total over {args.runs} runs ({time.perf_counter() - started:.0f}s): "
          + ", ".join(f"{key} {value}" for key, value in totals.items()))
    return 1 if totals.get("resumed silently") else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    sys.exit(asyncio.run(main()))
