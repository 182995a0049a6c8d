"""The sr3 subcommands of ``poolhall``: exact odds offline, and one Combat Turn from the shell."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from typing import Any

import pytest

from poolhall.clients.cli import main
from poolhall.events import core
from poolhall.projections.sr3_odds import open_distribution, success_distribution
from tests.sr3.sr3_support import decker, mage, street_sam


def test_sr3_odds_prints_success_odds_per_pool_die(capsys: Any) -> None:
    """``poolhall sr3-odds 5 --tn 6 --pool 3 --exact --json`` gives one row per pool die."""
    assert main(["sr3-odds", "5", "--tn", "6", "--pool", "3", "--beat", "1", "--exact",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["dice"] for row in data["rows"]] == [5, 6, 7, 8]
    assert [Fraction(p) for p in data["rows"][2]["exact"]] == success_distribution(7, 6)
    assert data["rows"][0]["beats"] == pytest.approx(data["rows"][0]["at_least"][2])
    assert main(["sr3-odds", "5", "--tn", "6"]) == 0
    assert "5 dice + 0..0 pool dice at TN 6" in capsys.readouterr().out


def test_sr3_odds_of_an_open_test(capsys: Any) -> None:
    """``--open`` prints the distribution of the highest total."""
    assert main(["sr3-odds", "2", "--open", "--pool", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    exact, _ = open_distribution(3)
    assert data["highest"]["3"]["7"] == pytest.approx(float(exact[7]))


def test_sr3_odds_refuses_absurd_tests(capsys: Any) -> None:
    """Too many dice, a TN of 1 or no TN at all are refused in one line (usage exit code)."""
    assert main(["sr3-odds", "500", "--tn", "4"]) == 2
    assert main(["sr3-odds", "5", "--tn", "1"]) == 2
    assert main(["sr3-odds", "5"]) == 2
    assert "--tn" in capsys.readouterr().err


async def test_one_combat_turn_from_the_shell(table: Any, capsys: Any) -> None:
    """The README walk-through: start, declare, shoot, dodge, karma, passes, sheet, scene."""
    campaign, gm = await table.create_campaign("sr3")
    sam = await table.invite(gm, "player", characters=("sam",))
    await gm.call(core.CreateCharacter, character="sam", name="Sam", stats=street_sam())
    await gm.call(core.CreateCharacter, character="deck", name="Deck", stats=decker())
    connection = ["--url", table.url]

    async def run(token: str, *argv: str) -> int:
        return await asyncio.to_thread(main, [*argv, *connection, "--token", token])

    assert await run(gm._token, "sr3", "start", campaign) == 0
    out = capsys.readouterr().out
    assert "combat started: sam, deck" in out
    assert "Combat Turn 1 begins" in out
    assert await run(sam._token, "sr3", "declare", campaign, "sam", "pistols tn4 combat") == 0
    assert "may draw: combat 5" in capsys.readouterr().out
    assert await run(sam._token, "sr3", "test", campaign, "sam", "pistols tn4 +6cp combat") == 1
    assert "at most 5 Combat Pool dice" in capsys.readouterr().err
    assert await run(sam._token, "sr3", "test", campaign, "sam", "pistols tn4 +3cp combat") == 0
    assert "sam test #1 pistols (combat) tn 4" in capsys.readouterr().out
    assert await run(gm._token, "sr3", "test", campaign, "deck", "0d6 tn4 +4cp dodge vs 1") == 0
    out = capsys.readouterr().out
    assert "deck test #2 Combat Pool (dodge) tn 4: cp " in out
    assert "test #1" in out
    assert await run(gm._token, "state", campaign) == 0  # the Dodge named as the log names it
    assert "test #2 deck Combat Pool (dodge): " in capsys.readouterr().out
    assert await run(gm._token, "sr3", "combat", campaign, "--json") == 0
    view = json.loads(capsys.readouterr().out)
    assert view["characters"]["sam"]["pools"]["combat"] == {"full": 7, "left": 4}
    assert view["characters"]["deck"]["pools"]["combat"] == {"full": 6, "left": 2}
    for _ in range(6):
        assert await run(gm._token, "sr3", "pass", campaign) == 0
    assert "Combat Turn 1 ended" in capsys.readouterr().out
    assert await run(gm._token, "sr3", "combat", campaign) == 0
    assert "sam" in capsys.readouterr().out
    assert await run(sam._token, "sr3", "test", campaign, "sam", "electronics tn9") == 0
    capsys.readouterr()
    assert await run(sam._token, "sr3", "karma", campaign, "sam", "3") == 0
    assert "spent 1 Karma Pool to reroll" in capsys.readouterr().out
    assert await run(sam._token, "sr3", "sheet", campaign, "sam", "--json") == 0
    sheet = json.loads(capsys.readouterr().out)
    assert sheet["sam"]["karma"]["left"] == 3
    assert await run(gm._token, "sr3", "scene", campaign) == 0
    assert "scene ended; karma pool back: sam 1" in capsys.readouterr().out
    assert await run(gm._token, "sr3", "end", campaign) == 0
    assert "combat ended" in capsys.readouterr().out
    assert await run(gm._token, "roll", campaign, "6d6 tn5", "--character", "sam") == 0
    assert "6d6" not in capsys.readouterr().err


async def test_wounded_initiative_and_the_unconscious_from_the_shell(table: Any,
                                                                      capsys: Any) -> None:
    """Sam with Physical 3 + Stun 2 and Deck with a full Stun monitor: ``sr3 start`` prints
    Sam's score less 3 for wounds and Deck not acting; ``sr3 combat`` and ``sr3 sheet`` too."""
    campaign, gm = await table.create_campaign("sr3")
    await gm.call(core.CreateCharacter, character="sam", name="Sam", stats=street_sam())
    await gm.call(core.CreateCharacter, character="deck", name="Deck", stats=decker())
    for character, condition, value in (("sam", "physical", 3), ("sam", "stun", 2),
                                        ("deck", "stun", 10)):
        await gm.call(core.SetCondition, character=character, condition=condition, value=value)
    connection = ["--url", table.url, "--token", gm._token]

    async def run(*argv: str) -> str:
        assert await asyncio.to_thread(main, [*argv, *connection]) == 0
        out: str = capsys.readouterr().out
        return out

    out = await run("sr3", "start", campaign)
    assert "- 3 for wounds); order: sam; not acting: deck (unconscious)" in out
    view = json.loads(await run("sr3", "combat", campaign, "--json"))
    assert (view["characters"]["sam"]["wounds"], view["characters"]["deck"]["out"]) == \
        (3, "unconscious")
    out = await run("sr3", "combat", campaign)
    assert f"{view['characters']['sam']['score']} (-3 for wounds)" in out
    assert "unconscious" in out
    sheet = json.loads(await run("sr3", "sheet", campaign, "sam", "--json"))
    assert sheet["sam"]["initiative"] == "Reaction 5 + 4 + 3d6 - 3 for wounds"


