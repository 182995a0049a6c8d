"""Two GMs at one real server edit the same character: the second save, made from the sheet
as it was before the first, is refused naming who changed it, and changes nothing."""

from __future__ import annotations

import pytest

from poolhall.events import core
from poolhall.events.d12 import D12Stats
from poolhall.events.errors import CommandRejected
from tests.conftest import Table


async def test_a_second_gm_saving_an_older_sheet_is_refused_and_the_first_change_stays(
        table: Table) -> None:
    """The GM and GM 2 both read Han at his creation; GM 2 raises STR and saves; the GM's
    rename sent with the old ratings is refused in words naming GM 2 and the event, nothing
    is appended, and both tables still hold STR 4; read again, the rename goes through."""
    _, gm = await table.create_campaign("d12")
    gm2 = await table.invite(gm, "gm", name="GM 2")
    created = await gm.call(core.CreateCharacter, character="han", name="Han",
                            stats=D12Stats(ratings={"CON": 2, "CHA": 1, "STR": 3}))
    await gm2.wait_for_seq(created.seqs[-1])
    read_by_gm = gm.state.characters["han"].changed
    assert read_by_gm == gm2.state.characters["han"].changed == created.seqs[-1]

    stronger = D12Stats(ratings={"CON": 2, "CHA": 1, "STR": 4})
    saved = await gm2.call(core.UpdateCharacter, character="han", name="Han", stats=stronger,
                           based_on=gm2.state.characters["han"].changed)
    await gm.wait_for_seq(saved.seqs[-1])
    head = gm.head
    with pytest.raises(CommandRejected) as refusal:
        await gm.call(core.UpdateCharacter, character="han", name="Han Solo",
                      stats=D12Stats(ratings={"CON": 2, "CHA": 1, "STR": 3}),
                      based_on=read_by_gm)
    assert (refusal.value.code, refusal.value.path) == ("conflict", "$.based_on")
    assert refusal.value.message == (
        f"Han was changed by GM 2 (event #{saved.seqs[-1]}) after you opened the sheet "
        f"(at event #{read_by_gm}): reload it to see that change, then save again")
    assert gm.head == head
    for client in (gm, gm2):
        han = client.state.characters["han"]
        assert gm2.welcome is not None
        assert (han.name, han.stats, han.changed_by) == ("Han", stronger, gm2.welcome.member)

    renamed = await gm.call(core.UpdateCharacter, character="han", name="Han Solo",
                            stats=gm.state.characters["han"].stats,
                            based_on=gm.state.characters["han"].changed)
    await gm2.wait_for_seq(renamed.seqs[-1])
    assert (gm2.state.characters["han"].name, gm2.state.characters["han"].stats) == (
        "Han Solo", stronger)
