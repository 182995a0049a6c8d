"""The Python client through a server restart, a server gone for good, an unread table."""

from __future__ import annotations

import asyncio

import pytest

from poolhall.clients import client as client_module
from poolhall.clients.client import Client
from poolhall.events import core, d12
from poolhall.events.errors import ConnectionLost
from poolhall.server.app import Server
from tests.conftest import ADMIN_TOKEN, Table, until


async def test_a_command_sent_while_the_server_restarts_is_answered_after_it(table: Table) -> None:
    """The client waits out a restart, resumes, and re-sends what it had not had answered."""
    campaign, gm = await table.create_campaign("d12")
    await table.server.stop()
    rolling = asyncio.create_task(gm.call(core.Roll, expression="1d6", reason="during"))
    await asyncio.sleep(0.3)
    assert not rolling.done()
    port = table.server.port
    table.server = Server(table.db_path, "127.0.0.1", port, admin_token=ADMIN_TOKEN)
    await table.server.start()
    ack = await asyncio.wait_for(rolling, 20)
    assert gm.reconnects >= 1
    assert gm.head >= ack.seqs[-1]
    assert table.server.log is not None
    rows = [r for r in table.server.log.rows(campaign) if r.type == "dice_rolled"]
    assert [r.seq for r in rows] == ack.seqs[-1:]  # once, after the epoch it ended (fairness)


async def test_a_client_that_gave_up_fails_sends_at_once(table: Table) -> None:
    """No server for longer than ``reconnect_for``: pending and later commands fail fast."""
    campaign, gm = await table.create_campaign("d12")
    quick = await table.connect(campaign, gm._token, reconnect_for=0.3, timeout=3600)
    await table.server.stop()
    with pytest.raises(ConnectionLost):
        await quick.call(core.Roll, expression="1d6")
    later = asyncio.create_task(quick.call(core.Roll, expression="1d6"))
    await asyncio.sleep(0)  # one pass of the loop: the call may not wait for anything
    assert later.done()
    with pytest.raises(ConnectionLost, match="could not reconnect"):
        later.result()


async def test_close_while_reconnecting_returns(table: Table) -> None:
    """Closing a client whose server is gone does not wait for the reconnect attempts."""
    campaign, gm = await table.create_campaign("d12")
    await table.server.stop()
    await asyncio.sleep(0.2)  # the client is now retrying
    await asyncio.wait_for(gm.close(), 5)
    async for _ in gm:  # the event stream ends
        pass


