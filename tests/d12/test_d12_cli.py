"""The d12 subcommands of ``poolhall``: exact odds offline, and a test run from the shell."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from typing import Any

import pytest

from poolhall.clients.cli import main
from poolhall.events import core, d12
from poolhall.projections.d12_odds import success_probability, survival


def test_d12_odds_prints_the_margin_distribution_and_survival(capsys: Any) -> None:
    """``poolhall d12-odds 5 --dt 7 --add 2 --exact --json`` gives exact and float odds."""
    assert main(["d12-odds", "5", "--dt", "7", "--add", "2", "--rounds", "3", "--exact",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert Fraction(data["exact"]["success"]) == success_probability(5, 7)
    assert [Fraction(p) for p in data["exact"]["survival"]] == [survival(5, 7, 2, k)
                                                                for k in (1, 2, 3)]
    assert sum(data["distribution"].values()) == pytest.approx(1.0)
    assert main(["d12-odds", "5", "--dt", "7"]) == 0
    text = capsys.readouterr().out
    assert "5d12 at DT 7" in text
    assert "basic test succeeds" in text


def test_d12_odds_never_prints_a_false_certainty(capsys: Any) -> None:
    """8 dice at DT 3 are all lost once in 65,536 rounds: the pool lasts 1 round "> 99.99%",
    not "100.00%" (the page said the one, the CLI the other); a margin that can happen is
    "< 0.01%", not "0.00%"; only the certain "at least the lowest margin" is 100.00%."""
    assert main(["d12-odds", "8", "--dt", "3", "--add", "3", "--rounds", "1"]) == 0
    rows = [line.split("\u2502") for line in capsys.readouterr().out.splitlines()]
    cells = {row[1].strip(): [cell.strip() for cell in row[2:-1]] for row in rows
             if len(row) > 3}
    assert cells["-16"] == ["< 0.01%", "100.00%"]
    assert cells["-15"] == ["< 0.01%", "> 99.99%"]
    assert cells["1"] == ["> 99.99%"]  # the survival table: the pool lasts round 1
    assert main(["d12-odds", "5", "--dt", "5"]) == 0
    text = capsys.readouterr().out
    assert "0.00%" not in text.replace("100.00%", "")
    assert main(["d12-odds", "100", "--dt", "1"]) == 0  # its float is 1.0; its Fraction less
    assert "basic test succeeds (margin > 0): > 99.99%" in capsys.readouterr().out


def test_d12_odds_refuses_absurd_pools(capsys: Any) -> None:
    """A pool of 500 dice is refused in one line with the usage exit code."""
    assert main(["d12-odds", "500", "--dt", "7"]) == 2
    assert "1 to 100" in capsys.readouterr().err


async def test_an_extended_test_from_the_shell(table: Any, capsys: Any) -> None:
    """``poolhall d12 call``, ``roll``, ``say``, ``end`` and ``tests`` run a test end to end."""
    campaign, gm = await table.create_campaign("d12")
    han = await table.invite(gm, "player", characters=("han",))
    await gm.call(core.CreateCharacter, character="han", name="Han",
                  stats=d12.D12Stats(ratings={"CON": 2, "CHA": 1, "STR": 4}))
    connection = ["--url", table.url]

    async def run(token: str, *argv: str) -> int:
        return await asyncio.to_thread(main, [*argv, *connection, "--token", token])

    assert await run(gm._token, "d12", "call", campaign, "han", "str", "con", "--dt", "7",
                     "--extended", "con", "--label", "bar fight") == 0
    assert "extended test (bar fight): STR 4 + CON 2 = 6 dice" in capsys.readouterr().out
    assert await run(han._token, "d12", "roll", campaign, "1") == 0
    assert "round 1:" in capsys.readouterr().out
    assert await run(han._token, "d12", "end", campaign, "1") == 1
    assert "only the GM may end a test" in capsys.readouterr().err
    assert await run(gm._token, "d12", "say", campaign, "1", "Han holds his own") == 0
    assert await run(gm._token, "d12", "dt", campaign, "1", "--dt", "9") == 0
    capsys.readouterr()
    assert await run(gm._token, "d12", "tests", campaign, "--json") == 0
    (test,) = json.loads(capsys.readouterr().out)["tests"]
    assert (test["test"], test["threshold"]["dt"], len(test["rounds"])) == (1, 9, 1)
    assert await run(gm._token, "d12", "end", campaign, "1", "--reason", "closing time") == 0
    assert await run(gm._token, "d12", "tests", campaign) == 0
    assert "no open test" in capsys.readouterr().out


async def test_d12_tests_and_state_mark_the_gms_secret_test(table: Any, capsys: Any) -> None:
    """A test called with ``--visibility gm`` reads "basic in secret" in the GM's ``d12
    tests`` and ``state`` (only the log line said it was secret); the player sees none."""
    campaign, gm = await table.create_campaign("d12")
    han = await table.invite(gm, "player", characters=("han",))
    await gm.call(core.CreateCharacter, character="han", name="Han",
                  stats=d12.D12Stats(ratings={"CON": 2, "CHA": 1, "STR": 4}))

    async def run(token: str, *argv: str) -> int:
        return await asyncio.to_thread(main, [*argv, "--url", table.url, "--token", token])

    assert await run(gm._token, "d12", "call", campaign, "han", "STR", "--dt", "7",
                     "--visibility", "gm") == 0
    assert await run(gm._token, "d12", "call", campaign, "han", "CON", "--dt", "5") == 0
    capsys.readouterr()
    assert await run(gm._token, "d12", "tests", campaign) == 0
    out = capsys.readouterr().out
    assert "test 1 basic in secret for han, open" in out
    assert "test 2 basic for han, open" in out
    assert await run(gm._token, "state", campaign) == 0
    assert "test 1: basic in secret for han, pool 4, DT 7" in capsys.readouterr().out
    assert await run(han._token, "d12", "tests", campaign) == 0
    out = capsys.readouterr().out
    assert "test 1" not in out
    assert "test 2 basic for han, open" in out
