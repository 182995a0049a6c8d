"""Rebuilding from the log: one scan gives the same states and command index as each campaign."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from poolhall.events.log_contract import PAGE_ROWS
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.server.command_index import RECENT_COMMANDS
from poolhall.server.rebuild import load_all_states, load_hub_state, rebuild_states
from poolhall.server.stored_snapshots import SnapshotStore
from tests.events.store_contract import opened, request, rolled


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SqliteLog]:
    """A log of two interleaved campaigns, longer than one page of the scan."""
    store = SqliteLog(tmp_path / "log.db")
    store.append_batch([request("a", 0, opened("a"), command="open-a", actor="admin"),
                        request("b", 0, opened("b"), rolled(1), command="open-b",
                                actor="admin")])
    heads = {"a": 1, "b": 2}
    for n in range(PAGE_ROWS + 10):
        campaign = "ab"[n % 2]
        many = n % 7 == 0  # some commands append several events
        events = (rolled(n), rolled(n + 1)) if many else (rolled(n),)
        store.append_batch([request(campaign, heads[campaign], *events, command=f"c{n}",
                                    actor=f"player{n % 3}")])
        heads[campaign] += len(events)
    yield store
    store.close()


def test_command_index_read_off_the_events_matches_the_commands_table(log: SqliteLog) -> None:
    """The startup scan's index equals what the commands table recorded at append time."""
    loaded = load_all_states(log)
    assert set(loaded) == {"a", "b"}
    for campaign, (_, index, _) in loaded.items():
        assert index == log.command_records(campaign, list(index))
        assert len(index) > PAGE_ROWS // 2


def test_one_scan_gives_each_campaign_what_its_own_rows_give(log: SqliteLog, tmp_path: Path
                                                             ) -> None:
    """States from the interleaved scan equal each campaign loaded alone, whose command index
    holds the latest commands as the scan recorded them and finds every command id in the
    log."""
    loaded = load_all_states(log)
    states = rebuild_states(log)
    store = SnapshotStore(log.path)
    for campaign, (state, index, head_hash) in loaded.items():
        alone_state, alone_index, alone_hash, public = load_hub_state(log, store, campaign,
                                                                      every=50)
        assert public is None  # no private roll pending: no public table of its own
        assert state == alone_state == states[campaign]
        held = [command_id for command_id in index if command_id in alone_index]
        assert 0 < len(held) <= RECENT_COMMANDS  # the latest held, the others in the log
        assert held[-1] == list(index)[-1]
        assert all(alone_index.get(command_id) == index[command_id] for command_id in held)
        assert log.command_records(campaign, [*index, "never-sent"]) == index
        assert state.head == log.head(campaign)
        assert head_hash == alone_hash == list(log.rows(campaign))[-1].hash


def test_a_multi_event_command_spans_all_its_events(log: SqliteLog) -> None:
    """A command that appended two events answers a retry with both sequence numbers."""
    index = load_all_states(log)["a"].commands
    record = index["c0"]
    assert record.actor == "player0"
    assert record.seqs == [record.first_seq, record.first_seq + 1]
