"""Log scale: what a long log costs the server - start-up, memory, joins, catch-up, seeking, verify.

::

    python tests/bench/log_scale.py            # logs of 10k, 100k and 1M events
    python tests/bench/log_scale.py --quick    # 10k only
    python tests/bench/log_scale.py --sizes 100000 --fresh
    python tests/bench/log_scale.py --quick --against 34f704b --rounds 3  # and the release before

For each size, two logs: one narrative campaign of that many events, and 100 campaigns sharing
them. Each log is written straight into SQLite with the store's own append (``_log_build.py``:
hash chain and command index included; ten rolls per command, as in ``snapshot_join.py``), then
the state snapshots a running server would have stored are built once (:func:`fold_from`,
timed: what the first load after an upgrade costs). Logs are cached in
``/tmp/poolhall-log-scale/`` between runs (``--fresh`` rebuilds them).

The server runs in a child process; from this process, for each log:

- start-up: from spawning the server until ``/health`` answers 200 (the interpreter's imports
  included), and the server's own ``start()`` (open the log, list its campaigns, listen);
- RSS of the server (``VmRSS``) after start-up and after 100 tables join (100 members of
  the one campaign, or the GM of each of the 100), connections held open;
- join-to-table: connect, ``join`` with ``since=0``, until the ``snapshot`` (p50 and max over
  those 100 joins; the first join of a campaign loads it), then p50 of the same 100 joins
  again (every campaign loaded);
- catch-up: a ``join`` with ``replay: true`` from up to 100,000 events behind the head, events/s
  until the head's frame is read (the median of :data:`CATCH_UPS` catch-ups one after another:
  from 10,000 events behind, one takes 50-100 ms, and single ones of the same server varied
  by a third);
- state at seq: ``state_at`` at the first event, the middle and the head (median of 5 each);
- a command: 50 rolls one after another, median ms from sending to the ack (the log's
  command table is asked about each new id);
- verify: ``SqliteReader.verify()`` of the file in this process, events/s.

With ``--against REV`` each log is also served by revision REV's server (checked out in a
temporary worktree by ``_servers.py``), this one's and that one's alternately for ``--rounds``
rounds, and the medians of both are printed with their ratio (this / before) against #28's
bound (not worse than 10%). REV's logs are built by REV's own ``log_scale.py`` (the same
events, in that revision's layout, which this code's may not be: a revision before the plain
store cannot open a log this one wrote), cached beside this code's under the revision's commit;
``verify`` is timed for this code only, and ``state_at`` only where the revision has it (a
dash otherwise). Like the default run, it is SQLite only: these are one process's figures
over its own file (start-up, memory, joins), so ``--db postgresql://`` is not offered.

Figures are printed, never asserted; the machine is shared, so compare runs made together.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

import _log_build  # noqa: E402
from _log_build import ADMIN, MEMBERS, SNAPSHOT_EVERY, member_token  # noqa: E402
from _servers import checkout, ratio_line, revision_name  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from poolhall.events.sqlite_backend import SqliteReader  # noqa: E402

CACHE = Path("/tmp/poolhall-log-scale")
TABLES = 100
BEHIND = 100_000
CATCH_UPS = 5
"""Catch-ups timed in each round; their median is the round's figure."""

CHILD = """
import asyncio, json, sys, time
import importlib, pathlib
code = "poolhall." if pathlib.Path("poolhall/__init__.py").exists() else ""  # cwd: its checkout
Server = importlib.import_module(code + "server.app").Server  # before the one namespace: bare
Settings = importlib.import_module(code + "server.settings").Settings
async def main():
    started = time.perf_counter()
    server = Server(sys.argv[1], "127.0.0.1", 0, admin_token=sys.argv[2],
                    settings=Settings(**json.loads(sys.argv[3])))
    await server.start()
    print("READY", server.port, time.perf_counter() - started, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop()
asyncio.run(main())
"""

SETTINGS = {"max_connections": 2000, "max_connections_per_address": 2000,
            "request_rate": 10_000.0, "request_burst": 10_000, "join_rate": 1000.0,
            "join_burst": 1000, "member_connections": 1000, "replay_rate": 10_000_000.0,
            "replay_burst": 10_000_000, "member_rate": 1000.0, "member_burst": 1000,
            "snapshot_every": SNAPSHOT_EVERY}
