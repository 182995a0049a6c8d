"""The CLI with a replay link's token: ``replay`` prints the link's events, ``state --at`` the
table at one of them, and the commands a link cannot do are refused at once in words (each
waited for events that never come to a link: ten minutes, then a traceback)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from poolhall.clients.cli import main
from poolhall.events import core
from tests.conftest import Table

SOON = 30.0
"""Seconds any command here may take: far below the 120 to 600 s it hung for."""


async def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = await asyncio.wait_for(asyncio.to_thread(main, list(argv)), SOON)
    out = capsys.readouterr()
    return code, out.out, out.err


async def _shared(table: Table, tmp_path: Path) -> tuple[str, tuple[str, ...], int, int]:
    """A d12 campaign: session 1 with two rolls, ended, then a roll after it and session 2;
    its link of session 1 in a token file. The campaign, the CLI's connection options with that
    token, and the link's first and last events (the session's start; the seed reveal its end
    wrote)."""
    campaign, gm = await table.create_campaign("d12", name="Redmond")
    first = (await gm.call(core.StartSession, title="The heist")).seqs[0]
    await gm.call(core.Roll, expression="2d6", reason="the lock")
    await gm.call(core.Roll, expression="1d20", reason="the guard")
    ended = (await gm.call(core.EndSession)).seqs
    await gm.call(core.Roll, expression="3d8", reason="after the session")
    await gm.call(core.StartSession, title="Aftermath")
    ack = await gm.call(core.ShareReplay, session=1)
    assert ack.token is not None
    token = tmp_path / "link.token"
    token.write_text(ack.token)
    token.chmod(0o600)
    return campaign, ("--url", table.url, "--token-file", str(token)), first, ended[1]


async def test_a_replay_links_token_replays_its_events(
        table: Table, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``replay`` prints the session's lines, from its start to the seed reveal its end wrote,
    and nothing after; ``--json`` the events as recorded; ``--session 1`` the same."""
    campaign, connect, first, last = await _shared(table, tmp_path)
    code, out, err = await _run(capsys, "replay", campaign, "--speed", "inf", *connect)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "started game session 1: The heist" in lines[0]
    assert "the lock" in out
    assert "the guard" in out
    assert "ended game session 1" in out
    assert "after the session" not in out
    code, out, _ = await _run(capsys, "replay", campaign, "--json", "--speed", "inf", *connect)
    seqs = [json.loads(line)["seq"] for line in out.splitlines()]
    assert seqs == list(range(first, last + 1))
    assert json.loads(out.splitlines()[-1])["event"]["type"] == "seed_revealed"
    code, out, _ = await _run(capsys, "replay", campaign, "--session", "1", "--speed", "inf",
                              *connect)
    assert code == 0
    assert "ended game session 1" in out.splitlines()[-1]


async def test_a_replay_links_token_shows_the_table_at_one_of_its_events(
        table: Table, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``state --at`` within the link's events shows the table; before them, the server's
    refusal in one line; past them, the link's last event named."""
    campaign, connect, first, last = await _shared(table, tmp_path)
    code, out, _ = await _run(capsys, "state", campaign, "--at", str(first + 2), "--json",
                              *connect)
    assert code == 0
    assert json.loads(out)["head"] == first + 2
    code, _, err = await _run(capsys, "state", campaign, "--at", "1", *connect)
    assert code == 1
    assert f"this replay link shows events {first} to {last}" in err
    assert "Traceback" not in err
    code, _, err = await _run(capsys, "state", campaign, "--at", str(last + 1), *connect)
    assert code == 2
    assert f"past the replay link's last event #{last}" in err


@pytest.mark.parametrize(("argv", "cannot"), [
    (["report"], "make a report"),
    (["export", "--rolls"], "export"),
    (["state"], "show the table as it stands"),
    (["watch"], "follow the table"),
    (["sheet", "han"], "show the table as it stands"),  # waited 120 s, then a traceback
])
async def test_what_a_replay_link_cannot_do_is_refused_at_once(
        table: Table, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        argv: list[str], cannot: str) -> None:
    """Refused in words within seconds, exit 1: which link it is and what to do instead."""
    campaign, connect, first, last = await _shared(table, tmp_path)
    code, out, err = await _run(capsys, argv[0], campaign, *argv[1:], *connect)
    assert code == 1
    assert out == ""
    words = " ".join(err.split())  # as the terminal wrapped it
    assert (f"this is a read-only replay link of game session 1, events {first} to {last}: "
            f"it cannot {cannot}. Open the link in a browser, or print its events with "
            f"`poolhall replay {campaign}`") in words
    assert "Traceback" not in err


@pytest.mark.parametrize(("argv", "words"), [
    (["replay", "c", "--from", "0"], "events are numbered from 1"),
    (["replay", "c", "--session", "0"], "game sessions are numbered from 1"),
    (["report", "c", "--session", "0"], "game sessions are numbered from 1"),
])
def test_a_number_below_1_is_named_in_plain_words(argv: list[str], words: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The plural is the word's own ("an events are numbered from 1" before)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err
    assert "an events" not in err
    assert "a game sessions" not in err
