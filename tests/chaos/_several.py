"""What the several-servers chaos trials share: server processes on one PostgreSQL, players
that move to another process when theirs goes, and the verdicts.

A :class:`Player` is one member's connection, written by hand (websockets, JSON frames) so
that everything the server sends is seen: it keeps ``window`` rolls in flight, notes every
event frame (a seq at or below the last it has is a duplicate; one past the next is a gap) and
every answer; when its connection drops it joins another process from the last event it holds
(with that event's hash) and sends again the rolls not yet answered (the same ids: a retry).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import WebSocketException  # noqa: E402

from tests.serve_process import free_port, serve_database  # noqa: E402

__all__ = ["Player", "Servers", "finish", "health_status", "log_facts", "result_line"]


def health_status(port: int) -> int:
    """``/health``'s status code, or 0 when nothing answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except OSError:
        return 0


class Servers:
    """``count`` real ``poolhall serve`` processes on one database, in ``work`` (``options``:
    more flags of ``serve`` for each)."""

    def __init__(self, url: str, work: Path, count: int = 3,
                 options: tuple[str, ...] = ()) -> None:
        self.url, self.work, self.options = url, work, options
        self.ports = [free_port() for _ in range(count)]
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    def start(self) -> None:
        for n, port in enumerate(self.ports):
            self.processes[port] = serve_database(self.url, port, self.work,
                                                  self.work / f"serve{n}.log",
                                                  options=self.options)

    def kill(self, port: int) -> None:
        self.processes[port].send_signal(signal.SIGKILL)
        self.processes[port].wait(10)

    def alive(self) -> list[int]:
        return [port for port, process in self.processes.items() if process.poll() is None]

    def stop(self) -> list[int]:
        """SIGTERM to those alive; the exit codes."""
        codes = []
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                codes.append(process.wait(20))
            except subprocess.TimeoutExpired:
                process.kill()
                codes.append(-9)
        return codes

    def tracebacks(self, ending: str = "Traceback") -> int:
        """Tracebacks in the servers' output (or lines holding ``ending``)."""
        return sum((self.work / f"serve{n}.log").read_text().count(ending)
                   for n in range(len(self.ports)))

    def admin_token(self) -> str:
        return next(self.work.glob("poolhall-*.admin-token")).read_text().strip()


