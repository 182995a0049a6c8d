"""The page's JavaScript and CSS are sent without comments and indentation, and otherwise
unchanged: every shipped file checked token by token, the tricky cases by hand, and the file a
real server sends."""

from __future__ import annotations

import logging
from importlib import resources
from typing import Any

import pytest

from poolhall.server.lean_text import KINDS, _parser, lean
from tests.conftest import Table
from tests.server.test_web_http import get

WEB = resources.files("poolhall.clients") / "web"


def _shipped() -> list[tuple[str, bytes, str]]:
    """Every JavaScript and CSS file of the page: its path, bytes and grammar."""
    found = []

    def walk(folder: Any, prefix: str) -> None:
        for entry in folder.iterdir():
            if entry.is_dir():
                walk(entry, prefix + entry.name + "/")
            elif (kind := KINDS.get("." + entry.name.rpartition(".")[2])) is not None:
                found.append((prefix + entry.name, entry.read_bytes(), kind))

    walk(WEB, "")
    return sorted(found)


SHIPPED = _shipped()


def _tokens(source: bytes, kind: str) -> list[tuple[str, bytes]]:
    """The program's tokens, comments left out: each leaf's type and text, a literal's whole
    text (its inside is the program's, blanks and all), and a template's text less its
    substitutions, whose code is tokens like any other."""
    tokens: list[tuple[str, bytes]] = []
    stack = [_parser(kind)[0].parse(source).root_node]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            continue
        if node.type in ("string", "regex", "string_value") or not node.children:
            tokens.append((node.type, source[node.start_byte:node.end_byte]))
            continue
        if node.type == "template_string":
            text, at = b"", node.start_byte
            for part in node.children:
                if part.type == "template_substitution":
                    text += source[at:part.start_byte] + b"${}"
                    at = part.end_byte
            tokens.append(("template text", text + source[at:node.end_byte]))
            stack.extend(reversed([part for part in node.children
                                   if part.type == "template_substitution"]))
            continue
        stack.extend(reversed(node.children))
    return tokens


def test_the_page_has_javascript_and_css_files_and_each_parses_whole() -> None:
    """A file that did not parse would be sent with its comments: none is."""
    assert len([name for name, _, kind in SHIPPED if kind == "javascript"]) > 50
    assert [name for name, _, kind in SHIPPED if kind == "css"] != []
    for name, source, kind in SHIPPED:
        assert not _parser(kind)[0].parse(source).root_node.has_error, name


@pytest.mark.parametrize("name", [name for name, _, _ in SHIPPED])
def test_a_shipped_file_keeps_every_token_and_every_line(name: str) -> None:
    """Only comments and blanks go: the tokens are the same, in the same order, and each
    line is where it was (a stack trace's line numbers are the file's)."""
    _, source, kind = next(entry for entry in SHIPPED if entry[0] == name)
    sent = lean(source, kind)
    assert _tokens(sent, kind) == _tokens(source, kind)
    assert sent.count(b"\n") == source.count(b"\n")
    assert not _parser(kind)[0].parse(sent).root_node.has_error


def test_the_page_is_sent_a_third_lighter() -> None:
    """What the comments, JSDoc types and indentation weigh (they were 28% and 10%)."""
    before = sum(len(source) for _, source, _ in SHIPPED)
    after = sum(len(lean(source, kind)) for _, source, kind in SHIPPED)
    assert after < 0.75 * before


def test_comments_go_and_what_only_looks_like_one_stays() -> None:
    """A ``//`` or ``/*`` in a string, a template or a regular expression is the program's; a
    comment between two tokens leaves a space, so they stay two."""
    source = (b"// a file comment\n"
              b"const url = \"http://host/*x*/\"; // trailing\n"
              b"const twice = `a // b ${1 /* inside */ + 2}`;\n"
              b"const slash = /\\/\\/+/g; /** JSDoc\n"
              b" * @type {number} */\n"
              b"let a/**/=/**/1;\n")
    assert lean(source, "javascript") == (
        b"\n"
        b"const url = \"http://host/*x*/\";\n"
        b"const twice = `a // b ${1   + 2}`;\n"
        b"const slash = /\\/\\/+/g;\n"
        b"\n"
        b"let a = 1;\n")


def test_a_template_spanning_lines_keeps_its_text_and_code_loses_its_indentation() -> None:
    """The text of a template literal is what the page shows or sends: its lines keep their
    blanks; the code around it does not."""
    source = (b"function f() {\n"
              b"    return `line one\n"
              b"        indented   \n"
              b"  end`;\n"
              b"}\n")
    assert lean(source, "javascript") == (
        b"function f() {\n"
        b"return `line one\n"
        b"        indented   \n"
        b"  end`;\n"
        b"}\n")


def test_css_loses_its_comments_not_its_strings() -> None:
    source = (b"/* the table */\n"
              b".a::before {\n"
              b"  content: \"/* not one */\";  /* one */\n"
              b"  color: red;\n"
              b"}\n")
    assert lean(source, "css") == (
        b"\n"
        b".a::before {\n"
        b"content: \"/* not one */\";\n"
        b"color: red;\n"
        b"}\n")


def test_a_file_that_does_not_parse_is_sent_as_it_is(caplog: pytest.LogCaptureFixture) -> None:
    """Better its comments than a cut program; the log says so."""
    broken = b"function (  { // not JavaScript\n"
    with caplog.at_level(logging.WARNING, logger="poolhall.server.lean_text"):
        assert lean(broken, "javascript") == broken
    assert "did not parse" in caplog.text


async def test_the_server_sends_the_lean_file_plain_and_gzipped(table: Table) -> None:
    """What a browser gets of a module is the lean file; gzipped, the same bytes."""
    import gzip

    source = (WEB / "elements" / "ph-log.js").read_bytes()
    status, _, plain = await get(table.url, "/static/elements/ph-log.js")
    assert status == 200
    assert plain == lean(source, "javascript")
    assert b"//" in source
    assert len(plain) < 0.8 * len(source)
    _, headers, packed = await get(table.url, "/static/elements/ph-log.js",
                                   {"Accept-Encoding": "gzip"})
    assert headers["content-encoding"] == "gzip"
    assert gzip.decompress(packed) == plain
