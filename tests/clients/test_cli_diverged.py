"""``poolhall watch`` when the server comes back with less history than the watcher has seen."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
from pathlib import Path

from tests.serve_process import Watcher, free_port, poolhall, start_serve


def test_watch_stops_with_exit_4_when_the_servers_history_diverged(tmp_path: Path) -> None:
    """The server restarts on a copy taken before the last rolls: watch says so and exits 4."""
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    db = tmp_path / "poolhall.db"
    server = start_serve(db, port)
    watcher: Watcher | None = None
    try:  # from here on a failure still stops the server (it outlived a failed create)
        created = json.loads(poolhall("campaign", "create", "Live", "--system", "d12", "--url",
                                      url, "--json", cwd=tmp_path).stdout)
        campaign = created["campaign"]
        watcher = Watcher(campaign, "--url", url, cwd=tmp_path, merge_stderr=False, columns=400)
        wait_for = watcher.wait_for
        wait_for("-- live")
        with contextlib.closing(sqlite3.connect(db)) as source, \
                contextlib.closing(sqlite3.connect(tmp_path / "copy.db")) as copy:
            source.backup(copy)  # the backup the operator will restore
        poolhall("roll", campaign, "1d6", "--reason", "lost roll", "--url", url, cwd=tmp_path)
        wait_for("lost roll")
        server.send_signal(signal.SIGTERM)
        server.wait(20)
        os.replace(tmp_path / "copy.db", db)
        server = start_serve(db, port)
        assert watcher.process.wait(60) == 4
        assert watcher.process.stderr is not None
        error = watcher.process.stderr.read()
        assert error.count("\n") == 1
        assert error.startswith(f"error: history diverged, stopped following {campaign}: your "
                                "copy of this campaign has events the server does not have")
        assert "your last event is 4" in error
        assert "ends at event 3" in error
    finally:
        if watcher is not None:
            watcher.stop()
        server.send_signal(signal.SIGTERM)
        server.wait(20)
