"""Stored snapshots: derived, keyed by the fingerprint of the state's types, equal to a fold."""

from __future__ import annotations

import sqlite3

import msgspec
import pytest

from poolhall.events import core
from poolhall.events.log import to_recorded
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.projections.campaign import fold
from poolhall.server.stored_snapshots import SnapshotStore, decode_state, fingerprint, fold_from
from tests.conftest import Table
from tests.server.test_lazy_campaigns import restart


async def test_what_a_hub_stores_is_the_fold_of_the_log(table: Table) -> None:
    """Every snapshot a live hub stored equals folding the log up to its seq, exactly."""
    campaign, gm = await table.create_campaign("narrative")
    server = await restart(table, snapshot_every=4)
    gm = await table.connect(campaign, gm._token)
    await gm.call(core.Invite, role="player", characters=("han",), name="Han")
    for number in range(15):
        await gm.call(core.Roll, expression="1d6", reason=f"roll {number}")
    await table.close_clients()
    await server.stop()  # the writes in flight finish
    assert server.log is not None
    rows = [to_recorded(row) for row in server.log.rows(campaign)]
    stored = SnapshotStore(table.db_path)
    with sqlite3.connect(table.db_path) as db:
        seqs = [seq for (seq,) in db.execute(
            "SELECT seq FROM snapshots WHERE campaign = ? ORDER BY seq", [campaign])]
    assert len(seqs) >= 3
    for seq in seqs:
        snapshot = stored.latest(campaign, seq)
        assert snapshot is not None
        assert snapshot.state.head == seq
        assert msgspec.to_builtins(snapshot.state) == msgspec.to_builtins(fold(rows, upto=seq))


async def test_a_snapshot_of_other_code_is_ignored_and_rebuilt(table: Table) -> None:
    """A row whose fingerprint is not this code's is never read (here its state is garbage
    too); the next fold replaces it with this code's."""
    campaign, gm = await table.create_campaign("d12")
    for _ in range(12):
        await gm.call(core.Roll, expression="1d6")
    log = table.server.log
    store = SnapshotStore(table.db_path)
    assert log is not None
    fold_from(log, store, campaign, every=5)
    assert isinstance(log, SqliteLog)
    log.db.execute("UPDATE snapshots SET fingerprint = 'older', state = x'00'")
    log.db.commit()
    assert store.latest(campaign) is None
    folded = fold_from(log, store, campaign, every=5)
    rows = [to_recorded(row) for row in log.rows(campaign)]
    assert msgspec.to_builtins(folded.state) == msgspec.to_builtins(fold(rows))
    assert {fingerprint for (fingerprint,) in log.db.execute(
        "SELECT fingerprint FROM snapshots")} == {fingerprint()}
    again = store.latest(campaign)
    assert again is not None
    assert decode_state(store_blob(log, again.state.head)) == again.state


def store_blob(log: SqliteLog, seq: int) -> bytes:
    (blob,) = log.db.execute("SELECT state FROM snapshots WHERE seq = ?", [seq]).fetchone()
    return bytes(blob)


def test_the_fingerprint_covers_the_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fold keeping more or fewer rolls is other code: its snapshots get another
    fingerprint (and so are never read by this one)."""
    from poolhall.projections import campaign
    from poolhall.server import stored_snapshots

    assert stored_snapshots._fingerprint() == fingerprint()
    monkeypatch.setattr(campaign, "ROLLS_KEPT", campaign.ROLLS_KEPT + 1)
    assert stored_snapshots._fingerprint() != fingerprint()
