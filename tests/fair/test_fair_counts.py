"""A roll recorded with its last dice left out holds a true prefix of its stream: every face
checks. ``poolhall verify`` compares how many dice each roll drew with what its recorded
request asks for (an auditor's "3d6" holding 2 of its 3 faces passed every check)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Event, Recorded
from poolhall.events.codec import encode_event
from poolhall.projections.fair_verify import check_campaign
from tests.d12.d12_support import Table as D12Table
from tests.fair.test_fair_session import reference_verifier
from tests.narrative.narrative_support import Table as NarrativeTable
from tests.rules_table import RulesTable
from tests.sr3.sr3_support import Table as Sr3Table

Cut = Callable[[Any], Any]


def _last_die_dropped(event: Any) -> Any:
    """``event`` with its last die left out (what it records of it otherwise unchanged)."""
    replace = msgspec.structs.replace
    if isinstance(event, core.DiceRolled):
        *head, last = event.terms
        return replace(event, terms=(*head, replace(last, faces=last.faces[:-1])),
                       total=event.total - last.sign * last.faces[-1])
    if isinstance(event, d12.ThresholdDiceRolled):
        return replace(event, faces=event.faces[:-1], values=event.values[:-1])
    if isinstance(event, sr3.PoolTestRerolled):
        return replace(event, faces=event.faces[:-1])
    if isinstance(event, sr3.InitiativeScoresRolled):
        *rolls, roll = event.rolls
        return replace(event, rolls=(*rolls, replace(roll, faces=roll.faces[:-1])))
    return replace(event, dice=event.dice[:-1])


def _free() -> RulesTable:
    table = D12Table()
    table.run("gm", core.Roll, expression="3d6")
    return table


def _d12() -> RulesTable:
    table = D12Table()
    table.run("gm", d12.RollBasicTest, dice=6, dt=7, character="han")
    return table


def _check() -> RulesTable:
    table = NarrativeTable()
    table.run("gm", narrative.RollPool, pool=narrative.Pool(ability=2, difficulty=1,
                                                            challenge=1))
    return table


def _narrative_check() -> RulesTable:
    table = NarrativeTable()
    table.open("shot", level="hard")
    table.run("gm", narrative.AddDice, check="shot", kind="setback", count=2)
    table.run("han-player", narrative.RollCheck, check="shot")
    return table


def _destiny() -> RulesTable:
    table = NarrativeTable()
    table.run("gm", core.StartSession, title="One")
    table.run("gm", narrative.RollDestinyPool)
    return table


def _test(karma: int) -> Callable[[], RulesTable]:
    def roll() -> RulesTable:
        table = Sr3Table()
        table.run("sam-player", sr3.RollPoolTest, character="sam", dice=4, tn=5,
                  karma_dice=karma)
        return table
    return roll


def _reroll() -> RulesTable:
    table = Sr3Table()
    table.dice(1, 2, 3, 5, 1, 2, 4)
    table.run("sam-player", sr3.RollPoolTest, character="sam", dice=4, tn=5)
    table.run("sam-player", sr3.RerollWithKarma, test=1, character="sam")
    return table


def _initiative() -> RulesTable:
    table = Sr3Table()
    table.run("gm", sr3.StartCombat, participants=("sam",))  # 3 initiative dice
    return table


TABLES: dict[str, tuple[Callable[[], RulesTable], type[Event]]] = {
    "free roll 3d6": (_free, core.DiceRolled),
    "d12 basic test": (_d12, d12.ThresholdDiceRolled),
    "narrative pool": (_check, narrative.PoolRolled),
    "narrative check": (_narrative_check, narrative.CheckRolled),
    "destiny pool": (_destiny, narrative.DestinyPoolRolled),
    "sr3 test, a base die": (_test(0), sr3.PoolTestRolled),
    "sr3 test, a Karma die": (_test(2), sr3.PoolTestRolled),
    "sr3 Karma reroll": (_reroll, sr3.PoolTestRerolled),
    "sr3 initiative": (_initiative, sr3.InitiativeScoresRolled),
}


def _cut(log: list[Recorded], kind: type[Event]) -> list[Recorded]:
    """The log with the last event of ``kind`` holding one die fewer."""
    (at,) = [n for n, rec in enumerate(log) if type(rec.event) is kind][-1:]
    forged = msgspec.structs.replace(log[at], event=_last_die_dropped(log[at].event))
    return [*log[:at], forged, *log[at + 1:]]


def _export(tmp_path: Path, log: list[Recorded]) -> Path:
    """The log as ``poolhall export --events`` writes it."""
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps({
        "seq": rec.seq, "at": rec.at, "actor": rec.actor, "command": rec.command,
        "event": json.loads(encode_event(rec.event))}) + "\n" for rec in log))
    return path


@pytest.mark.parametrize("name", list(TABLES))
def test_a_roll_with_its_last_die_left_out_is_reported(name: str, tmp_path: Path) -> None:
    """Rule: a roll draws the dice its request asks for. The honest log passes; the same log
    with the roll's last die left out is reported at that roll, as dice left out, by
    ``poolhall verify`` and by the reference verifier."""
    make, kind = TABLES[name]
    log = make().log
    assert check_campaign("c", log).problems == []
    assert reference_verifier(_export(tmp_path, log)).returncode == 0
    cut = _cut(log, kind)
    problems = check_campaign("c", cut).problems
    seq = [rec.seq for rec in log if type(rec.event) is kind][-1]
    assert [p.seq for p in problems if "left out" in p.problem or "another number" in p.problem] \
        == [seq], problems
    done = reference_verifier(_export(tmp_path, cut))
    assert done.returncode == 1
    assert f"mismatch #{seq}: " in done.stdout, done.stdout


def test_a_karma_reroll_of_dice_that_did_not_fail_is_reported() -> None:
    """Rule: a Karma reroll rerolls the test's failed dice, every one of them."""
    log = _reroll().log
    at = [n for n, rec in enumerate(log) if type(rec.event) is sr3.PoolTestRerolled][0]
    event = log[at].event
    assert isinstance(event, sr3.PoolTestRerolled)
    forged = msgspec.structs.replace(event, indices=event.indices[:-1], faces=event.faces[:-1])
    log[at] = msgspec.structs.replace(log[at], event=forged)
    (problem,) = check_campaign("c", log).problems
    assert "its failed dice are" in problem.problem


