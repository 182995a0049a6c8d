"""No text from the table can fail a report: hostile names on the server's page and the CLI.

A player types their character's name; matplotlib would read ``$...$`` in a label as mathtext
(``Han $\\notacmd$`` failed every report page of the campaign, a nested ``\\sqrt{`` overflowed
the stack), rich would read ``[...]`` as markup. Every name, title and campaign name below goes
through the real server into the log and out through the report page, ``report --html``,
the terminal summary and ``--json``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from poolhall.clients.cli import main
from poolhall.events import core
from tests.narrative.narrative_support import HAN
from tests.server.raw import RawPeer
from tests.server.test_report_page import _fetch as fetch_following

HOSTILE = [
    "Han $\\notacmd$",                      # mathtext with an unknown command
    "$" + "\\sqrt{" * 13 + "$",             # nested deeper than the mathtext parser recurses
    "$$",                                   # an empty formula
    "$\\frac{$ 50%",                        # an unclosed one, and a percent sign
    "[/] [bold red]Boba[/bold red]",        # rich markup, one of it closing nothing
    "<script>alert(1)</script> ]]> &amp;",  # HTML and XML
    "\\\\ {0} %s %(x)s",                    # backslashes and format fields
    "😀 日本 עברית",                          # glyphs the charts' font lacks, right to left
    "Zero\u200dWidth \u3164",               # invisible characters
]
"""Names a player can type (control characters the server refuses: they are drawn by the
charts test below)."""


async def _hostile_campaign(table: Any) -> tuple[str, list[str]]:
    """A campaign named, titled and peopled with hostile text, two sessions of free rolls by
    every player for their character (so names are on the luck chart and the sessions
    chart's legend)."""
    campaign, gm = await table.create_campaign("narrative", name=HOSTILE[0])
    players = []
    for i, name in enumerate(HOSTILE):
        player = await table.invite(gm, "player", (f"pc{i}",), name=name)
        await player.call(core.CreateCharacter, character=f"pc{i}", name=name, stats=HAN)
        players.append(player)
    for title in (HOSTILE[1], HOSTILE[4]):
        await gm.call(core.StartSession, title=title)
        for i, player in enumerate(players):
            await player.call(core.Roll, expression="2d6+1", character=f"pc{i}",
                              reason=HOSTILE[-1 - i])
        ack = await gm.call(core.EndSession)
    await gm.wait_for_seq(ack.seqs[-1])
    return campaign, [gm._token]


async def _fetch(url: str) -> tuple[int, str]:
    """GET ``url`` as a browser would, reloading a page still being made (202) until it is
    there (on a loaded machine the first report, which starts the worker, takes a while)."""
    status, _, body = await fetch_following(url)
    return status, body


async def _page(table: Any, token: str, campaign: str, **fields: object) -> tuple[int, str]:
    peer = await RawPeer.open(table.url)
    try:
        await peer.join(token, campaign)
        await peer.send({"type": "report", "id": "report-hostile", **fields})
        answer = await peer.recv_until("report", timeout=10)
    finally:
        await peer.connection.close()
    return await _fetch(table.url.replace("ws://", "http://") + str(answer["path"]))


async def test_hostile_names_fail_no_report_page_and_no_cli_report(table: Any, capsys: Any,
                                                                   tmp_path: Path) -> None:
    """Every report page of a campaign full of hostile names answers 200 with the names as
    text, and ``report --html``, the terminal summary and ``--json`` exit 0."""
    campaign, (gm_token,) = await _hostile_campaign(table)
    for fields in ({}, {"session": 1}, {"session": 2}):
        status, page = await _page(table, gm_token, campaign, **fields)
        assert status == 200, (fields, page[:300])
        assert page.count("<svg") >= 2
        assert "Han $\\notacmd$" in page  # drawn as typed: in the table and on the chart
        assert "<script>" not in page
    connect = ("--url", table.url, "--admin-token", table.admin_token)
    html = tmp_path / "report.html"
    code = await asyncio.to_thread(main, ["report", campaign, "--html", str(html), *connect])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "Traceback" not in out.err
    assert "[/] [bold" in out.out  # the markup shown, not obeyed
    text = html.read_text()
    assert text.count("Han $\\notacmd$") >= 2
    assert text.count("<svg") >= 3
    code = await asyncio.to_thread(main, ["report", campaign, "--json", *connect])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(data["characters"].values()) == set(HOSTILE)


def test_charts_draw_any_text_as_plain_characters() -> None:
    """The charts take every label as plain text, controls shown as escapes, whatever it is."""
    from poolhall.projections.analytics_model import Luck
    from poolhall.reports import charts

    luck = Luck(rolls=3, mean_percentile=0.4, low=0.3, high=0.7, z=-0.5, p_value=0.6,
                verdict="as fair dice go", rough=True)
    names = [*HOSTILE, "\u202eevil\u202c", "Bad\x1b[31mRed\x07\x00", "two\nlines"]
    svg = charts.luck_chart([(name, luck) for name in names], "hostile")
    assert "Han $\\notacmd$" in svg
    assert "\\u202e" in svg
    assert "\x1b" not in svg
    legend = charts.sessions_chart({name: [(1, 0.4), (2, 0.6)] for name in names}, "legend")
    assert "\\x1b[31m" in legend
    assert "\x00" not in legend
