"""A player's ``self`` roll is on their own table, not only in their log.

A self roll is seen by its player and the GM alone until its session ends. Its event frame
went whole to the player, but every member who is not the GM got the one public table (the
``table`` message and a join's snapshot), so a Shadowrun player's self test was missing from
their own "Latest tests" until the session ended. Each player with a self roll pending now
has a table of their own (:attr:`poolhall.server.audience.PublicTable.own`): live, on a
join's snapshot and after the campaign is loaded again from the log; the other players' tables
stay without it until the reveal.
"""

from __future__ import annotations

import json
from typing import Any

from poolhall.events import core
from poolhall.events import sr3 as vocabulary
from tests.conftest import Table
from tests.server.test_lazy_campaigns import restart
from tests.server.test_private_rolls import _join
from tests.server.test_token_hashes_withheld import _Listening
from tests.sr3.sr3_support import street_sam

PERCEPTION = {"character": "rook", "attribute": "intelligence", "tn": 4,
              "kind": "perception"}


def _tests(message: str) -> dict[str, Any]:
    """The Shadowrun tests on the table of a ``table`` or ``snapshot`` message."""
    frame = json.loads(message)
    table = frame.get("table") or frame.get("state") or {}
    tests: dict[str, Any] = table["game"]["tests"]
    return tests


async def _table_after(listening: _Listening, seq: int) -> str:
    """The first ``table`` message the connection gets once it has been sent event ``seq``
    (whole or sealed): the table as it stands after that event."""
    while f'"seq":{seq},' not in "".join(listening.texts[-3:]):
        await listening.recv_until("event")
    return await listening.recv_until("table")


async def _fresh(table: Table, token: str, campaign: str) -> tuple[str, str]:
    """A page's join from nothing: its snapshot and its first ``table`` message."""
    joined = await _join(table, {"token": token, "campaign": campaign, "since": 0,
                                 "table": True})
    snapshot = await joined.recv_until("snapshot")
    first = await joined.recv_until("table")
    await joined.peer.close()
    return snapshot, first


async def test_a_players_self_test_is_on_their_own_table_and_no_one_elses(
        table: Table) -> None:
    """Ann rolls a self Perception test for Rook: her table has test 1, live and on a join's
    snapshot, and again after a restart loads the campaign from the log; Bob's never has it
    until the session ends, when everyone's table does."""
    campaign, gm = await table.create_campaign("sr3")
    await gm.call(core.CreateCharacter, character="rook", name="Rook", stats=street_sam())
    await gm.call(core.CreateCharacter, character="sam", name="Sam", stats=street_sam())
    ann = await table.invite(gm, "player", ("rook",), name="Ann")
    bob = await table.invite(gm, "player", ("sam",), name="Bob")
    tokens = {"ann": ann._token, "bob": bob._token}
    await gm.call(core.StartSession, title="The docks")
    pages = {name: await _join(table, {"token": token, "campaign": campaign, "since": 0,
                                       "table": True}) for name, token in tokens.items()}
    for page in pages.values():
        await page.recv_until("table")

    rolled = await ann.call(vocabulary.RollPoolTest, **PERCEPTION, visibility="self")
    seq = rolled.seqs[-1]
    assert "1" in _tests(await _table_after(pages["ann"], seq))
    assert _tests(await _table_after(pages["bob"], seq)) == {}
    for page in pages.values():
        await page.peer.close()

    for name, expected in (("ann", {"1"}), ("bob", set())):
        snapshot, first = await _fresh(table, tokens[name], campaign)
        assert set(_tests(snapshot)) == expected, name
        assert set(_tests(first)) == expected, name

    await restart(table)  # the campaign is loaded again from the log, tables and all
    for name, expected in (("ann", {"1"}), ("bob", set())):
        snapshot, first = await _fresh(table, tokens[name], campaign)
        assert set(_tests(snapshot)) == expected, name
        assert set(_tests(first)) == expected, name

    gm = await table.connect(campaign, gm._token)
    await gm.call(core.EndSession)
    for name in tokens:
        snapshot, first = await _fresh(table, tokens[name], campaign)
        assert set(_tests(snapshot)) == {"1"}, name
        assert set(_tests(first)) == {"1"}, name
