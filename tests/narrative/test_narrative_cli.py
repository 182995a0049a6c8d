"""The narrative subcommands of ``poolhall``: odds offline, a check built from the shell."""

from __future__ import annotations

import asyncio
import json
import typing
from fractions import Fraction
from typing import Any

from poolhall.clients.cli import main
from poolhall.clients.narrative_cli import MODIFIERS
from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.projections.narrative_odds import distribution
from tests.narrative.narrative_support import HAN, VADER


def test_odds_prints_exact_and_float_odds_without_a_server(capsys: Any) -> None:
    """``poolhall odds "yyg vs pp" --exact --json`` gives the odds of 2y1g2p, exact and float."""
    assert main(["odds", "yyg vs pp", "--exact", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    dist = distribution(n.Pool(proficiency=2, ability=1, difficulty=2))
    assert Fraction(data["exact"]["p_success"]) == dist.p_success()
    assert data["odds"]["p_success"] == float(dist.p_success())
    assert Fraction(data["exact"]["p_advantage"]["2"]) == dist.p_advantage_at_least(2)
    assert sum(data["odds"]["net_successes"].values()) == 1.0 or abs(
        sum(data["odds"]["net_successes"].values()) - 1) < 1e-12
    assert main(["odds", "2y1g", "2p1r", "1b1k"]) == 0
    text = capsys.readouterr().out
    assert "2y1g2p1r1b1k: 8 dice" in text
    assert "at least one despair" in text


def test_odds_joint_lists_every_outcome(capsys: Any) -> None:
    """``--joint --json`` prints the joint distribution as (s, a, tr, de, count) rows."""
    assert main(["odds", "1y", "1r", "--joint", "--json"]) == 0
    joint = json.loads(capsys.readouterr().out)["joint"]
    assert int(joint["outcomes"]) == 144
    assert sum(int(row[4]) for row in joint["counts"]) == 144
    assert [1, 0, 1, 1, "1"] not in joint["counts"]  # triumph + despair: net 0 successes
    assert [0, 0, 1, 1, "1"] in joint["counts"]


def test_odds_refuses_what_it_cannot_read(capsys: Any) -> None:
    """Unreadable or oversized pools are refused in one line with the usage exit code."""
    assert main(["odds", "2y1x"]) == 2
    assert "cannot read '1x'" in capsys.readouterr().err
    assert main(["odds", "99g"]) == 2
    assert "at most 40 dice" in capsys.readouterr().err


async def test_a_check_from_the_shell(table: Any, capsys: Any) -> None:
    """open, difficulty, add, destiny, flip, checks and roll run a check end to end."""
    campaign, gm = await table.create_campaign("narrative")
    han = await table.invite(gm, "player", characters=("han",))
    await han.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    await gm.call(core.CreateCharacter, character="vader", name="Vader", stats=VADER)
    connection = ["--url", table.url]

    async def run(token: str, *argv: str) -> int:
        return await asyncio.to_thread(main, [*argv, *connection, "--token", token])

    assert await run(han._token, "narrative", "open", campaign, "han", "Ranged (Light)",
                     "--id", "shot", "--reason", "at the guard") == 0
    assert "opened check shot" in capsys.readouterr().out
    assert await run(han._token, "narrative", "difficulty", campaign, "shot", "hard") == 1
    assert "only the GM" in capsys.readouterr().err
    assert await run(gm._token, "narrative", "difficulty", campaign, "shot",
                     "--opposed", "vader:Vigilance") == 0
    assert await run(han._token, "narrative", "add", campaign, "shot", "boost", "2",
                     "--reason", "aiming") == 0
    assert await run(gm._token, "narrative", "destiny", campaign, "--set", "1", "1") == 0
    assert await run(gm._token, "narrative", "flip", campaign, "dark", "upgrade_difficulty",
                     "--check", "shot") == 0
    capsys.readouterr()
    assert await run(han._token, "narrative", "checks", campaign) == 0
    text = capsys.readouterr().out
    assert "shot han's Ranged (Light), opposed, open: 2y1g2p3r2b" in text
    assert "+1 Boost: aiming" in text
    assert "odds: success" in text
    assert await run(han._token, "narrative", "roll", campaign, "shot") == 0
    assert "rolled shot (han) 2y1g2p3r2b" in capsys.readouterr().out
    assert await run(gm._token, "narrative", "destiny", campaign, "--json") == 0
    assert json.loads(capsys.readouterr().out)["light"] == 2
    assert await run(han._token, "roll", campaign, "2g 1p") == 0
    assert "rolled 2g1p" in capsys.readouterr().out


async def test_an_encounter_and_a_spend_from_the_shell(table: Any, capsys: Any) -> None:
    """``narrative encounter --start``, ``initiative``, ``encounter --round``, ``claim``,
    ``spend`` and ``encounter --end`` run an encounter; ``encounter`` and ``state`` show its
    round and who took which slot; a spend of more than the result holds is refused."""
    campaign, gm = await table.create_campaign("narrative")
    han = await table.invite(gm, "player", characters=("han",))
    await han.call(core.CreateCharacter, character="han", name="Han", stats=HAN)
    connection = ["--url", table.url]

    async def run(token: str, *argv: str) -> int:
        return await asyncio.to_thread(main, [*argv, *connection, "--token", token])

    assert await run(han._token, "narrative", "encounter", campaign, "--start") == 1
    assert "only the GM" in capsys.readouterr().err
    assert await run(gm._token, "narrative", "encounter", campaign, "--start",
                     "--reason", "ambush at the docks") == 0
    await han.call(n.OpenCheck, character="han", skill="Cool", check="init")
    await gm.call(n.SetDifficulty, check="init", level="simple")
    await han.call(n.RollCheck, check="init")
    capsys.readouterr()
    assert await run(han._token, "narrative", "encounter", campaign) == 0
    text = capsys.readouterr().out
    assert "encounter 1 (ambush at the docks): initiative being rolled" in text
    assert "rolled, not entered yet: init" in text
    assert await run(han._token, "narrative", "initiative", campaign, "init") == 0
    assert await run(gm._token, "narrative", "encounter", campaign, "--round") == 0
    assert await run(han._token, "narrative", "claim", campaign, "1") == 0  # the one han plays
    capsys.readouterr()
    assert await run(han._token, "narrative", "encounter", campaign, "--json") == 0
    encounter = json.loads(capsys.readouterr().out)["encounter"]
    assert (encounter["round"], encounter["waiting"]) == (1, [])
    assert [(s["slot"], s["side"], s["character"], s["taken_by"])
            for s in encounter["slots"]] == [(1, "player", "han", "han")]
    assert await run(gm._token, "state", campaign) == 0
    assert "1. player slot, han's Cool" in capsys.readouterr().out

    # a check whose result holds something to spend (dice are the server's: roll till one does)
    for attempt in range(20):
        await han.call(n.OpenCheck, character="han", skill="Ranged (Light)", check=f"s{attempt}")
        await gm.call(n.SetDifficulty, check=f"s{attempt}", level="average")
        await han.call(n.RollCheck, check=f"s{attempt}")
        result = han.state.game.checks[f"s{attempt}"].result
        assert result is not None
        held = {"advantage": max(result.advantages, 0), "threat": max(-result.advantages, 0),
                "triumph": result.triumphs, "despair": result.despairs}
        symbol = next((s for s, count in held.items() if count), None)
        if symbol is not None:
            break
    assert symbol is not None, "20 checks in a row had nothing to spend"
    check = f"s{attempt}"
    # in combat the player spends advantage and triumph, the GM threat and despair (the rule)
    spender = gm._token if symbol in ("threat", "despair") else han._token
    capsys.readouterr()
    assert await run(spender, "narrative", "spend", campaign, check, symbol, "40",
                     "--on", "everything") == 1
    assert "$.count" in capsys.readouterr().err
    assert await run(spender, "narrative", "spend", campaign, check, symbol,
                     "--on", "an extra manoeuvre") == 0
    assert f"spent 1 {symbol} of {check} on an extra manoeuvre" in capsys.readouterr().out
    capsys.readouterr()
    assert await run(gm._token, "narrative", "encounter", campaign, "--end") == 0
    assert "ended encounter 1 after 1 round\n" in capsys.readouterr().out  # not "1 rounds"
    assert await run(gm._token, "narrative", "encounter", campaign) == 0
    assert "no encounter running" in capsys.readouterr().out


def test_each_dice_modifier_names_a_command_of_the_events_with_its_field() -> None:
    """``narrative add|remove|upgrade|downgrade`` name the command they send (imported when
    sent, so that ``poolhall odds`` loads no event): each is a narrative command with that field,
    and the choices are the values the field takes."""
    for _, command, field, choices in MODIFIERS:
        command_type = getattr(n, command)
        assert command_type in n.COMMANDS
        assert field in command_type.__struct_fields__
        hint = typing.get_type_hints(command_type)[field]
        assert set(typing.get_args(hint)) == set(choices)
