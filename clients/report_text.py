"""The post-game report in the terminal: who was lucky, the destiny swing, the roll of the night.

A few rich tables and lines read from a :class:`poolhall.projections.analytics_model.Report`; every
figure behind them is in ``poolhall report --json``.
"""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from poolhall.clients.cli_support import styled
from poolhall.clients.printable import printable
from poolhall.events.plural import plural
from poolhall.projections.analytics_fold import ADMIN
from poolhall.projections.analytics_model import (
    D12Figures,
    Luck,
    NarrativeFigures,
    Report,
    RollRow,
    Section,
    Sr3Figures,
    Tally,
)
from poolhall.reports.words import at_event, fair_band, percent, table_luck, time_to_roll, who

__all__ = ["summary"]


def _tally(label: str, tally: Tally, digits: int = 1) -> str:
    return f"{label} {tally.actual:.{digits}f} (expected {tally.expected:.{digits}f})"


def _luck_table(report: Report, section: Section) -> Table:
    table = Table(title="Luck against the exact odds", title_justify="left", box=box.SIMPLE,
                  pad_edge=False)
    for column in ("who", "rolls", "mean percentile", "fair dice (95%)", "p-value", "verdict"):
        words = column in ("who", "verdict")
        # figures never wrap or shrink (rich would cut 0.424-0.576 to "0.424-0…"): the
        # words give way, folded onto more lines when the terminal is narrow
        table.add_column(column, justify="left" if words else "right", no_wrap=not words,
                         overflow="fold" if words else "ellipsis")

    def row(name: str, luck: Luck) -> None:
        table.add_row(Text(printable(name)), str(luck.rolls), f"{luck.mean_percentile:.3f}",
                      fair_band(luck), f"{luck.p_value:.3g}",
                      luck.verdict + (" (few rolls)" if luck.rough else ""))

    merged = set(section.merged.values())
    for gm in (False, True):
        for member, luck in section.players.items():
            if (member in section.gms) == gm:
                also = section.merged.get(member)
                row(who(report, member) + (f" as {report.characters.get(also, also)}"
                                           if also else "")
                    + (" (GM)" if gm and member != ADMIN else ""), luck)  # "admin (GM)"
        for character, luck in section.characters.items():
            if character not in merged and (character in section.npcs) == gm:
                row(report.characters.get(character, character)
                    + (" (NPC)" if gm else " (character)"), luck)
        if not gm:
            row("the table", section.luck)
    return table


def _dice_tests(section: Section) -> list[RenderableType]:
    out: list[RenderableType] = []
    for t in section.faces:
        said = (f"p {t.p_value:.3g}" + (f" +/- {t.error:.2g}" if t.error else "")
                + f" ({t.method}), after Holm {t.adjusted:.3g}"
                if t.powered and t.adjusted is not None else "")
        out.append(Text(printable(f"Faces of {t.die}: {plural('die', t.dice, 'dice')}"
                                  + (f"; {said}" if said else "") + f": {t.verdict}")))
    for c in section.counts:
        said = (f"; p {c.p_value:.3g} (exact), after Holm {c.adjusted:.3g}"
                if c.powered and c.adjusted is not None else "")
        out.append(Text(f"{c.what}: {c.actual} (expected {c.expected:.2f}){said}: {c.verdict}"))
    if section.family:
        out.append(Text(section.family + " A verdict says fair dice rarely do this, not that "
                        "anyone cheated; no verdict does not prove the dice fair."))
    return out


def _roll(report: Report, label: str, row: RollRow | None, p: float | None) -> Text | None:
    if row is None or p is None:
        return None
    whose = f" for {report.characters.get(row.character, row.character)}" if row.character \
        else ""
    return styled("{} [bold]{}[/bold] {}{}: {} -> {} ({} to do {})", label,
                  at_event(row.seq, row.test),
                  who(report, row.actor), whose, row.pool, row.result, percent(p),
                  "at least that well" if label.startswith("roll") else "that badly or worse")