async def test_a_dodges_refusals_and_a_tn_past_100_from_the_shell(table: Any,
                                                                  capsys: Any) -> None:
    """``poolhall sr3 test`` says in words why a Dodge of Karma dice alone, a surprised one and
    a second one against the same attack are refused, and a TN past 100 with wounds (it printed
    "the result would break a limit of the log: expected `int` <= 100 - at `$.tn` in
    pool_test_rolled"); nothing is logged for any of them."""
    campaign, gm = await table.create_campaign("sr3")
    await gm.call(core.CreateCharacter, character="sam", name="Sam", stats=street_sam())
    await gm.call(core.CreateCharacter, character="deck", name="Deck", stats=decker())
    connection = ["--url", table.url, "--token", gm._token]

    async def run(*argv: str) -> tuple[int, str, str]:
        code = await asyncio.to_thread(main, [*argv, *connection])
        out, err = capsys.readouterr()
        return code, out, err

    assert (await run("sr3", "test", campaign, "sam", "pistols tn4"))[0] == 0
    code, _, err = await run("sr3", "test", campaign, "deck", "0d6 tn4 +2 karma dodge vs 1")
    assert code == 1
    assert "a Dodge needs at least one Combat Pool die" in err
    code, _, err = await run("sr3", "test", campaign, "deck",
                             "0d6 tn4 +1cp +1 karma dodge surprised vs 1")
    assert code == 1
    assert "a surprised character cannot Dodge" in err
    code, out, _ = await run("sr3", "test", campaign, "deck", "0d6 tn4 +1cp +1 karma dodge vs 1")
    assert code == 0
    assert "deck test #2 Combat Pool (dodge) tn 4: cp " in out
    code, _, err = await run("sr3", "test", campaign, "deck", "0d6 tn4 +2cp dodge vs 1")
    assert code == 1
    assert "deck already dodged test #1 with test #2: one Dodge per attack" in err
    await gm.call(core.SetCondition, character="sam", condition="physical", value=10)
    code, _, err = await run("sr3", "test", campaign, "sam", "1d6 tn99")
    assert code == 1
    assert "TN 99 + 3 for wounds is past the limit of 100 for a target number" in err
    assert "expected" not in err
    code, out, _ = await run("sr3", "test", campaign, "sam", "1d6 tn97")
    assert code == 0
    assert "sam test #3 dice (other) tn 100: " in out  # no refused test took a number