"""Lifted limits: one process opens every connection from one address, and replays far more
than a table would; the figures are of the server's work, not of its pacing."""


BUILD_CHILD = """
import json, sys
from pathlib import Path
sys.path.insert(0, "tests/bench")
import log_scale
log_scale.CACHE = Path(sys.argv[1])
db, written, snapshotted = log_scale.prepared_log(int(sys.argv[2]), int(sys.argv[3]),
                                                  sys.argv[4] == "fresh")
print(json.dumps([str(db), written, snapshotted]))
"""
"""Another revision's own ``prepared_log``, in a child whose path is that revision's: its log
in its own layout, cached in the directory given."""


def prepared_log(events: int, campaigns: int, fresh: bool) -> tuple[Path, float, float]:
    """The log of ``events`` over ``campaigns`` cached in :data:`CACHE` (``_log_build.py``'s,
    built if missing); seconds to write it and to store its snapshots. Kept here, with
    :data:`CACHE`, under these names: a later revision's ``--against`` builds this one's logs by
    setting ``log_scale.CACHE`` and calling ``log_scale.prepared_log`` (``BUILD_CHILD``)."""
    return _log_build.prepared_log(CACHE, events, campaigns, fresh)


# ---- measuring --------------------------------------------------------------------------------


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait_healthy(port: int) -> None:
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.005)


async def joined(url: str, token: str, campaign: str, since: int = 0,
                 replay: bool = False) -> tuple[ClientConnection, float, dict[str, Any]]:
    """A connection that joined; ms until its snapshot (or welcome, when replaying)."""
    started = time.perf_counter()
    connection = await connect(url, max_size=2**26, compression=None)
    await connection.send(json.dumps({"type": "join", "token": token, "campaign": campaign,
                                      "since": since, "replay": replay}))
    while True:
        frame = await connection.recv(decode=True)
        message = json.loads(frame)
        if message["type"] == "error":
            raise RuntimeError(frame)
        if message["type"] == "welcome" and (replay or since >= message["head"]):
            return connection, (time.perf_counter() - started) * 1000, message
        if message["type"] == "snapshot":
            return connection, (time.perf_counter() - started) * 1000, message


async def catch_up(url: str, token: str, campaign: str, head: int) -> tuple[int, float]:
    """Events behind, and the median events/s of :data:`CATCH_UPS` replays one after another
    from up to :data:`BEHIND` events behind the head."""
    rates = [await one_catch_up(url, token, campaign, head) for _ in range(CATCH_UPS)]
    return head - max(0, head - BEHIND), statistics.median(rates)


async def one_catch_up(url: str, token: str, campaign: str, head: int) -> float:
    """Events/s of one replay from up to :data:`BEHIND` events behind the head."""
    since = max(0, head - BEHIND)
    started = time.perf_counter()
    connection, _, _ = await joined(url, token, campaign, since=since, replay=True)
    try:
        while True:
            frame = await connection.recv(decode=True)
            if frame.startswith('{"type":"event"') and f'"seq":{head},' in frame[:40]:
                break
    finally:
        await connection.close()
    return (head - since) / (time.perf_counter() - started)


