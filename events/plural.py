"""A count in words: ``plural("die", 1, "dice")`` -> "1 die", ``plural("success", 3)`` -> "3
successes".

One helper for every line a person reads (refusals, the log's story lines, the report), so
that "1 remain", "1 sixes" or "at least 1 characters" cannot creep back one f-string at a
time. It takes its arguments in the order of the browser's ``plural`` (``clients/web/dom.js``),
and makes the plural the same way, so a line reads the same in the terminal and on the page.
"""

from __future__ import annotations

__all__ = ["plural"]


def plural(word: str, count: int, many: str | None = None) -> str:
    """``count`` and ``word``, or ``many`` (default: ``word`` + "s", or + "es" after an "s")
    when ``count`` is not 1. A phrase works too: ``plural("die remains", n, "dice
    remain")`` keeps the verb in step with the count."""
    plain = many if many is not None else (f"{word}es" if word.endswith("s") else f"{word}s")
    return f"{count} {word if count == 1 else plain}"
