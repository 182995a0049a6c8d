"""A state set from a snapshot, with later events folded onto it, shows what a full fold shows.

Every system, every split point of a real log made by the rules: the snapshot is encoded and
decoded as on the wire, so what a client holds is exactly what the server sent.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from poolhall.events import core, d12, sr3
from poolhall.events import narrative as n
from poolhall.events import narrative_encounter as e
from poolhall.events.base import Recorded
from poolhall.events.codec import encode
from poolhall.projections import d12 as d12_projection
from poolhall.projections import narrative as narrative_projection
from poolhall.projections import sr3 as sr3_projection
from poolhall.projections.campaign import evolve, fold
from poolhall.projections.snapshot import (
    SERVER_DECODER,
    Snapshot,
    observable,
    snapshot_of,
    state_from,
)
from tests.d12.d12_support import Table as D12Table
from tests.narrative.narrative_support import Table as NarrativeTable
from tests.sr3.sr3_support import Table as Sr3Table


def narrative_log() -> list[Recorded]:
    table = NarrativeTable()
    table.run("gm", core.Roll, expression="2d6")
    table.run("gm", core.StartSession, title="One")
    table.run("gm", n.RollDestinyPool)
    for number in range(4):
        table.open(f"shot{number}")
        table.run("han-player", n.AddDice, check=f"shot{number}", kind="boost")
        if number % 2:
            table.run("han-player", n.RollCheck, check=f"shot{number}")
        elif number == 2:
            table.run("gm", n.CancelCheck, check=f"shot{number}")
    table.open("rally", character="leia", skill="Leadership", member="leia-player")
    table.run("gm", n.FlipDestiny, side="dark", effect="upgrade_difficulty", check="rally")
    table.run("leia-player", n.RollCheck, check="rally")
    return table.log


def late_close_log() -> list[Recorded]:
    """Han's ``early`` check opened first and rolled last, after later checks were rolled or
    cancelled: the state keeps and the table shows the checks closed last, whenever they
    were opened."""
    table = NarrativeTable()
    table.open("early")
    for number in range(3):
        table.open(f"shot{number}", character="leia", skill="Leadership", member="leia-player")
        command = n.CancelCheck if number == 1 else n.RollCheck
        table.run("leia-player", command, check=f"shot{number}")
    table.run("han-player", n.RollCheck, check="early")
    left = table.game.checks["early"].left
    symbol = next(s for s in ("advantage", "threat", "triumph", "despair") if left.get(s))
    table.run("gm", e.SpendResult, check="early", symbol=symbol, count=1, on="a blaster jam")
    return table.log


def d12_log() -> list[Recorded]:
    table = D12Table()
    for number in range(3):
        table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=6,
                  extended=number == 1, refresh="CON" if number == 1 else None)
        table.run("han-player", d12.RollThresholdTest, test=number + 1)
    table.run("gm", d12.EndThresholdTest, test=2)
    table.run("gm", d12.RollBasicTest, dice=3, dt=5, character="han")
    return table.log


def late_end_log() -> list[Recorded]:
    """Han's test 1 called first and rolled last, after the GM's one-shot rolls ended: the
    state keeps and the table shows the tests ended last, whatever their number."""
    table = D12Table()
    table.run("gm", d12.CallThresholdTest, character="han", stats=("STR",), dt=6)
    for _ in range(3):
        table.run("gm", d12.RollBasicTest, dice=3, dt=5, character="vader")
    table.run("han-player", d12.RollThresholdTest, test=1)
    return table.log


def sr3_log() -> list[Recorded]:
    table = Sr3Table()
    table.run("gm", sr3.StartCombat)
    for _ in range(3):
        table.run("gm", sr3.RollPoolTest, character="sam", kind="combat", skill="pistols",
                  tn=4, pools={"combat": 1})
    table.run("gm", sr3.AdvanceCombatPass)
    table.run("gm", sr3.EndScene)
    return table.log


@pytest.mark.parametrize("make_log", [narrative_log, late_close_log, d12_log, late_end_log,
                                      sr3_log])
def test_snapshot_then_events_equals_the_full_fold(make_log: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """At every split, snapshot (as sent) + the rest of the log = the full fold's table."""
    for module in (narrative_projection, d12_projection, sr3_projection):
        monkeypatch.setattr(module, "TABLE_RECENT", 1)  # so that the cut is exercised
    monkeypatch.setattr(narrative_projection, "CLOSED_CHECKS", 1)
    log = make_log()
    whole = observable(fold(log))
    for split in range(1, len(log)):
        sent = encode(snapshot_of(fold(log[:split]), "0" * 64, []))
        snapshot = SERVER_DECODER.decode(sent)
        assert isinstance(snapshot, Snapshot)
        assert snapshot.seq == split
        state = state_from(snapshot)
        for recorded in log[split:]:
            evolve(state, recorded)
        assert observable(state) == whole, f"differs when the snapshot is at #{split}"


def test_the_cut_keeps_open_checks_and_the_latest_closed(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Open checks stay however old; closed ones beyond TABLE_RECENT are left to history."""
    monkeypatch.setattr(narrative_projection, "TABLE_RECENT", 1)
    monkeypatch.setattr(narrative_projection, "CLOSED_CHECKS", 1)
    state = fold(narrative_log())
    table = msgspec.to_builtins(snapshot_of(state, "", []).table)
    assert table["system"] == "narrative"
    assert sorted(table["game"]["checks"]) == ["rally", "shot0"]  # shot0: still open
    assert len(table["game"]["history"]["han"]) == 1
