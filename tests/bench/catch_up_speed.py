"""Catch-up speed: events/s a client receives replaying a long campaign (``replay: true``).

::

    python tests/bench/catch_up_speed.py                  # 100,000 events behind, 5 runs
    python tests/bench/catch_up_speed.py --events 20000 --runs 2
    python tests/bench/catch_up_speed.py --profile py-spy # where the server's time goes

The campaign is written straight into a fresh log (``tests/chaos/_longlog.py``) with the
snapshots a server writing it would have stored (every ``snapshot_every`` events: without
them the first join folds the whole campaign, a cost of loading, not of catching up; pass
``--no-snapshots`` to see it), then a real ``Server`` in a child process serves it with
the replay budget lifted.
The reader is a minimal websocket peer (an ``asyncio.Protocol`` that keeps the bytes and
looks for the head's frame; they are split and checked afterwards), so the figure is the
server's: from the join sent to the frame of the head received. The server's page cache holds
16 MB, less than the campaign, so every run reads the whole campaign from the log (a restart is
not needed); the first run also loads the campaign. The median of the runs is printed; no gap
and no duplicate is checked on every run.

Targets are printed beside the figures, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for entry in (str(ROOT), str(ROOT / "tests" / "chaos")):
    if entry not in sys.path:
        sys.path.insert(0, entry)

TARGET = 500_000.0

CHILD = """
import asyncio, sys
from poolhall.server.app import Server
from poolhall.server.settings import Settings
async def main():
    server = Server(sys.argv[1], "127.0.0.1", 0, admin_token=sys.argv[2],
                    settings=Settings(replay_rate=1e9, replay_burst=10**9, join_rate=1e9,
                                      join_burst=10**9))
    await server.start()
    print("READY", server.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop()
asyncio.run(main())
"""


class Reader(asyncio.Protocol):
    """Handshake, join with a replay from 0, then keep every byte until the head's frame.

    Nothing is parsed while the catch-up arrives (a frame parser in Python would cost more
    than the server's sending): each chunk is only searched for the head's ``"seq":N,``.
    The frames are split and checked afterwards (:func:`check_frames`).
    """

    def __init__(self, port: int, token: str, campaign: str, head: int) -> None:
        self.port, self.token, self.campaign = port, token, campaign
        self.marker = f'{{"type":"event","seq":{head},'.encode()
        self.chunks: list[bytes] = []
        self.upgraded = False
        self.transport: asyncio.Transport | None = None
        self.done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.started = 0.0
        self.first = 0.0
        """Seconds from the join to the first bytes after it (the welcome: the join's own
        cost, the campaign's load included on the first run)."""
        self.tail = b""
        self.cpu = 0.0
        """This process's CPU seconds from the join to the head's frame."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        assert self.transport is not None
        self.transport.write(
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode())

    def _send(self, payload: bytes) -> None:
        assert self.transport is not None
        assert len(payload) < 126
        mask = secrets.token_bytes(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.transport.write(bytes((0x81, 0x80 | len(payload))) + mask + masked)

    def data_received(self, data: bytes) -> None:
        if not self.upgraded:
            self.tail += data
            end = self.tail.find(b"\r\n\r\n")
            if end < 0:
                return
            data, self.tail = self.tail[end + 4:], b""
            self.upgraded = True
            self.started, self.cpu = time.perf_counter(), time.process_time()
            self._send(json.dumps({"type": "join", "token": self.token, "campaign":
                                   self.campaign, "replay": True}).encode())
        elif not self.first:
            self.first = time.perf_counter() - self.started
        self.chunks.append(data)
        window = self.tail + data[:len(self.marker)] if len(data) > len(self.marker) else \
            self.tail + data
        if (self.marker in data or self.marker in window) and not self.done.done():
            self.done.set_result(time.perf_counter() - self.started)
            self.cpu = time.process_time() - self.cpu
        self.tail = (self.tail + data)[-len(self.marker):]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_exception(ConnectionError("closed before the head arrived"))


def check_frames(data: bytes, head: int) -> list[str]:
    """Split the frames received and check the events: 1..head, each once, in order."""
    problems: list[str] = []
    pos, last, events = 0, 0, 0
    while len(data) - pos >= 2:
        length, header = data[pos + 1] & 0x7F, 2
        if length == 126:
            length, header = int.from_bytes(data[pos + 2:pos + 4], "big"), 4
        elif length == 127:
            length, header = int.from_bytes(data[pos + 2:pos + 10], "big"), 10
        start = pos + header
        if data.startswith(b'{"type":"event","seq":', start):
            seq_at = start + 22
            seq = int(data[seq_at:data.index(b",", seq_at)])
            if seq != last + 1 and len(problems) < 5:
                problems.append(f"seq {seq} after {last}")
            last, events = seq, events + 1
        pos = start + length
    if events != head or last != head:
        problems.append(f"{events} event frames up to seq {last} for a head of {head}")
    return problems


async def one_run(port: int, token: str, campaign: str, head: int) -> tuple[
        float, float, float, list[str]]:
    """Seconds to the head's frame, seconds to the welcome, the reader's CPU seconds till the
    head's frame, and any problem found."""
    loop = asyncio.get_running_loop()
    transport, reader = await loop.create_connection(
        lambda: Reader(port, token, campaign, head), "127.0.0.1", port)
    try:
        seconds = await asyncio.wait_for(reader.done, 120)
    finally:
        transport.close()
    await asyncio.sleep(0.05)  # anything after the head (views) need not be complete
    return seconds, reader.first, reader.cpu, check_frames(b"".join(reader.chunks), head)


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """User + system CPU of a process (all its threads), or of one of its threads, so far."""
    stat = f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat"
    fields = Path(stat).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def store_snapshots(db: Path, campaign: str, admin_token: str) -> None:
    """Store the campaign's snapshots as the server does while it is written: sealed with the
    key of the server's admin token (unsealed, the server discards them and folds the whole
    campaign at the first join)."""
    from poolhall.events.sqlite_backend import SqliteLog
    from poolhall.server.settings import Settings
    from poolhall.server.stored_snapshots import SnapshotStore, fold_from, seal_key

    log = SqliteLog(db)
    try:
        fold_from(log, SnapshotStore(db, seal_key(admin_token)), campaign,
                  every=Settings().snapshot_every)
    finally:
        log.close()



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", choices=("py-spy",))
    parser.add_argument("--no-snapshots", action="store_true",
                        help="leave the log without stored snapshots (the first join folds it)")
    args = parser.parse_args(argv)
    from tests.chaos._longlog import build_long_log

    work = Path(tempfile.mkdtemp(prefix="poolhall-catchup-"))
    token = "ph_bench-" + secrets.token_hex(16)
    server: subprocess.Popen[bytes] | None = None
    try:
        started = time.perf_counter()
        built = build_long_log(work / "log.db", args.events, 1, "player")
        head, campaign = built["head"], built["campaign"]
        if not args.no_snapshots:
            store_snapshots(work / "log.db", campaign, token)
        print(f"catch-up speed: a {head:,}-event campaign written in "
              f"{time.perf_counter() - started:.1f}s; load "
              f"average {os.getloadavg()[0]:.2f} on "
              f"{os.cpu_count()} CPUs")
        server = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(work / "log.db"), token], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[1])
        spy = None
        if args.profile:
            py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
            spy = subprocess.Popen([py_spy, "record", "--pid", str(server.pid), "--rate", "400",
                                "--format", "raw", "-o", str(work / "spy.txt")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)
        rates: list[float] = []
        failed = False
        for run in range(args.runs):
            cpu0, loop0 = cpu_seconds(server.pid), cpu_seconds(server.pid, server.pid)
            seconds, welcome, reader_cpu, problems = asyncio.run(
                one_run(port, built["gm_token"], campaign, head))
            cpu = cpu_seconds(server.pid) - cpu0
            loop = cpu_seconds(server.pid, server.pid) - loop0
            rates.append(head / seconds)
            print(f"   run {run + 1}: {head:,} events in {seconds:.3f}s = "
                  f"{head / seconds:,.0f} events/s (welcome after {1e3 * welcome:.0f} ms); "
                  f"server CPU {cpu:.3f}s ({1e6 * cpu / head:.2f} µs an event; event loop "
                  f"{loop:.3f}s); reader CPU {reader_cpu:.2f}s; load average "
                  f"{os.getloadavg()[0]:.1f}" + (f"  PROBLEMS: {problems[:3]}" if problems else ""))
            failed |= bool(problems)
        if spy is not None:
            spy.send_signal(2)
            spy.wait(30)
            text = (work / "spy.txt").read_text() if (work / "spy.txt").exists() else ""
            own: dict[str, int] = {}
            total = 0
            for line in text.splitlines():
                stack, _, count = line.rpartition(" ")
                leaf = stack.split(";")[-1]
                own[leaf] = own.get(leaf, 0) + int(count)
                total += int(count)
            for leaf, samples in sorted(own.items(), key=lambda kv: -kv[1])[:25]:
                print(f"{100 * samples / max(total, 1):6.1f}%  {leaf}")
        median = statistics.median(rates)
        print(f"catch-up of {head:,} events: median {median:,.0f} events/s, best "
              f"{max(rates):,.0f}   (target >= {TARGET:,.0f}: "
              f"{'meets target' if median >= TARGET else 'BELOW TARGET'})")
        return 1 if failed else 0
    finally:
        if server is not None:
            with contextlib.suppress(OSError):
                assert server.stdin is not None
                server.stdin.close()
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
