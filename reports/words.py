"""Figures in words, shared by the terminal summary and the HTML page."""

from __future__ import annotations

from poolhall.events.plural import plural
from poolhall.projections.analytics_model import Luck, Report

__all__ = ["fair_band", "at_event", "percent", "plain", "table_luck", "time_span", "time_to_roll",
           "who"]

_OPENED = {"narrative": ("opening", "check"), "sr3": ("declaring", "test"),
           "d12": ("calling", "test")}
"""Each system's own word for what is timed, and how it starts: a narrative check is opened,
an SR3 test declared, a d12 test called (the report said "check" of all three)."""


def time_to_roll(system: str, seconds: float, count: int) -> str:
    """The pace from a check or test's start to its roll, in the system's own words: ``12 s
    from calling a test to rolling it (3 tests)``."""
    verb, noun = _OPENED.get(system, ("opening", "test"))
    return f"{seconds:.0f} s from {verb} a {noun} to rolling it ({plural(noun, count)})"


def percent(p: float) -> str:
    """A probability as people read it: ``37%``, ``1.2%``, ``0.004%``, ``< 1 in a million``."""
    if p < 1e-6:
        return "< 1 in a million"
    if p >= 0.1:
        return f"{p:.0%}"
    if p >= 0.01:
        return f"{p:.1%}"
    return f"{p * 100:.2g}%"


def time_span(first: str | None, last: str | None) -> str:
    """When a stretch of the log was played, as people read it: ``2026-11-23 20:00 to 23:41
    UTC`` (the date once when it is the same), from the log's ISO times
    (``2026-11-23T20:00:00.000Z``); ``-`` for a stretch with no event."""
    if first is None or last is None:
        return "-"
    start, end = f"{first[:10]} {first[11:16]}", f"{last[:10]} {last[11:16]}"
    if first[:10] == last[:10]:
        end = last[11:16]
    return f"{start} to {end} UTC"


def fair_band(luck: Luck) -> str:
    """Where fair dice put a mean percentile 95% of the time, as ``0.312–0.688``.

    The band is a normal approximation, so with few rolls it reaches past the scale
    (``-0.040-1.040`` for one roll); a mean percentile lies in 0..1, and so does the band
    shown."""
    return f"{max(luck.low, 0.0):.3f}–{min(luck.high, 1.0):.3f}"


def table_luck(luck: Luck) -> str:
    """A session's luck in the list of sessions: its mean percentile, or "no rolls" (a mean of
    no roll is no luck at all; 0.500 read as average luck)."""
    return f"{luck.mean_percentile:.3f}" if luck.rolls else "no rolls"


def who(report: Report, member: str) -> str:
    """A member by name (``Sam``), or their id when the log has no name for them."""
    return report.players.get(member, member)


def plain(text: str) -> str:
    """Text from the table as one line of characters: each character that is not printable
    (controls, newlines, format characters) shown as its escape, so a name cannot move, hide
    or break what is drawn around it."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def at_event(seq: int, test: int | None = None) -> str:
    """Where a roll is, in the table's terms: ``test #9 (event #37)`` for a test the table
    numbers (its Latest tests call it #9), else ``event #37``. A bare ``#37`` was read as the
    test's number."""
    return f"test #{test} (event #{seq})" if test is not None else f"event #{seq}"
