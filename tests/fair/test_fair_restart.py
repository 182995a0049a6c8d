"""A server killed with SIGKILL between a commitment and its reveal keeps the epoch's seed, and
reveals it at its first roll after the restart; a log put back from a backup never rolls a lost
roll's dice again."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from poolhall.events.fair import FairStamp, SeedCommitted, SeedRevealed, commitment
from poolhall.events.log import to_recorded
from poolhall.events.sqlite_backend import SqliteReader
from tests.serve_process import free_port, poolhall, start_serve, until

ROOT = Path(__file__).parents[2]


def _place(tmp_path: Path) -> tuple[Path, int, str]:
    """Where a test's server keeps its log and listens: the file, the port, the URL."""
    port = free_port()
    return tmp_path / "poolhall.db", port, f"ws://127.0.0.1:{port}"


def _campaign_with_a_roll(tmp_path: Path, url: str) -> str:
    """A new d12 campaign with one roll in its first epoch, made through the CLI."""
    created = json.loads(poolhall("campaign", "create", "Rolled", "--system", "d12", "--url",
                                  url, "--json", cwd=tmp_path).stdout)
    campaign = str(created["campaign"])
    poolhall("roll", campaign, "3d6", "--url", url, cwd=tmp_path)
    return campaign

def test_kill_9_between_commit_and_reveal_reveals_the_epoch_at_the_next_roll(
        tmp_path: Path) -> None:
    """The seed committed before a SIGKILL is found after the restart and revealed, matching
    its commitment, by the first roll: that roll is in an epoch whose seed the new process drew
    (epochs 2 and 3, drawn ahead by the first process, committed and revealed unused on the
    way), and verify recomputes both rolls."""
    db, port, url = _place(tmp_path)
    server = start_serve(db, port)
    try:
        campaign = _campaign_with_a_roll(tmp_path, url)
        server.send_signal(signal.SIGKILL)
        server.wait(20)
        server = start_serve(db, port)
        poolhall("roll", campaign, "2d20", "--url", url, cwd=tmp_path)
        poolhall("send", campaign, json.dumps({"type": "rotate_seed"}), "--url", url,
                 cwd=tmp_path)
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    finally:
        _kill_if_running(server)
    events = [to_recorded(row).event for row in SqliteReader(db).rows(campaign)]
    commits = [e for e in events if isinstance(e, SeedCommitted)]
    reveals = [e for e in events if isinstance(e, SeedRevealed)]
    stamps: list[FairStamp] = [stamp for e in events
                               if (stamp := getattr(e, "fair", None)) is not None]
    assert [c.epoch for c in commits] == [1, 2, 3, 4, 5]
    assert [(s.epoch, s.nonce) for s in stamps] == [(1, 0), (4, 0)]
    assert [(r.epoch, r.rolls) for r in reveals] == [(1, 1), (2, 0), (3, 0), (4, 1)]
    for revealed, committed in zip(reveals, commits, strict=False):
        assert commitment(bytes.fromhex(revealed.seed)) == committed.commitment
    done = subprocess.run([sys.executable, "-m", "poolhall", "verify", str(db), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    assert done.returncode == 0, report
    assert (report["rolls"]["rolls_checked"], report["rolls"]["dice_checked"]) == (2, 5)


def _dealt(db: Path, campaign: str) -> set[tuple[str, int]]:
    """Each roll of the log as the seed it came from (its epoch's commitment) and its nonce:
    two rolls with the same pair and the same members' seeds have the same dice."""
    events = [to_recorded(row).event for row in SqliteReader(db).rows(campaign)]
    commitments = {e.epoch: e.commitment for e in events if isinstance(e, SeedCommitted)}
    return {(commitments[stamp.epoch], stamp.nonce) for e in events
            if (stamp := getattr(e, "fair", None)) is not None}


def _kill_if_running(server: subprocess.Popen[bytes]) -> None:
    """After a test stopped its server, or failed before: never left running."""
    if server.poll() is None:
        server.kill()
        server.wait(20)


def _stop(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGTERM)
    server.wait(20)


class _Restored(NamedTuple):
    """A log put back from a backup that missed three rolls (and a rotation)."""

    db: Path
    port: int
    url: str
    campaign: str
    backup: Path
    lost: set[tuple[str, int]]
    """The seeds and nonces the lost rolls were dealt with."""


def _put_back(tmp_path: Path) -> _Restored:
    """A campaign backed up with one roll while its server runs, then rolled in three times
    more (with a GM's rotation between), its log put back from the backup; no server running.
    The lost rolls went on in the epoch the backup holds open."""
    db, port, url = _place(tmp_path)
    server = start_serve(db, port)
    try:
        campaign = _campaign_with_a_roll(tmp_path, url)
        backup = tmp_path / "backup.db"
        with sqlite3.connect(db) as source, sqlite3.connect(backup) as copy:
            source.backup(copy)  # online, as .backup does
        for expression in ("2d6", "4d6"):
            poolhall("roll", campaign, expression, "--url", url, cwd=tmp_path)
        poolhall("send", campaign, json.dumps({"type": "rotate_seed"}), "--url", url,
                 cwd=tmp_path)
        poolhall("roll", campaign, "5d6", "--url", url, cwd=tmp_path)
        _stop(server)
    finally:
        _kill_if_running(server)
    lost = _dealt(db, campaign) - _dealt(backup, campaign)
    assert len(lost) == 3
    for stale in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        stale.unlink(missing_ok=True)
    shutil.copy(backup, db)
    return _Restored(db, port, url, campaign, backup, lost)


def _dealt_anew(restored: _Restored, rolls: int) -> None:
    """The restored log's ``rolls`` new rolls each came from a seed and nonce no lost roll
    used, and the log verifies."""
    dealt_again = (_dealt(restored.db, restored.campaign)
                   - _dealt(restored.backup, restored.campaign))
    assert len(dealt_again) == rolls
    assert not dealt_again & restored.lost
    _verified(restored.db)


def _verified(db: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "poolhall", "verify", str(db), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout


def test_a_log_put_back_from_a_backup_never_deals_a_lost_roll_again(tmp_path: Path) -> None:
    """Rolls made after a backup was taken are lost when it is put back, but their dice were
    seen: the restored server's rolls never come from a seed and nonce a lost roll used, the
    open epoch's or the next epochs' whose seeds were drawn ahead (a GM's rotation in the
    lost rolls moved to one of those)."""
    restored = _put_back(tmp_path)
    campaign, url = restored.campaign, restored.url
    server = start_serve(restored.db, restored.port)
    try:
        for expression in ("2d6", "4d6", "5d6"):
            poolhall("roll", campaign, expression, "--url", url, cwd=tmp_path)
        poolhall("send", campaign, json.dumps({"type": "rotate_seed"}), "--url", url,
                 cwd=tmp_path)
        poolhall("roll", campaign, "6d6", "--url", url, cwd=tmp_path)
        _stop(server)
    finally:
        _kill_if_running(server)
    _dealt_anew(restored, 4)


def test_a_restored_campaign_unloaded_before_its_first_roll_still_ends_the_lost_epoch(
        tmp_path: Path) -> None:
    """After a restore, every page that saw the lost rolls is refused ``diverged``, so the
    campaign is loaded by joins that roll nothing and unloaded when nobody stays; loaded again
    for the first roll, it still ends the epoch it had open at its first load."""
    restored = _put_back(tmp_path)
    campaign, url = restored.campaign, restored.url
    log = tmp_path / "serve.log"
    server = start_serve(restored.db, restored.port, "--idle-unload", "0.5", log=log,
                         verbose=True)
    try:
        poolhall("state", campaign, "--url", url, cwd=tmp_path)  # a join: loaded, no roll
        _unloaded(log, campaign, 1)  # idle for half a second; looked at every quarter
        for unloads, expression in enumerate(("2d6", "4d6", "5d6"), start=2):
            poolhall("roll", campaign, expression, "--url", url, cwd=tmp_path)
            _unloaded(log, campaign, unloads)  # and unloaded between each
        _stop(server)
    finally:
        _kill_if_running(server)
    # for the join and each roll ("unloaded CAMPAIGN (idle …)" holds "loaded CAMPAIGN " too)
    assert log.read_text().count(f": loaded {campaign} at #") == 4
    _dealt_anew(restored, 3)


def _unloaded(log: Path, campaign: str, times: int) -> None:
    """Wait until the server's debug lines say it unloaded ``campaign`` ``times`` times (a
    fixed sleep long enough on a loaded machine waits out the idle time twice over)."""
    until(lambda: log.read_text().count(f": unloaded {campaign} (") >= times, 30,
          lambda: f"{campaign} not unloaded {times} times:\n" + log.read_text()[-3000:])


def test_a_log_put_back_holding_a_private_roll_pauses_the_dice_until_the_session_ends(
        tmp_path: Path) -> None:
    """The epoch open in a backup holds the GM's secret roll, so its seed may not be revealed
    before the session ends; the lost rolls went on in it, and the lost end of the session
    revealed its seed. Put back, the server refuses every roll, saying why and what the GM
    does, until the GM ends the session: then no lost roll's dice come again."""
    db, port, url = _place(tmp_path)
    server = start_serve(db, port)
    try:
        created = json.loads(poolhall("campaign", "create", "Secret", "--system", "d12", "--url",
                                      url, "--json", cwd=tmp_path).stdout)
        campaign = str(created["campaign"])
        poolhall("send", campaign, json.dumps({"type": "start_session"}), "--url", url,
                 cwd=tmp_path)
        poolhall("roll", campaign, "1d20", "--visibility", "gm", "--url", url, cwd=tmp_path)
        backup = tmp_path / "backup.db"
        with sqlite3.connect(db) as source, sqlite3.connect(backup) as copy:
            source.backup(copy)  # online, as .backup does
        for expression in ("3d20", "3d20"):
            poolhall("roll", campaign, expression, "--url", url, cwd=tmp_path)
        poolhall("send", campaign, json.dumps({"type": "end_session"}), "--url", url,
                 cwd=tmp_path)  # the seed the lost rolls used, revealed to everyone
        _stop(server)
        lost = _dealt(db, campaign) - _dealt(backup, campaign)
        assert len(lost) == 2
        for stale in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
            stale.unlink(missing_ok=True)
        shutil.copy(backup, db)
        server = start_serve(db, port)
        refused = poolhall("roll", campaign, "3d20", "--url", url, cwd=tmp_path, check=False)
        assert refused.returncode != 0
        assert "the dice wait" in refused.stdout + refused.stderr
        assert "the GM ends the session" in refused.stdout + refused.stderr
        poolhall("send", campaign, json.dumps({"type": "end_session"}), "--url", url,
                 cwd=tmp_path)
        for expression in ("3d20", "3d20"):
            poolhall("roll", campaign, expression, "--url", url, cwd=tmp_path)
        _stop(server)
    finally:
        _kill_if_running(server)
    _dealt_anew(_Restored(db, port, url, campaign, backup, lost), 2)
