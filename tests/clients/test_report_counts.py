"""The post-game report counts in the right number: 1 success, 1 six, 1 die.

The game-night trial's report said "-> 1 successes", "1 sixes (6+3)" and "free d20: 1 dice";
the terminal's summary and the HTML page both count through one plural helper now.
"""

from __future__ import annotations

import io

from rich.console import Console

from poolhall.clients.report_text import summary
from poolhall.events import core
from poolhall.events import sr3 as sr3_events
from poolhall.events.dice import RolledTerm
from poolhall.projections.analytics import report, roll_rows
from poolhall.reports.html import render_html
from tests.projections.analytics_logs import LogBuilder


def _one_of_each() -> LogBuilder:
    """One free d20, then one Shadowrun test whose one die rolled on (6+3) for 1 success."""
    log = LogBuilder(system="sr3")
    log.member("kim", "Kim", characters=("kat",))
    log.add(core.GameSessionStarted(session=1, title="Counts"))
    log.add(core.DiceRolled(expression="1d20", terms=(RolledTerm(sides=20, faces=(11,)),),
                            total=11), actor="kim")
    log.add(sr3_events.PoolTestRolled(
        character="kat", test=1, base_dice=1, tn=8, successes=1, highest=9, disastrous=False,
        dice=(sr3_events.PoolDie(source="base", faces=(6, 3)),)), actor="kim")
    log.add(core.GameSessionEnded(session=1))
    return log


def _terminal(text: object) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(text)
    return out.getvalue()


def test_a_roll_s_result_counts_one_success() -> None:
    """The roll of the night line reads "-> 1 success", not "1 successes"."""
    rows = roll_rows(_one_of_each().events)
    assert [row.result for row in rows] == ["11", "1 success"]


def test_the_terminal_summary_counts_in_the_right_number() -> None:
    """One six, one die, one test, one roll: each said in the singular."""
    said = _terminal(summary(report(_one_of_each().events)))
    assert "longest Rule of Six: 1 six (6+3)" in said
    assert "Faces of free d20: 1 die" in said
    assert "Shadowrun: 1 test;" in said
    assert "1 sixes" not in said
    assert "1 dice" not in said
    assert "1 successes" not in said


def test_the_html_page_counts_in_the_right_number() -> None:
    """The page's Rule of Six line and its chart of a free d20's faces, in the singular."""
    page = render_html(report(_one_of_each().events))
    assert "Longest Rule-of-Six chain: 1 six (6+3)" in page
    assert "free d20: 1 die;" in page
    assert "1 sixes" not in page
    assert "1 dice" not in page
