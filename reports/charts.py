"""The report's charts, drawn by matplotlib as inline SVG (no plotting code of our own).

Each function takes figures of a :class:`poolhall.projections.analytics_model.Section` and returns
one ``<svg>`` element as text. matplotlib is used without pyplot (a :class:`Figure` and its own
canvas: no global figure manager), its settings only inside ``rc_context``; text stays text
(``svg.fonttype = none``: no glyphs or fonts embedded, none fetched), and the SVG carries no
date and a salt per chart, so the same report draws the same bytes and the ids of two charts
on one page never clash. Labels are plain text (``text.parse_math`` off): no name a player
types can be read by matplotlib as anything but characters.
"""

from __future__ import annotations

import functools
import html
import io
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from matplotlib.typing import RcKeyType

from poolhall.events.plural import plural
from poolhall.projections.analytics_model import CurvePoint, DestinyPoint, DieFaces, FaceTest, Luck
from poolhall.reports.words import plain

__all__ = ["destiny_chart", "face_tests_chart", "faces_chart", "luck_chart", "luck_curve_chart",
           "percentile_chart",
           "per_minute_chart", "sessions_chart"]

LIGHT, DARK, ACCENT, MUTED = "#d9a400", "#3b2f63", "#2a6f97", "#9aa5b1"
P = ParamSpec("P")


_STYLE: dict[RcKeyType, Any] = {"font.size": 9, "axes.spines.top": False,
                                 "axes.spines.right": False,
                                 "svg.fonttype": "none", "text.parse_math": False,
                                 "text.usetex": False}
"""The report's look. ``text.parse_math`` off: every label is plain text, so a name like
``Han $\\notacmd$`` (or a deeply nested ``\\sqrt{``) from the table is drawn as typed
instead of being parsed as mathtext, which would fail the whole report."""


def _styled(draw: Callable[P, str]) -> Callable[P, str]:
    """Draw with the report's style, set for this chart only (rcParams read as artists are
    made), never on matplotlib's global settings; the chart is an image named by the first
    sentence of its function's docstring (:func:`_named`)."""
    label = _first_sentence(draw.__doc__ or "")

    @functools.wraps(draw)
    def styled(*args: P.args, **kwargs: P.kwargs) -> str:
        with rc_context(_STYLE), warnings.catch_warnings():
            # a name in a script DejaVu Sans lacks: the SVG keeps the text and the browser
            # draws it in a font it has; matplotlib's width estimate is all that is missing
            warnings.filterwarnings("ignore", "Glyph .* missing from font", UserWarning)
            return _named(draw(*args, **kwargs), label)
    return styled


def _first_sentence(doc: str) -> str:
    return " ".join(doc.split()).split(". ")[0].rstrip(".")


def _named(svg: str, label: str) -> str:
    """``svg`` as one image with ``label`` as its name: a screen reader read a chart as its
    tick labels run together ("0.3 0.4 0.5 0.6 0.7 mean percentile ..."); its figures are in
    the report's text and tables beside it."""
    return svg.replace("<svg", f'<svg role="img" aria-label="{html.escape(label)}"', 1)


_NO_METADATA: dict[str, str | None] = {"Date": None, "Creator": None, "Format": None,
                                       "Type": None}
"""No date (the same report draws the same bytes) and no RDF block (bytes for nothing)."""


def _svg(figure: Figure, salt: str) -> str:
    """The figure as one ``<svg>`` element (the XML prologue and doctype dropped)."""
    buffer = io.StringIO()
    with rc_context({"svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", metadata=_NO_METADATA, bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height))


@_styled
def luck_chart(rows: Sequence[tuple[str, Luck]], salt: str) -> str:
    """Mean percentile per player or character, against the 95% band of fair dice."""
    figure = _figure(6.4, 0.45 * len(rows) + 1.0)
    axes = figure.subplots()
    names = [plain(name) for name, _ in rows]
    for y, (_, luck) in enumerate(rows):
        axes.plot([luck.low, luck.high], [y, y], color=MUTED, linewidth=6, alpha=0.6,
                  solid_capstyle="butt")
        axes.plot([luck.mean_percentile], [y], "o",
                  color=LIGHT if luck.mean_percentile >= 0.5 else DARK)
    axes.axvline(0.5, color=MUTED, linewidth=0.8, linestyle="--")
    axes.set_yticks(range(len(rows)), names)
    axes.invert_yaxis()
    axes.set_xlabel("mean percentile (grey: where fair dice land 95% of the time)")
    return _svg(figure, salt)


@_styled
def percentile_chart(bins: Sequence[int], expected: Sequence[float], salt: str) -> str:
    """How many rolls fell in each tenth of the percentile scale, and how many fair dice would
    have put there with the same pools."""
    figure = _figure(6.4, 2.4)
    axes = figure.subplots()
    centres = [i / 10 + 0.05 for i in range(len(bins))]
    axes.bar(centres, bins, width=0.09, color=ACCENT, label="rolls")
    axes.step([0.0, *[c + 0.05 for c in centres]], [expected[0], *expected], where="pre",
              color=DARK, linewidth=1.2, label="fair dice")
    axes.set_xlabel("percentile of each roll (0: worst possible luck, 1: best)")
    axes.set_ylabel("rolls")
    axes.legend(frameon=False, fontsize=8)
    return _svg(figure, salt)


