"""Fault trial: someone with write access to the log's file edits it while the server is down.

::

    python tests/chaos/derived_tamper.py [--rolls 200]
    python tests/chaos/derived_tamper.py --quick

Each attack starts ``poolhall serve`` as a real process on a fresh file, plays a campaign (a
GM, a player Ann, rolls, stored snapshots every 4 events), stops the server, edits the file
with Python's ``sqlite3`` as an attacker holding the file (and poolhall's code) would, and
starts the server again:

- ``edited-state``: the latest stored snapshot says Ann is a GM, its chain hash left alone.
  The row's seal (an HMAC keyed by the admin token, which the attacker does not hold) no
  longer matches: Ann joins as a player and may not invite a GM; ``poolhall verify``, which
  holds no key, folds the log and reports the row.
- ``moved-state``: the same, with the row's chain hash not the log's at its seq (a row of
  another log, or of events since rewritten). The server must not believe it: Ann joins as a
  player and may not invite a GM; ``verify`` reports it.
- ``rewritten-log``: a roll's face changed and the whole chain computed again. ``verify``
  alone says ok (the chain has no key); ``verify --expect`` with the head hash the GM's
  client kept must fail, and that client resuming with its hash must be told ``diverged``.

Prints each verdict and a ``CHAOS-RESULT`` JSON line; exit 1 if a correctness check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from poolhall.clients.client import Client  # noqa: E402
from poolhall.events import core  # noqa: E402
from poolhall.events.chain import GENESIS, link_hash  # noqa: E402
from poolhall.events.errors import CommandRejected  # noqa: E402
from poolhall.server.stored_snapshots import decode_state, encode_state  # noqa: E402
from tests.serve_process import free_port, poolhall, start_serve  # noqa: E402
from tests.server.raw import RawPeer  # noqa: E402


class Played:
    """A campaign played on a served file: what the attacker and the checks need."""

    def __init__(self, db: Path, campaign: str, ann: str, ann_token: str, gm_token: str,
                 head: int, head_hash: str) -> None:
        self.db, self.campaign, self.ann, self.ann_token = db, campaign, ann, ann_token
        self.gm_token, self.head, self.head_hash = gm_token, head, head_hash


def _serve(db: Path, port: int) -> subprocess.Popen[bytes]:
    return start_serve(db, port, "--snapshot-every", "4", log=db.with_name("serve.log"),
                       wait=60)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(30)


async def _play(db: Path, port: int, rolls: int) -> Played:
    url = f"ws://127.0.0.1:{port}"
    admin = Client(url, db.with_name(db.name + ".admin-token").read_text().strip())
    await admin.connect()
    created = await admin.call(core.CreateCampaign, name="Tampered", system="d12")
    await admin.close()
    assert created.campaign
    assert created.token
    gm = Client(url, created.token, created.campaign)
    await gm.connect()
    invited = await gm.call(core.Invite, role="player", name="Ann", characters=("ann",))
    assert invited.member
    assert invited.token
    head = 0
    for number in range(rolls):
        head = (await gm.call(core.Roll, expression="1d6", reason=f"roll {number}")).seqs[-1]
    await gm.wait_for_seq(head, timeout=30)
    played = Played(db, created.campaign, invited.member, invited.token, created.token, head,
                    gm.last_hash)
    await gm.close()
    return played


def _make_ann_gm(played: Played, head_hash: str | None) -> None:
    with sqlite3.connect(played.db) as db:
        seq, blob = db.execute("SELECT seq, state FROM snapshots WHERE campaign = ? ORDER BY"
                               " seq DESC LIMIT 1", [played.campaign]).fetchone()
        state = decode_state(blob)
        state.members[played.ann].role = "gm"
        db.execute("UPDATE snapshots SET state = ?, head_hash = coalesce(?, head_hash)"
                   " WHERE campaign = ? AND seq = ?",
                   [encode_state(state), head_hash, played.campaign, seq])


def _rewrite_chain(played: Played) -> None:
    with sqlite3.connect(played.db) as db:
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                  " AND tbl_name = 'events'").fetchall():
            db.execute(f"DROP TRIGGER {name}")
        previous = GENESIS
        for seq, type_, version, at, actor, command, payload in db.execute(
                "SELECT seq, type, version, recorded_at, actor, command_id, payload FROM events"
                " WHERE campaign = ? ORDER BY seq", [played.campaign]).fetchall():
            if type_ == "dice_rolled" and '"roll 0"' in payload:
                event = json.loads(payload)
                event["total"] = event["terms"][0]["faces"][0] = 1 + event["total"] % 6
                payload = json.dumps(event, separators=(",", ":"))
            previous = link_hash(previous, played.campaign, seq, type_, version, at, actor,
                                 command, payload)
            db.execute("UPDATE events SET payload = ?, hash = ? WHERE campaign = ? AND seq = ?",
                       [payload, previous, played.campaign, seq])
        db.execute("DELETE FROM snapshots")


def _verify(played: Played, *expect: str) -> int:
    options = [arg for hashed in expect for arg in ("--expect", hashed)]
    return poolhall("verify", str(played.db), *options, cwd=played.db.parent,
                    check=False).returncode


async def _ann_role(played: Played, port: int) -> tuple[str, bool]:
    """Ann's role after a restart, and whether her invite of a GM was refused."""
    ann = Client(f"ws://127.0.0.1:{port}", played.ann_token, played.campaign)
    await ann.connect()
    try:
        assert ann.welcome is not None
        try:
            await ann.call(core.Invite, role="gm", name="Mallory")
            refused = False
        except CommandRejected:
            refused = True
        return ann.welcome.role, refused
    finally:
        await ann.close()