async def test_a_client_nobody_iterates_keeps_a_bounded_buffer(table: Table,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """Events not read through ``async for`` are kept up to a bound; the state has them all."""
    monkeypatch.setattr(client_module, "EVENT_BUFFER", 5)
    campaign, gm = await table.create_campaign("d12")
    watcher = await table.connect(campaign, gm._token)
    for _ in range(8):
        ack = await gm.call(core.Roll, expression="1d6")
    await watcher.wait_for_seq(ack.seqs[-1])
    kept = watcher.drain()
    assert [r.seq for r in kept] == list(range(ack.seqs[-1] - 4, ack.seqs[-1] + 1))
    assert len(watcher.state.rolls) == 8


async def test_waiting_for_an_event_fails_once_the_client_gave_up(table: Table) -> None:
    """``wait_for_seq`` and ``wait_until`` raise ``ConnectionLost`` instead of timing out."""
    campaign, gm = await table.create_campaign("d12")
    quick = await table.connect(campaign, gm._token, reconnect_for=0.3)
    # Timeouts no test run reaches: only the client giving up can end these waits.
    waiting = asyncio.create_task(quick.wait_for_seq(quick.head + 10, timeout=3600))
    watching = asyncio.create_task(quick.wait_until(lambda: quick.views.get("never"),
                                                    timeout=3600))
    await asyncio.sleep(0)  # both are waiting now
    await table.server.stop()
    for task in (waiting, watching):
        with pytest.raises(ConnectionLost, match="could not reconnect") as error:
            await asyncio.wait_for(task, 60)  # only a guard against hanging
        assert error.value is quick.lost


async def test_a_newer_message_type_is_skipped_and_a_broken_event_ends_the_client() -> None:
    """Against a peer speaking a newer protocol: a message type the client does not know is
    skipped, and so is a view of a kind it does not know; an event it cannot read ends it at
    once (no reconnect loop on the same frame)."""
    import json

    from websockets.asyncio.server import ServerConnection, serve

    async def newer_server(connection: ServerConnection) -> None:
        await connection.recv()  # the join
        await connection.send(json.dumps({
            "type": "welcome", "role": "gm", "member": "gm", "campaign": "c", "name": "C",
            "system": "d12", "head": 0}))
        await connection.send(json.dumps({"type": "hologram", "data": 1}))
        await connection.send(json.dumps({"type": "view", "about": "before",
                                          "data": {"view": "hologram_odds", "p": 1}}))
        await connection.send(json.dumps({"type": "view", "about": "after", "data": {
            "view": "d12_test_odds", "test": 1, "open": True, "kind": "basic",
            "character": None, "margins": []}}))
        await connection.send(json.dumps({
            "type": "event", "seq": 1, "at": "2026-11-22T08:00:00.000Z", "actor": "gm",
            "command": "c1", "event": {"type": "dice_rolled", "total": "lots"}}))
        await connection.wait_closed()

    async with serve(newer_server, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        peer = Client(f"ws://127.0.0.1:{port}", "ph_" + "x" * 40, "c", reconnect_for=5)
        await peer.connect()
        view = await peer.wait_until(lambda: peer.views.get("after"), timeout=5)
        assert view == d12.D12TestOdds(test=1, open=True, kind="basic", character=None,
                                       margins=[])
        assert "before" not in peer.views  # a view of a kind it does not know is skipped
        with pytest.raises(ConnectionLost, match="cannot read"):
            await peer.wait_for_seq(1, timeout=5)
        assert peer.reconnects == 0
        await peer.close()


async def test_a_shared_send_outlives_the_caller_that_started_it(table: Table) -> None:
    """Two callers await one command; the first gives up early, the second still gets the
    answer (the command stays in flight until nobody waits for it)."""
    _, gm = await table.create_campaign("d12")
    command = core.Roll(id="shared", expression="1d6")
    first = asyncio.create_task(gm.send(command))
    second = asyncio.create_task(gm.send(command))
    await asyncio.sleep(0)
    first.cancel()
    ack = await asyncio.wait_for(second, 5)
    assert ack.seqs
    assert "shared" not in gm._commands


async def test_close_during_a_reconnect_handshake_that_never_ends_returns(table: Table) -> None:
    """The server's port answers TCP but never the websocket handshake: ``close()`` still
    returns, without waiting out the handshake's timeout."""
    campaign, gm = await table.create_campaign("d12")
    slow = await table.connect(campaign, gm._token, timeout=300)  # longer than the guard
    port = table.server.port
    await table.server.stop()
    knocked = asyncio.Event()
    silent = await asyncio.start_server(lambda reader, writer: knocked.set(), "127.0.0.1", port)
    try:
        await knocked.wait()  # the client is now stuck in a handshake
        await asyncio.wait_for(slow.close(), 60)  # a guard, well short of the handshake timeout
        assert isinstance(slow.lost, ConnectionLost)
    finally:
        silent.close()


async def test_connection_hook_says_when_the_link_drops_and_when_it_is_back(table: Table) -> None:
    """``on_connection`` hears ``False`` when the server goes and ``True`` once resumed."""
    campaign, gm = await table.create_campaign("d12")
    heard: list[tuple[bool, int]] = []
    watcher = await table.connect(campaign, gm._token,
                                  on_connection=lambda up, head: heard.append((up, head)))
    assert watcher.welcome is not None
    await watcher.wait_for_seq(watcher.welcome.head)
    head = watcher.head
    assert heard == []
    await table.server.stop()
    await until(lambda: heard, 500)
    assert heard == [(False, head)], (heard, head)
    port = table.server.port
    table.server = Server(table.db_path, "127.0.0.1", port, admin_token=ADMIN_TOKEN)
    await table.server.start()
    await until(lambda: len(heard) == 2)
    assert heard == [(False, head), (True, head)]


async def test_view_hook_hears_each_view(table: Table) -> None:
    """``on_view`` is called with every view the server sends, as :attr:`views` holds it."""
    campaign, gm = await table.create_campaign("d12")
    seen: list[str] = []
    watcher = await table.connect(campaign, gm._token,
                                  on_view=lambda view: seen.append(view.about))
    await gm.call(core.CreateCharacter, character="han", name="Han",
                  stats=d12.D12Stats(ratings={"CON": 3, "CHA": 2, "STR": 4}))
    await gm.call(d12.CallThresholdTest, character="han", stats=("STR",), dt=7)
    await until(lambda: "test:1" in seen)
    assert "test:1" in watcher.views