async def state_at(connection: ClientConnection, seq: int, count: int = 5) -> float:
    """Median ms of ``state_at`` at ``seq`` over ``count`` requests."""
    times = []
    for k in range(count):
        started = time.perf_counter()
        await connection.send(json.dumps({"type": "state_at", "id": f"at-{seq}-{k}",
                                          "seq": seq}))
        while True:
            frame = await connection.recv(decode=True)
            if frame.startswith('{"type":"snapshot"') or frame.startswith('{"type":"error"'):
                message = json.loads(frame)
                if message.get("id") == f"at-{seq}-{k}":
                    if message["type"] == "error":
                        raise RuntimeError(frame)
                    break
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def command_ms(connection: ClientConnection, count: int = 50) -> float:
    """Median ms from sending a roll to its ack, one at a time (each new command id is looked
    up in the log's command table before it is decided)."""
    times = []
    for k in range(count):
        command_id = f"bench-{time.time_ns()}-{k}"
        started = time.perf_counter()
        await connection.send(json.dumps({"type": "roll", "id": command_id,
                                          "expression": "1d6"}))
        while True:
            message = json.loads(await connection.recv())
            if message.get("id") == command_id and message["type"] in ("ack", "error"):
                if message["type"] == "error":
                    raise RuntimeError(message)
                break
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def measure(url: str, pid: int, campaigns: int, heads: dict[str, int],
                  seeks: bool) -> dict[str, Any]:
    figures: dict[str, Any] = {"rss_start": rss_mib(pid)}
    held: list[ClientConnection] = []
    joins = []
    try:
        for k in range(TABLES):
            if campaigns == 1:
                campaign, token = "c-0", member_token("c-0", k % MEMBERS)
            else:
                campaign = f"c-{k % campaigns}"
                token = member_token(campaign, 0)
            connection, ms, _ = await joined(url, token, campaign)
            held.append(connection)
            joins.append(ms)
        figures["join_p50"], figures["join_max"] = statistics.median(joins), max(joins)
        figures["rss_joined"] = rss_mib(pid)
        again = []  # the same joins once more, every campaign loaded now
        for k in range(TABLES):
            campaign = "c-0" if campaigns == 1 else f"c-{k % campaigns}"
            token = member_token(campaign, k % MEMBERS if campaigns == 1 else 0)
            connection, ms, _ = await joined(url, token, campaign)
            await connection.close()
            again.append(ms)
        figures["join_again"] = statistics.median(again)
        head = heads["c-0"]
        figures["behind"], figures["catch_up"] = await catch_up(
            url, member_token("c-0", 0), "c-0", head)
        figures["state_at"] = [await state_at(held[0], seq)
                               for seq in (1, max(1, head // 2), head)] if seeks else []
        figures["command"] = await command_ms(held[0])
    finally:
        for connection in held:
            await connection.close()
    return figures


def log_of(code: Path, events: int, campaigns: int, fresh: bool) -> tuple[Path, float, float]:
    """The log of ``events`` over ``campaigns`` as the code at ``code`` writes it (built by
    that code, cached); seconds to write it and to store its snapshots."""
    if code == ROOT:
        return prepared_log(events, campaigns, fresh)
    cache = CACHE / f"rev-{revision_name(code)}"
    cache.parent.mkdir(exist_ok=True)
    built = subprocess.run([sys.executable, "-c", BUILD_CHILD, str(cache), str(events),
                            str(campaigns), "fresh" if fresh else "cached"], cwd=code,
                           capture_output=True, text=True, timeout=3600,
                           env={**os.environ, "PYTHONPATH": str(code)})
    if built.returncode != 0:
        raise RuntimeError(f"{code.name} could not build its log:\n{built.stderr[-2000:]}")
    db, written, snapshotted = json.loads(built.stdout.splitlines()[-1])
    return Path(db), float(written), float(snapshotted)


def head_of(db: Path, campaign: str) -> int:
    """A campaign's head, read with plain SQL: a log in another revision's layout may not open
    with this code's reader, and every layout so far has ``events (campaign, seq)``."""
    with contextlib.closing(sqlite3.connect(db)) as connection:  # before its server opens it
        (head,) = connection.execute("SELECT max(seq) FROM events WHERE campaign = ?",
                                     [campaign]).fetchone()
    return int(head)


def run(events: int, campaigns: int, fresh: bool, code: Path = ROOT) -> dict[str, Any]:
    db, written, snapshotted = log_of(code, events, campaigns, fresh)
    # this code's reader for its own log (a plain sqlite3 connection opened just after this
    # process built the log failed with "disk I/O error"); plain SQL for another revision's
    heads = {"c-0": SqliteReader(db).head("c-0") if code == ROOT else head_of(db, "c-0")}
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), ADMIN,
                              json.dumps(settings_for(code))], cwd=code,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(code)})
    try:
        assert child.stdout is not None
        _, port_text, own_text = child.stdout.readline().split()
        port = int(port_text)
        wait_healthy(port)
        figures: dict[str, Any] = {"start": time.perf_counter() - started,
                                   "own_start": float(own_text), "written": written,
                                   "snapshotted": snapshotted}
        figures.update(asyncio.run(measure(f"ws://127.0.0.1:{port}", child.pid, campaigns,
                                           heads, seeks="snapshot_every" in
                                           settings_for(code))))
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=120)
    figures["verify"] = None
    figures["load"] = os.getloadavg()[0]
    if code == ROOT:  # verify is this process's code: timed once per log
        reader = SqliteReader(db)
        started = time.perf_counter()
        checked, problems = reader.verify()
        figures["verify"] = checked / (time.perf_counter() - started)
        assert not problems, problems
    return figures


