"""``did you mean ...?`` for a misspelt name: a die, a skill, a character, a command.

One wording for every place a name is looked up, on the server (its refusals reach every
client) and in the CLI (argparse's choices, names checked before sending).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(word: str, options: Iterable[str], cutoff: float = 0.6) -> str:
    """``; did you mean 'ability'?`` for a near miss among ``options`` (case ignored), else
    the empty string, so that it can end any message."""
    import difflib  # here, not at import: every ``poolhall`` command imports this module

    by_fold: dict[str, str] = {}
    for option in options:
        by_fold.setdefault(option.casefold(), option)
    close = difflib.get_close_matches(word.casefold(), list(by_fold), n=2, cutoff=cutoff)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(by_fold[c]) for c in close) + "?"
