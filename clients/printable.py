"""Printing what players typed without letting it drive the terminal.

Names, reasons, labels and notes come from other people at the table. Printed raw, an escape
sequence in one of them could clear every watcher's screen, recolour or rewrite lines, or
(with a newline or a carriage return) print a fake log line. The server refuses control
characters in new commands, but a log may hold older ones, and a client must not trust a
server anyway; so everything the CLI prints goes through here:

- :func:`printable` turns every unprintable character of one value into a visible escape
  (``\\x1b``, ``\\u202e``, ``\\n``): :func:`poolhall.clients.cli_support.styled` applies it to each
  value it fills in, newlines included;
- :class:`~poolhall.clients.render_hook.EscapeUnprintable`, a render hook on the CLI's
  consoles, does the same to every piece of text rich is about to write (its own line breaks
  aside), whatever built it: a table title, a cell, a plain string. Rich's own styling is
  emitted after this, from styles, so it is untouched. It is a module of its own, so that
  this one imports no rich: ``--json`` output needs only :func:`json_safe`;
- :func:`json_safe` escapes, in JSON output, the characters a terminal may act on that JSON
  encoders leave raw (DEL, C1 controls, bidi overrides, line separators).
"""

from __future__ import annotations

import re

__all__ = ["json_safe", "printable"]

_RAW_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with each character that is not printable shown as its escape (``\\x1b``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def json_safe(encoded: str) -> str:
    """JSON text with the terminal-active characters JSON leaves raw written as ``\\uXXXX``
    (the same JSON value: a reader decodes exactly what the server sent)."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)
