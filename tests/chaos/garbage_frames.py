"""Chaos trial: frames refused before they become work, sent as fast as they are answered.

::

    python tests/chaos/garbage_frames.py                    # an outsider, 20 s
    python tests/chaos/garbage_frames.py --option who=1     # a joined member
    python tests/chaos/garbage_frames.py --option kind=1    # a control character, not a bad map
    python tests/chaos/garbage_frames.py --quick

``connections`` connections each keep ``window`` frames in flight, re-sending one for every
answer. The frame is a 9 KB ``create_character`` whose last of 100 SR3 skills is out of range
(naming that skill in the error once cost a decode per skill and a walk over every message
type: 30 ms a frame) or, with ``kind=1``, one whose name holds a C1 control. Found by a
red-team pass: such refusals skipped every rate limit, and an outsider's raised another
table's p99 from 6 to 260 ms, a member's to 620 ms. Options: ``who`` (0 outsider, 1 member),
``kind``, ``connections``, ``window``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext  # noqa: E402
from _raw import Closed, RawSocket  # noqa: E402
from _trial import Trial, main  # noqa: E402


def bad_frame(kind: int) -> str:
    """The frame every connection sends: a bad skill at the end of a large map, or a control
    character in the name of an otherwise valid character."""
    skills = {f"s{i:02d}" + "x" * 36: {"rating": 1, "attribute": "body", "kind": "physical"}
              for i in range(100)}
    name = "C"
    if kind == 0:
        skills[list(skills)[-1]]["rating"] = 21
    else:
        name = "C\u0085"
    stats = {"system": "sr3", "body": 3, "quickness": 3, "strength": 3, "charisma": 3,
             "intelligence": 3, "willpower": 3, "skills": skills}
    return json.dumps({"type": "create_character", "id": "x", "character": "c", "name": name,
                       "stats": stats}, separators=(",", ":"))


async def attack(ctx: AttackContext) -> None:
    options = ctx.options
    token = campaign = None
    if options["who"]:
        campaign, _, gm = await ctx.campaign("garbage", system="sr3")
        token = await ctx.invite(gm, "player")
        await gm.close()
    frame = bad_frame(options["kind"])
    await ctx.ready()
    await asyncio.gather(*(_connections(ctx, token, campaign, frame)
                           for _ in range(options["connections"])))
    refused = sum(n for name, n in ctx.counters.items() if name.startswith("error"))
    ctx.figures["refusals per second"] = round(refused / ctx.seconds)


async def _connections(ctx: AttackContext, token: str | None, campaign: str | None,
                       frame: str) -> None:
    """One connection after another until the time is up, each joined first if there is a
    ``token``, sending the bad frame over and over."""
    while ctx.time_left() > 0:
        sock = None
        try:
            sock = await ctx.open(timeout=5)
            if token is not None and not await _joined(ctx, sock, token, campaign):
                await asyncio.sleep(0.2)
                continue
            await _send_bad_frames(ctx, sock, frame)
        except Closed as closed:
            ctx.count(f"closed {closed.code}")
        except (TimeoutError, OSError):
            pass
        finally:
            if sock is not None:
                with contextlib.suppress(Exception):
                    await sock.close()


async def _joined(ctx: AttackContext, sock: RawSocket, token: str, campaign: str | None) -> bool:
    """Whether the join was let in (a refusal is counted)."""
    reply = await sock.join(token, campaign, timeout=5)
    if reply.get("type") != "welcome":
        ctx.count(f"join refused: {reply.get('code')}")
        return False
    return True


async def _send_bad_frames(ctx: AttackContext, sock: RawSocket, frame: str) -> None:
    """``window`` bad frames at once, then one more for each refusal, until the time is up
    (or the server closes the connection)."""
    for _ in range(ctx.options["window"]):
        sock.send_text(frame)
    while ctx.time_left() > 0:
        reply = await sock.recv_json(max(0.05, ctx.time_left()))
        if reply.get("type") == "error":
            ctx.count(f"error {reply.get('code')}")
            sock.send_text(frame)


TRIAL = Trial(name="garbage-frames", script=Path(__file__).resolve(), attack=attack,
              full={"who": 0, "kind": 0, "connections": 8, "window": 4},
              quick={"who": 1, "kind": 0, "connections": 8, "window": 4})

if __name__ == "__main__":
    sys.exit(main(TRIAL, "frames refused before they become work"))
