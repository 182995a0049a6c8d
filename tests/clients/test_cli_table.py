"""``poolhall state`` and ``sheet`` read like the table, per system; mistakes get plain words."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from poolhall.clients.cli import main
from poolhall.events import core, d12, sr3
from poolhall.events import narrative as n

HAN = n.NarrativeStats(agility=3, skills={
    "Ranged (Light)": n.Skill(rank=2, characteristic="agility"),
    "Piloting (Space)": n.Skill(rank=1, characteristic="agility")})
SAM = sr3.Sr3Stats(body=6, quickness=6, strength=5, charisma=2, intelligence=5, willpower=4,
                   skills={"pistols": sr3.Sr3Skill(rating=5, attribute="quickness",
                                                   kind="combat")})


def _runner(table: Any) -> Any:
    async def run(token: str, *argv: str) -> int:
        return await asyncio.to_thread(main, [*argv, "--url", table.url, "--token", token])
    return run


async def test_narrative_state_is_one_readable_screen_with_odds(table: Any, capsys: Any) -> None:
    """Members, Han's compact sheet, the open check with its odds, destiny, the last lines:
    and the same screen however long the log (the rolls of long ago are not printed)."""
    campaign, gm = await table.create_campaign("narrative", "Edge")
    han = await table.invite(gm, "player", characters=("han",))
    await gm.call(core.CreateCharacter, character="han", name="Han Solo", stats=HAN)
    for number in range(40):
        await gm.call(core.Roll, expression="1d6", reason=f"old roll {number}")
    run = _runner(table)
    assert await run(han._token, "narrative", "open", campaign, "Ranged (Light)", "--id",
                     "shot") == 0  # the player's one character need not be named
    assert await run(gm._token, "narrative", "difficulty", campaign, "shot", "hard") == 0
    capsys.readouterr()
    assert await run(han._token, "state", campaign) == 0
    out = capsys.readouterr().out
    assert "Han Solo" in out
    assert "Ag 3" in out
    assert "Ranged (Light) 2" in out
    assert "check shot: han's Ranged (Light), hard: 2y1g3p" in out
    assert "odds: success 57.9%" in out
    assert "destiny pool: 0 light, 0 dark" in out
    assert "old roll 39" in out
    assert "old roll 20" not in out
    assert len(out.splitlines()) < 30
    assert await run(han._token, "state", campaign, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    [check] = data["game"]["open_checks"]
    assert check["pool"] == "2y1g3p"
    assert check["odds"].startswith("success 57.9%")
    assert len(data["log"]) == 10
    assert len(data["rolls"]) == 10


async def test_sheet_of_the_one_character_a_player_plays(table: Any, capsys: Any) -> None:
    """``poolhall sheet CAMPAIGN``: a player's own sheet, each skill with the dice it rolls;
    the GM names a character, and a misspelt one gets "did you mean"."""
    campaign, gm = await table.create_campaign("narrative")
    han = await table.invite(gm, "player", characters=("han",))
    await gm.call(core.CreateCharacter, character="han", name="Han Solo", stats=HAN)
    run = _runner(table)
    assert await run(han._token, "sheet", campaign) == 0
    out = capsys.readouterr().out
    assert "Han Solo (han)" in out
    assert "Agility 3" in out
    assert "Ranged (Light)" in out
    assert "rolls 2y1g" in out
    assert await run(gm._token, "sheet", campaign, "hna") == 2
    assert "no character 'hna'" in capsys.readouterr().err
    assert await run(gm._token, "narrative", "open", campaign, "Cool") == 2
    assert "name the character" in capsys.readouterr().err


async def test_a_misspelt_skill_or_die_gets_did_you_mean(table: Any, capsys: Any) -> None:
    """The server's refusal of an unknown skill suggests the near one; a die name that is
    not one is refused before sending, with a suggestion, as JSON with ``--json``."""
    campaign, gm = await table.create_campaign("narrative")
    han = await table.invite(gm, "player", characters=("han",))
    await gm.call(core.CreateCharacter, character="han", name="Han Solo", stats=HAN)
    run = _runner(table)
    assert await run(han._token, "narrative", "open", campaign, "Ranged (Lite)") == 1
    assert "did you mean 'Ranged (Light)'?" in capsys.readouterr().err
    assert await run(han._token, "narrative", "add", campaign, "shot", "abilty") == 2
    assert "did you mean 'ability'?" in capsys.readouterr().err
    assert await run(han._token, "narrative", "add", campaign, "shot", "abilty", "--json") == 2
    error = json.loads(capsys.readouterr().out)
    assert error["error"] == "usage"
    assert "did you mean 'ability'?" in error["message"]
    assert await asyncio.to_thread(main, ["odds", "2 abilty 1 difficulty"]) == 2
    assert "did you mean 'ability'?" in capsys.readouterr().err


async def test_sr3_combat_skill_test_is_a_combat_test(table: Any, capsys: Any) -> None:
    """``sr3 test CAMPAIGN "pistols tn4 +3cp"`` by Sam's player: no character named, no kind
    given, and the Combat Pool helps because Pistols is a Combat Skill; ``state`` shows the
    combat turn and ``sheet`` the pools."""
    campaign, gm = await table.create_campaign("sr3")
    sam = await table.invite(gm, "player", characters=("sam",))
    await gm.call(core.CreateCharacter, character="sam", name="Sam", stats=SAM)
    run = _runner(table)
    assert await run(gm._token, "sr3", "start", campaign) == 0
    assert await run(sam._token, "sr3", "declare", campaign, "pistols tn4") == 0
    capsys.readouterr()
    assert await run(sam._token, "state", campaign) == 0
    out = capsys.readouterr().out
    assert "Combat Turn 1, pass 1" in out
    assert "combat 7/7" in out
    assert "declared: sam pistols (combat) tn 4: success with pool dice +0 " in out
    assert await run(sam._token, "sr3", "test", campaign, "pistols tn4 +3cp") == 0
    assert "sam test #1 pistols (combat) tn 4" in capsys.readouterr().out
    assert await run(sam._token, "roll", campaign, "6d6 tn5") == 0  # Sam's, unnamed
    assert "sam test #2" in capsys.readouterr().out
    assert await run(sam._token, "sheet", campaign) == 0
    out = capsys.readouterr().out
    assert "Sam (sam): initiative" in out
    assert "combat pool" in out
    assert "in combat: Combat Turn 1" in out
    assert "combat 4/7" in out


async def test_d12_state_and_a_dt_out_of_range_in_plain_words(table: Any, capsys: Any) -> None:
    """An open d12 test shows its odds in ``state``; a DT of 13 is refused by the server as
    "the DT is between 1 and 12", not in the validator's words."""
    campaign, gm = await table.create_campaign("d12")
    await gm.call(core.CreateCharacter, character="han", name="Han",
                  stats=d12.D12Stats(ratings={"CON": 3, "CHA": 2, "STR": 4}))
    run = _runner(table)
    assert await run(gm._token, "d12", "call", campaign, "han", "STR", "--dt", "7",
                     "--label", "bar fight") == 0
    capsys.readouterr()
    assert await run(gm._token, "state", campaign) == 0
    out = capsys.readouterr().out
    assert "test 1 bar fight: basic for han, pool 4, DT 7" in out
    assert "odds: 4d12 at DT 7: success" in out
    assert "CON 3 CHA 2 STR 4" in out
    assert await run(gm._token, "d12", "dt", campaign, "1", "--dt", "13") == 1
    err = capsys.readouterr().err
    assert "the DT is between 1 and 12" in err
    assert "expected" not in err.lower()


