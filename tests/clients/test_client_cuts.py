"""The Python client on a bad network: a link that dies without a word while a command waits
for its answer, and a session that ends while the client is away. A real server, and a real
relay between it and the client (:mod:`tests.clients.cutting_relay`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.core import PrivateRoll
from poolhall.events.errors import NoAnswer
from poolhall.events.messages import EventFrame
from tests.clients.cutting_relay import CuttingRelay
from tests.conftest import Table, until
from tests.serve_process import Watcher


@pytest.fixture
async def relay(table: Table) -> AsyncIterator[CuttingRelay]:
    """A relay to the test's server."""
    relay = CuttingRelay(table.server.port)
    try:
        yield relay
    finally:
        await table.close_clients()  # before the relay goes: no reconnect left running
        await asyncio.to_thread(relay.close)


def _ids_sent(relay: CuttingRelay, kind: str) -> list[str]:
    return [json.loads(text)["id"] for text in relay.seen("up") if f'"type":"{kind}"' in text]


async def test_a_command_on_a_link_dead_without_a_word_is_sent_again(table: Table,
                                                                     relay: CuttingRelay
                                                                     ) -> None:
    """The link dies right after the roll went up (nothing comes back, nothing closes): the
    client checks the link after ``answer_due``, drops it after ``link_silence`` without a
    pong, resumes and sends the roll again with its id, and gets the original ack, well
    before its 30 s timeout (the keepalive would have found the dead link only after 40 s).
    One roll in the log. (A second each, where a client's defaults wait 5 and 4: a server on
    this machine answers a ping in milliseconds, loaded or not, as on a LAN.)"""
    campaign, gm = await table.create_campaign("d12")
    player = Client(relay.url, gm._token, campaign, answer_due=1, link_silence=1)
    await player.connect()
    table.clients.append(player)
    relay.arm("up", '"type":"roll"', "dead")
    loop = asyncio.get_running_loop()
    started = loop.time()
    ack = await asyncio.wait_for(player.call(core.Roll, expression="1d6", reason="dead link"),
                                 25)
    assert loop.time() - started < 20
    assert _ids_sent(relay, "roll") == [ack.id, ack.id]
    assert player.reconnects == 1
    assert table.server.log is not None
    rolled = [r.seq for r in table.server.log.rows(campaign) if r.type == "dice_rolled"]
    assert rolled == ack.seqs[-1:]


async def test_a_command_that_gets_no_answer_says_what_happened(table: Table,
                                                                relay: CuttingRelay) -> None:
    """The link dies after the roll went up and no new connection gets through: at the
    command's timeout the client raises :class:`NoAnswer` (a :class:`TimeoutError`), whose
    message names the command and its id, where the connection stands, and that it may have
    been applied; never a bare TimeoutError without a word. (The link is found dead 2 s in,
    2 s before the timeout: the message says it was lost and no new one got through.)"""
    campaign, gm = await table.create_campaign("d12")
    player = Client(relay.url, gm._token, campaign, timeout=4, answer_due=1, link_silence=1)
    await player.connect()
    table.clients.append(player)
    relay.arm("up", '"type":"roll"', "dead")
    relay.refuse = True
    with pytest.raises(TimeoutError) as raised:
        await player.call(core.Roll, expression="1d6")
    assert isinstance(raised.value, NoAnswer)
    (sent,) = _ids_sent(relay, "roll")
    message = str(raised.value)
    assert message.startswith(f"no answer to the roll command {sent} in 4s (the connection "
                              "was lost and is not back: the server is not answering)")
    assert "it may have been applied: sending it again with the same id" in message


@pytest.mark.parametrize(("given", "error", "words"), [
    ({"answer_due": "5"}, TypeError, "answer_due must be a number of seconds, not '5'"),
    ({"link_silence": None}, TypeError, "link_silence must be a number of seconds, not None"),
    ({"answer_due": True}, TypeError, "answer_due must be a number of seconds, not True"),
    ({"answer_due": 0}, ValueError,
     "answer_due must be a number of seconds of at least 0.1, not 0"),
    ({"link_silence": -1.5}, ValueError,
     "link_silence must be a number of seconds of at least 0.1, not -1.5"),
    ({"link_silence": float("nan")}, ValueError,
     "link_silence must be a number of seconds of at least 0.1, not nan"),
    ({"answer_due": float("inf")}, ValueError,
     "answer_due must be a number of seconds of at least 0.1, not inf"),
    ({"answer_due": 1e-6}, ValueError,
     "answer_due must be a number of seconds of at least 0.1, not 1e-06"),
    ({"link_silence": 0.09}, ValueError,
     "link_silence must be a number of seconds of at least 0.1, not 0.09"),
    ({"answer_due": 10**400}, ValueError,
     "answer_due must be a number of seconds of at least 0.1, not a number of about 401 digits"),
    ({"link_silence": -10**5000}, ValueError,
     "link_silence must be a number of seconds of at least 0.1, not a number of about 5001 digits"),
])
def test_link_check_timings_that_are_no_seconds_are_refused_in_words(
        given: dict[str, object], error: type[Exception], words: str) -> None:
    """``answer_due`` and ``link_silence`` take seconds, at least 0.1: anything else is
    refused when the client is made, naming the parameter and what it got (no server here:
    nothing is opened); not later, in a request's wait, where 0 would ping the link at every
    turn of the loop and a string would fail with a word about floats. Below 0.1 (1e-6) one
    client pinged thousands of times a second and dropped a healthy link five times a second;
    an int past a float's range raised a bare OverflowError."""
    with pytest.raises(error) as raised:
        Client("ws://127.0.0.1:9", "token", "edge", **given)  # type: ignore[arg-type]
    assert str(raised.value) == words


