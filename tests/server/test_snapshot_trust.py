"""Stored snapshots are trusted only as far as the log vouches for them, and ``verify``
compares each with a fold of the log; ``verify --expect`` holds the chain to a hash kept
elsewhere, which is what catches an edit whose chain was computed again."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from poolhall.events import core
from poolhall.events.chain import link_hash
from poolhall.events.errors import CommandRejected
from poolhall.server.stored_snapshots import decode_state, encode_state
from tests.conftest import Table
from tests.serve_process import poolhall
from tests.server.test_lazy_campaigns import restart


async def _stored(table: Table) -> tuple[str, str, str]:
    """A campaign with a player (Ann) and snapshots stored every 4 events, its server
    stopped; the campaign, Ann's member id and her token."""
    await restart(table, snapshot_every=4)
    campaign, gm = await table.create_campaign("d12")
    ack = await gm.call(core.Invite, role="player", name="Ann", characters=("ann",))
    assert ack.token
    assert ack.member
    for number in range(10):
        await gm.call(core.Roll, expression="1d6", reason=f"roll {number}")
    await table.close_clients()
    await table.server.stop()
    return campaign, ack.member, ack.token


def _make_gm(db_path: Path, campaign: str, member: str, head_hash: str | None) -> int:
    """Edit the latest stored snapshot as an attacker with the file would: ``member`` made a
    GM (and the row's chain hash set to ``head_hash``, if given). Its seq."""
    with sqlite3.connect(db_path) as db:
        seq, blob = db.execute("SELECT seq, state FROM snapshots WHERE campaign = ? ORDER BY"
                               " seq DESC LIMIT 1", [campaign]).fetchone()
        state = decode_state(blob)
        state.members[member].role = "gm"
        db.execute("UPDATE snapshots SET state = ? WHERE campaign = ? AND seq = ?",
                   [encode_state(state), campaign, seq])
        if head_hash is not None:
            db.execute("UPDATE snapshots SET head_hash = ? WHERE campaign = ? AND seq = ?",
                       [head_hash, campaign, seq])
    return int(seq)


async def test_a_snapshot_the_log_does_not_vouch_for_is_never_believed(table: Table) -> None:
    """A row made to say Ann is a GM, with a chain hash that is not the log's at its seq:
    after a restart Ann still joins as a player and may not invite a GM; the row is gone."""
    campaign, member, token = await _stored(table)
    seq = _make_gm(table.db_path, campaign, member, head_hash="ab" * 32)
    await restart(table, snapshot_every=4)
    ann = await table.connect(campaign, token)
    assert ann.welcome is not None
    assert ann.welcome.role == "player"
    with pytest.raises(CommandRejected) as refused:
        await ann.call(core.Invite, role="gm", name="Mallory")
    assert refused.value.code == "forbidden"
    with sqlite3.connect(table.db_path) as db:
        hashes = db.execute("SELECT head_hash FROM snapshots WHERE campaign = ? AND seq = ?",
                            [campaign, seq]).fetchall()
    assert ("ab" * 32,) not in hashes


async def test_a_snapshot_edited_in_place_is_not_believed_without_its_seal(
        table: Table) -> None:
    """The issue's attack: Ann made a GM in the latest row, its chain hash left as it was.
    The row's seal (keyed by the admin token, which the attacker lacks) no longer matches:
    Ann joins as a player and may not invite a GM."""
    campaign, member, token = await _stored(table)
    _make_gm(table.db_path, campaign, member, head_hash=None)
    await restart(table, snapshot_every=4)
    ann = await table.connect(campaign, token)
    assert ann.welcome is not None
    assert ann.welcome.role == "player"
    with pytest.raises(CommandRejected) as refused:
        await ann.call(core.Invite, role="gm", name="Mallory")
    assert refused.value.code == "forbidden"


async def test_a_snapshot_beyond_the_log_is_never_believed(table: Table) -> None:
    """A row past the log's last event (a file whose later events were cut): ignored."""
    campaign, member, token = await _stored(table)
    with sqlite3.connect(table.db_path) as db:
        seq, blob, digest = db.execute(
            "SELECT seq, state, head_hash FROM snapshots WHERE campaign = ? ORDER BY seq DESC"
            " LIMIT 1", [campaign]).fetchone()
        state = decode_state(blob)
        state.members[member].role = "gm"
        state.head = seq + 1000
        db.execute("INSERT INTO snapshots SELECT campaign, ?, fingerprint, ?, ?, seal FROM"
                   " snapshots WHERE campaign = ? AND seq = ?",
                   [seq + 1000, digest, encode_state(state), campaign, seq])
    await restart(table, snapshot_every=4)
    ann = await table.connect(campaign, token)
    assert ann.welcome is not None
    assert ann.welcome.role == "player"
    assert ann.welcome.head < seq + 1000


