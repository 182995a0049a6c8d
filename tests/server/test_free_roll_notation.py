"""A ``roll`` whose expression is the campaign's own notation is that system's roll, read by
the server with ``poolhall roll``'s reading (:func:`poolhall.events.free_roll.in_notation`):
what the table page's roll form sends as typed. Plain dice stay dice in every system."""

from __future__ import annotations

import asyncio
import json
import unicodedata
from collections.abc import Awaitable, Callable
from typing import TypeVar

import msgspec
import pytest

from poolhall.clients.client import Client
from poolhall.events import core, d12, narrative, sr3
from poolhall.events.dice import parse_dice
from poolhall.events.errors import CommandRejected, NotationError
from poolhall.events.messages import Ack
from tests.conftest import Table
from tests.narrative.test_narrative_vocabulary import NOTATION_CASES
from tests.sr3.sr3_support import street_sam

T = TypeVar("T")
MAX_EXPRESSION = 100
"""The longest ``roll`` expression the protocol takes (``events.base.Expression``)."""


async def _patiently(send: Callable[[], Awaitable[T]]) -> T:
    """``send()``, again after the member's rate limit's wait as a client would (the shared
    cases go back to back)."""
    while True:
        try:
            return await send()
        except CommandRejected as refused:
            if refused.code != "rate_limited":
                raise
            await asyncio.sleep(refused.retry_after or 0.1)


async def _call(client: Client, expression: str, **fields: object) -> Ack:
    return await _patiently(lambda: client.call(core.Roll, expression=expression, **fields))


async def _rolled(client: Client, expression: str, **fields: object) -> list[object]:
    """The events a ``roll`` of ``expression`` appended, as ``client`` folded them."""
    ack = await _call(client, expression, **fields)
    await client.wait_for_seq(ack.seqs[-1])
    page = await _patiently(lambda: client.history(before=ack.seqs[-1] + 1,
                                                   limit=len(ack.seqs)))
    return [recorded.event for recorded in page if recorded.seq in ack.seqs]


def _is_dice(text: str) -> bool:
    try:
        parse_dice(text)
    except NotationError:
        return False
    return True


async def _refused(client: Client, expression: str, **fields: object) -> CommandRejected:
    with pytest.raises(CommandRejected) as refused:
        await _call(client, expression, **fields)
    return refused.value


async def test_the_server_reads_every_shared_narrative_case_as_poolhall_roll_does(
        table: Table) -> None:
    """Each case of ``tests/narrative/notation_cases.json`` sent as a ``roll`` to a narrative
    table: a pool is rolled as that pool, a mistake is refused in the CLI's words about the
    expression (nothing appended), and text of no notation gets the dice's words. A control
    character (a tab) or a text over 100 characters is refused by the protocol first, as the
    page's roll would be."""
    campaign, gm = await table.create_campaign("narrative")
    for case in json.loads(NOTATION_CASES.read_text()):
        head = gm.head
        if any(unicodedata.category(char) == "Cc" for char in case["text"]):
            refused = await _refused(gm, case["text"])
            assert refused.message.startswith("control characters are not allowed"), case
        elif len(case["text"]) > MAX_EXPRESSION:
            refused = await _refused(gm, case["text"])
            assert refused.message == "the expression holds at most 100 characters", case
        elif "error" in case:
            refused = await _refused(gm, case["text"])
            assert (refused.code, refused.message, refused.path) == (
                "invalid", case["error"], "$.expression"), case
        elif case["pool"] is None and _is_dice(case["text"]):
            [event] = await _rolled(gm, case["text"])
            assert isinstance(event, core.DiceRolled), case
            continue
        elif case["pool"] is None:
            refused = await _refused(gm, case["text"])  # not narrative; not dice either
            assert refused.path == "$.expression", case
        else:
            [event] = await _rolled(gm, case["text"])
            assert isinstance(event, narrative.PoolRolled), case
            assert msgspec.to_builtins(event.pool) == case["pool"], case
            continue
        assert gm.head == head  # a refusal appended nothing


