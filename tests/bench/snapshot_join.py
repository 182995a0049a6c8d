"""What joining costs now that a join gets the table, not the log: a long campaign and many.

::

    python tests/bench/snapshot_join.py                     # 1,000,000 events + 100 x 10,000
    python tests/bench/snapshot_join.py --events 100000 --campaigns 10 --each 1000  # quick

The log is written straight into a fresh SQLite file with the store's own append (hash chain
and command index included): one narrative campaign of ``--events`` events (free rolls, with a
realistic table at its end: 5 characters, 20 closed checks, 3 open checks with difficulty and
modifications, a destiny pool) and ``--campaigns`` campaigns of ``--each`` rolls. The server
runs in a child process; every figure is measured from this process, after ``/health`` answers
(the server's own start-up on a long log is slow, and another matter):

- join-to-table: connect, ``join`` with ``since=0``, until the ``snapshot`` frame is read
  (p50/p99 over ``--joins`` joins), on the long campaign and across the many;
- ``poolhall roll`` and ``poolhall state`` as subprocesses (wall time, p50 over 5 runs each),
  interpreter start-up included, with the bytecode compiled once as an installed poolhall has
  it (a shell with ``PYTHONDONTWRITEBYTECODE`` set compiled a stale module from source on
  every run: 0.16-0.17 s against 0.12-0.13);
- the size of the long campaign's snapshot message.

Figures are printed, never asserted; the machine is shared, so compare runs made together.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cli_start import cached_bytecode  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from poolhall.events import core  # noqa: E402
from poolhall.events import narrative as n  # noqa: E402
from poolhall.events.base import Recorded  # noqa: E402
from poolhall.events.dice import RolledTerm  # noqa: E402
from poolhall.events.log import AppendRequest, prepare  # noqa: E402
from poolhall.events.sqlite_backend import SqliteLog  # noqa: E402
from poolhall.projections.campaign import CampaignState, evolve, new_state  # noqa: E402
from poolhall.server import rules  # noqa: E402
from poolhall.server.auth import hash_token  # noqa: E402
from poolhall.server.rules.base import ADMIN_MEMBER, Decision  # noqa: E402
from poolhall.server.rules.core import open_campaign  # noqa: E402

TOKEN = "ph_bench-admin-token-0123456789abcdef"
GM_TOKEN = "ph_bench-gm-token-0123456789abcdef"
AT = "2026-01-01T00:00:00.000Z"
PER_COMMAND = 10
"""Rolls written per command row: a long log fills ten times faster, the events are the same."""
BATCH = 500

CHILD = """
import asyncio, sys
from poolhall.server.app import Server
from poolhall.server.settings import Settings
async def main():
    settings = Settings(request_burst=int(sys.argv[3])) if sys.argv[3] != "0" else Settings()
    server = Server(sys.argv[1], "127.0.0.1", 0, admin_token=sys.argv[2], settings=settings)
    await server.start()
    print("READY", server.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop()
asyncio.run(main())
"""


class Writer:
    """Appends to one campaign of the log, in batches, keeping a state to decide commands on."""

    def __init__(self, log: SqliteLog, campaign: str, keep_state: bool) -> None:
        self.log, self.campaign, self.head = log, campaign, 0
        self.state: CampaignState | None = new_state() if keep_state else None
        self.batch: list[AppendRequest] = []
        self.commands = 0

    def add(self, events: list[Any], actor: str = "gm") -> None:
        self.commands += 1
        command = f"setup-{self.commands}"
        self.batch.append(AppendRequest(campaign=self.campaign, expected_head=self.head,
                                        actor=actor, command_id=command, at=AT,
                                        events=tuple(prepare(event) for event in events)))
        for event in events:
            self.head += 1
            if self.state is not None:
                evolve(self.state, Recorded(seq=self.head, at=AT, actor=actor,
                                            command=command, event=event))
        if len(self.batch) >= BATCH:
            self.flush()

    def run(self, member: str, command_type: type[Any], **fields: Any) -> None:
        """Decide a command with the rules, as the server would, and append its events."""
        assert self.state is not None
        ctx = Decision(self.state, self.state.members[member], _RNG, lambda: "t" * 32)
        self.add(rules.decide(ctx, command_type(id=f"x{self.commands}", **fields)), member)

    def flush(self) -> None:
        for result in self.log.append_batch(self.batch):
            if isinstance(result, Exception):
                raise result
        self.batch.clear()


_RNG = random.Random(1)


def _rolls(writer: Writer, count: int) -> None:
    for start in range(0, count, PER_COMMAND):
        events = []
        for _ in range(min(PER_COMMAND, count - start)):
            faces = (_RNG.randint(1, 6), _RNG.randint(1, 6))
            events.append(core.DiceRolled(expression="2d6",
                                          terms=(RolledTerm(sides=6, faces=faces),),
                                          total=sum(faces)))
        writer.add(events)


def build(db: Path, events: int, campaigns: int, each: int) -> None:
    """The long narrative campaign ``long`` and ``campaigns`` d12 campaigns ``c-<k>``."""
    from tests.narrative.narrative_support import HAN, LEIA, VADER

    log = SqliteLog(db)
    try:
        long = Writer(log, "long", keep_state=True)
        long.add(open_campaign(core.CreateCampaign(id="create", name="A long campaign",
                                                   system="narrative"), "long",
                               hash_token(GM_TOKEN)), ADMIN_MEMBER)
        players = ["han", "leia", "luke", "chewie", "lando"]
        for who in players:
            long.add([core.MemberInvited(member=f"{who}-player", name=who.title(),
                                         role="player", characters=(who,),
                                         token_hash=hash_token(f"ph_bench-{who}-token-0123456789abcdef"))])
            stats = {"han": HAN, "leia": LEIA}.get(who, HAN if who != "chewie" else VADER)
            long.add([core.CharacterCreated(character=who, name=who.title(), stats=stats)])
        keep, long.state = long.state, None  # rolls need no state (and would keep a million)
        _rolls(long, max(0, events - 200))
        assert keep is not None
        long.state, keep.head = keep, long.head
        long.run("gm", core.StartSession, title="tonight")
        long.run("gm", n.RollDestinyPool)
        for k in range(20):  # closed checks: the snapshot keeps the last ones
            long.run("han-player", n.OpenCheck, character="han", skill="Cool", check=f"old{k}")
            long.run("gm", n.SetDifficulty, check=f"old{k}", level="average")
            long.run("han-player", n.RollCheck, check=f"old{k}")
        for check, who, skill in (("shot", "han", "Ranged (Light)"),
                                  ("rally", "leia", "Leadership"),
                                  ("fly", "han", "Piloting (Space)")):
            long.run(f"{who}-player", n.OpenCheck, character=who, skill=skill, check=check)
            long.run("gm", n.SetDifficulty, check=check, level="hard")
            long.run(f"{who}-player", n.AddDice, check=check, kind="boost", reason="aiming")
            long.run("gm", n.UpgradeDice, check=check, side="difficulty", reason="cover")
        _rolls(long, max(0, events - long.head))
        long.flush()
        for k in range(campaigns):
            one = Writer(log, f"c-{k}", keep_state=False)
            one.add(open_campaign(core.CreateCampaign(id="create", name=f"Campaign {k}",
                                                      system="d12"), f"c-{k}",
                                  hash_token(f"{GM_TOKEN}-{k}")), ADMIN_MEMBER)
            _rolls(one, each - 2)
            one.flush()
    finally:
        log.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def join_to_table(url: str, token: str, campaign: str) -> tuple[float, int]:
    """Milliseconds from connecting to holding the snapshot; the snapshot's size in bytes."""
    started = time.perf_counter()
    async with connect(url, max_size=2**24, compression=None) as connection:
        await connection.send(json.dumps({"type": "join", "token": token,
                                          "campaign": campaign, "since": 0}))
        while True:
            frame = await connection.recv(decode=True)
            if frame.startswith('{"type":"snapshot"'):
                return (time.perf_counter() - started) * 1000, len(frame.encode())
            if frame.startswith('{"type":"error"'):
                raise RuntimeError(frame)


def cli(url: str, token: str, env: dict[str, str], *arguments: str) -> float:
    """Seconds one ``poolhall`` command takes, as a user runs it (``env``: with its bytecode
    compiled, as an installed poolhall has it; see ``cli_start.cached_bytecode``)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "poolhall", *arguments, "--url", url,
                    "--token", token], check=True, cwd=ROOT, capture_output=True,
                   env={**env, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - started


def wait_healthy(port: int) -> float:
    started = time.perf_counter()
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
                if answer.status == 200:
                    return time.perf_counter() - started
        except OSError:
            time.sleep(0.1)


async def measure(url: str, args: argparse.Namespace, env: dict[str, str]) -> None:
    long_ms, sizes = [], []
    for _ in range(args.joins):
        ms, size = await join_to_table(url, GM_TOKEN, "long")
        long_ms.append(ms)
        sizes.append(size)
    print(f"join-to-table, {args.events:,} events: p50 {percentile(long_ms, 0.5):.1f} ms, "
          f"p99 {percentile(long_ms, 0.99):.1f} ms ({args.joins} joins)")
    print(f"snapshot of the realistic table (5 characters, 3 open checks, 50 log lines): "
          f"{sizes[-1]:,} bytes ({sizes[-1] / 1024:.1f} KiB)")
    if args.campaigns:
        many_ms = []
        for k in range(args.joins):
            ms, _ = await join_to_table(url, f"{GM_TOKEN}-{k % args.campaigns}",
                                        f"c-{k % args.campaigns}")
            many_ms.append(ms)
        print(f"join-to-table, {args.campaigns} campaigns of {args.each:,}: p50 "
              f"{percentile(many_ms, 0.5):.1f} ms, p99 {percentile(many_ms, 0.99):.1f} ms")
    cli(url, GM_TOKEN, env, "roll", "long", "2d6")  # the first run compiles what --help did not
    rolls = [cli(url, GM_TOKEN, env, "roll", "long", "2d6") for _ in range(5)]
    states = [cli(url, GM_TOKEN, env, "state", "long", "--json") for _ in range(5)]
    print(f"poolhall roll on {args.events:,} events: p50 {percentile(rolls, 0.5):.2f} s, "
          f"max {max(rolls):.2f} s")
    print(f"poolhall state on {args.events:,} events: p50 {percentile(states, 0.5):.2f} s, "
          f"max {max(states):.2f} s")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    print(f"(a bare interpreter starts in {time.perf_counter() - started:.2f} s here)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--campaigns", type=int, default=100)
    parser.add_argument("--each", type=int, default=10_000)
    parser.add_argument("--joins", type=int, default=20)
    parser.add_argument("--request-burst", type=int, default=0,
                        help="the server's --request-burst (0: its default). This one process"
                        " opens connections back to back, far faster than the per-address"
                        " request pacing lets one address: raise it to measure joins alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        started = time.perf_counter()
        build(db, args.events, args.campaigns, args.each)
        print(f"built {args.events:,} + {args.campaigns} x {args.each:,} events in "
              f"{time.perf_counter() - started:.0f} s")
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), TOKEN,
                                  str(args.request_burst)], cwd=ROOT,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            assert child.stdout is not None
            started = time.perf_counter()
            line = child.stdout.readline()
            port = int(line.split()[1])
            wait_healthy(port)
            print(f"server up in {time.perf_counter() - started:.1f} s (not measured below)")
            asyncio.run(measure(f"ws://127.0.0.1:{port}", args,
                                cached_bytecode(Path(tmp) / "bytecode")))
        finally:
            assert child.stdin is not None
            child.stdin.close()
            child.wait(timeout=60)


if __name__ == "__main__":
    main()
