"""Report figures a statistician's recomputation found wrong, each checked against figures
worked by hand: the time from declaring a test to rolling it, the longest Rule-of-Six chain
and Rule-of-One disasters with Karma rerolls, pool dice of a Combat Turn that runs across a
game session's end or is drawn on by a character not in the combat, and a session with no
rolls in the list of sessions."""

from __future__ import annotations

import io
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from rich.console import Console

from poolhall.clients.report_text import summary
from poolhall.events import core
from poolhall.events import sr3 as sr3_events
from poolhall.events.dice import RolledTerm
from poolhall.events.sr3_values import DieSource
from poolhall.projections.analytics import report
from poolhall.projections.analytics_model import Report
from poolhall.reports.html import render_html
from tests.projections.analytics_logs import LogBuilder

Die = sr3_events.PoolDie


def _said(result: Report, session: int | None = None) -> str:
    out = io.StringIO()
    Console(file=out, width=250, color_system=None).print(summary(result, session))
    return out.getvalue()


def _test(character: str, test: int, faces: tuple[tuple[int, ...], ...], tn: int = 4,
          sources: tuple[DieSource, ...] = (), **fields: Any) -> sr3_events.PoolTestRolled:
    """A test of these dice (chains) at ``tn``, its result worked out as the rules say."""
    dice = tuple(Die(source=sources[i] if i < len(sources) else "base", faces=chain)
                 for i, chain in enumerate(faces))
    return sr3_events.PoolTestRolled(
        character=character, test=test, base_dice=sum(d.source == "base" for d in dice), tn=tn,
        successes=sum(sum(chain) >= tn for chain in faces),
        highest=max(sum(chain) for chain in faces),
        disastrous=all(chain == (1,) for chain in faces), dice=dice, **fields)


def _reroll(character: str, test: int, indices: tuple[int, ...],
            faces: tuple[tuple[int, ...], ...], successes: int,
            disastrous: bool) -> sr3_events.PoolTestRerolled:
    return sr3_events.PoolTestRerolled(
        test=test, character=character, reroll=1, cost=1, karma_left=2, indices=indices,
        faces=faces, successes=successes, highest=max(sum(chain) for chain in faces),
        disastrous=disastrous)


def test_a_secret_roll_of_another_test_does_not_time_the_declared_one() -> None:
    """Sam declares a Pistols test; a second later the GM rolls Sam's Perception in secret
    (another test: the declaration stays, ``leaves_declared``); four seconds after that Sam
    rolls the Pistols test. Declaring it to rolling it: 5 s, not the 1 s to the GM's roll.
    Then Sam declares a Stealth test and is made to roll a Dodge in the open, which withdraws
    the declaration: the Dodge is not the declared test, and nothing more is timed."""
    log = LogBuilder(system="sr3")
    log.member("sam-player", "Sam", characters=("sam",))
    log.add(core.GameSessionStarted(session=1, title="Edges"))
    log.add(sr3_events.PoolTestDeclared(character="sam", kind="combat", skill="pistols", tn=4,
                                        base_dice=1, limits={}), actor="sam-player")
    log.add(_test("sam", 1, ((3,), (5,)), tn=5, kind="perception", skill="perception",
                  visibility="gm", leaves_declared=True), after=1.0)
    log.add(_test("sam", 2, ((4,),), kind="combat", skill="pistols"), actor="sam-player",
            after=4.0)
    log.add(sr3_events.PoolTestDeclared(character="sam", skill="stealth", tn=4, base_dice=1,
                                        limits={}), actor="sam-player", after=30.0)
    log.add(_test("sam", 3, ((2,),), kind="dodge"), actor="sam-player", after=2.0)
    log.add(_test("sam", 4, ((5,),), skill="stealth"), actor="sam-player", after=9.0)
    timeline = report(log.events).sessions[0].timeline
    assert (timeline.checks_timed, timeline.seconds_per_check) == (1, 5.0)
    assert "5 s from declaring a test to rolling it (1 test)" in _said(report(log.events), 1)


def test_the_longest_rule_of_six_chain_counts_a_karma_rerolls_dice() -> None:
    """A one-die test shows 1; Karma rerolls it to 6 then 4: the session's longest Rule-of-Six
    chain is that die's, 1 six (6+4), named by its test and the reroll's event."""
    log = LogBuilder(system="sr3")
    log.member("kim", "Kim", characters=("kat",))
    log.add(core.GameSessionStarted(session=1, title="Nine"))
    log.add(_test("kat", 1, ((1,),)), actor="kim")
    rerolled = log.add(_reroll("kat", 1, (0,), ((6, 4),), 1, False), actor="kim")
    sr3 = report(log.events).sessions[0].sr3
    assert sr3 is not None
    chain = sr3.longest_chain
    assert chain is not None
    assert (chain.sixes, chain.faces, chain.character, chain.seq, chain.test) == (
        1, [6, 4], "kat", rerolled.seq, 1)


def _disasters() -> LogBuilder:
    """Three tests at TN 4 with Karma rerolls: #1's one die shows 2, rerolled to 1 (all ones:
    a disastrous failure the table shows); #2's one die shows 1 (a disaster), rerolled to 6+4
    (one success); #3's two dice show 5 and 1, the 1 rerolled to 1 (a success stands: no
    disaster, and no roll of all the test's dice)."""
    log = LogBuilder(system="sr3")
    log.member("kim", "Kim", characters=("kat",))
    log.add(core.GameSessionStarted(session=1, title="Ones"))
    log.add(_test("kat", 1, ((2,),)), actor="kim")
    log.add(_reroll("kat", 1, (0,), ((1,),), 0, True), actor="kim")
    log.add(_test("kat", 2, ((1,),)), actor="kim")
    log.add(_reroll("kat", 2, (0,), ((6, 4),), 1, False), actor="kim")
    log.add(_test("kat", 3, ((5,), (1,))), actor="kim")
    log.add(_reroll("kat", 3, (1,), ((1,),), 1, False), actor="kim")
    log.add(core.GameSessionEnded(session=1))
    return log


