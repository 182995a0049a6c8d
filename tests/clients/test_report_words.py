"""The post-game report in each system's own words, and its least likely rolls called so.

A game night's d12 report read "2 s from opening a check to rolling it (3 checks)" (d12 and
SR3 have tests, called or declared), and listed rolls of 1 in 2 as "rare:" / "The rarest
moments": the list is the section's least likely rolls, however likely they were.
"""

from __future__ import annotations

import io
import random

from rich.console import Console

from poolhall.clients.report_text import summary
from poolhall.projections.analytics import report
from poolhall.reports.html import render_html
from tests.projections.analytics_logs import LogBuilder, d12_session, narrative_session


def _terminal(text: object) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(text)
    return out.getvalue()


def test_a_d12_report_times_called_tests_not_checks() -> None:
    """Three d12 tests rolled 12 s after their call read "from calling a test to rolling it
    (3 tests)" in the terminal and on the page, and never "check"."""
    log = LogBuilder(system="d12")
    d12_session(log, random.Random(3), 3)
    made = report(log.events)
    for said in (_terminal(summary(made, 1)), render_html(made, 1)):
        assert "12 s from calling a test to rolling it (3 tests)" in said
        assert "check" not in said


def test_a_narrative_report_still_times_opened_checks() -> None:
    """A narrative check is opened, and called a check."""
    log = LogBuilder()
    narrative_session(log, random.Random(8), 20)
    made = report(log.events)
    for said in (_terminal(summary(made, 1)), render_html(made, 1)):
        assert "from opening a check to rolling it (" in said


def test_the_least_likely_rolls_are_not_called_rare() -> None:
    """The listed rolls are the section's least likely, some of them likely enough (1 in 2):
    the terminal says "least likely:", the page "The least likely rolls", neither "rare"."""
    log = LogBuilder()
    narrative_session(log, random.Random(8), 200)
    made = report(log.events)
    assert made.sessions[0].rarest
    said = _terminal(summary(made, 1))
    assert "least likely: " in said
    assert "rare:" not in said
    page = render_html(made, 1)
    assert "The least likely rolls" in page
    assert "rarest moments" not in page
