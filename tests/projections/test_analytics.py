"""The post-game report: figures computed by hand, fair dice unremarkable, loaded dice caught."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from math import erfc, exp, sqrt

import msgspec
import pytest
from rich.console import Console

from poolhall.clients.report_text import summary
from poolhall.events import core
from poolhall.events import narrative as narrative_events
from poolhall.events import sr3 as sr3_events
from poolhall.events.dice import RolledTerm
from poolhall.projections.analytics import report, roll_rows
from poolhall.projections.analytics_odds import force_pips, free_total, sr3_open, sr3_successes
from poolhall.projections.analytics_stats import chi_square_p, percentile_variance
from poolhall.projections.narrative_dice import FACES, rolled_die
from poolhall.reports.html import render_html
from tests.projections.analytics_logs import (
    LogBuilder,
    d12_session,
    free_session,
    narrative_session,
    sr3_session,
)


def _two_rolls() -> LogBuilder:
    """A 1d6 showing 5, then 2d6 at TN 4 showing 1 and 3: small enough to do on paper."""
    log = LogBuilder(system="sr3")
    log.member("kim", "Kim", characters=("kat",))
    log.add(core.GameSessionStarted(session=1, title="Paper"))
    log.add(core.DiceRolled(expression="1d6", terms=(RolledTerm(sides=6, faces=(5,)),),
                            total=5), actor="kim")
    log.add(sr3_events.PoolTestRolled(
        character="kat", test=1, base_dice=2, tn=4, successes=0, highest=3, disastrous=False,
        dice=(sr3_events.PoolDie(source="base", faces=(1,)),
              sr3_events.PoolDie(source="base", faces=(3,)))), actor="kim", after=65.0)
    log.add(core.GameSessionEnded(session=1), after=5.0)
    return log


def test_a_two_roll_log_matches_the_figures_worked_on_paper() -> None:
    """1d6 = 5: P(>= 5) = 1/3, percentile 4/6 + 1/12 = 3/4; 2d6 at TN 4 with no success:
    P(>= 0) = 1, percentile 1/4 / 2 = 1/8; mean 7/16 with variance (35/432 + 9/128) / 4."""
    rows = roll_rows(_two_rolls().events)
    assert [(r.kind, r.value) for r in rows] == [("free", 5), ("test", 0)]
    assert rows[0].p_at_least == pytest.approx(1 / 3)
    assert rows[0].percentile == pytest.approx(3 / 4)
    assert rows[1].p_at_least == 1.0
    assert rows[1].percentile == pytest.approx(1 / 8)
    assert rows[1].p_success == pytest.approx(3 / 4)
    assert rows[1].expected == 1.0
    section = report(_two_rolls().events).sessions[0]
    luck = section.players["kim"]
    sd = sqrt(35 / 432 + 9 / 128) / 2
    assert luck.rolls == 2
    assert luck.mean_percentile == pytest.approx(7 / 16)
    assert luck.z == pytest.approx((7 / 16 - 1 / 2) / sd, abs=1e-4)
    assert luck.p_value == pytest.approx(erfc(abs(luck.z) / sqrt(2)), rel=1e-4)
    assert luck.rough
    assert section.characters["kat"].rolls == 1
    sr3 = section.sr3
    assert sr3 is not None
    assert (sr3.table.successes.actual, sr3.table.successes.expected) == (0.0, 1.0)
    assert sr3.table.disasters.expected == pytest.approx(1 / 36)
    assert section.luckiest is not None
    assert section.luckiest.seq == rows[0].seq
    assert section.unluckiest is not None
    assert section.unluckiest.seq == rows[1].seq
    free = section.free
    assert free is not None
    assert free.dice[0].faces == [0, 0, 0, 0, 1, 0]
    assert free.dice[0].chi_square == 5.0  # 5 x (1/6) + (5/6)^2 over 1/6 each
    assert free.dice[0].p_value == pytest.approx(0.41588, abs=1e-5)
    # where fair dice put the percentiles: 1d6 at 1/12, 3/12 ... 11/12 (1/6 each); the test
    # at 1/8 (1/4), 1/2 (1/2) and 7/8 (1/4)
    assert section.percentiles == [0, 1, 0, 0, 0, 0, 0, 1, 0, 0]  # 1/8 and 3/4
    assert section.percentiles_expected == pytest.approx(
        [1 / 6, 1 / 4, 1 / 6, 0, 1 / 6, 1 / 6 + 1 / 2, 0, 1 / 6, 1 / 4, 1 / 6])
    timeline = section.timeline
    assert timeline.events == 4
    assert timeline.per_minute == [2, 2]
    assert timeline.longest_pause is not None
    assert timeline.longest_pause.seconds == 65.0


def test_mid_percentile_variance_is_exact() -> None:
    """(1 - sum p^3) / 12 is the variance of P(X < x) + P(X = x) / 2 computed directly."""
    dist = sr3_successes(3, 5)
    probabilities = [Fraction(dist.counts[v], dist.total) for v in dist.values]
    below, mids = Fraction(0), []
    for p in probabilities:
        mids.append(below + p / 2)
        below += p
    mean = sum(p * u for p, u in zip(probabilities, mids, strict=True))
    variance = sum(p * (u - mean) ** 2 for p, u in zip(probabilities, mids, strict=True))
    assert mean == Fraction(1, 2)
    assert percentile_variance([float(p) for p in probabilities]) == pytest.approx(
        float(variance))


def test_chi_square_p_values_match_closed_forms() -> None:
    """With 1 and 2 degrees of freedom the chi-square tail has closed forms."""
    for x in (0.1, 1.0, 3.841, 10.0, 40.0):
        assert chi_square_p(x, 1) == pytest.approx(erfc(sqrt(x / 2)), rel=1e-9)
        assert chi_square_p(x, 2) == pytest.approx(exp(-x / 2), rel=1e-9)


def test_distributions_agree_with_brute_force() -> None:
    """The free roll's packed power and the open test's highest total against enumeration."""
    dist = free_total(((2, 4, 1), (1, 6, -1)))
    ways: dict[int, int] = {}
    for a in range(1, 5):
        for b in range(1, 5):
            for c in range(1, 7):
                ways[a + b - c] = ways.get(a + b - c, 0) + 1
    assert dist.counts == ways
    assert dist.total == 96
    open_two = sr3_open(2)
    assert open_two.p_at_least(7) == pytest.approx(1 - (5 / 6) ** 2)  # a six on either die


def _luck_of(log: LogBuilder, player: str) -> float:
    return report(log.events).campaign_figures.players[player].p_value


@pytest.mark.parametrize(("play", "player"), [
    (narrative_session, "han-player"), (sr3_session, "kat-player"), (d12_session, "ada-player")])
def test_fair_dice_are_unremarkable_and_one_loaded_face_is_flagged(
        play: Callable[..., None], player: str) -> None:
    """Thousands of rolls with fair dice give p > 0.01; one face twice as likely, p < 0.001."""
    fair, loaded = LogBuilder(), LogBuilder()
    play(fair, random.Random(12), 3000)
    play(loaded, random.Random(12), 3000, loaded=True)
    assert _luck_of(fair, player) > 0.01
    assert _luck_of(loaded, player) < 0.001


def test_free_roll_faces_fair_and_loaded() -> None:
    """Free rolls' d6 faces against uniform: fair passes, a six twice as likely is flagged."""
    fair, loaded = LogBuilder(), LogBuilder()
    free_session(fair, random.Random(5), 2000)
    free_session(loaded, random.Random(5), 2000, loaded=True)
    [fair_d6] = report(fair.events).campaign_figures.free.dice  # type: ignore[union-attr]
    [loaded_d6] = report(loaded.events).campaign_figures.free.dice  # type: ignore[union-attr]
    assert fair_d6.dice == 6000
    assert fair_d6.p_value > 0.01
    assert loaded_d6.p_value < 0.001
    assert _luck_of(fair, "gm") > 0.01
    assert _luck_of(loaded, "gm") < 0.001


