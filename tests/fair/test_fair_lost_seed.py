"""A seed the vault lost (its ``fair_seeds`` row gone: a file restored without it, a row
deleted) ends its epoch only in words: after the restart every roll is refused, saying so,
until the GM rotates the seed or a session starts or ends; that rotation appends ``seed_lost``,
so ``poolhall verify`` and the reference verifier say the epoch's rolls can never be checked;
the server logs a warning. Before, the first roll ended the epoch silently, unrevealed."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from poolhall.events.fair import SeedCommitted, SeedLost, SeedRevealed
from poolhall.events.log import to_recorded
from poolhall.events.sqlite_backend import SqliteReader
from tests.fair.test_fair_restart import _kill_if_running, _place
from tests.fair.test_fair_session import reference_verifier
from tests.serve_process import poolhall, start_serve
from tests.server.raw import RawPeer

ROOT = Path(__file__).parents[2]


def lose_seed(db: Path, campaign: str, epoch: int) -> None:
    """Delete the seed of ``epoch`` from a stopped server's file, as the sqlite3 shell could."""
    with sqlite3.connect(db) as connection:
        connection.execute("DROP TRIGGER IF EXISTS fair_seeds_no_delete")
        connection.execute("DELETE FROM fair_seeds WHERE campaign = ? AND epoch = ?",
                           (campaign, epoch))


def send(tmp_path: Path, url: str, campaign: str, command: dict[str, object],
         check: bool = True) -> subprocess.CompletedProcess[str]:
    return poolhall("send", campaign, json.dumps(command), "--url", url, cwd=tmp_path,
                    check=check)


def restart_without_seed(tmp_path: Path, db: Path, port: int, server: subprocess.Popen[bytes],
                         campaign: str, epoch: int) -> subprocess.Popen[bytes]:
    server.send_signal(signal.SIGTERM)
    server.wait(20)
    lose_seed(db, campaign, epoch)
    return start_serve(db, port, log=tmp_path / "serve.log")


async def _table_as_joined(url: str, token: str, campaign: str) -> dict[str, Any]:
    """The first ``table`` message of a GM joining ``campaign`` as the page does."""
    peer = await RawPeer.open(url)
    try:
        await peer.send({"type": "join", "token": token, "campaign": campaign, "since": 0,
                         "table": True})  # as the page joins
        return await peer.recv_until("table", timeout=10)
    finally:
        await peer.connection.close()


def verify(db: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "poolhall", "verify", str(db)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_a_lost_seed_refuses_rolls_until_the_gm_rotates_and_the_log_says_it_was_lost(
        tmp_path: Path) -> None:
    """Epoch 1 held a roll when its seed was lost: the next roll is refused in plain words
    (not dealt in a new epoch, leaving epoch 1 silently unrevealed), the server warns, the GM's
    rotation records ``seed_lost`` and the dice roll on; both verifiers report the loss. The
    loss is known (warned, and the GM's table says the dice wait) as the campaign loads, not
    at the first roll it refuses."""
    db, port, url = _place(tmp_path)
    server = start_serve(db, port, log=tmp_path / "serve.log")
    try:
        created = json.loads(poolhall("campaign", "create", "Lost", "--system", "d12", "--url",
                                      url, "--json", cwd=tmp_path).stdout)
        campaign = str(created["campaign"])
        poolhall("roll", campaign, "3d6", "--url", url, cwd=tmp_path)
        server = restart_without_seed(tmp_path, db, port, server, campaign, 1)
        table = asyncio.run(_table_as_joined(url, str(created["token"]), campaign))
        assert table.get("dice_wait") is True, table  # known as it loads, before any roll
        assert "the seed of dice epoch 1 is lost" in (tmp_path / "serve.log").read_text()
        refused = poolhall("roll", campaign, "1d6", "--url", url, cwd=tmp_path, check=False)
        assert refused.returncode != 0
        words = refused.stdout + refused.stderr
        assert "the server lost the seed of dice epoch 1" in words, words
        assert "the GM rotates the seed (rotate_seed)" in words, words
        send(tmp_path, url, campaign, {"type": "rotate_seed"})
        poolhall("roll", campaign, "1d6", "--url", url, cwd=tmp_path)
        export = tmp_path / "export.jsonl"
        export.write_text(poolhall("export", campaign, "--events", "--url", url,
                                   cwd=tmp_path).stdout)
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    finally:
        _kill_if_running(server)
    log = (tmp_path / "serve.log").read_text()
    assert "the seed of dice epoch 1 is lost" in log
    events = [to_recorded(row).event for row in SqliteReader(db).rows(campaign)]
    ends = [(type(e).__name__, e.epoch) for e in events
            if isinstance(e, SeedLost | SeedRevealed | SeedCommitted)]
    assert ends[:3] == [("SeedCommitted", 1), ("SeedLost", 1), ("SeedCommitted", 2)], ends
    (lost,) = [e for e in events if isinstance(e, SeedLost)]
    assert lost.rolls == 1
    code, said = verify(db)
    assert code == 1, said
    assert "epoch 1's seed was lost, the server says: its 1 roll(s) can never be checked" in said
    assert "1 roll(s) sealed until" in said  # the roll after the rotation; not the lost one
    reference = reference_verifier(export)
    assert reference.returncode == 1, reference.stdout
    assert "epoch 1's seed was lost, the server says" in reference.stdout


def test_a_lost_seed_with_a_secret_roll_waits_for_the_session_s_end(tmp_path: Path) -> None:
    """The GM's secret roll's epoch lost its seed: rolls are refused until the GM ends the
    session (rotating is refused: it would show the secret roll mid-session); the end records
    ``seed_lost`` for the epoch, not a reveal, so nothing presents the secret roll as
    checkable, and verify says it can never be checked."""
    db, port, url = _place(tmp_path)
    server = start_serve(db, port, log=tmp_path / "serve.log")
    try:
        created = json.loads(poolhall("campaign", "create", "Secret", "--system", "d12",
                                      "--url", url, "--json", cwd=tmp_path).stdout)
        campaign = str(created["campaign"])
        send(tmp_path, url, campaign, {"type": "start_session"})
        send(tmp_path, url, campaign, {"type": "roll", "expression": "1d100",
                                       "visibility": "gm"})
        server = restart_without_seed(tmp_path, db, port, server, campaign, 2)
        refused = poolhall("roll", campaign, "1d6", "--url", url, cwd=tmp_path, check=False)
        assert refused.returncode != 0
        assert "the GM ends the game session to roll on" in refused.stdout + refused.stderr
        send(tmp_path, url, campaign, {"type": "end_session"})
        poolhall("roll", campaign, "1d6", "--url", url, cwd=tmp_path)
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    finally:
        _kill_if_running(server)
    events = [to_recorded(row).event for row in SqliteReader(db).rows(campaign)]
    assert [e.epoch for e in events if isinstance(e, SeedLost)] == [2]
    assert 2 not in [e.epoch for e in events if isinstance(e, SeedRevealed)]
    code, said = verify(db)
    assert code == 1, said
    assert "epoch 2's seed was lost, the server says: its 1 roll(s) can never be checked" in said