async def test_a_narrative_pool_keeps_the_roll_s_character_reason_and_visibility(
        table: Table) -> None:
    """``2g 1p`` as Han, for a reason, as the GM's secret: the pool is rolled with each."""
    campaign, gm = await table.create_campaign("narrative")
    await gm.call(core.CreateCharacter, character="han", name="Han",
                  stats={"system": "narrative", "agility": 3})
    await gm.call(core.StartSession, title="Bespin")
    [event] = await _rolled(gm, "2g 1p", character="han", reason="slicing the door",
                            visibility="gm")
    assert isinstance(event, narrative.PoolRolled)
    assert (event.character, event.reason, event.visibility) == ("han", "slicing the door", "gm")
    [dice] = await _rolled(gm, "2d6+1")  # plain dice are dice on any table
    assert isinstance(dice, core.DiceRolled)
    assert dice.expression == "2d6+1"


async def test_an_sr3_test_is_the_player_s_one_character_s_or_says_whose(table: Table) -> None:
    """``6d6 tn5`` on an SR3 table is a test: a player who plays one character rolls it for
    them, as ``poolhall roll`` does; the GM, who plays none, is asked whose test it is."""
    campaign, gm = await table.create_campaign("sr3")
    await gm.call(core.CreateCharacter, character="rook", name="Rook", stats=street_sam())
    await gm.call(core.CreateCharacter, character="kat", name="Kat", stats=street_sam())
    ack = await gm.call(core.Invite, role="player", name="Ana", characters=("rook",))
    assert ack.token
    ana = await table.connect(campaign, ack.token)
    [event] = await _rolled(ana, "6d6 tn5", reason="climb")
    assert isinstance(event, sr3.PoolTestRolled)
    assert (event.character, event.base_dice, event.tn, event.reason) == ("rook", 6, 5, "climb")
    refused = await _refused(gm, "6d6 tn5")
    assert (refused.code, refused.path) == ("invalid", "$.character")
    assert refused.message == "say whose test it is (the campaign's: Rook, Kat)"
    ack = await gm.call(core.Invite, role="player", name="Cy", characters=("rook", "kat"))
    assert ack.token
    cy = await table.connect(campaign, ack.token)
    refused = await _refused(cy, "6d6 tn5")
    assert refused.message == "say whose test it is: you play Rook, Kat"
    refused = await _refused(gm, "6d6 tn5 +2zz", character="rook")
    assert refused.path == "$.expression"
    assert "no pool 'zz'" in refused.message
    refused = await _refused(gm, "6d6 tn99999", character="rook")  # in words, not msgspec's
    assert refused.message.startswith("the target number is between 2 and 100")
    ack = await gm.call(core.Invite, role="spectator", name="Sol")
    assert ack.token
    sol = await table.connect(campaign, ack.token)
    refused = await _refused(sol, "6d6 tn5")  # a spectator is not asked whose test it is
    assert (refused.code, refused.message) == ("forbidden", "a spectator may not roll")


async def test_a_d12_basic_test_is_rolled_from_its_notation(table: Table) -> None:
    """``5d12 dt7`` on a d12 table starts and rolls the GM's basic test, its reason the
    test's label (it was dropped without a word); ``5d10 dt7`` is refused in the notation's
    words. A player who plays one character rolls the test called for them without naming
    it, as on an SR3 table; made private, it is refused in words about the called test (they
    listed ``roll`` as a roll a player may make private)."""
    campaign, gm = await table.create_campaign("d12")
    events = await _rolled(gm, "5d12 dt7", reason="kick the door")
    started = events[0]
    assert isinstance(started, d12.ThresholdTestStarted)
    assert started.label == "kick the door"
    rolled = [event for event in events if isinstance(event, d12.ThresholdDiceRolled)]
    assert len(rolled) == 1
    refused = await _refused(gm, "5d10 dt7")
    assert refused.message == "a threshold test rolls d12s, not d10"

    await gm.call(core.CreateCharacter, character="mara", name="Mara",
                  stats=d12.D12Stats(ratings={"CON": 2, "CHA": 2, "WIL": 4}))
    ack = await gm.call(core.Invite, role="player", name="Eve", characters=("mara",))
    assert ack.token
    eve = await table.connect(campaign, ack.token)
    await gm.call(d12.CallThresholdTest, character="mara", stats=("WIL",), dt=6)
    refused = await _refused(eve, "4d12 dt6", visibility="self")
    assert (refused.message, refused.path) == ("a test the GM called is rolled in the open",
                                               "$.visibility")
    refused = await _refused(eve, "4d12 dt6", reason="kick")
    assert refused.path == "$.reason"
    events = await _rolled(eve, "4d12 dt6")
    assert [type(event) for event in events] == [d12.ThresholdDiceRolled]
