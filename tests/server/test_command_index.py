"""A hub's command index: the latest ids held, every other one read from the log."""

from __future__ import annotations

from pathlib import Path

from poolhall.events.log import CommandRecord
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.command_index import RECENT_COMMANDS, CommandIndex
from tests.chaos._longlog import CAMPAIGN, build_long_log


def test_the_index_holds_only_the_latest_ids_and_reads_older_ones_from_the_log(
        tmp_path: Path) -> None:
    """However many commands a campaign accepted, its hub holds RECENT_COMMANDS of them; an
    id it let go is read back from the log with what it appended, an unknown one is not."""
    rolls = RECENT_COMMANDS + 10
    build_long_log(tmp_path / "log.db", rolls, 0, "player")
    log = SqliteLog(tmp_path / "log.db")
    try:
        index = CommandIndex(log, CAMPAIGN)
        from_log = log.command_records(CAMPAIGN, [f"setup-roll-{n}" for n in range(rolls)])
        for command_id, record in from_log.items():
            index.add(command_id, record)
        assert len(index) == RECENT_COMMANDS
        assert "setup-roll-0" not in index
        assert f"setup-roll-{rolls - 1}" in index
        index.look_up(["setup-roll-0", "never-sent"])
        assert index.get("setup-roll-0") == from_log["setup-roll-0"]
        assert isinstance(index.get("setup-roll-0"), CommandRecord)
        assert index.get("never-sent") is None
        assert "never-sent" not in index
        assert len(index) == RECENT_COMMANDS
    finally:
        log.close()
