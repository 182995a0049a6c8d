"""A Shadowrun test declared in front of the table and rolled in private: the declaration is
gone from every table once it is rolled, on each path a table is read (live, ``state_at``,
a replay link's seek, after a restart), while the roll itself stays sealed; a private roll of
another test of that character leaves it waiting."""

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
    # Ben's live table, folded from the frames (the roll reached him sealed), follows the
    # server's: it kept the test waiting until he joined again
    await ben.wait_until(lambda: ben.head >= ack.seqs[-1] and _declared(ben.state) == [])
    assert not ben.state.game.tests  # type: ignore[union-attr]  # the roll stays sealed
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
    # the session's end reveals the roll: Ben's live table has it whole, as a join would
    gm = await table.connect(campaign, table.admin_token)  # the admin acts as the GM
    await gm.call(core.EndSession)
    await again.wait_until(lambda: again.revealed and again.state.game.tests)  # type: ignore[union-attr]
    joined = await table.connect(campaign, tokens["Ben"])
    assert again.state.game.tests == joined.state.game.tests  # type: ignore[union-attr]
    assert again.head == joined.head


GANGER_SHOT: dict[str, Any] = {"character": "ganger", "skill": "pistols", "tn": 4,
                               "kind": "combat", "reason": "shoots Rook"}


async def test_another_secret_test_leaves_the_declared_test_waiting(table: Table) -> None:
    """The GM declares the ganger's shot in front of the table, then rolls the ganger's
    Perception in secret: the shot was not rolled, so it still waits on every table (the
    GM's, a player's, a fresh join's, after a restart and once the session's end reveals the
    secret roll); only the shot's own roll, in secret too, withdraws it."""
    campaign, gm, tokens = await _seated(table)
    await gm.call(core.CreateCharacter, character="ganger", name="Ganger", stats=street_sam())
    await gm.call(core.StartSession, title="The ambush")
    await gm.call(vocabulary.DeclarePoolTest, **GANGER_SHOT)
    ben = await table.connect(campaign, tokens["Ben"])
    ack = await gm.call(vocabulary.RollPoolTest, character="ganger", attribute="intelligence",
                        tn=5, reason="spots the drone", visibility="gm")  # Perception
    await ben.wait_for_seq(ack.seqs[-1])
    assert _declared(gm.state) == ["ganger"]
    for name in ("Ana", "Ben", "Sam"):
        joined = await table.connect(campaign, tokens[name])
        assert _declared(joined.state) == ["ganger"], name
    at = await ben.state_at(ack.seqs[-1])
    assert list(at.table.game.declared) == ["ganger"]  # type: ignore[attr-defined]

    await table.close_clients()
    await table.server.stop()
    table.server = await start_server(table.db_path)  # the public table folded from the log
    gm = await table.connect(campaign, table.admin_token)  # the admin acts as the GM
    assert _declared((await table.connect(campaign, tokens["Ben"])).state) == ["ganger"]
    await gm.call(core.EndSession)  # reveals the secret Perception: the shot still waits
    await gm.call(core.StartSession, title="The ambush, later")
    assert _declared((await table.connect(campaign, tokens["Ben"])).state) == ["ganger"]

    await gm.call(core.SetCondition, character="ganger", condition="physical", value=3)
    # the shot itself, in other words: the reason says what it is for, not which test it is
    # (the Declare form empties it once a test is declared)
    ack = await gm.call(vocabulary.RollPoolTest, **{**GANGER_SHOT, "reason": "fires"},
                        visibility="gm")
    ben = await table.connect(campaign, tokens["Ben"])
    await ben.wait_for_seq(ack.seqs[-1])
    assert _declared(gm.state) == []  # the shot itself, its target number raised for wounds
    assert _declared(ben.state) == []
