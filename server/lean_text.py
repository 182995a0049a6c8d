"""The browser table's JavaScript and CSS as sent: without comments and indentation.

The files in ``clients/web`` are written to be read: a comment that says why, JSDoc types that
TypeScript checks (``tsc -p .``), indentation. About a third of their bytes are those, which
a browser downloads and parses for nothing (#11's first load is 150 KB at most, decoded).
There is no build step to take them out, so the server does, once per file, when the file is
first asked for (:attr:`poolhall.server.web.Asset.body`):

- tree-sitter (the grammars of JavaScript and CSS) finds the comments exactly: a ``//`` in a
  string, a template or a regular expression is not one, and a file it cannot parse whole is
  sent as it is, with a warning in the log (``tests/server/test_lean_text.py`` parses every
  shipped file);
- each comment gives way to the line breaks it held (a single space if none, so that two
  tokens never meet), then every line loses its indentation and trailing blanks, except the
  lines that begin or end inside a string or template literal spanning lines, whose text is
  the program's.

Every line stays where it is, so the line numbers of a stack trace in the browser are the
file's own. Nothing else changes: no token is renamed, moved or joined (the test compares the
tokens of every shipped file before and after).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable
from typing import Any

__all__ = ["KINDS", "lean"]

logger = logging.getLogger(__name__)

KINDS = {".js": "javascript", ".css": "css"}
"""The files made lean, by suffix, and the grammar each is parsed with."""

_QUERIES = {
    "javascript": "(comment) @comment [(string) (template_string) (regex)] @literal",
    "css": "(comment) @comment (string_value) @literal",
}
"""The comments, and the literals whose text is the program's, whitespace and all."""


@functools.cache
def _parser(kind: str) -> tuple[Any, Any]:
    """A tree-sitter parser for ``kind`` and the query of :data:`_QUERIES` (imported on the
    first file, not at the server's start: most processes serve the page rarely)."""
    import tree_sitter
    import tree_sitter_css
    import tree_sitter_javascript

    grammar = tree_sitter_javascript if kind == "javascript" else tree_sitter_css
    language = tree_sitter.Language(grammar.language())
    return tree_sitter.Parser(language), tree_sitter.Query(language, _QUERIES[kind])


def lean(source: bytes, kind: str) -> bytes:
    """``source`` (a file of ``kind``, a value of :data:`KINDS`) without comments and
    indentation, every line in its place; ``source`` itself if it does not parse whole.

    One parse (tree-sitter holds the interpreter lock meanwhile: 2.8 ms for the largest file,
    24 KB, once per file and process: ``tests/bench/lean_assets.py``), its comments and
    literals found by a query, in C."""
    import tree_sitter

    parser, query = _parser(kind)
    tree = parser.parse(source)
    if tree.root_node.has_error:
        logger.warning("a %s file did not parse; it is sent with its comments", kind)
        return source
    found = tree_sitter.QueryCursor(query).captures(tree.root_node)
    comments = sorted(found.get("comment", ()), key=lambda node: node.start_byte)
    # a comment removed keeps its line breaks, so the literals' lines are the same after
    return _without_indentation(_without_comments(source, comments), found.get("literal", ()))


def _without_comments(source: bytes, comments: list[Any]) -> bytes:
    """``source`` with each comment replaced by its line breaks, or a space if it has none."""
    parts = []
    at = 0
    for comment in comments:
        parts.append(source[at:comment.start_byte])
        breaks = source.count(b"\n", comment.start_byte, comment.end_byte)
        parts.append(b"\n" * breaks if breaks else b" ")
        at = comment.end_byte
    parts.append(source[at:])
    return b"".join(parts)


def _without_indentation(text: bytes, literals: Iterable[Any]) -> bytes:
    """Each line of ``text`` without leading and trailing blanks, but where a literal spanning
    lines holds that end of the line."""
    begins_inside: set[int] = set()
    ends_inside: set[int] = set()
    for literal in literals:
        first, last = literal.start_point[0], literal.end_point[0]
        begins_inside.update(range(first + 1, last + 1))
        ends_inside.update(range(first, last))
    lines = text.split(b"\n")
    for number, line in enumerate(lines):
        if number not in begins_inside:
            line = line.lstrip(b" \t")
        if number not in ends_inside:
            line = line.rstrip(b" \t")
        lines[number] = line
    return b"\n".join(lines)
