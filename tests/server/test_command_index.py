"""A hub's command index: the latest ids held, every other one read from the log."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from poolhall.events import core
from poolhall.events.dice import RolledTerm
from poolhall.events.errors import StoreError
from poolhall.events.log import AppendRequest, CommandRecord, prepare
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.command_index import LATEST_EVENTS_READ, RECENT_COMMANDS, CommandIndex
from poolhall.server.command_lookups import CommandLookups
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


def test_a_loaded_campaign_holds_the_commands_of_its_last_events(tmp_path: Path) -> None:
    """Loaded (after a restart or an unload), a hub holds the commands of the campaign's last
    LATEST_EVENTS_READ events, so a retry of one sent just before is answered from memory:
    each with all it appended (three events each here, so that the read begins inside a
    command: that one is not held cut short), the newest kept."""
    log = SqliteLog(tmp_path / "log.db")
    head = 0
    for n in range(LATEST_EVENTS_READ):
        faces = (n % 6 + 1,)
        roll = prepare(core.DiceRolled(expression="1d6", total=faces[0],
                                       terms=(RolledTerm(sides=6, faces=faces),)))
        (stored,) = log.append_batch([AppendRequest(
            campaign="c", expected_head=head, actor="gm", command_id=f"roll-{n}",
            at="2026-11-28T00:00:00.000Z", events=(roll, roll, roll))])
        assert isinstance(stored, list)
        head = stored[-1]
    try:
        index = CommandIndex(log, "c")
        index.hold_latest(head)
        held = {f"roll-{n}": index.get(f"roll-{n}") for n in range(LATEST_EVENTS_READ)
                if f"roll-{n}" in index}
        assert held == log.command_records("c", list(held))  # each whole
        assert len(held) == LATEST_EVENTS_READ // 3  # and the first read, cut: left out
        assert held[f"roll-{LATEST_EVENTS_READ - 1}"] == CommandRecord("gm", head - 2, head)
        assert len(index) <= RECENT_COMMANDS
        empty = CommandIndex(log, "new")
        empty.hold_latest(0)
        assert len(empty) == 0
    finally:
        log.close()


def test_the_hubs_look_ups_of_one_turn_of_the_loop_are_read_in_one_statement(
        tmp_path: Path) -> None:
    """Look-ups asked for in the same turn of the event loop (every hub a commit woke) are
    read together, once; each gets exactly the records of its own ids, and a read that fails
    fails each of them."""
    build_long_log(tmp_path / "log.db", 3, 0, "player")
    log = SqliteLog(tmp_path / "log.db")

    async def look_ups() -> None:
        lookups = CommandLookups(log)
        first = lookups.look_up(CAMPAIGN, ["setup-roll-0", "never-sent"])
        second = lookups.look_up(CAMPAIGN, ["setup-roll-2"])
        other = lookups.look_up("no-such-campaign", ["setup-roll-1"])
        assert await first == {"setup-roll-0": log.command_records(
            CAMPAIGN, ["setup-roll-0"])["setup-roll-0"]}
        assert list(await second) == ["setup-roll-2"]
        assert await other == {}
        assert lookups.statements == 1
        assert await lookups.look_up(CAMPAIGN, ["setup-roll-1"]) != {}  # a later turn
        assert lookups.statements == 2
        for name in ("log.db", "log.db-wal", "log.db-shm"):  # a log that cannot be read
            (tmp_path / name).unlink(missing_ok=True)  # any more: both look-ups say so
        log.close()  # (its read connections too, which hold the file removed)
        failed = [lookups.look_up(CAMPAIGN, ["setup-roll-1"]), lookups.look_up("x", ["y"])]
        for future in failed:
            with pytest.raises(StoreError):
                await future

    try:
        asyncio.run(look_ups())
    finally:
        log.close()