def _systems(report: Report, section: Section) -> list[RenderableType]:
    """Each game system's figures the section has, then the free rolls'."""
    out: list[RenderableType] = []
    if section.narrative is not None:
        out += _narrative(report, section.narrative)
    if section.sr3 is not None:
        out += _sr3(report, section.sr3)
    if section.d12 is not None:
        out += _d12(report, section.d12)
    if (f := section.free) is not None:
        dice = ", ".join(f"d{d.sides} x{d.dice} chi-square {d.chi_square:.1f} "
                         f"(p {d.p_value:.3g})" for d in f.dice)
        out.append(Text(f"Free rolls: {f.rolls}; faces against uniform: {dice}"))
    return out


def _narrative(report: Report, n: NarrativeFigures) -> list[RenderableType]:
    """The table's and each character's checks, and the destiny pool's flips and swing."""
    t = n.table
    out: list[RenderableType] = [Text(f"Narrative: {plural('roll', t.rolls)}; " + "; ".join([
        _tally("checks succeeded", t.succeeded), _tally("net successes", t.successes),
        _tally("triumphs", t.triumphs, 2), _tally("despairs", t.despairs, 2),
        _tally("net advantage", t.advantages)]))]
    for ch, v in n.characters.items():
        out.append(Text(printable(
            f"  {report.characters.get(ch, ch)}: {plural('roll', v.rolls)}; " + "; ".join([
                _tally("net successes", v.successes), _tally("triumphs", v.triumphs, 2),
                _tally("despairs", v.despairs, 2),
                _tally("net advantage", v.advantages)]))))
    if n.flips_by or n.destiny:
        flips = ", ".join(f"{who(report, m)} {c}" for m, c in n.flips_by.items())
        line = f"Destiny: {plural('flip', sum(n.flips_by.values()))} ({flips or 'none'})"
        if n.destiny:
            start, end = n.destiny[0], n.destiny[-1]
            swing = max(p.light for p in n.destiny) - min(p.light for p in n.destiny)
            line += (f"; the pool went from {start.light} light / {start.dark} dark to "
                     f"{end.light} / {end.dark}, light swinging over {plural('point', swing)}")
        out.append(Text(printable(line)))
    return out


def _sr3(report: Report, s: Sr3Figures) -> list[RenderableType]:
    """The table's tests, its longest Rule of Six chain and unused pool dice, its Rule of One
    (a line of its own: the rolls that came up all ones, then the tests that ended so), then
    each character's tests."""
    t3 = s.table
    line = (f"Shadowrun: {plural('test', t3.tests)}; {_tally('successes', t3.successes)}; "
            f"Karma Pool spent {t3.karma_spent}, "
            f"{_tally('successes bought', t3.karma_successes)}")
    if s.longest_chain is not None:
        c = s.longest_chain
        line += (f"; longest Rule of Six: {plural('six', c.sixes, 'sixes')} "
                 f"({'+'.join(map(str, c.faces))}) by "
                 f"{report.characters.get(c.character, c.character)} in "
                 f"{at_event(c.seq, c.test)}")
    unused = sum(t.unused for t in s.combat_turns)
    full = sum(t.full for t in s.combat_turns)
    if full:
        turns = len({(t.encounter, t.turn) for t in s.combat_turns})
        line += (f"; pool dice unused {unused} of {full} over "
                 f"{plural('Combat Turn', turns)}")
    out: list[RenderableType] = [Text(printable(line)), Text(
        f"Rule of One: {t3.disasters.actual:.0f} rolled (expected {t3.disasters.expected:.2g}, "
        "Karma rerolls included); tests that ended a disastrous failure, after their Karma "
        f"rerolls: {t3.disastrous_tests}")]
    for ch, v3 in s.characters.items():
        out.append(Text(printable(
            f"  {report.characters.get(ch, ch)}: {plural('test', v3.tests)}; "
            f"{_tally('successes', v3.successes)}; Rule of One "
            f"{v3.disasters.actual:.0f} rolled (expected {v3.disasters.expected:.2g}), "
            f"{plural('test', v3.disastrous_tests)} ended so; Karma Pool "
            f"spent {v3.karma_spent}")))
    return out