def test_the_report_of_the_same_log_is_identical() -> None:
    """A pure function of the log: two runs encode to the same bytes, and draw the same page
    (no date in the SVG, the same ids)."""
    from poolhall.reports.html import render_html

    log = LogBuilder()
    narrative_session(log, random.Random(3), 50)
    narrative_session(log, random.Random(4), 30, session=2)
    first, second = report(log.events), report(list(log.events))
    assert msgspec.json.encode(first) == msgspec.json.encode(second)
    assert [s.session for s in first.sessions] == [1, 2]
    assert render_html(first) == render_html(second)


def test_narrative_figures_destiny_and_time_per_check() -> None:
    """Checks against expected, flips by whom with the pool after each, time per check."""
    log = LogBuilder()
    narrative_session(log, random.Random(7), 12)
    section = report(log.events).sessions[0]
    figures = section.narrative
    assert figures is not None
    assert figures.table.rolls == 12
    assert figures.characters["han"].rolls == 12
    assert figures.flips_by == {"gm": 1, "han-player": 2}
    assert [(p.light, p.dark) for p in figures.destiny] == [(2, 2), (1, 3), (2, 2), (1, 3)]
    assert section.timeline.checks_timed == 12
    assert section.timeline.seconds_per_check == 20.0
    assert figures.table.triumphs.expected > 0
    assert figures.table.despairs.expected > 0


def test_sr3_pools_per_combat_turn_and_six_chains() -> None:
    """Combat Pool dice drawn in the Combat Turn and left unused; the longest chain of sixes."""
    log = LogBuilder(system="sr3")
    sr3_session(log, random.Random(9), 8)
    figures = report(log.events).campaign_figures.sr3
    assert figures is not None
    [turn] = figures.combat_turns
    assert (turn.character, turn.full, turn.drawn, turn.unused) == ("kat", 6, 6, 0)
    rows = [r for r in roll_rows(log.events) if r.system == "sr3"]
    chains = [e.event for e in log.events if isinstance(e.event, sr3_events.PoolTestRolled)]
    longest = max(d.faces.count(6) for test in chains for d in test.dice)
    assert figures.longest_chain is not None
    assert figures.longest_chain.sixes == longest
    assert {r.kind for r in rows} == {"test", "open test"}


