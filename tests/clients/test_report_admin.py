"""Rolls made with the admin token in ``poolhall report`` and ``export --rolls``, against a real
server and log: the admin token acts as GM in every campaign (its actor is ``admin``), but the
report took it for a player. Its Force dice were judged by light pips, it had a row among the
players, the NPC it rolled for was listed as a player's character, and its destiny flip was
credited to a player named "admin"."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from rich.console import Console

from poolhall.clients.cli import main
from poolhall.clients.report_text import summary
from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.projections.analytics_model import Report
from tests.conftest import Table
from tests.narrative.narrative_support import HAN


async def _run(capsys: Any, *argv: str) -> tuple[int, str]:
    code = await asyncio.to_thread(main, list(argv))
    return code, capsys.readouterr().out


async def test_the_admin_tokens_rolls_and_flips_are_on_the_gms_side(
        table: Table, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The admin token rolls three Force dice for Vader and flips a dark side point; Sam rolls
    two for Han. The admin's roll is judged by its dark pips as the GM's would be, its row
    and Vader's stand with the GM's ("admin (GM)", Vader an NPC), and its flip is the GM
    side's, in the JSON, the terminal and the page."""
    campaign, gm = await table.create_campaign("narrative", name="The Temple")
    sam = await table.invite(gm, "player", ("han",), name="Sam")
    await gm.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    await gm.call(core.CreateCharacter, character="vader", name="Vader", stats=HAN)
    admin = await table.connect(campaign, table.admin_token)
    await gm.call(core.StartSession, title="The Temple")
    await gm.call(n.SetDestinyPool, light=2, dark=2)
    await admin.call(n.RollForceDice, character="vader", count=3, reason="choke")
    await admin.call(n.FlipDestiny, side="dark", effect="other", reason="the door jams")
    await sam.call(n.RollForceDice, character="han", count=2, reason="sense the room")
    ack = await gm.call(core.EndSession)
    await gm.wait_for_seq(ack.seqs[-1])
    connect = ("--url", table.url, "--admin-token", table.admin_token)

    code, out = await _run(capsys, "export", campaign, "--rolls", *connect)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["actor"], r["character"], r["kind"]) for r in rows] == [
        ("admin", "vader", "force dark"), ("sam", "han", "force light")]
    light, dark = (int(word.split()[0]) for word in rows[0]["result"].split(", "))
    assert int(rows[0]["value"]) == dark

    code, out = await _run(capsys, "report", campaign, "--json", *connect)
    assert code == 0
    data = json.loads(out)
    night = data["sessions"][0]
    assert night["gms"] == ["admin"]
    assert night["npcs"] == ["vader"]
    assert night["merged"] == {"admin": "vader", "sam": "han"}
    assert night["narrative"]["flips_by"] == {"admin": 1}
    assert data["players"]["admin"] == "admin (GM)"

    console = Console(width=200, record=True)
    console.print(summary(msgspec.json.decode(out, type=Report), 1))
    said = console.export_text()
    assert "admin (GM) as Vader" in said
    assert "admin (GM) (GM)" not in said
    assert "Destiny: 1 flip (admin (GM) 1)" in said
    code, out = await _run(capsys, "report", campaign, "--session", "1", "--html",
                           str(tmp_path / "temple.html"), *connect)
    assert code == 0
    page = (tmp_path / "temple.html").read_text()
    players = page.partition("<h3>Luck against the exact odds</h3>")[2].partition("</table>")[0]
    gms = page.partition("<h3>The GM's rolls and NPCs</h3>")[2].partition("</table>")[0]
    assert "admin (GM) as Vader" in gms
    assert "Sam as Han" in players
    assert "admin" not in players
    assert "Vader" not in players
    assert "1 destiny point flipped: admin (GM) 1." in page
