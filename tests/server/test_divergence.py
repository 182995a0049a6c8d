"""A client never resumes on a history the server no longer has: it is told ``diverged``."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import msgspec
import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.codec import encode
from poolhall.events.errors import HistoryDiverged
from poolhall.events.fair import SetClientSeed
from poolhall.events.messages import Join
from poolhall.server.app import Server
from tests.conftest import ADMIN_TOKEN, Table
from tests.server.raw import RawPeer


def _backup(db_path: Path, copy: Path) -> None:
    """Copy the served database the way the README says to: SQLite's online backup."""
    source, target = sqlite3.connect(db_path), sqlite3.connect(copy)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()


def _restore(copy: Path, db_path: Path) -> None:
    """Put the copy in the database's place, as a lost WAL leaves it: the tail is gone."""
    os.replace(copy, db_path)
    for suffix in ("-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)


async def _restart(table: Table, port: int) -> None:
    table.server = Server(table.db_path, "127.0.0.1", port, rng=random.Random(7),
                          admin_token=ADMIN_TOKEN)
    await table.server.start()


async def _rolls(client: Client, count: int, reason: str) -> int:
    for _ in range(count):
        ack = await client.call(core.Roll, expression="1d6", reason=reason)
    return ack.seqs[-1]


async def test_a_client_holding_events_a_restored_log_lost_is_told_diverged(table: Table) -> None:
    """The log loses its last events (restored from a copy); a follower holding them stops."""
    campaign, gm = await table.create_campaign("d12")
    follower = await table.invite(gm, "spectator")
    kept = await _rolls(gm, 2, "kept")
    copy = table.db_path.with_name("copy.db")
    _backup(table.db_path, copy)
    lost = await _rolls(gm, 3, "lost")
    await follower.wait_for_seq(lost)
    port = table.server.port
    await table.server.stop()
    _restore(copy, table.db_path)
    await _restart(table, port)

    with pytest.raises(HistoryDiverged, match=f"history ends at event {kept}") as diverged:
        await follower.wait_for_seq(lost + 1)
    assert f"your last event is {lost}" in diverged.value.message
    assert follower.lost is diverged.value
    with pytest.raises(HistoryDiverged):
        await follower.call(core.Roll, expression="1d6")
    fresh = await table.connect(campaign, gm._token)
    await _rolls(fresh, 4, "after the restore")
    assert follower.head == lost
    assert [roll.reason for roll in follower.state.rolls] == ["kept"] * 2 + ["lost"] * 3


async def test_the_same_position_with_another_history_is_refused(table: Table) -> None:
    """A log that lost events and appended others to the same length is not resumed on."""
    campaign, gm = await table.create_campaign("d12")
    follower = await table.invite(gm, "spectator")
    copy = table.db_path.with_name("copy.db")
    _backup(table.db_path, copy)
    head = await _rolls(gm, 3, "lost")
    await follower.wait_for_seq(head)
    port = table.server.port
    await table.server.stop()
    _restore(copy, table.db_path)
    await _restart(table, 0)  # where the follower cannot reach it yet
    other = await Client(table.url, gm._token, campaign, reconnect=False).__aenter__()
    for k in range(3):  # three other events (no dice: a roll would first end the epoch)
        seqs = (await other.call(SetClientSeed, seed=f"other-{k}")).seqs
    assert seqs == [head]
    await other.close()
    await table.server.stop()
    await _restart(table, port)

    with pytest.raises(HistoryDiverged, match=f"your last event is {head} with hash"):
        await follower.wait_for_seq(head + 1)
    assert follower.head == head
    assert [roll.reason for roll in follower.state.rolls] == ["lost"] * 3


async def test_an_honest_resume_with_its_hash_has_no_gap_and_no_duplicate(table: Table) -> None:
    """Resuming with the right hash, below the head or at it, gets exactly what follows."""
    campaign, gm = await table.create_campaign("d12")
    head = await _rolls(gm, 4, "roll")
    assert table.server.log is not None
    rows = list(table.server.log.rows(campaign))
    for since in (2, head):
        peer = await RawPeer.open(table.url)
        welcome = await peer.join_with(gm._token, campaign, since, rows[since - 1].hash)
        assert (welcome["type"], welcome["head"], welcome["head_hash"]) == (
            "welcome", head, rows[-1].hash)
        frames = [await peer.recv_until("event") for _ in range(head - since)]
        assert [(f["seq"], f["hash"]) for f in frames] == [
            (row.seq, row.hash) for row in rows[since:]]
        live = (await gm.call(core.Roll, expression="1d4")).seqs[-1]
        frame = await peer.recv_until("event")
        stored = table.server.log.hashes_at({campaign: live})[campaign]
        assert (frame["seq"], frame["hash"]) == (live, stored)
        rows, head = list(table.server.log.rows(campaign)), live
        await peer.close()
    assert gm.last_hash == rows[-1].hash


async def test_a_wrong_hash_is_refused_below_the_head_and_at_it(table: Table,
                                                                caplog: pytest.LogCaptureFixture
                                                                ) -> None:
    """Both lookups, the log's row and the head kept in memory, catch another history; the
    refusals are logged once a minute, not once a join (a member may send them nonstop)."""
    campaign, gm = await table.create_campaign("d12")
    head = await _rolls(gm, 3, "roll")
    for since, path in ((1, "$.since_hash"), (head, "$.since_hash"), (head + 1, "$.since")):
        peer = await RawPeer.open(table.url)
        reply = await peer.join_with(gm._token, campaign, since, "ab" * 32)
        assert (reply["type"], reply["code"], reply["path"]) == ("error", "diverged", path)
        assert f"the server's history ends at event {head}" in reply["message"]
        await peer.close()
    assert table.server.log is not None
    assert table.server.log.head(campaign) == head
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("join to ")]
    assert len(lines) == 1, lines


