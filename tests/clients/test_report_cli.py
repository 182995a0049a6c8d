"""``poolhall report``, ``export --rolls`` and ``replay`` against a real server and log."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from poolhall.clients.cli import main
from poolhall.events import core
from poolhall.events import narrative as n
from tests.conftest import Table
from tests.narrative.narrative_support import HAN


async def _game_night(table: Any) -> tuple[str, Any, Any]:
    """A narrative campaign with one game session: a destiny pool, two checks, a flip, a
    free roll; then a second session with one free roll."""
    campaign, gm = await table.create_campaign("narrative", name="Game Night")
    han = await table.invite(gm, "player", ("han",), name="Sam")
    await han.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    await gm.call(core.StartSession, title="The Heist")
    await gm.call(n.SetDestinyPool, light=2, dark=1)
    for check in ("door", "guard"):
        await han.call(n.OpenCheck, character="han", skill="Ranged (Light)", check=check)
        await gm.call(n.SetDifficulty, check=check, level="hard")
        if check == "guard":
            await han.call(n.FlipDestiny, side="light", effect="upgrade_ability", check=check)
        await han.call(n.RollCheck, check=check)
    await han.call(core.Roll, expression="2d6+1", character="han", reason="loot")
    await gm.call(core.EndSession)
    await gm.call(core.StartSession, title="The Getaway")
    ack = await gm.call(core.Roll, expression="1d20")
    await gm.wait_for_seq(ack.seqs[-1])
    return campaign, gm, han


async def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


async def test_report_json_html_and_terminal(table: Table, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    """The GM's report of a game night: every figure as JSON, the same as a page of its own
    with inline SVG charts (each an image with a name) and nothing loaded from elsewhere, and
    a summary for people."""
    campaign, _, _ = await _game_night(table)
    connect = ("--url", table.url, "--admin-token", table.admin_token)
    code, out, _ = await _run(capsys, "report", campaign, "--json", *connect)
    assert code == 0
    data = json.loads(out)
    assert data["name"] == "Game Night"
    assert [s["session"] for s in data["sessions"]] == [1, 2]
    night = data["sessions"][0]
    assert night["title"] == "The Heist"
    assert night["narrative"]["table"]["rolls"] == 2
    assert night["narrative"]["flips_by"] == {"sam": 1}
    assert [(p["light"], p["dark"]) for p in night["narrative"]["destiny"]] == [(2, 1), (1, 2)]
    assert set(night["players"]) == {"sam"}
    assert data["players"]["sam"] == "Sam"
    assert night["luck"]["rolls"] == 3  # two checks and the free roll
    assert night["free"]["dice"][0]["sides"] == 6

    page = tmp_path / "night.html"
    code, out, _ = await _run(capsys, "report", campaign, "--session", "1", "--html", str(page),
                              *connect)
    assert code == 0
    assert "The Heist" in out
    assert "Luck against the exact odds" in out
    assert "roll of the night" in out
    assert "night.html" in out
    html = page.read_text()
    assert html.count("<svg") >= 3
    # each chart is one image with a name (a screen reader read its tick labels run together)
    assert html.count('<svg role="img" aria-label="') == html.count("<svg")
    assert 'aria-label="Mean percentile per player or character, against the 95% band of fair' \
        in html
    assert "The Heist" in html
    assert "The Getaway" not in html
    for loads in ("src=", 'href="http', "url(http", "<script", "<link", "@import"):
        assert loads not in html, loads  # nothing fetched: the page opens offline

    code, _, err = await _run(capsys, "report", campaign, "--session", "7", *connect)
    assert code == 2
    assert "no game session 7" in err
    assert "1, 2" in err


async def test_export_rolls_csv_and_jsonl(table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    """One row per roll with its odds; the csv module reads it back with the same figures."""
    campaign, _, _ = await _game_night(table)
    connect = ("--url", table.url, "--admin-token", table.admin_token)
    code, out, _ = await _run(capsys, "export", campaign, "--rolls", *connect)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["kind"] for r in rows] == ["check", "check", "free", "free"]
    assert {"campaign", "session", "seq", "time", "actor", "character", "system", "pool",
            "result", "p_success", "percentile"} <= set(rows[0])
    assert [r["session"] for r in rows] == ["1", "1", "1", "2"]
    assert rows[0]["actor"] == "sam"
    assert rows[0]["character"] == "han"
    assert 0 < float(rows[0]["p_success"]) < 1
    assert 0 < float(rows[0]["percentile"]) < 1
    assert rows[2]["p_success"] == ""
    assert rows[2]["pool"] == "2d6+1"
    code, out, _ = await _run(capsys, "export", campaign, "--rolls", "--format", "jsonl",
                              "--session", "2", *connect)
    [line] = out.splitlines()
    assert json.loads(line)["pool"] == "1d20"
    assert json.loads(line)["session"] == 2
    code, _, err = await _run(capsys, "export", campaign, *connect)
    assert code == 2
    assert "--rolls" in err


async def test_replay_prints_watch_lines_paced_and_as_json(table: Table,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """``replay --session 1`` prints that session's events as ``watch`` does; ``--json`` one
    object per line from ``--from``; gaps divided by the speed, cut to ``--max-pause``."""
    campaign, _, _ = await _game_night(table)
    connect = ("--url", table.url, "--admin-token", table.admin_token)
    code, out, _ = await _run(capsys, "replay", campaign, "--session", "1", "--speed", "inf",
                              *connect)
    lines = out.splitlines()
    assert code == 0
    assert "started game session 1: The Heist" in lines[0]
    assert "ended game session 1" in lines[-1]
    assert "2d6+1" in out
    assert "#" in lines[0]
    assert not any("1d20" in line for line in lines)
    code, out, _ = await _run(capsys, "replay", campaign, "--from", "5", "--json",
                              "--speed", "inf", *connect)
    objects = [json.loads(line) for line in out.splitlines()]
    assert objects[0]["seq"] == 5
    assert objects[-1]["event"]["expression"] == "1d20"
    # paced (the gaps, milliseconds, are seconds at 0.001x, cut to 0.2; how long it waits is
    # test_pause_is_the_real_gap_over_the_speed_cut_short's): the same events, to the last
    code, paced, _ = await _run(capsys, "replay", campaign, "--speed", "0.001", "--max-pause",
                                "0.2", "--from", "6", *connect)
    assert code == 0
    assert len(paced.splitlines()) == len(objects) - 1
    assert "1d20" in paced.splitlines()[-1]
    code, _, err = await _run(capsys, "replay", campaign, "--speed", "0", *connect)
    assert code == 2
    assert "--speed" in err


@pytest.mark.parametrize(("argv", "words"), [
    (["replay", "c", "--session", "0"], "numbered from 1"),
    (["report", "c", "--session", "x"], "not a game session"),
])
def test_bad_arguments_are_named(argv: list[str], words: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A bad number names the option and says why, exit 2, nothing sent anywhere."""
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def test_pause_is_the_real_gap_over_the_speed_cut_short() -> None:
    """10 s at 4x waits 2 s at most (cut), at 10x 1 s; an unreadable time waits nothing."""
    from poolhall.clients.replay_cli import pause

    before, after = "2026-11-23T20:00:00.000Z", "2026-11-23T20:00:10.000Z"
    assert pause(before, after, 4.0) == 2.0
    assert pause(before, after, 10.0) == 1.0
    assert pause(before, after, 10.0, longest=0.5) == 0.5
    assert pause(before, "not a time", 1.0) == 0.0
    assert pause(after, before, 1.0) == 0.0


def test_the_cli_does_not_import_matplotlib_until_a_page_is_drawn() -> None:
    """``poolhall roll`` and every other command start without matplotlib's import cost."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    code = ("import sys, poolhall.clients.cli, poolhall.clients.report_cli; "
            "sys.exit(3 if 'matplotlib' in sys.modules else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=root, check=False,
                          env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 0
