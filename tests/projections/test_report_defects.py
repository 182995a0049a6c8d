"""The report's defects of issue 30, each checked against figures worked by hand."""

from __future__ import annotations

import random
import re
from itertools import product

import pytest
from rich.console import Console

from poolhall.clients.report_text import summary
from poolhall.events import core
from poolhall.events import narrative as narrative_events
from poolhall.events import sr3 as sr3_events
from poolhall.events.dice import RolledTerm
from poolhall.projections.analytics import report, roll_rows
from poolhall.reports import charts
from poolhall.reports.html import render_html
from tests.projections.analytics_logs import LogBuilder, free_session, narrative_session


def test_the_exports_value_and_expected_of_3d6_plus_2_include_the_constant() -> None:
    """``3d6+2`` showing 3, 3, 2: value 10 (the total the table saw), expected 12.5; the
    percentile is that of 8 on 3d6, counted here over the 216 outcomes."""
    log = LogBuilder()
    log.add(core.DiceRolled(expression="3d6+2", terms=(RolledTerm(sides=6, faces=(3, 3, 2)),),
                            constant=2, total=10))
    [row] = roll_rows(log.events)
    assert (row.value, row.expected, row.result) == (10, 12.5, "10")
    sums = [sum(faces) for faces in product(range(1, 7), repeat=3)]
    below, at = sum(s < 8 for s in sums), sums.count(8)
    assert row.percentile == pytest.approx((below + at / 2) / 216)
    assert row.p_at_least == pytest.approx(sum(s >= 8 for s in sums) / 216)


def _short_session(seconds: list[float]) -> LogBuilder:
    log = LogBuilder()
    log.add(core.GameSessionStarted(session=1, title="Quick"))
    for gap in seconds:
        log.add(core.DiceRolled(expression="1d6", terms=(RolledTerm(sides=6, faces=(4,)),),
                                total=4), after=gap)
    return log


@pytest.mark.parametrize("gaps", [[20.0, 20.0], [40.0, 40.0]], ids=["40 s", "80 s"])
def test_a_session_under_two_minutes_has_its_events_per_minute_chart(gaps: list[float]) -> None:
    """A session of 40 s (one minute) or 80 s (two): the chart is drawn, each minute a bar of
    its own width, the last one included."""
    section = report(_short_session(gaps).events).sessions[0]
    assert sum(section.timeline.per_minute) == 3
    page = render_html(report(_short_session(gaps).events), 1)
    assert "Events per minute" in page
    svg = charts.per_minute_chart(section.timeline.per_minute, "pace")
    ticks = re.findall(r">(\d+)</text>", svg)
    assert str(len(section.timeline.per_minute)) in ticks  # the x axis reaches the last edge


def _tick_labels(svg: str) -> list[str]:
    return re.findall(r">([-\d.]+)</text>", svg)


def test_face_charts_name_each_face_and_the_sessions_chart_counts_sessions() -> None:
    """A d4 chart's axis reads 1 2 3 4 (never 1.5); the sessions chart's 1 2 3 (never 1.25)."""
    log = LogBuilder()
    for faces in ((1,), (4,), (2,)):
        log.add(core.DiceRolled(expression="1d4", terms=(RolledTerm(sides=4, faces=faces),),
                                total=faces[0]))
    free = report(log.events).campaign_figures.free
    assert free is not None
    labels = _tick_labels(charts.faces_chart(free.dice, "faces"))
    assert {"1", "2", "3", "4"} <= set(labels)
    assert "1.5" not in labels
    labels = _tick_labels(charts.sessions_chart({"Sam": [(1, 0.4), (2, 0.5), (3, 0.6)]}, "s"))
    assert {"1", "2", "3"} <= set(labels)
    assert not any(re.fullmatch(r"\d\.\d*[1-9]\d*", x) and float(x) > 0.9 for x in labels)


def _combat() -> LogBuilder:
    """One Combat Turn: Kat (6 Combat Pool, 4 Astral Combat Pool) and Mage (3 Combat Pool,
    5 Astral Combat Pool); Kat draws 2 in a physical test, Mage 1 Astral Combat Pool die in
    an astral one."""
    log = LogBuilder(system="sr3")
    log.add(sr3_events.CombatEncounterStarted(participants=("kat", "mage")))
    log.add(sr3_events.CombatTurnStarted(turn=1, pools={
        "kat": {"combat": 6, "astral_combat": 4}, "mage": {"combat": 3, "astral_combat": 5}}))
    log.add(sr3_events.PoolTestRolled(
        character="kat", test=1, base_dice=1, tn=4, successes=1, highest=5, disastrous=False,
        dice=(sr3_events.PoolDie(source="base", faces=(5,)),
              sr3_events.PoolDie(source="combat", faces=(2,)),
              sr3_events.PoolDie(source="combat", faces=(1,)))))
    log.add(sr3_events.PoolTestRolled(
        character="mage", test=2, base_dice=1, tn=4, successes=0, highest=3, disastrous=False,
        astral=True, dice=(sr3_events.PoolDie(source="base", faces=(3,)),
                           sr3_events.PoolDie(source="astral_combat", faces=(2,)))))
    log.add(sr3_events.CombatTurnEnded(turn=1))
    return log


def test_sr3_pool_dice_unused_count_combat_turns_and_astral_pools_only_on_the_astral() -> None:
    """Kat never went astral: her 4 Astral Combat Pool dice could not be used, so she had 6
    and left 4; Mage made an astral test: 8 dice, 7 left. One Combat Turn was played (two
    characters' turns in it), and the terminal says so."""
    result = report(_combat().events)
    sr3 = result.campaign_figures.sr3
    assert sr3 is not None
    got = {(t.character, t.full, t.drawn, t.unused) for t in sr3.combat_turns}
    assert got == {("kat", 6, 2, 4), ("mage", 8, 1, 7)}
    console = Console(width=200, record=True)
    console.print(summary(result))
    assert "pool dice unused 11 of 14 over 1 Combat Turn" in console.export_text()


