"""The attacker side of a chaos trial: a child process, its context, and the setup helpers.

A trial script re-runs itself with ``--attack-child CONFIG`` to become the attacker, so the
attack's load never shares a GIL with the honest table being measured. The child sets up what
it needs (its own campaigns, members, a long log), prints ``READY``, waits for ``GO`` on its
stdin, attacks for the given seconds, and prints ``RESULT {json}``: its counters (refusals by
error code, connections closed by close code, ...). It stops by itself: every wait is bounded
and the whole child has a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _raw import Closed, RawSocket

__all__ = ["ATTACKER_ADDRESS", "AttackContext", "AttackerProcess", "Attack", "child_main"]

ATTACKER_ADDRESS = "127.0.0.2"
"""The attacker's own loopback address (Linux routes all of 127/8 to lo): per-address limits
must see it as another host than the honest table on 127.0.0.1."""

SETUP_LIMIT = 300.0
"""Seconds the child may spend setting up (building a 30k-event log on a busy box)."""


class AttackContext:
    """What an attack coroutine gets: the server's address, its options, its counters."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.port: int = config["port"]
        self.admin_token: str = config["admin_token"]
        self.seconds: float = config["seconds"]
        self.quick: bool = config["quick"]
        self.options: dict[str, Any] = config["options"]
        self.long_log: dict[str, Any] | None = config.get("long_log")
        self.counters: Counter[str] = Counter()
        self.figures: dict[str, Any] = {}
        self.deadline = float("inf")
        self._ids = 0

    async def open(self, *, upgrade: bool = True, rcvbuf: int = 0,
                   timeout: float = 10.0) -> RawSocket:
        """A connection from the attacker's address."""
        return await RawSocket.open(self.port, upgrade=upgrade, rcvbuf=rcvbuf,
                                    source=ATTACKER_ADDRESS, timeout=timeout)

    def count(self, key: str, n: int = 1) -> None:
        self.counters[key] += n

    def time_left(self) -> float:
        return self.deadline - time.monotonic()

    def next_id(self, prefix: str = "a") -> str:
        self._ids += 1
        return f"{prefix}-{os.getpid()}-{self._ids}"

    async def ready(self) -> None:
        """Setup is done: tell the trial, wait for its ``GO``, start the attack's clock."""
        print("READY", flush=True)
        line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        if line.strip() != "GO":
            raise SystemExit("no GO from the trial")
        self.deadline = time.monotonic() + self.seconds

    # ---- setup helpers ----------------------------------------------------------------

    async def campaign(self, name: str, system: str = "narrative") -> tuple[str, str, RawSocket]:
        """A new campaign: its id, its GM's token, and the GM's joined socket."""
        admin = await self.open()
        try:
            welcome = await admin.join(self.admin_token, None)
            assert welcome["type"] == "welcome", welcome
            slug = f"{name}-{secrets.token_hex(3)}"
            ack = await admin.call({"type": "create_campaign", "id": self.next_id("cc"),
                                    "name": name, "system": system, "campaign": slug})
            assert ack["type"] == "ack", ack
        finally:
            await admin.close()
        gm = await self.open()
        welcome = await gm.join(ack["token"], ack["campaign"])
        assert welcome["type"] == "welcome", welcome
        return ack["campaign"], ack["token"], gm

    async def join_long_log(self, token: str) -> RawSocket:
        """A connection joined to the prebuilt long campaign at its head (see ``_longlog``)."""
        assert self.long_log is not None
        sock = await self.open()
        welcome = await sock.join(token, self.long_log["campaign"], self.long_log["head"])
        assert welcome["type"] == "welcome", welcome
        return sock

    async def invite(self, gm: RawSocket, role: str, characters: tuple[str, ...] = ()) -> str:
        """A member's token, invited by the GM."""
        ack = await gm.call({"type": "invite", "id": self.next_id("inv"), "role": role,
                             "characters": list(characters)})
        assert ack["type"] == "ack", ack
        return str(ack["token"])


Attack = Callable[[AttackContext], Awaitable[None]]


def child_main(attack: Attack, config_json: str) -> int:
    """Run ``attack`` as the child: bounded in time, ``RESULT`` printed even on failure."""
    config = json.loads(config_json)
    ctx = AttackContext(config)
    with contextlib.suppress(Exception):  # die with the trial (Linux)
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)

    async def bounded() -> None:
        await asyncio.wait_for(attack(ctx), SETUP_LIMIT + ctx.seconds + 60)

    error = ""
    try:
        asyncio.run(bounded())
    except (Exception, asyncio.CancelledError) as failure:
        error = f"{type(failure).__name__}: {failure}"
    print("RESULT " + json.dumps({"counters": dict(ctx.counters), "figures": ctx.figures,
                                  "error": error}), flush=True)
    return 0


class AttackerProcess:
    """The trial's handle on the child: start it, wait for ``READY``, ``GO``, read ``RESULT``."""

    def __init__(self, script: Path, config: dict[str, Any], log: Path) -> None:
        self.log = log
        with open(log, "ab") as stderr:  # the child writes to its own copy of the descriptor
            self.proc = subprocess.Popen(
                [sys.executable, str(script), "--attack-child", json.dumps(config)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                start_new_session=True, text=True,
            )

    async def _line(self, timeout: float) -> str:
        assert self.proc.stdout is not None
        loop = asyncio.get_running_loop()
        return await asyncio.wait_for(loop.run_in_executor(None, self.proc.stdout.readline),
                                      timeout)

    async def wait_ready(self, timeout: float = SETUP_LIMIT) -> None:
        line = await self._line(timeout)
        if line.strip() != "READY":
            raise RuntimeError(f"the attacker did not set up: {line.strip()}\n{self.log_tail()}")

    def go(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("GO\n")
        self.proc.stdin.flush()

    async def result(self, timeout: float) -> dict[str, Any]:
        while True:
            line = await self._line(timeout)
            if not line:
                return {"counters": {}, "figures": {},
                        "error": "the attacker died: " + self.log_tail()}
            if line.startswith("RESULT "):
                return json.loads(line[7:])  # type: ignore[no-any-return]

    def log_tail(self, lines: int = 10) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def stop(self) -> None:
        """Kill the child's whole process group (it may still be attacking)."""
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()


async def hold_until_closed(ctx: AttackContext, sock: RawSocket, read: bool,
                            due_after: float | None = None) -> None:
    """Keep one attacking connection until the deadline; count how (or whether) it was closed.

    With ``due_after``, a connection still open at the end but opened less than that many
    seconds before is counted apart ("open at the end, not yet due"): the server had no
    reason to close it yet.

    A peer that does not read has its transport paused by the caller, so the kernel buffers
    fill as with a stalled client; at the deadline the kernel is asked whether the server
    closed it (its close code cannot be read without reading the backlog first).
    """
    opened_at = time.monotonic()
    try:
        if read:
            while ctx.time_left() > 0:
                await sock.recv(max(0.01, ctx.time_left()))
        else:
            while ctx.time_left() > 0:
                await asyncio.sleep(min(0.5, max(0.0, ctx.time_left())))
                if not sock.tcp_open():
                    ctx.count("closed by the server (not reading: code unread)")
                    return
    except Closed as closed:
        ctx.count(f"closed by the server: {closed.code}")
        return
    except TimeoutError:
        pass
    if due_after is not None and time.monotonic() - opened_at < due_after:
        ctx.count("open at the end, not yet due")
        return
    ctx.count("still open at the end")
