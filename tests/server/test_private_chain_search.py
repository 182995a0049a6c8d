"""A private roll cannot be searched for through the next public event's chain hash.

A member who may not see a GM's secret 1d6 holds the hash of the event before it and the whole
public event after it, hash included; only the sealed event's payload is unknown to them, and
a roll's payload is small. Without a seal, trying the six faces finds the one whose chain
hash makes the next event's (an attacker's trial found a secret 3d6 in 11,130 tries). The
sealed event's stored payload carries 128 random bits (``seal``), so no face closes the chain;
the GM's copy, and everyone's after the reveal, carries the seal, so the chain still checks.
"""

from __future__ import annotations

import json
from typing import Any

from poolhall.events import core
from poolhall.events.chain import link_hash
from poolhall.events.dice import RolledTerm
from poolhall.events.fair import FairStamp
from poolhall.events.log import prepare
from tests.conftest import Table
from tests.server.test_token_hashes_withheld import _raw


async def _frames(table: Table, token: str, campaign: str, upto: int
                  ) -> dict[int, dict[str, Any]]:
    """The event frames ``token`` reads in a ``history`` page up to ``upto``, by seq."""
    listening = await _raw(table, token, campaign, since=upto)
    await listening.peer.send({"type": "history", "id": "history-0001", "before": upto + 1,
                               "limit": 100})
    page = json.loads(await listening.recv_until("history"))
    await listening.peer.close()
    return {frame["seq"]: frame for frame in page["events"]}


def _bytes(event: dict[str, Any]) -> bytes:
    """An event's payload as the server stored it (compact JSON, members in order)."""
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()


def _link(campaign: str, previous: str, frame: dict[str, Any], payload: bytes) -> str:
    event = json.loads(payload)
    return link_hash(previous, campaign, frame["seq"], event["type"], 1, frame["at"],
                     frame["actor"], frame["command"], payload)


def _candidate(face: int, stamp: FairStamp) -> bytes:
    """The payload a GM's secret ``1d6`` showing ``face`` would have without a seal."""
    return prepare(core.DiceRolled(
        expression="1d6", terms=(RolledTerm(sides=6, faces=(face,)),), total=face,
        fair=stamp, visibility="gm")).payload


async def test_the_next_public_hash_does_not_give_a_secret_roll_away(table: Table) -> None:
    """Bob tries every face of the GM's secret 1d6 against the next public event's hash and
    none closes the chain; the same search on the GM's payload less its seal would have found
    it (the candidates are built right), and the GM's payload, seal and all, does close it."""
    campaign, gm = await table.create_campaign("d12")
    bob = await table.invite(gm, "player", name="Bob")
    await gm.call(core.StartSession, title="One")
    await gm.call(core.Roll, expression="1d4")
    secret = (await gm.call(core.Roll, expression="1d6", visibility="gm")).seqs[0]
    after = (await gm.call(core.Roll, expression="1d4")).seqs[0]
    assert after == secret + 1

    bobs = await _frames(table, bob._token, campaign, after)
    before, sealed, public = bobs[secret - 1], bobs[secret], bobs[after]
    assert {k: v for k, v in sealed["event"].items() if k != "fair"} == {
        "type": "private_roll", "visibility": "gm"}  # the stamp: epoch, nonce, seeds' digest
    assert set(sealed["event"]["fair"]) == {"epoch", "nonce", "seeds"}
    assert sealed["hash"] == ""
    next_payload = _bytes(public["event"])
    fair = public["event"]["fair"]  # the secret roll's nonce is the one before
    stamp = FairStamp(epoch=fair["epoch"], nonce=fair["nonce"] - 1, seeds=fair["seeds"])
    found = [face for face in range(1, 7)
             if _link(campaign, _link(campaign, before["hash"], sealed, _candidate(face, stamp)),
                      public, next_payload) == public["hash"]]
    assert found == []

    gms = await _frames(table, gm._token, campaign, after)
    whole = _bytes(gms[secret]["event"])
    assert len(bytes.fromhex(gms[secret]["event"]["seal"])) == 16
    face = gms[secret]["event"]["total"]
    unsealed = dict(gms[secret]["event"])
    del unsealed["seal"]
    assert _bytes(unsealed) == _candidate(face, stamp)
    assert _link(campaign, before["hash"], sealed, whole) == gms[secret]["hash"]
    assert _link(campaign, gms[secret]["hash"], public, next_payload) == public["hash"]
