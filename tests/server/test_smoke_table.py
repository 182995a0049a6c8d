"""Two members at one table see each other's rolls in the same order."""

from __future__ import annotations

from poolhall.events import core
from tests.conftest import Table


async def test_two_clients_see_each_others_rolls_in_the_same_order(table: Table) -> None:
    """Rolls from the GM and a player reach both, in one order, folded into the roll log."""
    campaign, gm = await table.create_campaign("d12")
    player = await table.invite(gm, "player", characters=("han",))
    acks = []
    for _ in range(5):
        acks.append(await gm.call(core.Roll, expression="2d6+1"))
        acks.append(await player.call(core.Roll, expression="1d20"))
    last = max(seq for ack in acks for seq in ack.seqs)
    await gm.wait_for_seq(last)
    await player.wait_for_seq(last)
    assert [r.seq for r in gm.state.rolls] == [r.seq for r in player.state.rolls]
    assert len(gm.state.rolls) == 10
    assert gm.state.rolls[0].expression == "2d6+1"
    assert {r.actor for r in player.state.rolls} == {"gm", "han"}


async def test_characters_are_created_and_updated_for_the_whole_table(table: Table) -> None:
    """A character's creation and later change of stats reach every member's projection."""
    from poolhall.events.d12 import D12Stats

    _, gm = await table.create_campaign("d12")
    player = await table.invite(gm, "player", characters=("han",))
    await player.call(core.CreateCharacter, character="han", name="Han",
                      stats=D12Stats(ratings={"CON": 2, "CHA": 3}))
    ack = await gm.call(core.UpdateCharacter, character="han", name="Han Solo",
                        stats=D12Stats(ratings={"CON": 4, "CHA": 3}))
    await player.wait_for_seq(ack.seqs[-1])
    han = player.state.characters["han"]
    assert isinstance(han.stats, D12Stats)
    assert han.name == "Han Solo"
    assert han.stats.ratings["CON"] == 4
