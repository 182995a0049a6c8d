"""Token hashes stay in the log and out of everything a client receives.

Every path by which an event reaches a client is tried against the real server, and the raw
text of every frame is searched for every token hash the log holds: live events, a join's
snapshot (its recent events from the broadcast, and from the log after a restart), a
catch-up (frames built by SQLite, and pages stored in the file), history pages, ``state_at``,
a replay link's reads, the report page, and what the Python client folds.
"""

from __future__ import annotations

import http.client
import sqlite3
from pathlib import Path

from poolhall.events import core
from poolhall.events.client_payload import client_payload
from poolhall.server.catch_up import CATCH_UP_PAGE
from tests.conftest import Table
from tests.server.raw import RawPeer
from tests.server.test_lazy_campaigns import restart
from tests.server.test_report_page import _fetch, _ticket


def _token_hashes(db_path: Path) -> set[str]:
    """Every token hash the log keeps (it must keep them: joins find members by them)."""
    with sqlite3.connect(db_path) as db:
        found = {row[0] for row in db.execute(
            "SELECT json_extract(payload, '$.token_hash') FROM events"
            " WHERE type IN ('member_invited', 'replay_shared')")}
    assert found
    assert None not in found
    return found


class _Listening:
    """A raw peer that keeps the text of every frame it receives."""

    def __init__(self, peer: RawPeer) -> None:
        self.peer = peer
        self.texts: list[str] = []

    async def recv_until(self, kind: str) -> str:
        while True:
            text = await self.peer.connection.recv()
            assert isinstance(text, str)
            self.texts.append(text)
            if f'"type":"{kind}"' in text:
                return text


async def _raw(table: Table, token: str, campaign: str, **join: object) -> _Listening:
    peer = await RawPeer.open(table.url)
    await peer.send({"type": "join", "token": token, "campaign": campaign, **join})
    listening = _Listening(peer)
    await listening.recv_until("welcome")
    return listening


async def _report_page(table: Table, token: str, campaign: str) -> tuple[int, str]:
    """The report page, asked for again if the server drops the request: on a machine this
    loaded a first report can take longer to draw than the handshake may (the page being made
    is shared, so a second ticket gets it)."""
    for attempt in range(3):
        ticket = await _ticket(table, token, campaign)
        try:
            status, _, page = await _fetch(table.url.replace("ws://", "http://")
                                           + str(ticket["path"]))
            return status, page
        except (http.client.RemoteDisconnected, ConnectionError):
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _leaks(texts: list[str], hashes: set[str]) -> list[str]:
    return [digest for digest in hashes if any(digest in text for text in texts)]


async def test_no_frame_of_any_path_carries_a_token_hash(table: Table) -> None:
    """Live, snapshot, catch-up pages, history, state_at, replay and report: none
    holds any token hash of the log, though the log keeps them all."""
    await restart(table)  # rates for a test that reads much at once
    campaign, gm = await table.create_campaign("d12")
    watcher = await table.invite(gm, "spectator", name="Watcher")
    live = await _raw(table, watcher._token, campaign, since=watcher.head)
    await gm.call(core.Invite, role="player", name="Ann", characters=("ann",))
    await gm.call(core.StartSession, title="One")
    share = await gm.call(core.ShareReplay, session=1, name="for the forum")
    assert share.token
    for number in range(CATCH_UP_PAGE + 10):  # a whole page of the catch-up, and more
        await gm.call(core.Roll, expression="1d6", reason=f"roll {number}")
    head = (await gm.call(core.EndSession)).seqs[0]
    texts: list[str] = []
    while True:  # the live frames, up to the head
        text = await live.recv_until("event")
        if f'"seq":{head},' in text:
            break
    texts += live.texts
    hashes = _token_hashes(table.db_path)
    assert len(hashes) == 4  # the GM, the watcher, the player, the replay link
    assert not _leaks(texts, hashes), "a live event carried a token hash"
    assert '"type":"member_invited"' in "".join(texts)
    assert '"type":"replay_shared"' in "".join(texts)

    fresh = await _raw(table, watcher._token, campaign, since=0)  # a snapshot, from the cache
    await fresh.recv_until("snapshot")
    caught = await _raw(table, watcher._token, campaign, since=0, replay=True)  # built pages
    while f'"seq":{head},' not in caught.texts[-1]:
        await caught.recv_until("event")
    asked = await _raw(table, watcher._token, campaign, since=head)
    await asked.peer.send({"type": "history", "id": "history-0001", "before": 20, "limit": 19})
    await asked.recv_until("history")
    await asked.peer.send({"type": "state_at", "id": "state-at-0001", "seq": 8})
    await asked.recv_until("snapshot")
    replay = await _raw(table, share.token, campaign)
    await replay.peer.send({"type": "history", "id": "history-0002", "before": head + 1,
                            "limit": 500})
    await replay.recv_until("history")
    await replay.peer.send({"type": "state_at", "id": "state-at-0002", "seq": head})
    await replay.recv_until("snapshot")
    status, page = await _report_page(table, gm._token, campaign)
    assert status == 200
    for listening in (fresh, caught, asked, replay):
        texts += listening.texts
        await listening.peer.close()
    texts.append(page)
    assert any('"type":"member_invited"' in text for text in caught.texts)
    assert not _leaks(texts, hashes)

    # the recent events a snapshot reads after a start, and a catch-up read from the file
    await restart(table)
    after = await _raw(table, watcher._token, campaign, since=0)
    await after.recv_until("snapshot")
    again = await _raw(table, watcher._token, campaign, since=0, replay=True)
    while f'"seq":{head},' not in again.texts[-1]:
        await again.recv_until("event")
    texts = after.texts + again.texts
    for listening in (after, again):
        await listening.peer.close()
    assert '"type":"member_invited"' in "".join(again.texts)
    assert not _leaks(texts, hashes)
    assert _token_hashes(table.db_path) == hashes  # the log keeps every one


async def test_the_python_client_reads_member_events_without_their_hash(table: Table) -> None:
    """The client decodes a member_invited without a token hash (it reads as empty) and its
    fold names the member as the server's does."""
    campaign, gm = await table.create_campaign("d12")
    ack = await gm.call(core.Invite, role="player", name="Ann", characters=("ann",))
    player = await table.connect(campaign, str(ack.token), replay=True)
    await player.wait_for_seq(ack.seqs[-1])
    invited = [r.event for r in player.drain() if isinstance(r.event, core.MemberInvited)]
    assert [(e.name, e.token_hash) for e in invited] == [("GM", ""), ("Ann", "")]
    assert player.state.members[str(ack.member)].name == "Ann"
    assert "" not in player.state.tokens


def test_client_payload_withholds_only_the_secret_fields() -> None:
    """The token hash is gone from a ``member_invited`` payload; other events keep their bytes."""
    payload = (b'{"type":"member_invited","member":"ann","name":"Ann \\u00e9\\"x","role":'
               b'"player","characters":["ann"],"token_hash":"' + b"ab" * 32 + b'"}')
    assert b"token_hash" not in client_payload("member_invited", payload)
    assert b'"name":"Ann \\u00e9\\"x"' in client_payload("member_invited", payload)
    other = b'{"type":"dice_rolled","token_hash":"kept: not a secret field of this type"}'
    assert client_payload("dice_rolled", other) is other