def _d12(report: Report, d: D12Figures) -> list[RenderableType]:
    """The table's rolls and extended tests, then each character's rolls."""
    t12 = d.table
    line = (f"d12: {plural('roll', t12.rolls)}; {_tally('succeeded', t12.succeeded)}; "
            f"{_tally('margin', t12.margin)}; {_tally('1s', t12.ones)}; "
            f"{_tally('12s', t12.twelves)}")
    if d.extended:
        lengths = [e.rounds for e in d.extended]
        line += (f"; {plural('extended test', len(lengths))}, {min(lengths)}-"
                 f"{plural('round', max(lengths))} "
                 f"(mean {sum(lengths) / len(lengths):.1f})")
    out: list[RenderableType] = [Text(printable(line))]
    for ch, v12 in d.characters.items():
        out.append(Text(printable(
            f"  {report.characters.get(ch, ch)}: {plural('roll', v12.rolls)}; "
            f"{_tally('succeeded', v12.succeeded)}; {_tally('margin', v12.margin)}; "
            f"{_tally('1s', v12.ones)}; {_tally('12s', v12.twelves)}")))
    return out


def _timeline(report: Report, section: Section) -> Text:
    t = section.timeline
    parts = [f"{plural('event', t.events)} over {plural('minute', round(t.minutes))}"]
    if t.seconds_per_check is not None:
        parts.append(time_to_roll(report.system, t.seconds_per_check, t.checks_timed))
    if t.longest_pause is not None:
        parts.append(f"longest pause {t.longest_pause.seconds / 60:.1f} min after "
                     f"{at_event(t.longest_pause.after_seq)}")
    return Text("Timeline: " + "; ".join(parts))


def _section(report: Report, section: Section) -> list[RenderableType]:
    title = (f"Game session {section.session}" + (f": {section.title}" if section.title else "")
             if section.session is not None else "The whole campaign")
    parts: list[RenderableType] = [styled("[bold]{}[/bold]", title), _timeline(report, section)]
    if section.luck.rolls:
        parts.append(_luck_table(report, section))
    best, worst = section.luckiest, section.unluckiest
    for line in (_roll(report, "roll of the night", best, best.p_at_least if best else None),
                 _roll(report, "worst luck", worst, worst.p_at_most if worst else None)):
        if line is not None:
            parts.append(line)
    for m in section.rarest:
        whose = f" for {report.characters.get(m.row.character, m.row.character)}" \
            if m.row.character else ""
        parts.append(styled("least likely: [bold]{}[/bold] {}{}: {} -> {} ({} to do {})",
                            at_event(m.row.seq, m.row.test),
                            who(report, m.row.actor), whose, m.row.pool, m.row.result,
                            percent(m.p), "at least that well" if m.lucky else "that badly"))
    parts.extend(_dice_tests(section))
    parts.extend(_systems(report, section))
    return parts


def summary(report: Report, session: int | None = None) -> RenderableType:
    """The report for people: the session asked for, else the campaign and each session."""
    head = styled("[bold]{}[/bold] ({}), {}", report.name or report.campaign,
                  report.system, plural("event", report.head))
    if session is not None:
        return Group(head, *[part for s in report.sessions for part in _section(report, s)])
    parts: list[RenderableType] = [head, *_section(report, report.campaign_figures)]
    if report.sessions:
        table = Table(title="Game sessions", title_justify="left", box=box.SIMPLE,
                      pad_edge=False)
        for column in ("session", "title", "events", "rolls", "table's luck"):
            table.add_column(column)
        for s in report.sessions:
            table.add_row(str(s.session), Text(printable(s.title)), str(s.timeline.events),
                          str(s.luck.rolls), table_luck(s.luck))
        parts.append(table)
    return Group(*parts)
