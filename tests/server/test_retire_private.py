"""A character retired while private rolls of theirs wait for their reveal: nothing of those
rolls (their reasons) reaches a member who may not see them, live or through ``state_at``,
history or the report; the session's end still reveals them, and the table folds again after
a restart."""

from __future__ import annotations

import asyncio
import urllib.request

from poolhall.events import core
from poolhall.events import sr3 as vocabulary
from tests.conftest import Table, start_server
from tests.server.raw import RawPeer
from tests.sr3.sr3_support import street_sam

QUICKNESS: dict[str, object] = {"character": "rook", "attribute": "quickness", "tn": 4}


async def _report(table: Table, token: str, campaign: str) -> str:
    """Session 1's report page as Ben would open it."""
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(token, campaign)
        await peer.send({"type": "report", "id": "report-0001", "session": 1})
        path = str((await peer.recv_until("report", timeout=10))["path"])
    finally:
        await peer.close()
    url = table.url.replace("ws://", "http://", 1).rstrip("/") + path
    for _ in range(60):
        body: str = await asyncio.to_thread(
            lambda: urllib.request.urlopen(url, timeout=60).read().decode())
        if "being made" not in body:
            return body
        await asyncio.sleep(1)
    raise AssertionError("the report was still being made after a minute")


async def test_retiring_a_character_with_sealed_rolls_tells_no_one_and_breaks_nothing(
        table: Table) -> None:
    """Ana rolls blind and self for Rook, the GM in secret; the GM retires Rook: Ben's frames,
    history, every ``state_at`` and the report hold no reason of those rolls; ending the
    session reveals the three tests to everyone, and a restarted server folds the log."""
    campaign, gm = await table.create_campaign("sr3")
    await gm.call(core.CreateCharacter, character="rook", name="Rook", stats=street_sam())
    tokens = {}
    for name, characters in (("Ana", ("rook",)), ("Ben", ())):
        ack = await gm.call(core.Invite, role="player", name=name, characters=characters)
        assert ack.token
        tokens[name] = ack.token
    await gm.call(core.StartSession, title="The gap")
    ben = await RawPeer.open(table.url)
    await ben.join(tokens["Ben"], campaign)
    frames: list[str | bytes] = []
    ana = await table.connect(campaign, tokens["Ana"])
    await ana.call(vocabulary.RollPoolTest, **QUICKNESS, reason="SECRET-blind", visibility="blind")
    await gm.call(vocabulary.RollPoolTest, **QUICKNESS, reason="SECRET-gm", visibility="gm")
    await ana.call(vocabulary.RollPoolTest, **QUICKNESS, reason="SECRET-self", visibility="self")
    retired = await gm.call(core.RetireCharacter, character="rook", reason="gone")
    head = retired.seqs[-1]
    while True:  # everything Ben was sent up to the retirement
        frame = await asyncio.wait_for(ben.connection.recv(), 5)
        frames.append(frame)
        if f'"seq":{head}' in str(frame).replace(" ", ""):
            break
    assert not [frame for frame in frames if "SECRET" in str(frame)]
    watcher = await table.connect(campaign, tokens["Ben"])
    assert "SECRET" not in repr(await watcher.history(before=head + 1))
    for seq in range(1, head + 1):
        assert "SECRET" not in repr(await watcher.state_at(seq)), seq
    assert "SECRET" not in await _report(table, tokens["Ben"], campaign)

    ended = await gm.call(core.EndSession)
    await watcher.wait_for_seq(ended.seqs[-1])
    for name in ("Ana", "Ben"):
        joined = await table.connect(campaign, tokens[name])
        assert sorted(joined.state.game.tests) == [1, 2, 3], name  # type: ignore[union-attr]
    for seq in range(1, ended.seqs[-1] + 1):
        await watcher.state_at(seq)
    await ben.close()
    await table.close_clients()
    await table.server.stop()
    table.server = await start_server(table.db_path)
    again = await table.connect(campaign, tokens["Ben"])
    assert again.state.retired == {"rook": "Rook"}
    assert sorted(again.state.game.tests) == [1, 2, 3]  # type: ignore[union-attr]
