"""The night's rarest moments with how rare, the running luck curve, per-character figures."""

from __future__ import annotations

import random

import pytest

from poolhall.projections.analytics import report, roll_rows
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
