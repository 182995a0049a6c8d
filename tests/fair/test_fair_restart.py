"""A server killed with SIGKILL between a commitment and its reveal continues the same epoch."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from poolhall.events.fair import FairStamp, SeedCommitted, SeedRevealed, commitment
from poolhall.events.log import to_recorded
from poolhall.events.sqlite_backend import SqliteReader
from tests.serve_process import free_port, poolhall, start_serve

ROOT = Path(__file__).parents[2]


def test_kill_9_between_commit_and_reveal_continues_the_epoch(tmp_path: Path) -> None:
    """Rolls before and after a SIGKILL share epoch 1 and its committed seed; the reveal
    after the restart matches the commitment made before it, and verify recomputes both."""
    db, port = tmp_path / "poolhall.db", free_port()
    url = f"ws://127.0.0.1:{port}"
    server = start_serve(db, port)
    try:
        created = json.loads(poolhall("campaign", "create", "Killed", "--system", "d12",
                                      "--url", url, "--json", cwd=tmp_path).stdout)
        campaign = created["campaign"]
        poolhall("roll", campaign, "3d6", "--url", url, cwd=tmp_path)
        server.send_signal(signal.SIGKILL)
        server.wait(20)
        server = start_serve(db, port)
        poolhall("roll", campaign, "2d20", "--url", url, cwd=tmp_path)
        poolhall("send", campaign, json.dumps({"type": "rotate_seed"}), "--url", url,
                 cwd=tmp_path)
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(20)
    events = [to_recorded(row).event for row in SqliteReader(db).rows(campaign)]
    commits = [e for e in events if isinstance(e, SeedCommitted)]
    reveals = [e for e in events if isinstance(e, SeedRevealed)]
    stamps: list[FairStamp] = [stamp for e in events
                               if (stamp := getattr(e, "fair", None)) is not None]
    assert [c.epoch for c in commits] == [1, 2]
    assert [(s.epoch, s.nonce) for s in stamps] == [(1, 0), (1, 1)]
    assert [(r.epoch, r.rolls) for r in reveals] == [(1, 2)]
    assert commitment(bytes.fromhex(reveals[0].seed)) == commits[0].commitment
    done = subprocess.run([sys.executable, "-m", "poolhall", "verify", str(db), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    assert done.returncode == 0, report
    assert (report["rolls"]["rolls_checked"], report["rolls"]["dice_checked"]) == (2, 5)
