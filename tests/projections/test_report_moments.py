"""The night's rarest moments with how rare, the running luck curve, per-character figures."""

from __future__ import annotations

import random

import pytest
from rich.console import Console

from poolhall.clients.report_text import summary
from poolhall.events import core
from poolhall.events import sr3 as sr3_events
from poolhall.events.dice import RolledTerm
from poolhall.projections.analytics import for_session, report, roll_rows
from poolhall.projections.analytics_model import Report
from poolhall.reports.html import render_html
from tests.projections.analytics_logs import LogBuilder, d12_session, narrative_session


def test_the_rarest_moments_are_the_five_least_likely_rolls_with_how_rare() -> None:
    """Recomputed from the exported rows: the five smallest of P(at least that well) and
    P(that badly or worse), rarest first, each with its side."""
    log = LogBuilder()
    narrative_session(log, random.Random(8), 200)
    section = report(log.events).sessions[0]
    rows = roll_rows(log.events)
    expected = sorted((min(r.p_at_least, r.p_at_most), r.seq) for r in rows)[:5]
    assert [(m.p, m.row.seq) for m in section.rarest] == expected
    for m in section.rarest:
        assert m.lucky == (m.row.p_at_least <= m.row.p_at_most)
    page = render_html(report(log.events), 1)
    assert "The least likely rolls" in page
    assert f"#{section.rarest[0].row.seq} " in page


def test_the_running_luck_curve_ends_at_the_sessions_luck_and_stays_bounded() -> None:
    """The curve's last point is the session's mean percentile; its band is 1.96 standard
    deviations of a fair mean at that many rolls; 1,000 rolls keep at most 100 points."""
    log = LogBuilder(system="d12")
    d12_session(log, random.Random(2), 1000)
    section = report(log.events).sessions[0]
    assert 1 < len(section.curve) <= 100
    last = section.curve[-1]
    assert last.rolls <= section.luck.rolls
    if last.rolls == section.luck.rolls:
        assert last.mean == pytest.approx(section.luck.mean_percentile, abs=1e-6)
        assert last.half == pytest.approx(section.luck.high - 0.5, abs=1e-5)
    rolls = [p.rolls for p in section.curve]
    assert rolls == sorted(rolls)
    assert len(set(rolls)) == len(rolls)
    assert "Luck through the session" in render_html(report(log.events), 1)


def _three_nights() -> LogBuilder:
    """Session 1: one roll, 2d6 showing 6 and 6; session 2: 2d6 showing 3 and 4; session 3:
    Kat's 3 dice at TN 3 showing 1, 2 and 4 (one success)."""
    log = LogBuilder(system="sr3")
    log.member("kim", "Kim", characters=("kat",))
    for session, roll in enumerate((
            core.DiceRolled(expression="2d6", terms=(RolledTerm(sides=6, faces=(6, 6)),),
                            total=12),
            core.DiceRolled(expression="2d6", terms=(RolledTerm(sides=6, faces=(3, 4)),),
                            total=7),
            sr3_events.PoolTestRolled(
                character="kat", test=1, base_dice=3, tn=3, successes=1, highest=4,
                disastrous=False, dice=tuple(sr3_events.PoolDie(source="base", faces=(face,))
                                             for face in (1, 2, 4)))), start=1):
        log.add(core.GameSessionStarted(session=session))
        log.add(roll, actor="kim")
        log.add(core.GameSessionEnded(session=session))
    return log


def _text(night: Report, session: int) -> str:
    console = Console(width=200, record=True)
    console.print(summary(for_session(night, session), session))
    return console.export_text()


def test_the_roll_of_the_night_is_above_the_median_and_the_worst_luck_below() -> None:
    """By hand: 2d6 showing 12 does at least that well 1 time in 36 and that badly or worse
    always; 7 does each 21 times in 36; one success of 3 dice at TN 3 (2/3 a die) is at
    least that well 26/27 of the time and that badly or worse 1/27 + 3 (2/3) (1/3)^2 = 7/27.
    The double six is the roll of the night and no worst luck (it was "worst luck, 100% to
    do that badly or worse"), the 7 is neither (it was both), the one success the worst
    luck and no roll of the night (it was, "96% to do at least that well"); the campaign
    names the double six and the one success, the double six the most improbable."""
    log = _three_nights()
    rows = roll_rows(log.events)
    assert [p for r in rows for p in (r.p_at_least, r.p_at_most)] == pytest.approx(
        [1 / 36, 1.0, 21 / 36, 21 / 36, 26 / 27, 7 / 27])
    night = report(log.events)
    six, seven, one = (r.seq for r in rows)
    picked = [(s.luckiest.seq if s.luckiest else None, s.unluckiest.seq if s.unluckiest
               else None) for s in (*night.sessions, night.campaign_figures)]
    assert picked == [(six, None), (None, None), (None, one), (six, one)]
    assert night.campaign_figures.most_improbable == rows[0]
    assert night.sessions[0].most_improbable == rows[0]
    assert night.sessions[1].most_improbable is None
    first, second, third = (_text(night, session) for session in (1, 2, 3))
    assert f"roll of the night event #{six} Kim: 2d6 -> 12 (2.8% to do at least that well)" \
        in first
    assert "worst luck" not in first
    assert "roll of the night" not in second
    assert "worst luck" not in second
    assert "roll of the night" not in third
    assert f"worst luck test #1 (event #{one}) Kim for kat: 3d6 tn3 -> 1 success (26% to " \
        "do that badly or worse)" in third
    pages = [render_html(for_session(night, session), session) for session in (1, 2, 3)]
    assert "<b>Roll of the night</b>" in pages[0]
    assert "<b>Worst luck</b>" not in pages[0]
    assert "<b>Roll of the night</b>" not in pages[1]
    assert "<b>Worst luck</b>" not in pages[1]
    assert "<b>Roll of the night</b>" not in pages[2]
    assert "<b>Worst luck</b>" in pages[2]


def test_the_roll_of_the_night_and_worst_luck_are_the_rarest_on_their_side() -> None:
    """Recomputed from the exported rows of a long night: the roll of the night is the
    first of the smallest P(at least that well) below one half, the worst luck the first of
    the smallest P(that badly or worse) below one half; never the same roll."""
    log = LogBuilder()
    narrative_session(log, random.Random(3), 200)
    section = report(log.events).sessions[0]
    rows = roll_rows(log.events)
    best = min((r.p_at_least, r.seq) for r in rows if r.p_at_least < 0.5)
    worst = min((r.p_at_most, r.seq) for r in rows if r.p_at_most < 0.5)
    assert section.luckiest is not None
    assert section.unluckiest is not None
    assert (section.luckiest.p_at_least, section.luckiest.seq) == best
    assert (section.unluckiest.p_at_most, section.unluckiest.seq) == worst
    assert section.luckiest.seq != section.unluckiest.seq