async def test_an_older_client_without_a_hash_still_resumes(table: Table) -> None:
    """A join with no ``since_hash`` resumes on ``since`` alone, as before."""
    campaign, gm = await table.create_campaign("d12")
    head = await _rolls(gm, 3, "roll")
    peer = await RawPeer.open(table.url)
    welcome = await peer.join(gm._token, campaign, since=head - 1)
    assert (welcome["type"], welcome["head"]) == ("welcome", head)
    assert (await peer.recv_until("event"))["seq"] == head
    await peer.close()


async def test_a_malformed_hash_is_refused_with_its_field(table: Table) -> None:
    """``since_hash`` is 64 lowercase hex digits; anything else is ``invalid`` at its path."""
    campaign, gm = await table.create_campaign("d12")
    peer = await RawPeer.open(table.url)
    reply = await peer.join_with(gm._token, campaign, 1, "not a hash")
    assert (reply["code"], reply["path"]) == ("invalid", "$.since_hash")
    await peer.close()


def test_a_join_without_a_hash_does_not_name_the_field() -> None:
    """A client with no hash to send omits ``since_hash``, which older servers would refuse."""
    frame = msgspec.json.decode(encode(Join(token="ph_x", campaign="c", since=3)))
    assert frame == {"type": "join", "token": "ph_x", "campaign": "c", "since": 3}


async def test_a_refusal_quotes_no_hash_of_a_private_roll_its_member_may_not_see(
        table: Table) -> None:
    """Bob's frames of the GM's secret roll carry no hash, nor does his welcome at its head:
    a ``diverged`` refusal does not quote it either, past the head or below it (it quoted the
    sealed head's hash and any sealed event's). The GM's refusals still quote both."""
    campaign, gm = await table.create_campaign("d12")
    bob = await table.invite(gm, "player", name="Bob")
    await gm.call(core.StartSession, title="One")
    secret = (await gm.call(core.Roll, expression="1d20", visibility="gm")).seqs[-1]
    assert table.server.log is not None
    sealed = table.server.log.hashes_at({campaign: secret})[campaign][:16]
    for token, quoted in ((bob._token, False), (gm._token, True)):
        for since, since_hash in ((secret + 1, "ab" * 32), (secret, "ab" * 32)):
            peer = await RawPeer.open(table.url)
            reply = await peer.join_with(token, campaign, since, since_hash)
            assert (reply["type"], reply["code"]) == ("error", "diverged")
            assert (sealed in reply["message"]) is quoted, reply["message"]
            await peer.close()