async def test_d12_state_never_reads_a_pool_that_may_be_lost_as_certain(
        table: Any, capsys: Any) -> None:
    """Gil's 8 dice at DT 3 are all lost once in 65,536 rounds: ``state`` read "1:100.0%";
    it reads "> 99.9%" as the page reads "> 99.99%"; and the survival of 20 dice at DT 1,
    whose float was 1.0, reads "> 99.9%" too."""
    campaign, gm = await table.create_campaign("d12")
    await gm.call(core.CreateCharacter, character="gil", name="Gil",
                  stats=d12.D12Stats(ratings={"CON": 3, "CHA": 2, "DEX": 8, "STR": 20}))
    run = _runner(table)
    for stat, dt in (("DEX", "3"), ("STR", "1")):
        assert await run(gm._token, "d12", "call", campaign, "gil", stat, "--dt", dt,
                         "--extended", "CON") == 0
    capsys.readouterr()
    assert await run(gm._token, "state", campaign) == 0
    out = capsys.readouterr().out
    assert "8d12 at DT 3: success 86.2%" in out
    assert "pool survives 1 round > 99.9%, 2 rounds > 99.9%, 3 rounds > 99.9%" in out
    assert "20d12 at DT 1: success 99.9%" in out  # fails about once in 1,700
    assert out.count("5 rounds > 99.9%") == 2
    assert "100.0%" not in out
