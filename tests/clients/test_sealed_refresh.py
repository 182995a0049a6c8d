"""The Python client's table after private rolls it receives sealed, several in a burst: each
sealed roll asks the server for the table (:mod:`poolhall.clients.sealed_refresh`), and the
refresh asked while one runs must come back at the client's head. It came back at the older
seq it was asked for: the table went behind events already folded, the next event read as a
gap ("have 16, got 18"), and the resume sent a later event's hash as that seq's and was refused
as diverged (seen once in a full run of the suite). A real server; the GM's rolls sent without
waiting, so that they reach the player before the first refresh is answered."""

from __future__ import annotations

import asyncio

from poolhall.clients.client import Client
from poolhall.events import core
from tests.conftest import Table


async def test_a_burst_of_sealed_rolls_never_takes_the_table_back(table: Table) -> None:
    campaign, gm = await table.create_campaign("d12")
    invited = await gm.call(core.Invite, role="player", name="Ann")
    assert invited.token
    await gm.call(core.StartSession, title="Burst")
    ann = Client(table.url, invited.token, campaign)
    await ann.connect()
    table.clients.append(ann)
    heads: list[int] = []
    for burst in range(6):
        acks = await asyncio.gather(
            *(gm.call(core.Roll, expression="1d6", reason=f"secret {burst}-{k}",
                      visibility="gm") for k in range(3)),
            gm.call(core.Roll, expression="1d4", reason=f"open {burst}"))
        last = max(seq for ack in acks for seq in ack.seqs)
        await ann.wait_for_seq(last)
        for _ in range(20):  # the refreshes answer: the head never goes back
            heads.append(ann.head)
            await asyncio.sleep(0.01)
    assert heads == sorted(heads), heads
    follow = await gm.call(core.Roll, expression="1d8", reason="after the bursts")
    await ann.wait_for_seq(follow.seqs[-1])
    assert ann.reconnects == 0
    assert ann.head == gm.head
