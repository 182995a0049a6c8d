"""The Python client on a bad network: a link that dies without a word while a command waits
for its answer. A real server, and a real relay between it and the client
(:mod:`tests.clients.cutting_relay`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events.errors import NoAnswer
from tests.clients.cutting_relay import CuttingRelay
from tests.conftest import Table


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
    client checks the link after a few seconds, drops it, resumes and sends the roll again
    with its id, and gets the original ack, well before its 30 s timeout (the keepalive
    would have found the dead link only after 40 s). One roll in the log."""
    campaign, gm = await table.create_campaign("d12")
    player = Client(relay.url, gm._token, campaign)
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
    been applied; never a bare TimeoutError without a word."""
    campaign, gm = await table.create_campaign("d12")
    player = Client(relay.url, gm._token, campaign, timeout=14)
    await player.connect()
    table.clients.append(player)
    relay.arm("up", '"type":"roll"', "dead")
    relay.refuse = True
    with pytest.raises(TimeoutError) as raised:
        await player.call(core.Roll, expression="1d6")
    assert isinstance(raised.value, NoAnswer)
    (sent,) = _ids_sent(relay, "roll")
    message = str(raised.value)
    assert message.startswith(f"no answer to the roll command {sent} in 14s (the connection "
                              "was lost and is not back: the server is not answering)")
    assert "it may have been applied: sending it again with the same id" in message