def test_karma_pool_rerolls_are_judged_and_summed() -> None:
    """A Karma Pool reroll of two failures that made one success: spent 1, bought 1 against
    an expected 2 x 1/2."""
    log = _two_rolls()
    log.events.pop()  # before the session ends
    log.add(sr3_events.PoolTestRerolled(
        test=1, character="kat", reroll=1, cost=1, karma_left=2, indices=(0, 1),
        faces=((5,), (2,)), successes=1, highest=5, disastrous=False), actor="kim")
    sr3 = report(log.events).campaign_figures.sr3
    assert sr3 is not None
    kat = sr3.characters["kat"]
    assert kat.karma_spent == 1
    assert (kat.karma_successes.actual, kat.karma_successes.expected) == (1.0, 1.0)
    [reroll] = [r for r in roll_rows(log.events) if r.kind == "karma reroll"]
    assert reroll.value == 1
    assert reroll.percentile == pytest.approx(1 / 4 + 1 / 4)


def _force_night() -> LogBuilder:
    """The destiny pool (three players' Force dice: faces 1, 8 and 12), then Kira's player
    rolls two Force dice for a power (faces 10 and 12: ○○ and ○○) and the GM one for the
    Inquisitor (face 7: ●●)."""
    log = LogBuilder()
    log.member("ana", "Ana", characters=("kira",))
    log.add(core.GameSessionStarted(session=1, title="The temple"))
    destiny = tuple(narrative_events.DestinyDie(member=member, face=face,
                                                symbols=rolled_die("force", face).symbols)
                    for member, face in (("ana", 1), ("ben", 8), ("cat", 12)))
    log.add(narrative_events.DestinyPoolRolled(dice=destiny, light=3, dark=1))
    for actor, character, faces in (("ana", "kira", (10, 12)), ("gm", "inquisitor", (7,))):
        dice = tuple(rolled_die("force", face) for face in faces)
        log.add(narrative_events.ForceDiceRolled(
            character=character, dice=dice,
            light=sum(d.symbols.count("light") for d in dice),
            dark=sum(d.symbols.count("dark") for d in dice)), actor=actor)
    log.add(core.GameSessionEnded(session=1))
    return log


def test_force_pips_match_enumeration_of_the_force_die() -> None:
    """Light and dark pips of one to four Force dice, counted over every way the dice fall
    (the faces of the rules: ● x6, ●●, ○ x2, ○○ x3)."""
    faces = FACES["force"]
    assert sorted(faces) == sorted([("dark",)] * 6 + [("dark", "dark")] + [("light",)] * 2
                                   + [("light", "light")] * 3)
    for dice in range(1, 5):
        for side in ("light", "dark"):
            ways: dict[int, int] = {}
            for fall in product(faces, repeat=dice):
                pips = sum(face.count(side) for face in fall)
                ways[pips] = ways.get(pips, 0) + 1
            dist = force_pips(dice, side)
            assert (dist.counts, dist.total) == (ways, 12**dice)


def test_force_dice_for_a_power_are_counted_face_by_face_and_judged() -> None:
    """The report counted the destiny pool's Force dice (3) and not a power's (3 more): now
    6, face by face. Ana's two dice show 4 light pips: P(at least 4) = 3 x 3 / 144 = 1/16,
    percentile (135 + 9 / 2) / 144; the GM's die shows 2 dark pips (the GM's side):
    P(at least 2) = 1/12, percentile (11 + 1 / 2) / 12. Both count in their player's and
    character's luck, and the export has their rows."""
    log = _force_night()
    rows = roll_rows(log.events)
    assert [(r.actor, r.character, r.kind, r.pool, r.result, r.value) for r in rows] == [
        ("ana", "kira", "force light", "2w", "4 light, 0 dark", 4),
        ("gm", "inquisitor", "force dark", "1w", "0 light, 2 dark", 2)]
    assert rows[0].p_at_least == pytest.approx(1 / 16)
    assert rows[0].percentile == pytest.approx((135 + 9 / 2) / 144)
    assert rows[0].expected == pytest.approx(2 * 8 / 12)  # (2 + 6) light pips over 12 faces
    assert rows[1].p_at_least == pytest.approx(1 / 12)
    assert rows[1].percentile == pytest.approx((11 + 1 / 2) / 12)
    assert rows[1].p_success is None
    section = report(log.events).sessions[0]
    [force] = [t for t in section.faces if t.die == "force"]
    assert force.dice == 6
    assert force.faces == [1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 2]
    assert section.players["ana"].rolls == 1
    assert section.characters["kira"].rolls == 1
    assert section.players["gm"].rolls == 1
    assert section.luckiest == rows[0]
    console = Console(width=200, record=True)
    console.print(summary(report(log.events)))
    assert "Faces of force: 6 dice" in console.export_text()
    assert "<td>force</td><td>6</td>" in render_html(report(log.events))