@_styled
def destiny_chart(points: Sequence[DestinyPoint], salt: str) -> str:
    """The destiny pool's light and dark points after each roll of the pool or flip."""
    figure = _figure(6.4, 2.4)
    axes = figure.subplots()
    xs = list(range(len(points)))
    axes.step(xs, [p.light for p in points], where="post", color=LIGHT, label="light")
    axes.step(xs, [p.dark for p in points], where="post", color=DARK, label="dark")
    axes.set_xticks(xs[:: max(1, len(xs) // 10)],
                    [f"#{points[i].seq}" for i in xs[:: max(1, len(xs) // 10)]])
    axes.set_ylabel("points")
    axes.legend(frameon=False)
    return _svg(figure, salt)


@_styled
def per_minute_chart(per_minute: Sequence[int], salt: str) -> str:
    """Events in each minute of the session."""
    figure = _figure(6.4, 2.2)
    axes = figure.subplots()
    # stairs: minute i spans [i, i + 1), the last one included (a line through the points
    # would draw the last minute with no width, and a session of one minute not at all)
    axes.stairs(per_minute, range(len(per_minute) + 1), fill=True, color=ACCENT, alpha=0.7)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(0, len(per_minute))
    axes.set_xlabel("minutes into the session")
    axes.set_ylabel("events")
    return _svg(figure, salt)


@_styled
def faces_chart(dice: Sequence[DieFaces], salt: str) -> str:
    """Each face's count over what a uniform die would give, one panel per die size."""
    figure = Figure(figsize=(6.4, 1.9 * len(dice) + 0.4), layout="constrained")
    panels = figure.subplots(len(dice), 1, squeeze=False)
    for (axes,), die in zip(panels, dice, strict=True):
        expected = die.dice / die.sides
        axes.bar(range(1, die.sides + 1), [c / expected for c in die.faces], color=ACCENT)
        axes.axhline(1.0, color=MUTED, linestyle="--", linewidth=0.8)
        if die.sides <= 20:  # every face named: a d4's axis reads 1 2 3 4, never 1.5
            axes.set_xticks(range(1, die.sides + 1))
        else:
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlim(0.4, die.sides + 0.6)
        axes.set_ylabel(f"d{die.sides}")
        axes.set_title(f"d{die.sides}: {plural('die', die.dice, 'dice')}, chi-square "
                       f"{die.chi_square:.1f}, p {die.p_value:.3g}", fontsize=8, loc="left")
    panels[-1][0].set_xlabel("face (bar: count over the uniform expectation)")
    return _svg(figure, salt)


@_styled
def sessions_chart(series: dict[str, list[tuple[int, float]]], salt: str) -> str:
    """Each player's mean percentile session by session."""
    figure = _figure(6.4, 2.6)
    axes = figure.subplots()
    for name, points in series.items():
        axes.plot([s for s, _ in points], [m for _, m in points], marker="o", label=plain(name))
    axes.axhline(0.5, color=MUTED, linestyle="--", linewidth=0.8)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # session 2, never 1.25
    axes.set_xlabel("game session")
    axes.set_ylabel("mean percentile")
    axes.legend(frameon=False, fontsize=8)
    return _svg(figure, salt)


@_styled
def face_tests_chart(tests: Sequence[FaceTest], salt: str) -> str:
    """Each kind of die: each face's count over what a fair die gives, one panel each, the
    test's p-value in its title when it has power."""
    figure = Figure(figsize=(6.4, 1.9 * len(tests) + 0.4), layout="constrained")
    panels = figure.subplots(len(tests), 1, squeeze=False)
    for (axes,), test in zip(panels, tests, strict=True):
        sides = len(test.faces)
        axes.bar(range(1, sides + 1), [c / test.expected for c in test.faces], color=ACCENT)
        axes.axhline(1.0, color=MUTED, linestyle="--", linewidth=0.8)
        if sides <= 20:
            axes.set_xticks(range(1, sides + 1))
        else:
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlim(0.4, sides + 0.6)
        said = (f"p {test.p_value:.3g} ({test.method}), after Holm {test.adjusted:.3g}"
                if test.powered and test.adjusted is not None else "too few dice to tell")
        axes.set_title(plain(f"{test.die}: {plural('die', test.dice, 'dice')}; {said}"),
                       fontsize=8, loc="left")
    panels[-1][0].set_xlabel("face (bar: count over a fair die's expectation)")
    return _svg(figure, salt)


@_styled
def luck_curve_chart(points: Sequence[CurvePoint], salt: str) -> str:
    """The table's mean percentile roll after roll, inside the band fair dice keep to 95% of
    the time at that many rolls (wide at first, narrowing as rolls add up)."""
    figure = _figure(6.4, 2.4)
    axes = figure.subplots()
    xs = [p.rolls for p in points]
    axes.fill_between(xs, [0.5 - p.half for p in points], [0.5 + p.half for p in points],
                      color=MUTED, alpha=0.35, linewidth=0, label="fair dice (95%)")
    axes.plot(xs, [p.mean for p in points], color=ACCENT, label="the table")
    axes.axhline(0.5, color=MUTED, linestyle="--", linewidth=0.8)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylim(0, 1)
    axes.set_xlabel("rolls into the session")
    axes.set_ylabel("mean percentile so far")
    axes.legend(frameon=False, fontsize=8)
    return _svg(figure, salt)