def test_a_rule_of_six_chain_cut_in_two_is_reported_by_the_reference_verifier(
        tmp_path: Path) -> None:
    """Rule: the Rule of Six rerolls every 6 and adds it to the die. A chain [6, 1] recorded as
    two dice [6] [1] (its reroll a die of its own, successes counted for that shape) holds
    the stream's faces in order: the reference verifier reports it as ``poolhall verify``
    does (an auditor's forgery passed it)."""
    table = Sr3Table()
    table.dice(2, 3, 5, 2, 3, 6, 1)
    table.run("sam-player", sr3.RollPoolTest, character="sam", dice=6, tn=7)
    log = table.log
    event = log[-1].event
    assert isinstance(event, sr3.PoolTestRolled)
    assert [d.faces for d in event.dice][-1] == (6, 1)
    dice = [sr3.PoolDie(source="base", faces=(face,)) for d in event.dice for face in d.faces]
    forged = msgspec.structs.replace(event, dice=tuple(dice), base_dice=len(dice), successes=0,
                                     highest=6)
    log[-1] = msgspec.structs.replace(log[-1], event=forged)
    (problem,) = check_campaign("c", log).problems
    done = reference_verifier(_export(tmp_path, log))
    assert done.returncode == 1
    assert f"mismatch #{log[-1].seq}: a 6 was not rerolled" in done.stdout, done.stdout
    assert problem.problem.startswith("a 6 was not rerolled")
