"""Refusals write the game's abbreviations as the table does: GM and DT, not gm and dt.

The house style of messages (short, exact, beginning in lowercase) had been read as "write
everything in lowercase", so the d12 rules said "the gm sets or determines the dt". Every
message a refusal can carry is a literal in a ``Rejected(...)``, a ``require_gm(...)`` or a
``NotationError(...)`` call; this reads them all from the source, so a new one is held to it
too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).parents[2]
LOWERCASE = re.compile(r"(?<![`'\"\w-])(gm|dt|con|cha)(?![`'\"\w-])")
"""An abbreviation written in lowercase as a word of its own (a quoted ``'gm'`` is a value)."""
MESSAGE_ARGUMENT = {"Rejected": 1, "CommandRejected": 1, "require_gm": 0, "NotationError": 0}


def _literals(node: ast.AST) -> Iterator[str]:
    """The literal text of a message argument, f-strings' fixed parts included."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        for part in node.values:
            yield from _literals(part)


def _messages() -> Iterator[tuple[str, str]]:
    """Each refusal message literal in the code, with where it is."""
    for package in ("events", "projections", "server", "clients"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else \
                    func.attr if isinstance(func, ast.Attribute) else ""
                at = MESSAGE_ARGUMENT.get(name)
                if at is not None and len(node.args) > at:
                    for text in _literals(node.args[at]):
                        yield f"{path.relative_to(ROOT)}:{node.lineno}", text


def test_refusals_write_gm_and_dt_in_capitals() -> None:
    """No refusal says "gm", "dt", "con" or "cha" as a word (found: "the gm called test 2:
    8d12 at dt 3")."""
    found = list(_messages())
    assert len(found) > 100, "no messages found: are the names right?"
    lowercase = [f"{where}: {text!r}" for where, text in found if LOWERCASE.search(text)]
    assert lowercase == []