def settings_for(code: Path) -> dict[str, Any]:
    """:data:`SETTINGS`, less those the server at ``code`` does not know."""
    known = (code / "server" / "settings.py").read_text()
    return {name: value for name, value in SETTINGS.items() if f"    {name}:" in known}


def row(label: str, f: dict[str, Any]) -> str:
    at = " / ".join(f"{ms:.1f}" for ms in f["state_at"]) + " ms" if f["state_at"] else "—"
    return (f"| {label} | {f['start']:.2f} s ({f['own_start'] * 1000:.0f} ms) | "
            f"{f['rss_start']:.0f} / {f['rss_joined']:.0f} MiB | {f['join_p50']:.1f} / "
            f"{f['join_max']:.1f} / {f['join_again']:.1f} ms | "
            f"{f['catch_up']:,.0f} ev/s ({f['behind']:,} behind) | "
            f"{at} | {f['command']:.1f} ms | "
            f"{'—' if f['verify'] is None else format(f['verify'], ',.0f') + ' ev/s'} | "
            f"{f['load']:.2f} |")


AGAINST = (("spawn to /health", "start", " s", 2, "lower"),
           ("start()", "own_start", " s", 3, "lower"),
           ("RSS after start-up", "rss_start", " MiB", 0, "lower"),
           ("RSS, 100 joined", "rss_joined", " MiB", 0, "lower"),
           ("join-to-table p50", "join_p50", " ms", 1, "lower"),
           ("join-to-table p50 again", "join_again", " ms", 1, "lower"),
           ("catch-up", "catch_up", " ev/s", 0, "higher"),
           ("roll to ack p50", "command", " ms", 1, "lower"))
"""The figures compared with ``--against``, and which way is better (#28: not worse by more
than 10%)."""


def compare(label: str, this: list[dict[str, Any]], before: list[dict[str, Any]]) -> None:
    """Print the medians of this code's and the revision's runs of one log, and the ratios."""
    print(f"\n{label}: medians of {len(this)} round(s), this / before")
    for name, key, unit, digits, better in AGAINST:
        line, _ = ratio_line(name, [f[key] for f in this], [f[key] for f in before], unit,
                             digits, **({"floor": 0.9} if better == "higher"
                                        else {"ceiling": 1.1}))
        print(line)
    print(flush=True)


def main() -> None:
    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # unwind: the revision's worktree is removed, servers stop

    signal.signal(signal.SIGTERM, terminate)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the 10k logs only")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--fresh", action="store_true", help="rebuild the cached logs")
    parser.add_argument("--against", metavar="REV",
                        help="also serve each log with revision REV's server, alternately")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --against: runs of each server on each log (default 1)")
    args = parser.parse_args()
    sizes = [10_000] if args.quick else args.sizes
    print(f"log scale: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    with contextlib.ExitStack() as stack:
        codes = [("this", ROOT)]
        if args.against:
            codes.append(("before", stack.enter_context(checkout(args.against))))
            print(f"this: {revision_name()}; before: {args.against}, "
                  f"{revision_name(codes[1][1])}; {args.rounds} round(s), alternately")
        print("| log | spawn to /health (start()) | RSS start / 100 joined"
              " | join-to-table p50 / max / p50 again | catch-up"
              " | state_at first / middle / head | roll to ack p50 | verify | load average |")
        print("|---|---|---|---|---|---|---|---|---|")
        for events in sizes:
            for campaigns in (1, TABLES):
                label = f"{events:,} events, {campaigns} campaign{'s' if campaigns > 1 else ''}"
                seen: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in codes}
                for round_ in range(args.rounds if args.against else 1):
                    for name, code in codes if round_ % 2 == 0 else codes[::-1]:
                        f = run(events, campaigns, args.fresh and round_ == 0, code)
                        seen[name].append(f)
                        built = (f" (built in {f['written']:.0f} s, snapshots in "
                                 f"{f['snapshotted']:.1f} s)" if f["written"]
                                 else f" (snapshots checked in {f['snapshotted']:.1f} s)")
                        said = f", {name}, round {round_ + 1}" if args.against else ""
                        print(row(label + said + built, f), flush=True)
                if args.against:
                    compare(label, seen["this"], seen["before"])


if __name__ == "__main__":
    main()
