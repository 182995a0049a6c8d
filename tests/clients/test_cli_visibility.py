"""``--visibility`` on the CLI's rolls, against the real server: the GM's secret roll reaches a
player's client sealed; a player's blind roll shows its roller no dice; what a role may not
use is refused by the server, and a value that is no visibility by argparse; ``watch`` prints
a secret roll sealed, then whole once the session ends."""

from __future__ import annotations

import asyncio
import json

import pytest

from poolhall.clients.cli import main
from poolhall.events import core
from poolhall.events.fair import FairStamp
from tests.conftest import Table
from tests.serve_process import Watcher


async def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``poolhall ARGV`` in this process (off the event loop the server runs on): its exit
    code, standard output and standard error."""
    code = await asyncio.to_thread(main, list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def test_a_gm_secret_roll_reaches_a_player_sealed(table: Table,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``roll --visibility gm`` by the GM: the GM's answer holds the dice; the player's
    client, connected meanwhile, receives a ``private_roll`` in its place."""
    campaign, gm = await table.create_campaign("d12")
    ana = await table.invite(gm, "player", name="Ana")
    code, out, _ = await _run(capsys, "roll", campaign, "2d6", "--visibility", "gm",
                              "--reason", "the guard's perception", "--url", table.url,
                              "--token", gm._token, "--json")
    assert code == 0
    [whole] = json.loads(out)["events"]
    assert whole["event"]["visibility"] == "gm"
    assert len(whole["event"]["terms"][0]["faces"]) == 2
    await ana.wait_for_seq(whole["seq"], timeout=10)
    [received] = [recorded for recorded in ana.drain() if recorded.seq == whole["seq"]]
    assert received.event == core.PrivateRoll(  # its place among the epoch's rolls only
        visibility="gm", fair=FairStamp(**whole["event"]["fair"]))


async def test_a_blind_roll_shows_its_roller_no_dice_and_refusals_are_plain(
        table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    """A player's blind roll answers with a sealed line; a player's ``gm`` roll is refused
    by the server (exit 1, its words and path); ``--visibility secret`` is refused by
    argparse (exit 2), and ``d12 call`` (a test the GM calls) offers only public and gm."""
    campaign, gm = await table.create_campaign("d12")
    ana = (await table.invite(gm, "player", name="Ana"))._token
    code, out, _ = await _run(capsys, "roll", campaign, "3d6", "--visibility", "blind",
                              "--url", table.url, "--token", ana, "--json")
    assert code == 0
    [sealed] = [e["event"] for e in json.loads(out)["events"]]
    assert sealed["type"] == "private_roll"
    assert sealed["visibility"] == "blind"
    assert set(sealed) == {"type", "visibility", "fair"}  # no dice: the roll's stamp only
    code, out, _ = await _run(capsys, "roll", campaign, "3d6", "--visibility", "blind",
                              "--url", table.url, "--token", ana)
    assert code == 0
    assert "rolled blind: only the GM sees the result" in out
    code, _, err = await _run(capsys, "roll", campaign, "1d6", "--visibility", "gm",
                              "--url", table.url, "--token", ana)
    assert code == 1
    assert "only the GM rolls in secret" in err
    assert "$.visibility" in err
    for argv in (("roll", campaign, "1d6", "--visibility", "secret"),
                 ("d12", "call", campaign, "vex", "CON", "--dt", "5", "--visibility", "blind")):
        code, _, err = await _run(capsys, *argv, "--url", table.url, "--token", ana)
        assert code == 2, argv
        assert "invalid choice" in err, argv


async def test_watch_prints_a_secret_roll_sealed_then_revealed(table: Table) -> None:
    """A player's ``poolhall watch`` prints the GM's secret roll as sealed, no dice; when the
    GM ends the session it prints the roll whole, revealed."""
    campaign, gm = await table.create_campaign("d12")
    ana = await table.invite(gm, "player", name="Ana")
    await gm.call(core.StartSession)
    watcher = Watcher(campaign, "--url", table.url, "--token", ana._token, cwd=table.db_path.parent)
    try:
        await asyncio.to_thread(watcher.wait_for, "-- live")
        await gm.call(core.Roll, expression="2d6", reason="ambush", visibility="gm")
        sealed = await asyncio.to_thread(watcher.wait_for, "acted in secret (gm)")
        assert "ambush" not in sealed
        assert "2d6" not in sealed
        await gm.call(core.EndSession)
        await asyncio.to_thread(watcher.wait_for, "revealed at the session's end")
        whole = await asyncio.to_thread(watcher.wait_for, "2d6")
        assert "rolled 2d6 (ambush)" in whole
    finally:
        watcher.stop()


def test_the_cli_names_every_visibility_the_protocol_has() -> None:
    """The parser's choices (named in the CLI so a ``--help`` imports no message type) are
    ``events.base.Visibility``'s values."""
    from typing import get_args

    from poolhall.clients.cli_visibility import VISIBILITIES
    from poolhall.events.base import Visibility

    assert get_args(Visibility) == VISIBILITIES
