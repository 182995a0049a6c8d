"""The live state is bounded, and the bound changes nothing a table shows.

Each fold keeps the latest rolls, lines and closed checks or tests only; the snapshot's cut is
smaller still, so a fold with tiny bounds shows what one with the defaults shows, and a state
stored at any seq (as the server stores it) with the rest folded onto it is the same state.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from poolhall.events import core
from poolhall.events.base import Recorded
from poolhall.events.dice import RolledTerm
from poolhall.projections import campaign as campaign_projection
from poolhall.projections import d12 as d12_projection
from poolhall.projections import narrative as narrative_projection
from poolhall.projections import sr3 as sr3_projection
from poolhall.projections.campaign import ROLLS_KEPT, evolve, fold
from poolhall.projections.snapshot import observable
from poolhall.server.stored_snapshots import decode_state, encode_state
from tests.projections.test_snapshot_fold import (
    d12_log,
    late_close_log,
    late_end_log,
    narrative_log,
    sr3_log,
)


def rolls(count: int) -> list[Recorded]:
    """A campaign that rolls ``count`` times."""
    created = core.CampaignCreated(campaign="c", name="C", system="narrative")
    log = [Recorded(seq=1, at="t", actor="admin", command="create", event=created)]
    for number in range(count):
        log.append(Recorded(seq=number + 2, at="t", actor="gm", command=f"r{number}",
                            event=core.DiceRolled(expression="1d6",
                                                  terms=(RolledTerm(sides=6, faces=(3,)),),
                                                  total=3)))
    return log


def test_the_roll_log_is_bounded_after_ten_thousand_rolls() -> None:
    """10,000 rolls leave the latest ROLLS_KEPT in the state, the last one last."""
    state = fold(rolls(10_000))
    assert len(state.rolls) == ROLLS_KEPT
    assert [roll.seq for roll in state.rolls] == list(range(10_001 - ROLLS_KEPT + 1, 10_002))
    assert len(encode_state(state)) < 16_000  # what a stored snapshot costs, whatever the log


def tiny_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounds of one (still no smaller than the cut below)."""
    monkeypatch.setattr(campaign_projection, "ROLLS_KEPT", 1)
    monkeypatch.setattr(narrative_projection, "LINES_KEPT", 1)
    monkeypatch.setattr(narrative_projection, "CLOSED_KEPT", 1)
    monkeypatch.setattr(d12_projection, "ENDED_KEPT", 1)


def small_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (narrative_projection, d12_projection, sr3_projection):
        monkeypatch.setattr(module, "TABLE_RECENT", 1)
    monkeypatch.setattr(narrative_projection, "CLOSED_CHECKS", 1)
    monkeypatch.setattr("poolhall.projections.snapshot.TABLE_ROLLS", 1)


@pytest.mark.parametrize("make_log", [narrative_log, late_close_log, d12_log, late_end_log,
                                      sr3_log])
def test_tiny_bounds_show_the_table_the_defaults_show(make_log: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """At every seq, a fold bounded to one of everything shows what the default fold shows."""
    small_cut(monkeypatch)
    log = make_log()
    shown = [observable(fold(log, upto=seq)) for seq in range(1, len(log) + 1)]
    tiny_bounds(monkeypatch)
    assert [observable(fold(log, upto=seq)) for seq in range(1, len(log) + 1)] == shown


@pytest.mark.parametrize("make_log", [narrative_log, late_close_log, d12_log, late_end_log,
                                      sr3_log])
def test_a_stored_state_with_the_rest_folded_is_the_full_fold(make_log: Any,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """Stored at any seq N (bounded) and folded on to the end: exactly the state of one fold
    from the start, token hashes and all, so the table shown at M is the same too."""
    tiny_bounds(monkeypatch)
    log = make_log()
    whole = msgspec.to_builtins(fold(log))
    for split in range(1, len(log)):
        state = decode_state(encode_state(fold(log[:split])))
        for recorded in log[split:]:
            evolve(state, recorded)
        assert msgspec.to_builtins(state) == whole, f"differs when stored at #{split}"


def test_the_checks_closed_last_are_kept_and_shown_whenever_opened(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule (quick reference): "Spend advantage, triumph, threat and despair". A check opened
    first and rolled after later ones closed is the one a fold bounded to one closed check
    keeps, and the one the table's cut shows, with its spend: kept by opening order, the roll
    that closed it dropped it, and its result could never be spent."""
    tiny_bounds(monkeypatch)
    small_cut(monkeypatch)
    state = fold(late_close_log())
    game = state.game
    assert isinstance(game, narrative_projection.GameState)
    assert list(game.checks) == ["early"]
    assert game.checks["early"].spends[0].on == "a blaster jam"
    assert list(narrative_projection.table_of(game).game.checks) == ["early"]
    monkeypatch.setattr(narrative_projection, "CLOSED_KEPT", 3)
    monkeypatch.setattr(narrative_projection, "CLOSED_CHECKS", 3)
    game = fold(late_close_log()).game
    assert isinstance(game, narrative_projection.GameState)
    shown = narrative_projection.table_of(game).game.checks
    assert list(shown) == ["early", "shot1", "shot2"]  # kept in the order they were opened
    assert sorted(shown, key=lambda key: -(shown[key].closed_seq or 0)) == [
        "early", "shot2", "shot1"]  # shot1 cancelled, shot2 rolled, early rolled last


def test_the_tests_ended_last_are_kept_and_shown_whatever_their_number(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule (rules summary, "Basic test"): the player rolls the test the GM called. Test 1,
    called first and rolled after the GM's one-shot rolls ended, is the one a fold bounded to
    one ended test keeps, with its roll, and the one the table's cut shows: kept by test
    number, the roll that ended it dropped it, its result never shown."""
    tiny_bounds(monkeypatch)
    small_cut(monkeypatch)
    game = fold(late_end_log()).game
    assert isinstance(game, d12_projection.GameState)
    assert list(game.tests) == [1]
    assert game.tests[1].ended == "rolled"
    assert len(game.tests[1].rounds) == 1
    assert list(d12_projection.table_of(game).game.tests) == [1]
    monkeypatch.setattr(d12_projection, "ENDED_KEPT", 3)
    monkeypatch.setattr(d12_projection, "TABLE_RECENT", 3)
    game = fold(late_end_log()).game
    assert isinstance(game, d12_projection.GameState)
    shown = d12_projection.table_of(game).game.tests
    assert sorted(shown, key=lambda number: -(shown[number].ended_seq or 0)) == [1, 4, 3]