async def test_verify_compares_every_stored_snapshot_with_the_log(table: Table,
                                                                  tmp_path: Path) -> None:
    """An untouched file: ok, its snapshots counted. A row whose state was edited and its
    hash left alone (the server would believe it): reported with its campaign, seq and
    what differs, exit 1."""
    campaign, member, _ = await _stored(table)
    clean = poolhall("verify", str(table.db_path), "--json", cwd=tmp_path)
    report = json.loads(clean.stdout)
    assert report["problems"] == []
    assert report["snapshots"] >= 2
    seq = _make_gm(table.db_path, campaign, member, head_hash=None)
    broken = poolhall("verify", str(table.db_path), cwd=tmp_path, check=False)
    assert broken.returncode == 1, broken.stdout
    assert f"{campaign} #{seq}" in broken.stdout
    assert "differs from the fold of the log in members" in broken.stdout


def _rewrite_history(db_path: Path, campaign: str) -> None:
    """Change roll 3's face and total and compute the chain again from there, as someone who
    can write the file can: the log then agrees with itself."""
    with sqlite3.connect(db_path) as db:
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                  " AND tbl_name = 'events'").fetchall():
            db.execute(f"DROP TRIGGER {name}")
        rows = db.execute("SELECT seq, type, version, recorded_at, actor, command_id, payload"
                          " FROM events WHERE campaign = ? ORDER BY seq", [campaign]).fetchall()
        previous = "0" * 64
        for seq, type_, version, at, actor, command, payload in rows:
            if type_ == "dice_rolled" and '"roll 3"' in payload:
                event = json.loads(payload)
                event["total"] = event["terms"][0]["faces"][0] = 1 + event["total"] % 6
                payload = json.dumps(event, separators=(",", ":"))
            previous = link_hash(previous, campaign, seq, type_, version, at, actor, command,
                                 payload)
            db.execute("UPDATE events SET payload = ?, hash = ? WHERE campaign = ? AND seq = ?",
                       [payload, previous, campaign, seq])
        db.execute("DELETE FROM snapshots")


async def test_only_a_hash_held_elsewhere_catches_a_recomputed_chain(table: Table,
                                                                     tmp_path: Path) -> None:
    """The head hash noted before (as ``poolhall state`` prints it) matches the untouched
    log, by head and by seq; after an edit whose chain was computed again, plain ``verify``
    says ok (the chain has no key) but ``--expect`` with the noted hash fails, exit 1."""
    campaign, _, _ = await _stored(table)
    with sqlite3.connect(table.db_path) as db:
        head, noted = db.execute("SELECT seq, hash FROM events WHERE campaign = ? ORDER BY"
                                 " seq DESC LIMIT 1", [campaign]).fetchone()
        (third,) = db.execute("SELECT hash FROM events WHERE campaign = ? AND seq = 3",
                              [campaign]).fetchone()
    path = str(table.db_path)
    poolhall("verify", path, "--expect", f"{campaign}={noted}",
             "--expect", f"{campaign}@3={third}", cwd=tmp_path)
    wrong = poolhall("verify", path, "--expect", f"{campaign}={'0' * 64}", cwd=tmp_path,
                     check=False)
    assert wrong.returncode == 1
    assert "not the expected" in wrong.stdout
    past = poolhall("verify", path, "--expect", f"{campaign}@{head + 5}={noted}",
                    cwd=tmp_path, check=False)
    assert past.returncode == 1
    assert f"the log ends at #{head}" in past.stdout
    unknown = poolhall("verify", path, "--expect", f"nowhere={noted}", cwd=tmp_path,
                       check=False)
    assert unknown.returncode == 1
    assert "no such campaign" in unknown.stdout
    malformed = poolhall("verify", path, "--expect", f"{campaign}:{noted}", cwd=tmp_path,
                         check=False)
    assert malformed.returncode == 2
    assert "CAMPAIGN=HASH" in malformed.stderr

    _rewrite_history(table.db_path, campaign)
    assert "every hash chain holds" in poolhall("verify", path, cwd=tmp_path).stdout
    caught = poolhall("verify", path, "--expect", f"{campaign}={noted}", cwd=tmp_path,
                      check=False)
    assert caught.returncode == 1, caught.stdout
    assert f"{campaign} #{head}" in caught.stdout
    assert noted in caught.stdout


async def test_state_prints_the_head_hash_to_hold(table: Table, tmp_path: Path) -> None:
    """``poolhall state`` shows the chain hash of the event it shows: what --expect takes."""
    campaign, gm = await table.create_campaign("d12")
    await gm.call(core.Roll, expression="1d6")
    url = table.url
    shown = json.loads((await asyncio.to_thread(  # the server runs on this test's loop
        poolhall, "state", campaign, "--url", url, "--token", gm._token, "--json",
        cwd=tmp_path)).stdout)
    assert table.server.log is not None
    head = table.server.log.head(campaign)
    digest = table.server.log.hashes_at({campaign: head})[campaign]
    assert shown["head_hash"] == digest
    assert len(digest) == 64
    text = (await asyncio.to_thread(poolhall, "state", campaign, "--url", url, "--token",
                                    gm._token, cwd=tmp_path)).stdout
    assert f"chain hash of #{head}: {digest}" in text
