"""The post-game report names Shadowrun characters and tests as the table does, everywhere: its
longest Rule-of-Six line and its pools-per-Combat-Turn table gave ids ("sam-shadow") and a
column headed "combat.turn" reading "1.2", beside tables that say "Sam Shadow"; its "Roll of
the night: #37" gave the event's number where the table calls that test "#9"."""

from __future__ import annotations

import re

from rich.console import Console

from poolhall.clients.report_text import summary
from poolhall.events import core
from poolhall.events import sr3 as sr3_events
from poolhall.projections.analytics import report
from poolhall.reports.html import render_html
from tests.projections.analytics_logs import LogBuilder
from tests.sr3.sr3_support import street_sam


def _night() -> LogBuilder:
    """Sam Shadow in one combat's second Combat Turn: a Pistols test with a 6, 6, 3 chain
    (two successes of two dice at TN 4), then a Dodge test of two dice showing 1 and 3."""
    log = LogBuilder(system="sr3")
    log.add(core.CharacterCreated(character="sam-shadow", name="Sam Shadow",
                                  stats=street_sam()))
    log.add(sr3_events.CombatEncounterStarted(participants=("sam-shadow",)))
    for turn in (1, 2):
        log.add(sr3_events.CombatTurnStarted(turn=turn, pools={"sam-shadow": {"combat": 7}}))
        if turn == 2:
            log.add(sr3_events.PoolTestRolled(
                character="sam-shadow", test=9, base_dice=1, tn=4, successes=2, highest=15,
                disastrous=False, skill="pistols", kind="combat",
                dice=(sr3_events.PoolDie(source="base", faces=(6, 6, 3)),
                      sr3_events.PoolDie(source="combat", faces=(5,)))))
            log.add(sr3_events.PoolTestRolled(
                character="sam-shadow", test=10, base_dice=2, tn=4, successes=0, highest=3,
                disastrous=False, skill="dodge",
                dice=(sr3_events.PoolDie(source="base", faces=(1,)),
                      sr3_events.PoolDie(source="base", faces=(3,)))))
        log.add(sr3_events.CombatTurnEnded(turn=turn))
    return log


def test_the_html_report_names_sr3_characters_and_their_combat_turns_in_words() -> None:
    """The Rule-of-Six line and each row of pools per Combat Turn say "Sam Shadow", never the
    id, and the turn has a column of its own headed "Combat Turn"."""
    page = render_html(report(_night().events))
    assert "by Sam Shadow in test #9 (event #7)" in page
    assert ">sam-shadow<" not in page
    assert "by sam-shadow" not in page
    assert "combat.turn" not in page
    assert ("<th>character</th><th>combat</th><th>Combat Turn</th><th>pool dice</th>"
            "<th>drawn</th><th>unused</th></tr>") in page
    assert "<tr><td>Sam Shadow</td><td>1</td><td>2</td><td>7</td><td>1</td><td>6</td></tr>" \
        in page


def test_the_terminal_report_names_the_longest_rule_of_six_by_the_characters_name() -> None:
    """``poolhall report`` in a terminal: "longest Rule of Six: 2 sixes (6+6+3) by Sam
    Shadow"."""
    console = Console(width=300, record=True)
    console.print(summary(report(_night().events)))
    text = console.export_text()
    assert "by Sam Shadow in test #9 (event #7)" in text
    assert "by sam-shadow" not in text


def test_the_roll_of_the_night_is_named_by_its_test_and_its_event_in_both_reports() -> None:
    """The report's "Roll of the night: #37" was the event's number, while the table calls
    that test "#9": the HTML and the terminal report now both say "test #9 (event #7)" (the
    roll of the night, two successes where 1/4 do as well; the worst luck, test #10's none
    where 1/4 do as badly), and the longest pause "after event #N"; no roll or pause is
    named by a bare "#"."""
    night = report(_night().events)
    page = render_html(night)
    assert "<b>Roll of the night</b>: test #9 (event #7) " in page
    assert "<b>Worst luck</b>: test #10 (event #8) " in page
    assert "longest pause 0.1 min after event #" in page
    console = Console(width=200, record=True)
    console.print(summary(night))
    text = console.export_text()
    assert "roll of the night test #9 (event #7) " in text
    assert "worst luck test #10 (event #8) " in text
    assert "longest pause 0.1 min after event #" in text
    shown = re.sub(r"<style.*?</style>|<svg.*?</svg>", "", page, flags=re.DOTALL)
    for said in (shown, text):
        assert re.search(r"(?:: |at |after |night |luck )#\d", said) is None