def test_rule_of_one_counts_every_roll_the_table_showed_all_ones_rerolls_included() -> None:
    """Disasters rolled: #1's reroll and #2's first roll, 2, against the rolls of all of a
    test's dice (four of one die, 1/6 each; #3's two dice, 1/36; #3's reroll of one die of
    two is none): expected 4/6 + 1/36, the p-value by enumerating the 6^4 * 36 outcomes. The
    tests that ended a disastrous failure, as the table's Latest tests show them: #1 only."""
    section = report(_disasters().events).sessions[0]
    sr3 = section.sr3
    assert sr3 is not None
    expected = 4 / 6 + 1 / 36
    assert sr3.table.disasters.actual == 2
    assert sr3.table.disasters.expected == pytest.approx(expected)
    assert sr3.characters["kat"].disasters.actual == 2
    assert sr3.table.disastrous_tests == 1
    assert sr3.characters["kat"].disastrous_tests == 1
    [ones] = [c for c in section.counts if c.what.startswith("Rule of One")]
    assert (ones.actual, ones.trials) == (2, 5)
    assert ones.expected == pytest.approx(expected)
    ways: dict[int, int] = {}
    for a, b, c, d, e in product(range(6), range(6), range(6), range(6), range(36)):
        k = (a == 0) + (b == 0) + (c == 0) + (d == 0) + (e == 0)
        ways[k] = ways.get(k, 0) + 1
    p = Fraction(sum(w for w in ways.values() if w <= ways[2]), 6**4 * 36)
    assert ones.p_value == pytest.approx(float(p), rel=1e-5)
    said = _said(report(_disasters().events), 1)
    assert ("Rule of One: 2 rolled (expected 0.69, Karma rerolls included); tests that ended "
            "a disastrous failure, after their Karma rerolls: 1") in said
    assert "kat: 3 tests; successes 2.0 (expected 3.5); Rule of One 2 rolled (expected 0.69), " \
        "1 test ended so;" in said
    page = render_html(report(_disasters().events), 1)
    assert "Rule of One disasters rolled (Karma rerolls included)" in page
    assert "Tests that ended a disastrous failure, after their Karma rerolls: 1." in page


def _combat_over_two_sessions() -> LogBuilder:
    """Sam (7 Combat Pool dice) in Combat Turn 1, which runs across the end of session 1:
    Sam draws 2 in session 1 and 3 in session 2. Outsider, not in the combat, draws 3 Combat
    Pool dice during the turn (outside the combat pools do not deplete)."""
    log = LogBuilder(system="sr3")
    log.member("sam-player", "Sam", characters=("sam",))
    log.add(core.GameSessionStarted(session=1, title="Ambush"))
    log.add(sr3_events.CombatEncounterStarted(participants=("sam",)))
    log.add(sr3_events.CombatTurnStarted(turn=1, pools={"sam": {"combat": 7}}))
    log.add(_test("sam", 1, ((5,), (3,), (2,)), sources=("base", "combat", "combat")),
            actor="sam-player")
    log.add(core.GameSessionEnded(session=1))
    log.add(core.GameSessionStarted(session=2, title="Ambush, go on"), after=86400.0)
    log.add(_test("sam", 2, ((5,), (3,), (2,), (6, 1)),
                  sources=("base", "combat", "combat", "combat")), actor="sam-player")
    log.add(_test("outsider", 3, ((4,), (3,), (2,), (1,)),
                  sources=("base", "combat", "combat", "combat")))
    log.add(sr3_events.CombatTurnEnded(turn=1))
    log.add(core.GameSessionEnded(session=2))
    return log


def test_a_combat_turn_across_a_sessions_end_is_one_turn_and_outsiders_draw_nothing() -> None:
    """The turn's row is the turn's in every page it was played in: 7 dice, 5 drawn, 2 unused
    (session 2 read "0 | 3 | 0" and session 1 "7 | 2 | 5"); Outsider has no row."""
    result = report(_combat_over_two_sessions().events)
    for section in (result.campaign_figures, *result.sessions):
        assert section.sr3 is not None
        got = [(t.encounter, t.turn, t.character, t.full, t.drawn, t.unused)
               for t in section.sr3.combat_turns]
        assert got == [(1, 1, "sam", 7, 5, 2)], section.session
    assert "pool dice unused 2 of 7 over 1 Combat Turn" in _said(result, 2)


def test_a_session_with_no_rolls_says_so_in_the_list_of_sessions() -> None:
    """Session 2 had no roll: its row reads "no rolls" in the terminal and on the page, not
    a table's luck of 0.500, which reads as average luck."""
    log = LogBuilder()
    log.add(core.GameSessionStarted(session=1, title="Dice"))
    log.add(core.DiceRolled(expression="1d20", terms=(RolledTerm(sides=20, faces=(11,)),),
                            total=11))
    log.add(core.GameSessionEnded(session=1))
    log.add(core.GameSessionStarted(session=2, title="Talk"))
    log.add(core.GameSessionEnded(session=2))
    result = report(log.events)
    [line] = [row for row in _said(result).splitlines() if "Talk" in row]
    assert "no rolls" in line
    assert "0.500" not in line
    page = render_html(result)
    assert "<tr><td>2</td><td>Talk</td><td>2</td><td>0</td><td>no rolls</td></tr>" in page