def test_link_check_timings_at_the_floor_are_taken() -> None:
    """0.1 s, the least either takes, is taken (no server here: nothing is opened)."""
    Client("ws://127.0.0.1:9", "token", "edge", answer_due=0.1, link_silence=0.1)


async def test_rolls_revealed_while_the_client_was_away_are_read_again(table: Table,
                                                                       relay: CuttingRelay
                                                                       ) -> None:
    """A player's blind roll reaches their client sealed; the link dies, the GM ends the
    session (the server sends the rolls whole to those connected: not to this client), then
    the client notices and resumes. It reads the roll again, whole: in ``revealed``, handed to
    ``on_revealed`` once, and its table is the server's again."""
    campaign, gm = await table.create_campaign("d12")
    invited = await gm.call(core.Invite, role="player", name="Han")
    assert invited.token
    await gm.call(core.StartSession, title="One")
    heard: list[list[EventFrame]] = []
    han = Client(relay.url, invited.token, campaign, on_revealed=heard.append)
    await han.connect()
    table.clients.append(han)
    rolled = await han.call(core.Roll, expression="1d12", visibility="blind",
                            reason="in the dark")
    await han.wait_for_seq(rolled.seqs[-1])
    (sealed,) = [r.event for r in han.drain() if r.seq == rolled.seqs[-1]]
    assert isinstance(sealed, PrivateRoll)
    await asyncio.to_thread(relay.go_dead)
    ended = await gm.call(core.EndSession)
    await asyncio.sleep(0.5)  # the reveal went to those connected; not through a dead link
    await asyncio.to_thread(relay.cut_all)
    await until(lambda: heard, 2000)
    assert han.reconnects == 1
    assert han.head >= ended.seqs[-1]
    assert [[frame.seq for frame in frames] for frames in heard] == [rolled.seqs[-1:]]
    (whole,) = han.revealed
    assert isinstance(whole.event, core.DiceRolled)
    assert whole.event.reason == "in the dark"
    fresh = await table.connect(campaign, invited.token)
    await han.wait_until(lambda: han.state.rolls == fresh.state.rolls, 10)
    await asyncio.sleep(0.3)
    assert len(heard) == 1  # once


async def test_watch_asleep_when_the_session_ends_prints_the_rolls_revealed(
        table: Table, relay: CuttingRelay) -> None:
    """A player's ``poolhall watch`` prints the GM's secret roll sealed; its link dies while
    the GM ends the session, then it reconnects: it prints the roll whole, revealed, as it
    does when it was connected at the end (it kept "sealed" for good)."""
    campaign, gm = await table.create_campaign("d12")
    ana = await table.invite(gm, "player", name="Ana")
    await gm.call(core.StartSession)
    watcher = Watcher(campaign, "--url", relay.url, "--token", ana._token,
                      cwd=table.db_path.parent)
    try:
        await asyncio.to_thread(watcher.wait_for, "-- live")
        await gm.call(core.Roll, expression="2d6", reason="ambush", visibility="gm")
        await asyncio.to_thread(watcher.wait_for, "acted in secret (gm)")
        await asyncio.to_thread(relay.go_dead)
        await gm.call(core.EndSession)
        await asyncio.sleep(0.5)
        await asyncio.to_thread(relay.cut_all)
        await asyncio.to_thread(watcher.wait_for, "back (resumed at event")
        await asyncio.to_thread(watcher.wait_for, "revealed at the session's end")
        whole = await asyncio.to_thread(watcher.wait_for, "2d6")
        assert "rolled 2d6 (ambush)" in whole
    finally:
        watcher.stop()


async def test_waiting_for_an_event_that_never_comes_says_which(table: Table) -> None:
    """``wait_for_seq`` and ``wait_until`` past their timeout raise :class:`NoAnswer` (still a
    :class:`TimeoutError`) naming the event waited for and the client's head, not a bare
    ``TimeoutError`` with no message."""
    campaign, gm = await table.create_campaign("d12")
    head = gm.head
    with pytest.raises(NoAnswer) as raised:
        await gm.wait_for_seq(head + 5, timeout=0.3)
    assert str(raised.value).startswith(
        f"event {head + 5} did not arrive in 0.3s (this client's table is at event {head}; ")
    with pytest.raises(NoAnswer) as waited:
        await gm.wait_until(lambda: gm.head > head + 5, timeout=0.3)
    assert str(waited.value).startswith("what was waited for did not come in 0.3s (")