async def _resumed(played: Played, port: int) -> str:
    """What the GM's client, resuming with the hash it kept, is told."""
    peer = await RawPeer.open(f"ws://127.0.0.1:{port}")
    try:
        reply = await peer.join_with(played.gm_token, played.campaign, played.head,
                                     played.head_hash)
        return str(reply.get("code") or reply["type"])
    finally:
        await peer.close()


async def attack(kind: str, work: Path, rolls: int) -> list[dict[str, Any]]:
    """One attack on a fresh file; its checks."""
    directory = work / kind
    directory.mkdir()
    db, port = directory / "poolhall.db", free_port()
    server = _serve(db, port)
    try:
        played = await _play(db, port, rolls)
    finally:
        _stop(server)
    checks: list[dict[str, Any]] = []

    def check(name: str, ok: bool) -> None:
        checks.append({"name": f"{kind}: {name}", "kind": "correctness", "ok": bool(ok)})

    if kind == "rewritten-log":
        _rewrite_chain(played)
        print(f"{kind}: plain verify exits {_verify(played)} (0: the chain has no key)")
        check("verify --expect with the kept head hash fails",
              _verify(played, f"{played.campaign}={played.head_hash}") == 1)
    else:
        _make_ann_gm(played, None if kind == "edited-state" else "ab" * 32)
        check("verify reports the edited snapshot", _verify(played) == 1)
    server = _serve(db, port)
    try:
        if kind == "rewritten-log":
            told = await _resumed(played, port)
            print(f"{kind}: the GM's client resuming with its hash is told {told!r}")
            check("the GM's client resuming is told diverged", told == "diverged")
        else:
            role, refused = await _ann_role(played, port)
            print(f"{kind}: Ann joins as {role!r}; her invite of a GM refused: {refused}")
            check("Ann still joins as a player", role == "player")
            check("Ann may not invite a GM", refused)
    finally:
        _stop(server)
    return checks


async def trial(rolls: int) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="poolhall-tamper-") as work:
        checks: list[dict[str, Any]] = []
        for kind in ("edited-state", "moved-state", "rewritten-log"):
            checks += await attack(kind, Path(work), rolls)
        return checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rolls", type=int, default=200, help="rolls played before each attack")
    parser.add_argument("--quick", action="store_true", help="12 rolls an attack")
    args = parser.parse_args(argv)
    checks = asyncio.run(trial(12 if args.quick else args.rolls))
    print()
    for one in checks:
        print(f"{'PASS' if one['ok'] else 'FAIL'}  [{one['kind']}] {one['name']}")
    print("CHAOS-RESULT " + json.dumps({"trial": "derived-tamper", "checks": checks}))
    return 0 if all(one["ok"] for one in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
