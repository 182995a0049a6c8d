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
    head = 0
    rng = random.Random(9)
    written = asyncio.Event()  # every writer's last roll is answered: the head is final

    async def writer(sock: RawSocket) -> None:
        nonlocal head
        pending = 0
        rate = ctx.options["rate"] / len(writers)

        async def acks() -> None:
            nonlocal head, pending
            while True:
                frame = await sock.recv_json(3600)
                if frame.get("type") == "ack":
                    head = max(head, frame["seqs"][-1])
                    pending -= 1
                    ctx.count("writer rolls acked")
                elif frame.get("type") == "error":
                    pending -= 1
                    ctx.count(f"writer rolls refused: {frame.get('code')}")

        reading = asyncio.create_task(acks())
        while ctx.time_left() > 0:
            sock.send_json({"type": "roll", "id": ctx.next_id("w"), "expression": "1d6"})
            pending += 1
            await asyncio.sleep(1 / rate)
        for _ in range(300):  # the last answers, 30 s at most
            if not pending:
                break
            await asyncio.sleep(0.1)
        reading.cancel()

    async def write() -> None:
        await asyncio.gather(*(writer(sock) for sock in writers))
        written.set()

    async def reader(token: str) -> None:
        last = 0
        finishing = False
        while True:
            finishing = ctx.time_left() <= 0
            if finishing:
                await written.wait()
            sock: RawSocket | None = None
            try:
                sock = await ctx.open(timeout=5)
                reply = await sock.join(token, campaign, since=last, timeout=10)
                if reply.get("type") != "welcome":
                    ctx.count(f"resumes refused: {reply.get('code')}")
                    await asyncio.sleep(0.2)
                    continue
                ctx.count("resumes")
                cut = asyncio.get_running_loop().time() + rng.uniform(0.05, 0.8)
                while True:
                    if finishing:
                        if last >= head:
                            return
                        timeout = 10.0
                    else:
                        timeout = cut - asyncio.get_running_loop().time()
                        if timeout <= 0:
                            break
                    _, payload = await sock.recv(timeout)
                    if payload.startswith(b'{"type":"snapshot"'):  # joined afresh: the table
                        last = max(last, json.loads(payload)["seq"])
                        ctx.count("snapshots")
                    elif payload.startswith(b'{"type":"event"'):
                        seq = json.loads(payload)["seq"]
                        if seq <= last:
                            ctx.count("duplicates")
                        elif seq > last + 1:
                            ctx.count("gaps")
                        last = max(last, seq)
                        ctx.count("events seen")
            except TimeoutError:
                if finishing:
                    ctx.count("readers behind the head at the end")
                    return
            except Closed as closed:
                ctx.count(f"closed by the server: {closed.code}")
            except OSError as error:
                ctx.count(f"connections failed: {type(error).__name__}")
                await asyncio.sleep(0.2)
            finally:
                if sock is not None:
                    if rng.random() < 0.5:
                        sock.abort()
                        ctx.count("forced disconnects (TCP abort)")
                    else:
                        await sock.close()
                        ctx.count("forced disconnects (clean close)")

    await asyncio.gather(write(), *(reader(token) for token in tokens))
    ctx.figures["head at the end"] = head
    for sock in writers:
        await sock.close()


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
