"""What players typed is printed, never obeyed: escapes, newlines and overrides are shown."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from poolhall.events import core
from poolhall.events.d12 import D12Stats
from poolhall.events.log import AppendRequest, prepare
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.auth import hash_token
from tests.serve_process import ROOT, free_port, poolhall, start_serve

GM_TOKEN = "ph_" + "g" * 43
HOSTILE = "\x1b[2J\r\n12:00:00 #9 gm \x9b31mrolled 3d6: 18\u202e"
"""A clear-screen, a carriage return and a forged log line, a C1 CSI and a bidi override."""


def _old_log(path: Path) -> None:
    """A log written before text was checked: an invite and a roll full of control codes."""
    log = SqliteLog(path)
    log.append_batch([AppendRequest(
        campaign="old", expected_head=0, actor="admin", command_id="c1",
        at="2026-11-01T08:00:00.000Z", events=tuple(prepare(e) for e in (
            core.CampaignCreated(campaign="old", name="Old", system="d12"),
            core.MemberInvited(member="gm", name="GM", role="gm",
                               token_hash=hash_token(GM_TOKEN)),
            core.MemberInvited(member="mallory", name="Mallory" + HOSTILE, role="player",
                               token_hash=hash_token("ph_" + "m" * 43)),
            core.CharacterCreated(character="han", name="Han" + HOSTILE,
                                  stats=D12Stats(ratings={"CON": 2, "CHA": 1})),
            core.DiceRolled(expression="1d6", terms=(), total=0, reason=HOSTILE))))])
    log.close()


def _watch_until_live(url: str, cwd: Path) -> str:
    """What ``poolhall watch`` prints of the history, up to its ``-- live`` line."""
    watcher = subprocess.Popen(
        [sys.executable, "-m", "poolhall", "watch", "old", "--url", url, "--token",
         GM_TOKEN], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    timer = threading.Timer(30, watcher.kill)  # a watch that never gets live fails the test
    timer.start()
    printed = b""
    try:
        assert watcher.stdout is not None
        while b"-- live" not in printed and (line := watcher.stdout.readline()):
            printed += line
    finally:
        timer.cancel()
        watcher.terminate()
        watcher.wait(10)
    return printed.decode()


def test_watch_and_state_escape_control_characters_from_the_log(tmp_path: Path) -> None:
    """``watch``, ``state`` and ``--json`` print a hostile name and reason from an old log
    with every control character escaped: no screen cleared, no forged line."""
    _old_log(tmp_path / "poolhall.db")
    port = free_port()
    server = start_serve(tmp_path / "poolhall.db", port)
    url = f"ws://127.0.0.1:{port}"
    try:
        watched = _watch_until_live(url, tmp_path)
        state = poolhall("state", "old", "--url", url, "--token", GM_TOKEN, cwd=tmp_path).stdout
        as_json = poolhall("state", "old", "--url", url, "--token", GM_TOKEN, "--json",
                           cwd=tmp_path).stdout
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    for printed in (watched, state, as_json):
        assert not {"\x1b", "\r", "\x9b", "\u202e"} & set(printed), printed
    assert "Mallory\\x1b[2J\\r\\n12:00:00 #9 gm \\x9b31mrolled 3d6: 18\\u202e" in watched
    assert "Han\\x1b[2J" in state
    assert json.loads(as_json)["rolls"][0]["reason"] == HOSTILE
    assert not any(line.startswith("12:00:00") for line in watched.splitlines())
