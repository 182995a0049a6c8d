"""A Shadowrun test declared in front of the table and rolled in private: the declaration is
gone from every table once it is rolled, on each path a table is read (live, ``state_at``,
a replay link's seek, after a restart), while the roll itself stays sealed."""

from __future__ import annotations

from typing import Any

from poolhall.clients.client import Client
from poolhall.events import core
from poolhall.events import sr3 as vocabulary
from poolhall.projections.campaign import CampaignState
from tests.conftest import Table, start_server
from tests.sr3.sr3_support import street_sam

ATHLETICS: dict[str, Any] = {"character": "rook", "attribute": "quickness", "tn": 4,
                             "reason": "jump the gap"}


def _declared(state: CampaignState) -> list[str]:
    return sorted(state.game.declared)  # type: ignore[union-attr]  # an sr3 campaign


async def _seated(table: Table) -> tuple[str, Client, dict[str, str]]:
    """An SR3 campaign with Rook (Ana's), Ana, Ben and a spectator: the GM and their tokens."""
    campaign, gm = await table.create_campaign("sr3")
    await gm.call(core.CreateCharacter, character="rook", name="Rook", stats=street_sam())
    tokens = {}
    for role, name, characters in (("player", "Ana", ("rook",)), ("player", "Ben", ()),
                                   ("spectator", "Sam", ())):
        ack = await gm.call(core.Invite, role=role, name=name, characters=characters)
        assert ack.token
        tokens[name] = ack.token
    return campaign, gm, tokens


async def test_a_declared_test_rolled_blind_leaves_every_table(table: Table) -> None:
    """Ana declares Athletics in front of everyone and rolls it blind: no table shows it
    still waiting (her own, Ben's, the spectator's, the GM's), and only the GM has the roll."""
    campaign, gm, tokens = await _seated(table)
    await gm.call(core.StartSession, title="The gap")
    ana = await table.connect(campaign, tokens["Ana"])
    await ana.call(vocabulary.DeclarePoolTest, **ATHLETICS)
    ben = await table.connect(campaign, tokens["Ben"])
    assert _declared(ben.state) == ["rook"]  # declared in front of the table
    ack = await ana.call(vocabulary.RollPoolTest, **ATHLETICS, visibility="blind")
    await gm.wait_for_seq(ack.seqs[-1])
    assert _declared(gm.state) == []
    for name in ("Ana", "Ben", "Sam"):  # a fresh join: the table as the server keeps it
        joined = await table.connect(campaign, tokens[name])
        assert _declared(joined.state) == [], name
        assert not joined.state.game.tests  # type: ignore[union-attr]  # the roll stays sealed

    seq = ack.seqs[-1]
    at = await (await table.connect(campaign, tokens["Ben"])).state_at(seq)
    assert at.table.game.declared == {}  # type: ignore[attr-defined]
    link = await gm.call(core.ShareReplay, session=1)  # a replay of the running session
    assert link.token
    viewer = await table.connect(campaign, link.token)
    replayed = await viewer.state_at(seq)
    assert replayed.table.game.declared == {}  # type: ignore[attr-defined]
    assert replayed.table.game.tests == {}  # type: ignore[attr-defined]
    # a replay link holder is no GM: the running session's private roll reaches it sealed
    page = {recorded.seq: recorded.event for recorded in await viewer.history(before=seq + 1)}
    assert isinstance(page[seq], core.PrivateRoll)

    await table.close_clients()
    await table.server.stop()
    table.server = await start_server(table.db_path)  # the public table folded from the log
    again = await table.connect(campaign, tokens["Ben"])
    assert _declared(again.state) == []
    assert not again.state.game.tests  # type: ignore[union-attr]