def _lucky_report() -> str:
    """A long-named player with loaded dice: a long verdict and a p-value like 7.8e-05."""
    log = LogBuilder()
    narrative_session(log, random.Random(5), 30)
    free_session(log, random.Random(5), 600, loaded=True)  # the GM's: very lucky
    log.member("han-player", "Samantha Okonkwo-Villeneuve, scoundrel at large")
    console = Console(width=80, record=True)
    console.print(summary(report(log.events)))
    return console.export_text()


def test_the_terminal_report_at_80_columns_cuts_no_number() -> None:
    """At 80 columns every figure of the luck table is whole: no ``…`` anywhere a number is,
    the band of fair dice reads low-high in full."""
    text = _lucky_report()
    assert "…" not in text
    assert re.search(r"\b0\.\d{3}–[01]\.\d{3}\b", text)
    for line in text.splitlines():
        assert len(line) <= 80


def test_per_character_figures_are_in_the_html_and_the_text() -> None:
    """Han's own narrative figures (rolls, successes against expected) on the page and in
    the terminal, not only in the JSON."""
    log = LogBuilder()
    narrative_session(log, random.Random(5), 12)
    result = report(log.events)
    han = result.campaign_figures.narrative.characters["han"]  # type: ignore[union-attr]
    page = render_html(result)
    assert re.search(rf"<td>Han</td><td>{han.rolls}</td><td>{han.successes.actual:.2f}</td>"
                     rf"<td>{han.successes.expected:.2f}</td>", page)
    console = Console(width=120, record=True)
    console.print(summary(result))
    text = console.export_text()
    assert f"Han: {han.rolls} rolls" in text
    assert f"net successes {han.successes.actual:.1f} (expected {han.successes.expected:.1f})" \
        in text


def test_the_fair_band_shown_stays_on_the_percentile_scale() -> None:
    """The 95% band of a mean percentile is a normal approximation: with one roll it reaches
    -0.040..1.040 (0.5 ± 1.96 × 0.2887), which the report printed as "-0.040-1.040". A mean
    percentile lies in 0..1, and so does the band the page and the terminal show."""
    from poolhall.projections.analytics_model import Luck
    from poolhall.reports.words import fair_band

    one_roll = Luck(rolls=1, mean_percentile=0.2, low=0.5 - 1.96 * 0.2887,
                    high=0.5 + 1.96 * 0.2887, z=-1.0, p_value=0.3, verdict="", rough=True)
    assert fair_band(one_roll) == "0.000–1.000"
    many = Luck(rolls=100, mean_percentile=0.5, low=0.5 - 1.96 * 0.02887,
                high=0.5 + 1.96 * 0.02887, z=0.0, p_value=1.0, verdict="", rough=False)
    assert fair_band(many) == "0.443–0.557"


def test_a_sessions_times_read_as_a_clock_not_as_the_logs_iso_stamps() -> None:
    """The page said "3 events, 2026-11-27T12:42:42.273Z to ...": it says when, in minutes,
    with the date once when the stretch is within a day."""
    from poolhall.reports.words import time_span

    section = report(_short_session([40.0, 40.0]).events).sessions[0]
    first, last = section.timeline.first, section.timeline.last
    assert first is not None
    assert last is not None
    page = render_html(report(_short_session([40.0, 40.0]).events), 1)
    assert f"{first[:10]} {first[11:16]} to {last[11:16]} UTC" in page
    assert first not in page  # no ISO stamp left
    assert time_span("2026-11-23T23:50:00.000Z", "2026-11-24T00:20:05.000Z") == \
        "2026-11-23 23:50 to 2026-11-24 00:20 UTC"
    assert time_span(None, None) == "-"


def test_a_retired_character_and_its_import_are_told_apart_by_their_ids() -> None:
    """Leia retired, her file imported again as ``leia-2`` (retire-a-character.md): both roll,
    and the report names them "Leia (leia)" and "Leia (leia-2)", in the text and the HTML; two
    rows both read "Leia (NPC)" with different figures. A name no other character
    shares stays as it is."""
    log = LogBuilder()
    for character, name in (("leia", "Leia"), ("han", "Han")):
        log.add(core.CharacterCreated(character=character, name=name,
                                      stats=narrative_events.NarrativeStats()))
    log.add(core.GameSessionStarted(session=1, title="Hoth"))
    for face in (2, 5, 3):
        log.add(core.DiceRolled(character="leia", expression="1d6", total=face,
                                terms=(RolledTerm(sides=6, faces=(face,)),)))
    log.add(core.CharacterRetired(character="leia", name="Leia"))
    log.add(core.CharacterCreated(character="leia-2", name="Leia",
                                  stats=narrative_events.NarrativeStats()))
    for face in (6, 6, 1):
        log.add(core.DiceRolled(character="leia-2", expression="1d6", total=face,
                                terms=(RolledTerm(sides=6, faces=(face,)),)))
    made = report(log.events)
    assert made.characters == {"han": "Han", "leia": "Leia (leia)", "leia-2": "Leia (leia-2)"}
    console = Console(width=200, record=True)
    console.print(summary(made))
    text = console.export_text()
    assert "Leia (leia) (NPC)" in text  # the GM rolled for both
    assert "Leia (leia-2) (NPC)" in text
    page = render_html(made)
    assert "Leia (leia) (NPC)" in page
    assert "Leia (leia-2) (NPC)" in page
