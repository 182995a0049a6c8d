"""``poolhall verify`` checks what each rolled event says its dice came to against its faces:
a forged total, result or margin beside true faces is reported (an attacker's trial rewrote a
free roll's total, rehashed the chain, and both verifiers and the page passed it)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from poolhall.events import core, d12, narrative, sr3
from poolhall.events.base import Event
from poolhall.events.fair import SeedCommitted, commitment
from poolhall.projections.fair_results import RESULTS, result_problem
from poolhall.projections.fair_verify import check_campaign
from poolhall.server.rules.fairness import EpochSeeds
from tests.d12.d12_support import Table as D12Table
from tests.fair.test_fair_rules import SEEDS, _log
from tests.narrative.narrative_support import Table as NarrativeTable
from tests.rules_table import RulesTable
from tests.sr3.sr3_support import Table as Sr3Table

NOW = "2024-01-01T00:00:00.000Z"


def _fair(table: RulesTable) -> RulesTable:
    table.fold(SeedCommitted(epoch=1, commitment=commitment(SEEDS[1])))
    table.seeds = EpochSeeds(current=SEEDS[1], following=SEEDS[2], now=NOW)
    return table


def _rolled(kind: type[Event]) -> Event:
    """A real event of ``kind``, as the rules decided it."""
    if kind is core.DiceRolled:
        events = _fair(D12Table()).run("gm", core.Roll, expression="3d6+2d4-1")
    elif kind is d12.ThresholdDiceRolled:
        events = _fair(D12Table()).run("gm", d12.RollBasicTest, dice=6, dt=7, character="han")
    elif kind is sr3.PoolTestRolled:
        events = _fair(Sr3Table()).run("sam-player", sr3.RollPoolTest, character="sam",
                                       dice=8, tn=5)
    elif kind is narrative.DestinyPoolRolled:
        table = _fair(NarrativeTable())
        table.run("gm", core.StartSession, title="One")
        table.seeds = EpochSeeds(current=SEEDS[2], following=SEEDS[3], now=NOW)
        events = table.run("gm", narrative.RollDestinyPool)
    elif kind is narrative.ForceDiceRolled:
        events = _fair(NarrativeTable()).run("gm", narrative.RollForceDice, character="vader",
                                             count=3)
    else:
        events = _fair(NarrativeTable()).run("gm", narrative.RollPool, pool=narrative.Pool(
            proficiency=2, ability=2, difficulty=2, challenge=1, boost=1, setback=1))
    (event,) = [e for e in events if type(e) is kind]
    return event


FORGED: dict[type[Event], dict[str, Any]] = {
    core.DiceRolled: {"total": 99},
    d12.ThresholdDiceRolled: {"margin": 9, "succeeded": True},
    sr3.PoolTestRolled: {"successes": 8},
    narrative.DestinyPoolRolled: {"light": 9},
    narrative.ForceDiceRolled: {"dark": 9},
    narrative.PoolRolled: {"result": narrative.NarrativeResult(
        successes=5, advantages=0, triumphs=0, despairs=0, light=0, dark=0, succeeded=True)},
}


@pytest.mark.parametrize("kind", list(FORGED), ids=lambda kind: kind.__name__)
def test_a_forged_result_beside_true_faces_is_reported(kind: type[Event]) -> None:
    """Rule: what a roll came to is what its faces count to by the rules: each system's
    rolled event as the rules decided it agrees with itself; its result forged does not."""
    event = _rolled(kind)
    assert result_problem(event) is None
    forged = msgspec.structs.replace(event, **FORGED[kind])
    assert forged != event  # the forgery changed something (a forged total equal to the true
    problem = result_problem(forged)  # one would prove nothing)
    assert problem is not None
    # poolhall verify reports it, for a roll from before fair rolls too (no stamp)
    counts = check_campaign("c", _log(msgspec.structs.replace(forged, fair=None)))
    assert [p.problem for p in counts.problems] == [problem]


def test_a_die_whose_symbols_are_not_its_face_is_reported() -> None:
    """A narrative die records its face and the symbols on it: symbols moved to a face
    that does not bear them are reported, even with a result that counts them."""
    event = _rolled(narrative.PoolRolled)
    assert isinstance(event, narrative.PoolRolled)
    die = next(d for d in event.dice if d.kind == "proficiency")
    forged_die = msgspec.structs.replace(die, symbols=("triumph",))
    dice = tuple(forged_die if d is die else d for d in event.dice)
    problem = result_problem(msgspec.structs.replace(event, dice=dice))
    assert problem is not None
    assert f"a proficiency die showing face {die.face} records triumph" in problem


def test_every_result_a_roll_records_alone_is_checked() -> None:
    """The events left out hold a result that counts more than their own dice (a Karma
    reroll's test, an initiative's Reaction): every other rolled event is checked."""
    from poolhall.projections.fair_draws import DRAWS
    assert set(DRAWS) - set(RESULTS) == {sr3.PoolTestRerolled, sr3.InitiativeScoresRolled}
