"""Chaos trial: hostile frames from an outsider and from a member (issue 9).

::

    python tests/chaos/hostile_frames.py            # 20 s of hostile frames
    python tests/chaos/hostile_frames.py --quick    # 3 s

``members`` connections of a player (who owns one character) and ``outsiders`` connections
that never joined send, in turn and as fast as they are answered, every kind of frame in
:data:`KINDS`: malformed JSON, binary, huge, deeply nested, unknown types, invalid UTF-8,
dice bombs, and commands forged for the GM's character or the GM's powers. Each answer is
counted by kind and outcome (``error <code>``, ``closed <code>``, ``ack``); a closed
connection is opened (and joined) again. The verdicts: no crash, no hostile frame accepted, no
event appended, the honest table unaffected. Options: ``members``, ``outsiders``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _attacker import AttackContext  # noqa: E402
from _raw import BINARY, CONTINUATION, TEXT, Closed, RawSocket  # noqa: E402
from _trial import Check, Trial, main  # noqa: E402

Frame = tuple[int, bytes]


def _json(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode()


def _kinds(campaign: str) -> dict[str, Callable[[str], Frame]]:
    """Every hostile frame, built afresh for a command id."""
    return {
        "malformed json": lambda i: (TEXT, b'{"type": "roll", "id": "' + i.encode() + b'", '),
        "not an object": lambda i: (TEXT, b"[1, 2, 3]"),
        "json null": lambda i: (TEXT, b"null"),
        "binary frame": lambda i: (BINARY, b"\x00\x01\x02\x03"),
        "huge text (900 kB)": lambda i: (TEXT, _json(
            {"type": "roll", "id": i, "expression": "2d6", "reason": "x" * 900_000})),
        "over max_size (2 MB)": lambda i: (TEXT, b'"' + b"y" * 2_000_000 + b'"'),
        "nested arrays (30k deep)": lambda i: (TEXT, b"[" * 30_000 + b"]" * 30_000),
        "nested objects (10k deep)": lambda i: (TEXT, b'{"a":' * 10_000 + b"1" + b"}" * 10_000),
        "unknown type": lambda i: (TEXT, _json({"type": "format_disk", "id": i})),
        "no type": lambda i: (TEXT, _json({"id": i, "expression": "2d6"})),
        "wrong field types": lambda i: (TEXT, _json(
            {"type": "roll", "id": i, "expression": ["2d6"], "character": 7})),
        "unknown field": lambda i: (TEXT, _json(
            {"type": "roll", "id": i, "expression": "2d6", "sudo": True})),
        "invalid utf-8": lambda i: (TEXT, b'{"type": "roll", "id": "\xff\xfe", "expression": '
                                          b'"2d6"}'),
        "lone surrogate escape": lambda i: (TEXT, b'{"type": "roll", "id": "' + i.encode()
                                                  + b'", "expression": "2d6\\ud800"}'),
        "nul and control characters": lambda i: (TEXT, _json(
            {"type": "roll", "id": i, "expression": "2d6\u0000", "reason": "\u0007\u001b[2J"})),
        "oversized id": lambda i: (TEXT, _json({"type": "roll", "id": "i" * 10_000,
                                                "expression": "2d6"})),
        "dice bomb": lambda i: (TEXT, _json(
            {"type": "roll", "id": i, "expression": "999999d999999"})),
        "huge modifier": lambda i: (TEXT, _json(
            {"type": "roll", "id": i, "expression": "2d6+" + "9" * 4000})),
        "narrative pool bomb": lambda i: (TEXT, _json(
            {"type": "roll_pool", "id": i, "pool": {"ability": 10**9, "proficiency": 10**9}})),
        "forged: roll for the GM's character": lambda i: (TEXT, _json(
            {"type": "roll", "id": i, "expression": "2d6", "character": "npc"})),
        "forged: invite a GM": lambda i: (TEXT, _json(
            {"type": "invite", "id": i, "role": "gm", "name": "Mallory"})),
        "forged: remove the GM": lambda i: (TEXT, _json(
            {"type": "remove_member", "id": i, "member": "gm"})),
        "forged: create a campaign": lambda i: (TEXT, _json(
            {"type": "create_campaign", "id": i, "name": "Mine", "system": "d12"})),
        "forged: edit the GM's character": lambda i: (TEXT, _json(
            {"type": "update_character", "id": i, "character": "npc", "name": "Owned"})),
        "forged: join with a guessed token": lambda i: (TEXT, _json(
            {"type": "join", "token": "ph_" + "0" * 64, "campaign": campaign, "since": 0})),
        "continuation with no start": lambda i: (CONTINUATION, b"tail"),
    }


async def attack(ctx: AttackContext) -> None:
    campaign, _, gm = await ctx.campaign("hostile")
    for character, name in (("npc", "The GM's NPC"), ("hero", "Mallory's hero")):
        ack = await gm.call({"type": "create_character", "id": ctx.next_id("ch"),
                             "character": character, "name": name,
                             "stats": {"system": "narrative"}})
        assert ack["type"] == "ack", ack
    token = await ctx.invite(gm, "player", ("hero",))
    await gm.close()
    kinds = _kinds(campaign)
    await ctx.ready()
    await asyncio.gather(
        *(_Attacker(ctx, campaign, token, kinds).run(k * 7) for k in range(ctx.options["members"])),
        *(_Attacker(ctx, campaign, None, kinds).run(k * 5)
          for k in range(ctx.options["outsiders"])))


class _Attacker:
    """One connection, a member's (with ``token``) or an outsider's, sending every kind of
    hostile frame in turn until the time is up; opened again when the server drops it."""

    def __init__(self, ctx: AttackContext, campaign: str, token: str | None,
                 kinds: dict[str, Callable[[str], Frame]]) -> None:
        self.ctx = ctx
        self.campaign = campaign
        self.token = token
        self.kinds = kinds
        self.who = "outsider" if token is None else "member"
        self.sock: RawSocket | None = None

    async def run(self, offset: int) -> None:
        names = list(self.kinds)
        n = offset
        while self.ctx.time_left() > 0:
            kind = names[n % len(names)]
            n += 1
            outcome = await self._send(kind)
            self.ctx.count(f"{self.who} {kind}: {outcome}")
            if outcome in ("ack", "welcome"):
                self.ctx.count("hostile frames accepted")
        if self.sock is not None:
            await self.sock.close()

    async def _send(self, kind: str) -> str:
        """Send one frame of ``kind``: what came of it (an answer's type or error code, a
        close, no answer)."""
        try:
            if self.sock is None:
                self.sock = await self._connect()
            opcode, payload = self.kinds[kind](self.ctx.next_id("h"))
            self.sock.send_frame(opcode, payload)
            await self.sock.drain()
            frame = await _answer(self.sock)
            return f"error {frame.get('code')}" if frame["type"] == "error" else frame["type"]
        except Closed as closed:
            self.sock = None
            return f"closed {closed.code}"
        except (ConnectionError, OSError) as error:
            self.sock = None
            return f"connection failed: {type(error).__name__}"
        except TimeoutError:
            if self.sock is not None:
                self.sock.abort()
            self.sock = None
            return "no answer in 5 s"

    async def _connect(self) -> RawSocket:
        sock = await self.ctx.open(timeout=5)
        if self.token is not None:
            reply = await sock.join(self.token, self.campaign, timeout=5)
            if reply.get("type") != "welcome":
                self.ctx.count(f"member join refused: {reply.get('code')}")
        return sock


async def _answer(sock: RawSocket) -> dict[str, Any]:
    """The next answer (an error, an ack or a welcome), past the events before it."""
    while True:
        frame = await sock.recv_json(5)
        if frame.get("type") in ("error", "ack", "welcome"):
            return frame


def checks(figures: dict[str, object], options: dict[str, int]) -> list[Check]:
    counters = figures["attacker"]["counters"]  # type: ignore[index]
    return [
        Check("no hostile frame was accepted", counters.get("hostile frames accepted", 0) == 0),
        Check("no event appended by hostile frames",
              figures["events_appended_by_attack"] == 0),
    ]


TRIAL = Trial(name="hostile-frames", script=Path(__file__).resolve(), attack=attack,
              full={"members": 4, "outsiders": 2}, quick={"members": 2, "outsiders": 1},
              checks=checks)

if __name__ == "__main__":
    sys.exit(main(TRIAL, "hostile frames from an outsider and a member"))