async def test_what_may_answer_a_test_from_the_shell(table: Any, capsys: Any) -> None:
    """sr3law's reproduction (D1, D2). "Karma pool may be used to reroll tests": Deck's player
    pointed his Physics test at Sam's shot ("physics tn4 vs 1"), and Sam's ``sr3 karma`` was
    refused ("test #1 was answered by test #2; its result stands"). "Whenever a character takes
    damage from a ranged or melee attack, he or she can allocate dice to either dodge the
    attack": Sam dodged his own shot. "A player can only use Combat Pool dice to augment or
    resist magic-related tests in the case of elemental manipulation spells": Deck dodged a
    Stunbolt with Combat Pool dice, and an astral attack too ("the Combat Pool is not used on
    the astral plane"). Each is refused in words now; Sam's reroll goes through."""
    campaign, gm = await table.create_campaign("sr3")
    sam = await table.invite(gm, "player", characters=("sam",))
    deck = await table.invite(gm, "player", characters=("deck",))
    for character, name, stats in (("sam", "Sam", street_sam()), ("deck", "Deck", decker()),
                                   ("mage", "Mage", mage())):
        await gm.call(core.CreateCharacter, character=character, name=name, stats=stats)

    async def run(token: str, *argv: str) -> tuple[int, str, str]:
        code = await asyncio.to_thread(main, [*argv, "--url", table.url, "--token", token])
        out, err = capsys.readouterr()
        return code, out, err

    assert (await run(gm._token, "sr3", "start", campaign))[0] == 0
    assert (await run(sam._token, "sr3", "test", campaign, "sam", "pistols tn6 combat"))[0] == 0
    code, _, err = await run(deck._token, "sr3", "test", campaign, "deck", "physics tn4 vs 1")
    assert code == 1
    assert "test #1, sam's pistols test (combat), is an attack" in err
    code, _, err = await run(sam._token, "sr3", "test", campaign, "sam", "0d6 tn4 +1cp dodge vs 1")
    assert code == 1
    assert "test #1 is sam's own" in err
    code, out, _ = await run(sam._token, "sr3", "karma", campaign, "sam", "1")
    assert code == 0
    assert "spent 1 Karma Pool to reroll" in out

    assert (await run(gm._token, "sr3", "test", campaign, "mage", "sorcery tn4 spell"))[0] == 0
    code, _, err = await run(deck._token, "sr3", "test", campaign, "deck",
                             "0d6 tn4 +2cp dodge vs 2")
    assert code == 1
    assert "is not an elemental manipulation spell" in err
    assert (await run(gm._token, "sr3", "test", campaign, "mage",
                      "unarmed tn4 combat astral"))[0] == 0
    code, _, err = await run(deck._token, "sr3", "test", campaign, "deck",
                             "0d6 tn4 +1cp dodge vs 3")
    assert code == 1
    assert "the Astral Combat Pool serves Combat Tests made on the astral plane" in err
    code, out, _ = await run(gm._token, "sr3", "combat", campaign, "--json")
    assert json.loads(out)["characters"]["deck"]["pools"]["combat"] == {"full": 6, "left": 6}


async def test_a_wounded_declared_test_says_its_target_number_from_the_shell(
        table: Any, capsys: Any) -> None:
    """sr3law D3. Sam with Physical 3 and Stun 1 (+3 to target numbers, standard SR3's wound
    modifiers) declares "pistols tn4 combat": ``poolhall state`` printed "tn 4: success with
    pool dice +0 59.8%", TN 7's odds under TN 4, where the page says "against target number 7:
    4 + 3 for wounds", and ``sr3 declare`` echoed "tn 4". Both say the wounds now."""
    campaign, gm = await table.create_campaign("sr3")
    await gm.call(core.CreateCharacter, character="sam", name="Sam", stats=street_sam())
    for condition, value in (("physical", 3), ("stun", 1)):
        await gm.call(core.SetCondition, character="sam", condition=condition, value=value)
    connection = ["--url", table.url, "--token", gm._token]

    async def run(*argv: str) -> str:
        assert await asyncio.to_thread(main, [*argv, *connection]) == 0
        out: str = capsys.readouterr().out
        return out

    out = await run("sr3", "declare", campaign, "sam", "pistols tn4 combat")
    assert "sam declares a pistols (combat) test, tn 4 + 3 for wounds, 5 dice" in out
    out = await run("state", campaign)
    assert "declared: sam pistols (combat) tn 4 (against target number 7: 4 + 3 for wounds): " \
           "success with pool dice +0 59.8%, +1 66.5%" in " ".join(out.split())


def test_sr3_odds_says_a_chance_too_small_for_two_decimals(capsys: Any) -> None:
    """Five dice at TN 13 get 4 successes about 3 times in a million: ``sr3-odds`` printed it
    "0.00%", as if impossible, where the page's odds read "< 0.01%"; ten dice at TN 3 fail
    once in 59,049 tests, "100.00%" for the page's "> 99.99%"."""
    assert main(["sr3-odds", "5", "--tn", "13"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("│    5"))
    assert row.split("│")[6].strip() == "< 0.01%"
    assert main(["sr3-odds", "10", "--tn", "3"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("│   10"))
    assert row.split("│")[2].strip() == "> 99.99%"
    # a Dodge's column and the open test's table say it the same way, summed exactly
    assert main(["sr3-odds", "5", "--tn", "13", "--beat", "3"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("│    5"))
    assert row.split("│")[8].strip() == "< 0.01%"
    assert main(["sr3-odds", "8", "--open"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("│  1 "))
    assert row.split("│")[2].strip() == "100.00%"  # the highest total is always at least 1
