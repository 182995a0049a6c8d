"""The post-game report as one self-contained HTML file: tables, and charts as inline SVG.

Nothing is loaded from anywhere (no script, no font, no stylesheet link): the file opens
offline and can be passed around as it is. Every piece of text from the log is escaped.

The page of the whole campaign charts the campaign and each player's luck session by session
and lists the sessions in a table; the page of one session (``--session N``) charts that
session in full. Charts are drawn per section, never per roll, so the page stays small
whatever the length of the log.
"""

from __future__ import annotations

from html import escape

from poolhall.events.plural import plural
from poolhall.projections.analytics_model import Luck, Report, RollRow, Section, Tally
from poolhall.reports import charts
from poolhall.reports.words import (
    at_event,
    fair_band,
    percent,
    table_luck,
    time_span,
    time_to_roll,
    who,
)

__all__ = ["render_html"]

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;
color:#1d2430}h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2.2rem;
border-bottom:1px solid #d5dbe1}h3{margin:1.4rem 0 .4rem}table{border-collapse:collapse;
margin:.5rem 0;display:block;max-width:100%;overflow-x:auto}
td,th{padding:.2rem .6rem;border-bottom:1px solid #e6e9ed;text-align:right}
td:first-child,th:first-child,.l{text-align:left}.note{color:#5b6775;font-size:.9rem}
.roll{background:#f5f7f9;border-left:4px solid #2a6f97;padding:.4rem .8rem;margin:.4rem 0}
svg{max-width:100%;height:auto}
"""
"""A table wider than a phone (a character's figures, actual and expected, ten columns)
scrolls within its own box (display:block), and the page keeps to the screen's width."""


def _e(value: object) -> str:
    return escape(str(value))


def _luck_rows(report: Report, section: Section, gm: bool = False) -> list[tuple[str, Luck]]:
    """The players and their characters (``gm``: the GMs and their NPCs); a player who rolled
    only for one character, and that character only by them, is one row."""
    merged = set(section.merged.values())
    rows = [(who(report, m) + (f" as {report.characters.get(section.merged[m], section.merged[m])}"
                               if m in section.merged else ""), luck)
            for m, luck in section.players.items() if (m in section.gms) == gm]
    rows += [(report.characters.get(c, c) + (" (NPC)" if gm else " (character)"), luck)
             for c, luck in section.characters.items()
             if c not in merged and (c in section.npcs) == gm]
    return rows


VERDICT_WORDS = (
    "A verdict (lucky, unlucky, unlike fair dice) means fair dice would rarely give results "
    "this far from their odds, counting every other test on this page. It does not mean "
    "anyone cheated or that a die is loaded: fair dice give such a page about 1 night in 20 "
    "at most. No verdict does not mean the dice are fair either: with few rolls a loaded die "
    "goes unnoticed (the documentation's power table says how many rolls it takes).")


def _dice_tests(section: Section, salt: str, full: bool) -> list[str]:
    out: list[str] = []
    if section.faces:
        rows = "".join(
            f"<tr><td>{_e(t.die)}</td><td>{t.dice}</td><td>{_e(t.method)}</td>"
            + (f"<td>{t.p_value:.3g}" + (f" &plusmn; {t.error:.2g}" if t.error else "")
               + f"</td><td>{t.adjusted:.3g}</td>"
               if t.powered and t.adjusted is not None else "<td>-</td><td>-</td>")
            + f"<td class=l>{_e(t.verdict)}</td></tr>" for t in section.faces)
        out += ["<h3>The dice, face by face</h3>",
                "<table><tr><th>die</th><th>dice</th><th>test</th><th>p-value</th>"
                "<th>after Holm</th><th class=l>verdict</th></tr>" + rows + "</table>"]
        if full:
            out.append(charts.face_tests_chart(section.faces, salt + "-faces"))
    if section.counts:
        rows = "".join(
            f"<tr><td>{_e(t.what)}</td><td>{t.actual}</td><td>{t.expected:.2f}</td>"
            + (f"<td>{t.p_value:.3g}</td><td>{t.adjusted:.3g}</td>"
               if t.powered and t.adjusted is not None else "<td>-</td><td>-</td>")
            + f"<td class=l>{_e(t.verdict)}</td></tr>" for t in section.counts)
        out += ["<h3>Rare results against their exact odds</h3>",
                "<table><tr><th></th><th>actual</th><th>expected</th><th>p-value (exact)</th>"
                "<th>after Holm</th><th class=l>verdict</th></tr>" + rows + "</table>"]
    if section.family:
        out.append(f"<p class=note>{_e(section.family)} {_e(VERDICT_WORDS)}</p>")
    return out


def _luck_table(rows: list[tuple[str, Luck]]) -> str:
    body = "".join(
        f"<tr><td>{_e(name)}</td><td>{luck.rolls}</td><td>{luck.mean_percentile:.3f}</td>"
        f"<td>{fair_band(luck)}</td><td>{luck.p_value:.3g}</td>"
        f"<td class=l>{_e(luck.verdict)}{' (few rolls)' if luck.rough else ''}</td></tr>"
        for name, luck in rows)
    return ("<table><tr><th>who</th><th>rolls</th><th>mean percentile</th>"
            "<th>fair dice (95%)</th><th>p-value</th><th class=l>verdict</th></tr>" + body
            + "</table>")


def _roll(report: Report, label: str, row: RollRow | None, p: float | None,
          how: str) -> str:
    if row is None or p is None:
        return ""
    whose = f" for {_e(report.characters.get(row.character, row.character))}" \
        if row.character else ""
    return (f"<p class=roll><b>{_e(label)}</b>: {_e(at_event(row.seq, row.test))} "
            f"{_e(who(report, row.actor))}{whose}"
            f", {_e(row.pool)} &rarr; {_e(row.result)} ({_e(percent(p))} {how})</p>")


def _tallies(pairs: list[tuple[str, Tally]]) -> str:
    body = "".join(f"<tr><td>{_e(label)}</td><td>{t.actual:.2f}</td><td>{t.expected:.2f}</td>"
                   "</tr>" for label, t in pairs)
    return "<table><tr><th></th><th>actual</th><th>expected</th></tr>" + body + "</table>"


def _by_character(report: Report, header: str, rows: list[tuple[str, int, list[Tally]]],
                  figures: tuple[str, ...]) -> str:
    """Each character's figures, actual and expected side by side."""
    if not rows:
        return ""
    head = f"<tr><th>character</th><th>{_e(header)}</th>" + "".join(
        f"<th>{_e(f)}</th><th>expected</th>" for f in figures) + "</tr>"
    body = "".join(
        f"<tr><td>{_e(report.characters.get(c, c))}</td><td>{n}</td>" + "".join(
            f"<td>{t.actual:.2f}</td><td>{t.expected:.2f}</td>" for t in tallies) + "</tr>"
        for c, n, tallies in rows)
    return "<table>" + head + body + "</table>"


def _systems(report: Report, section: Section, salt: str) -> list[str]:
    out: list[str] = []
    if (n := section.narrative) is not None:
        t = n.table
        out += ["<h3>Narrative checks</h3>", _tallies([
            ("checks succeeded", t.succeeded), ("net successes", t.successes),
            ("net advantage", t.advantages), ("triumphs", t.triumphs),
            ("despairs", t.despairs)]),
            _by_character(report, "rolls", [
                (c, v.rolls, [v.successes, v.advantages, v.triumphs, v.despairs])
                for c, v in n.characters.items()],
                ("net successes", "net advantage", "triumphs", "despairs"))]
        if n.flips_by:
            by = ", ".join(f"{_e(who(report, m))} {c}" for m, c in n.flips_by.items())
            flipped = plural("destiny point", sum(n.flips_by.values()))
            out.append(f"<p>{flipped} flipped: {by}.</p>")
        if len(n.destiny) > 1:
            out.append(charts.destiny_chart(n.destiny, salt + "-destiny"))
    if (s := section.sr3) is not None:
        t3 = s.table
        out += ["<h3>Shadowrun tests</h3>", _tallies([
            ("successes", t3.successes),
            ("Rule of One disasters rolled (Karma rerolls included)", t3.disasters),
            ("successes Karma Pool bought", t3.karma_successes)]),
            "<p>Tests that ended a disastrous failure, after their Karma rerolls: "
            f"{t3.disastrous_tests}.</p>",
            f"<p>Karma Pool spent: {t3.karma_spent}.</p>",
            _by_character(report, "tests", [
                (c, v.tests, [v.successes, v.disasters, v.karma_successes])
                for c, v in s.characters.items()],
                ("successes", "Rule of One rolled", "bought with Karma"))]
        if s.longest_chain is not None:
            c = s.longest_chain
            out.append(f"<p>Longest Rule-of-Six chain: {plural('six', c.sixes, 'sixes')} "
                       f"({'+'.join(map(str, c.faces))}) by "
                       f"{_e(report.characters.get(c.character, c.character))} in "
                       f"{_e(at_event(c.seq, c.test))}.</p>")
        if s.combat_turns:  # by name, as every other table of the report names characters
            rows = "".join(f"<tr><td>{_e(report.characters.get(t.character, t.character))}</td>"
                           f"<td>{t.encounter}</td><td>{t.turn}</td>"
                           f"<td>{t.full}</td><td>{t.drawn}</td><td>{t.unused}</td></tr>"
                           for t in s.combat_turns[:200])
            out.append("<table><tr><th>character</th><th>combat</th><th>Combat Turn</th>"
                       "<th>pool dice</th><th>drawn</th><th>unused</th></tr>" + rows + "</table>")
    if (d := section.d12) is not None:
        t12 = d.table
        out += ["<h3>d12 rolls</h3>", _tallies([
            ("succeeded", t12.succeeded), ("margin", t12.margin), ("1s", t12.ones),
            ("12s", t12.twelves)]),
            _by_character(report, "rolls", [
                (c, v.rolls, [v.succeeded, v.margin, v.ones, v.twelves])
                for c, v in d.characters.items()],
                ("succeeded", "margin", "1s", "12s"))]
        if d.extended:
            lengths = [e.rounds for e in d.extended]
            out.append(f"<p>{plural('extended test', len(lengths))}, {min(lengths)} to "
                       f"{plural('round', max(lengths))} "
                       f"(mean {sum(lengths) / len(lengths):.1f}).</p>")
    if (f := section.free) is not None:
        out.append(f"<h3>Free rolls</h3><p>{plural('roll', f.rolls)} (their dice face by face are "
                   "tested above).</p>")
    return out


def _section(report: Report, section: Section, salt: str, full: bool) -> str:
    title = (f"Game session {section.session}" + (f": {section.title}" if section.title else "")
             if section.session is not None else "The whole campaign")
    t = section.timeline
    parts = [f"<h2>{_e(title)}</h2>",
             f"<p class=note>{plural('event', t.events)}, {time_span(t.first, t.last)}"
             + (f"; {_e(time_to_roll(report.system, t.seconds_per_check, t.checks_timed))}"
                if t.seconds_per_check is not None else "")
             + (f"; longest pause {t.longest_pause.seconds / 60:.1f} min after "
                f"{at_event(t.longest_pause.after_seq)}" if t.longest_pause else "") + "</p>"]
    best, worst = section.luckiest, section.unluckiest
    parts.append(_roll(report, "Roll of the night", best, best.p_at_least if best else None,
                       "to do at least that well"))
    parts.append(_roll(report, "Worst luck", worst, worst.p_at_most if worst else None,
                       "to do that badly or worse"))
    if section.luck.rolls:
        rows = [*_luck_rows(report, section), ("the table", section.luck)]
        gm_rows = _luck_rows(report, section, gm=True)
        parts += ["<h3>Luck against the exact odds</h3>", _luck_table(rows)]
        if gm_rows:
            parts += ["<h3>The GM's rolls and NPCs</h3>", _luck_table(gm_rows)]
        rows += gm_rows
        parts += [
                  "<p class=note>Each roll's percentile is P(worse) + P(as good)/2 under its "
                  "pool's exact odds; it averages 0.5 with fair dice.</p>"]
        if full:
            parts += [charts.luck_chart(rows, salt + "-luck"),
                      charts.percentile_chart(section.percentiles, section.percentiles_expected,
                                              salt + "-pct")]
    if section.rarest:
        items = "".join(
            f"<li>{_e(at_event(m.row.seq, m.row.test))} {_e(who(report, m.row.actor))}"
            + (f" for {_e(report.characters.get(m.row.character, m.row.character))}"
               if m.row.character else "")
            + f": {_e(m.row.pool)} &rarr; {_e(m.row.result)}, "
            f"{_e(percent(m.p))} {'to do at least that well' if m.lucky else 'to do that badly'}"
            f" (1 in {_e(f'{1 / m.p:,.0f}' if m.p > 0 else 'more than a million')})</li>"
            for m in section.rarest)
        parts.append(f"<h3>The least likely rolls</h3><ol>{items}</ol>")
    if full and len(section.curve) > 1:
        parts += ["<h3>Luck through the session</h3>",
                  charts.luck_curve_chart(section.curve, salt + "-curve")]
    parts += _dice_tests(section, salt, full)
    if full:
        parts += _systems(report, section, salt)
        if t.per_minute:
            parts += ["<h3>Events per minute</h3>",
                      charts.per_minute_chart(t.per_minute, salt + "-pace")]
    return "\n".join(p for p in parts if p)


def _sessions(report: Report) -> str:
    series: dict[str, list[tuple[int, float]]] = {}
    rows = []
    for s in report.sessions:
        for member, luck in s.players.items():
            if s.session is not None and luck.rolls:
                series.setdefault(who(report, member), []).append(
                    (s.session, luck.mean_percentile))
        # the mean only: each session's verdicts are on its own page, in its own family
        rows.append(f"<tr><td>{s.session}</td><td>{_e(s.title)}</td><td>{s.timeline.events}"
                    f"</td><td>{s.luck.rolls}</td><td>{table_luck(s.luck)}</td></tr>")
    chart = charts.sessions_chart(series, "sessions") if series and len(report.sessions) > 1 \
        else ""
    return ("<h2>Game sessions</h2>" + chart
            + "<table><tr><th>session</th><th>title</th><th>events</th><th>rolls</th>"
            "<th>table's luck</th></tr>" + "".join(rows) + "</table>")


def render_html(report: Report, session: int | None = None) -> str:
    """The report as one HTML page: the session asked for, else the whole campaign."""
    name = report.name or report.campaign
    if session is not None:
        body = "\n".join(_section(report, s, f"s{s.session}", True) for s in report.sessions)
    else:
        body = _section(report, report.campaign_figures, "campaign", True)
        if report.sessions:
            body += "\n" + _sessions(report)
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8>"
            f"<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>{_e(name)}: post-game report</title><style>{_CSS}</style></head><body>"
            f"<h1>{_e(name)}</h1><p class=note>{_e(report.system)} campaign "
            f"<code>{_e(report.campaign)}</code>, {plural('event', report.head)}. "
            "Every figure is in "
            f"<code>poolhall report {_e(report.campaign)} --json</code>.</p>\n{body}\n"
            "</body></html>\n")
