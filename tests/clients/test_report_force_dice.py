"""Force dice rolled for a power (``roll_force_dice``) in ``poolhall export --rolls`` and
``poolhall report``, against a real server and log: the report counted only the destiny pool's
Force dice ("Faces of force: 6 dice" of 9), and no player's figure or export row had a power's
roll."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from itertools import product
from typing import Any

import pytest

from poolhall.clients.cli import main
from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.projections.narrative_dice import FACES
from tests.conftest import Table
from tests.narrative.narrative_support import HAN


async def _run(capsys: Any, *argv: str) -> tuple[int, str]:
    code = await asyncio.to_thread(main, list(argv))
    return code, capsys.readouterr().out


def _p_at_least(dice: int, side: str, pips: int) -> float:
    """P(at least ``pips`` of ``side`` on ``dice`` Force dice), over every way they fall."""
    falls = list(product(FACES["force"], repeat=dice))
    return sum(sum(face.count(side) for face in fall) >= pips for fall in falls) / len(falls)


async def test_a_powers_force_dice_are_exported_judged_and_counted_face_by_face(
        table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    """Sam rolls two Force dice for Han's power, the GM one for Vader's: the export has a
    row for each, judged by light pips for the player and dark for the GM, with P(at least)
    as counted over every way the dice fall; the report counts the 3 dice face by face and
    each roll in its player's and character's luck."""
    campaign, gm = await table.create_campaign("narrative", name="The Temple")
    sam = await table.invite(gm, "player", ("han",), name="Sam")
    await gm.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    await gm.call(core.CreateCharacter, character="vader", name="Vader", stats=HAN)
    await gm.call(core.StartSession, title="The Temple")
    await sam.call(n.RollForceDice, character="han", count=2, reason="sense the room")
    await gm.call(n.RollForceDice, character="vader", count=1, reason="choke")
    ack = await gm.call(core.EndSession)
    await gm.wait_for_seq(ack.seqs[-1])
    connect = ("--url", table.url, "--admin-token", table.admin_token)

    code, out = await _run(capsys, "export", campaign, "--rolls", *connect)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["actor"], r["character"], r["kind"], r["pool"]) for r in rows] == [
        ("sam", "han", "force light", "2w"), ("gm", "vader", "force dark", "1w")]
    for row, dice, side in ((rows[0], 2, "light"), (rows[1], 1, "dark")):
        light, dark = (int(word.split()[0]) for word in row["result"].split(", "))
        assert int(row["value"]) == (light if side == "light" else dark)
        assert float(row["p_at_least"]) == pytest.approx(
            _p_at_least(dice, side, int(row["value"])))
        assert row["p_success"] == ""

    code, out = await _run(capsys, "report", campaign, "--json", *connect)
    assert code == 0
    night = json.loads(out)["sessions"][0]
    [force] = [t for t in night["faces"] if t["die"] == "force"]
    assert force["dice"] == 3
    assert night["players"]["sam"]["rolls"] == 1
    assert night["characters"]["vader"]["rolls"] == 1
    code, out = await _run(capsys, "report", campaign, "--session", "1", *connect)
    assert "Faces of force: 3 dice" in out
