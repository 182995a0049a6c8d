"""Chaos trial: forced disconnects and resumes while the table is busy (issue 9).

::

    python tests/chaos/disconnects.py            # 20 readers cut off every 50-800 ms, 20 s
    python tests/chaos/disconnects.py --quick

``writers`` players of the attacker's campaign roll ``rate`` times a second between them
(a member may be held to 10 rolls a second); ``readers`` players each
join, read for a random 50-800 ms, then drop the connection (a TCP abort half the time, a
clean close the other half) and join again with ``since`` = the last sequence number they
hold, as the real client does. Every event they see is checked: a sequence number that skips
one is a gap, one already seen a duplicate. At the end every reader resumes once more and must
reach the head. Options: ``readers``, ``rate``, ``writers``.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext  # noqa: E402
from _raw import Closed, RawSocket  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402


async def attack(ctx: AttackContext) -> None:
    campaign, _, gm = await ctx.campaign("resume")
    tokens = [await ctx.invite(gm, "player") for _ in range(ctx.options["readers"])]
    writers = []
    for _ in range(ctx.options["writers"]):  # a member may roll 10 times a second at most
        sock = await ctx.open()
        welcome = await sock.join(await ctx.invite(gm, "player"), campaign)
        assert welcome["type"] == "welcome", welcome
        writers.append(sock)
    await gm.close()
    await ctx.ready()
    table = _Table(ctx, campaign, writers)
    await asyncio.gather(table.write(), *(table.reader(token) for token in tokens))
    ctx.figures["head at the end"] = table.head
    for sock in writers:
        await sock.close()


class _Table:
    """The campaign under attack: its writers' rolls, the head they reached, and the readers
    cut off and resuming."""

    def __init__(self, ctx: AttackContext, campaign: str, writers: list[RawSocket]) -> None:
        self.ctx = ctx
        self.campaign = campaign
        self.writers = writers
        self.head = 0
        self.rng = random.Random(9)
        self.written = asyncio.Event()  # every writer's last roll is answered: the head is final

    async def write(self) -> None:
        await asyncio.gather(*(self._writer(sock) for sock in self.writers))
        self.written.set()

    async def _writer(self, sock: RawSocket) -> None:
        """Roll at this writer's share of ``rate`` until the time is up, then wait (30 s at
        most) for the last answers."""
        pending = [0]
        rate = self.ctx.options["rate"] / len(self.writers)
        reading = asyncio.create_task(self._acks(sock, pending))
        while self.ctx.time_left() > 0:
            sock.send_json({"type": "roll", "id": self.ctx.next_id("w"), "expression": "1d6"})
            pending[0] += 1
            await asyncio.sleep(1 / rate)
        for _ in range(300):
            if not pending[0]:
                break
            await asyncio.sleep(0.1)
        reading.cancel()

    async def _acks(self, sock: RawSocket, pending: list[int]) -> None:
        """A writer's answers: the head moves with each ack; ``pending[0]`` counts the rolls
        not answered yet."""
        while True:
            frame = await sock.recv_json(3600)
            if frame.get("type") == "ack":
                self.head = max(self.head, frame["seqs"][-1])
                pending[0] -= 1
                self.ctx.count("writer rolls acked")
            elif frame.get("type") == "error":
                pending[0] -= 1
                self.ctx.count(f"writer rolls refused: {frame.get('code')}")

    async def reader(self, token: str) -> None:
        await _Reader(self, token).run()


class _Reader:
    """A player joining, reading for 50-800 ms, dropping the connection and resuming from
    ``last``, the last event it holds; once the time is up and the head is final, it resumes
    once more and must read up to the head."""

    def __init__(self, table: _Table, token: str) -> None:
        self.table = table
        self.ctx = table.ctx
        self.token = token
        self.last = 0

    async def run(self) -> None:
        while True:
            finishing = self.ctx.time_left() <= 0
            if finishing:
                await self.table.written.wait()
            sock: RawSocket | None = None
            try:
                sock = await self.ctx.open(timeout=5)
                reply = await sock.join(self.token, self.table.campaign, since=self.last,
                                        timeout=10)
                if reply.get("type") != "welcome":
                    self.ctx.count(f"resumes refused: {reply.get('code')}")
                    await asyncio.sleep(0.2)
                    continue
                self.ctx.count("resumes")
                await self._read(sock, finishing)
                if finishing:
                    return
            except TimeoutError:
                if finishing:
                    self.ctx.count("readers behind the head at the end")
                    return
            except Closed as closed:
                self.ctx.count(f"closed by the server: {closed.code}")
            except OSError as error:
                self.ctx.count(f"connections failed: {type(error).__name__}")
                await asyncio.sleep(0.2)
            finally:
                if sock is not None:
                    await self._drop(sock)

    async def _read(self, sock: RawSocket, finishing: bool) -> None:
        """Read until the cut (drawn at random), or when ``finishing`` up to the head (each
        frame within 10 s, else ``TimeoutError``)."""
        cut = asyncio.get_running_loop().time() + self.table.rng.uniform(0.05, 0.8)
        while not finishing or self.last < self.table.head:
            if finishing:
                timeout = 10.0
            else:
                timeout = cut - asyncio.get_running_loop().time()
                if timeout <= 0:
                    break
            _, payload = await sock.recv(timeout)
            self._seen(payload)

    def _seen(self, payload: bytes) -> None:
        """One frame read: a snapshot or an event moves ``last``; a gap or a duplicate is
        counted."""
        if payload.startswith(b'{"type":"snapshot"'):  # joined afresh: the table
            self.last = max(self.last, json.loads(payload)["seq"])
            self.ctx.count("snapshots")
        elif payload.startswith(b'{"type":"event"'):
            seq = json.loads(payload)["seq"]
            if seq <= self.last:
                self.ctx.count("duplicates")
            elif seq > self.last + 1:
                self.ctx.count("gaps")
            self.last = max(self.last, seq)
            self.ctx.count("events seen")

    async def _drop(self, sock: RawSocket) -> None:
        """Cut the connection: a TCP abort half the time, a clean close the other half."""
        if self.table.rng.random() < 0.5:
            sock.abort()
            self.ctx.count("forced disconnects (TCP abort)")
        else:
            await sock.close()
            self.ctx.count("forced disconnects (clean close)")


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    counters = figures["attacker"]["counters"]  # type: ignore[index]
    return [
        Check("no gap seen by resuming clients", counters.get("gaps", 0) == 0),
        Check("no duplicate seen by resuming clients", counters.get("duplicates", 0) == 0),
        Check("every resuming client reaches the head",
              counters.get("readers behind the head at the end", 0) == 0
              and counters.get("resumes", 0) > 0),
    ]


TRIAL = Trial(name="disconnects", script=Path(__file__).resolve(), attack=attack,
              full={"readers": 20, "rate": 80, "writers": 10},
              quick={"readers": 6, "rate": 40, "writers": 5},
              checks=checks)

if __name__ == "__main__":
    sys.exit(main(TRIAL, "clients cut off and resuming while the table rolls"))