class Player:
    """One member rolling through any of the servers (see the module docstring)."""

    def __init__(self, name: str, token: str, campaign: str, ports: list[int], first: int,
                 since: int, window: int) -> None:
        self.name, self.token, self.campaign = name, token, campaign
        self.ports, self.at = ports, first
        self.last, self.last_hash = since, ""
        self.window = window
        self.frames: dict[int, str] = {}
        self.gaps = self.duplicates = self.resumes = 0
        self.acks: dict[str, int] = {}
        self.pending: set[str] = set()
        self.refused: dict[str, int] = {}
        self._sent = 0
        self.quiet = asyncio.Event()
        """Set once it stopped sending and every roll it sent is answered."""
        self.target: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        """The log's final head, set by the trial once every player is quiet: each reads
        on until it has it."""

    async def run(self, stop: asyncio.Event, alive: Any) -> None:
        """Roll until ``stop``, then until every roll is answered; move on when cut off."""
        while True:
            port = self.ports[self.at % len(self.ports)]
            if port not in alive():
                self.at += 1
                await asyncio.sleep(0.05)
                continue
            try:
                await self._session(port, stop)
                return
            except (OSError, WebSocketException, TimeoutError):
                self.resumes += 1
                self.at += 1
                await asyncio.sleep(0.1)

    async def _session(self, port: int, stop: asyncio.Event) -> None:
        async with connect(f"ws://127.0.0.1:{port}", max_queue=None, open_timeout=5) as ws:
            join: dict[str, Any] = {"type": "join", "token": self.token,
                                    "campaign": self.campaign, "since": self.last}
            if self.last_hash:
                join["since_hash"] = self.last_hash
            await ws.send(json.dumps(join))
            welcome = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if welcome["type"] != "welcome":
                raise TimeoutError(f"join refused: {welcome}")
            for command_id in sorted(self.pending):  # unanswered when cut off: retried
                await ws.send(json.dumps({"type": "roll", "id": command_id,
                                          "expression": "1d6"}))
            while True:
                while not stop.is_set() and len(self.pending) < self.window:
                    self._sent += 1
                    command_id = f"{self.name}-{self._sent}"
                    self.pending.add(command_id)
                    await ws.send(json.dumps({"type": "roll", "id": command_id,
                                              "expression": "1d6"}))
                if stop.is_set() and not self.pending:
                    self.quiet.set()
                    if self.target.done() and self.last >= self.target.result():
                        return
                try:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 1 if self.quiet.is_set()
                                                              else 15))
                except TimeoutError:
                    if self.quiet.is_set():
                        continue  # waiting for the target: nothing more may come
                    raise
                await self._take(ws, frame)

    async def _take(self, ws: Any, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "event":
            seq = frame["seq"]
            if seq <= self.last:
                self.duplicates += 1
            elif seq != self.last + 1:
                self.gaps += 1
            if seq > self.last:
                self.last, self.last_hash = seq, frame["hash"]
                self.frames[seq] = frame["hash"]
        elif kind == "ack" and frame.get("id") in self.pending | set(self.acks):
            self.acks[frame["id"]] = self.acks.get(frame["id"], 0) + 1
            self.pending.discard(frame["id"])
        elif kind == "error" and frame.get("id") in self.pending:
            code = frame["code"]
            self.refused[code] = self.refused.get(code, 0) + 1
            await asyncio.sleep(0.2)  # unavailable, rate_limited: retried with the same id
            await ws.send(json.dumps({"type": "roll", "id": frame["id"], "expression": "1d6"}))


async def finish(players: list[Player], running: list[asyncio.Task[None]], url: str,
                 campaign: str) -> None:
    """Once every player is quiet, each reads on to the log's head, then stops."""
    await asyncio.wait_for(asyncio.gather(*(p.quiet.wait() for p in players)), 120)
    _, hashes = await asyncio.to_thread(log_facts, url, campaign)
    for player in players:
        player.target.set_result(max(hashes))
    await asyncio.wait_for(asyncio.gather(*running), 60)


def log_facts(url: str, campaign: str) -> tuple[set[str], dict[int, str]]:
    """The command ids the log holds for ``campaign``, and every event's hash by seq."""
    with psycopg.connect(url) as connection:
        ids = {row[0] for row in connection.execute(
            "SELECT command_id FROM commands WHERE campaign = %s", [campaign])}
        hashes: dict[int, str] = dict(connection.execute(
            "SELECT seq, hash FROM events WHERE campaign = %s", [campaign]).fetchall())
    return ids, hashes


def verify(url: str) -> bool:
    done = subprocess.run([sys.executable, "-m", "poolhall", "verify", url], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return done.returncode == 0


def player_checks(players: list[Player], url: str, campaign: str) -> tuple[
        list[tuple[str, bool]], dict[str, Any]]:
    """The verdicts on what the players saw against what the log holds."""
    ids, hashes = log_facts(url, campaign)
    acked = {command_id for p in players for command_id in p.acks}
    lost = len(acked - ids)
    twice = sum(1 for p in players for count in p.acks.values() if count > 1)
    unanswered = sum(len(p.pending) for p in players)
    gaps = sum(p.gaps for p in players)
    duplicates = sum(p.duplicates for p in players)
    agree = all(p.frames.items() <= hashes.items() for p in players)
    head = max(hashes) if hashes else 0
    figures = {"acked": len(acked), "lost": lost, "acked twice": twice, "gaps": gaps,
               "duplicates": duplicates, "resumes": sum(p.resumes for p in players),
               "unanswered": unanswered, "head": head,
               "refused": {code: sum(p.refused.get(code, 0) for p in players)
                           for code in {c for p in players for c in p.refused}}}
    checks = [
        ("0 acknowledged commands lost", lost == 0),
        ("0 gaps in any client's events", gaps == 0),
        ("0 duplicate events to any client", duplicates == 0),
        ("0 commands acknowledged twice", twice == 0),
        ("every command answered in the end", unanswered == 0),
        ("every client saw the log's events, with the log's hashes", agree),
        ("every client reached the log's head", all(p.last == head for p in players)),
        ("every hash chain verifies", verify(url)),
    ]
    return checks, figures


def result_line(trial: str, checks: list[tuple[str, bool]], figures: dict[str, Any]) -> bool:
    """Print the verdicts and the ``CHAOS-RESULT`` line ``test_chaos_quick.py`` reads."""
    print()
    for name, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  [correctness] {name}")
    ok = all(passed for _, passed in checks)
    print("CHAOS-RESULT " + json.dumps({
        "trial": trial, "ok": ok,
        "checks": [{"name": name, "ok": passed, "kind": "correctness"}
                   for name, passed in checks],
        "figures": figures}, default=str))
    return ok


async def open_table(port: int, admin_token: str, players: int) -> tuple[str, list[str], int]:
    """A campaign created through ``port``: its id, ``players`` member tokens (the GM's
    first), and its head."""
    async def call(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
        await ws.send(json.dumps(message))
        while True:
            frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if frame.get("id") == message["id"] and frame["type"] in ("ack", "error"):
                assert frame["type"] == "ack", frame
                return frame

    async with connect(f"ws://127.0.0.1:{port}") as ws:
        await ws.send(json.dumps({"type": "join", "token": admin_token, "campaign": None,
                                  "since": 0}))
        await ws.recv()
        created = await call(ws, {"type": "create_campaign", "id": "create",
                                  "name": f"chaos {time.time_ns()}", "system": "d12"})
    campaign, tokens = created["campaign"], [created["token"]]
    async with connect(f"ws://127.0.0.1:{port}") as ws:
        await ws.send(json.dumps({"type": "join", "token": tokens[0], "campaign": campaign,
                                  "since": 0}))
        await ws.recv()
        head = created["seqs"][-1]
        for n in range(1, players):
            ack = await call(ws, {"type": "invite", "id": f"invite-{n}", "role": "player",
                                  "characters": [f"pc{n}"]})
            tokens.append(ack["token"])
            head = ack["seqs"][-1]
    return campaign, tokens, head
