"""A Shadowrun test rolled in private carries how it was rolled and in which fair epoch into
the table, so that a page can tell a test still sealed (which the server will not let anyone
reroll with Karma) from a public one, and from one whose seed has since been revealed."""

from __future__ import annotations

import pytest

from poolhall.events import core
from poolhall.events import sr3 as vocabulary
from poolhall.events.errors import Rejected
from poolhall.projections import sr3 as projection
from poolhall.projections.campaign import CampaignState
from tests.conftest import Table
from tests.sr3.sr3_support import street_sam

PERCEPTION = {"character": "rook", "attribute": "intelligence", "tn": 2,
              "kind": "perception"}
"""Rook's Intelligence 5 against TN 2: a reroll after the reveal may find no failed die, and
is then refused in other words than the private rule's."""


def _test(state: CampaignState, number: int) -> projection.TestRecord:
    record = state.game.tests[number]  # type: ignore[union-attr]  # an sr3 campaign
    assert isinstance(record, projection.TestRecord)
    return record


async def test_a_secret_test_is_marked_sealed_until_its_session_ends(table: Table) -> None:
    """The GM's secret Perception test is recorded with visibility ``gm`` in the epoch the
    table is in: the page hides its Karma reroll, which the server refuses while it is
    sealed. Once the session ends its epoch is over, and the same reroll is no longer refused
    for being private. A public test is recorded ``public``."""
    _, gm = await table.create_campaign("sr3")
    await gm.call(core.CreateCharacter, character="rook", name="Rook", stats=street_sam())
    await gm.call(core.StartSession, title="The docks")
    await gm.call(vocabulary.RollPoolTest, **PERCEPTION)
    secret = await gm.call(vocabulary.RollPoolTest, **PERCEPTION, visibility="gm")
    await gm.wait_for_seq(secret.seqs[-1])
    assert _test(gm.state, 1).visibility == "public"
    record = _test(gm.state, 2)
    assert record.visibility == "gm"
    assert record.epoch == gm.state.fair.epoch  # sealed: rolled in the epoch the table is in

    with pytest.raises(Rejected, match="rolled in private"):
        await gm.call(vocabulary.RerollWithKarma, test=2, character="rook")

    ended = await gm.call(core.EndSession)
    await gm.wait_for_seq(ended.seqs[-1])
    record = _test(gm.state, 2)
    assert record.visibility == "gm"
    assert record.epoch != gm.state.fair.epoch  # revealed
    refused = ""
    try:
        await gm.call(vocabulary.RerollWithKarma, test=2, character="rook")
    except Rejected as error:  # e.g. no failed die: any reason but the private rule
        refused = str(error)
    assert "rolled in private" not in refused
