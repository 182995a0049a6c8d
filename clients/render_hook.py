"""The render hook of the CLI's consoles: whatever rich prints, no character of it drives the
terminal (see :mod:`poolhall.clients.printable`, whose :func:`printable` it applies to every
text segment). Apart from that module so that ``--json`` output, which needs only
:func:`~poolhall.clients.printable.json_safe`, imports no rich."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook, RenderResult
from rich.segment import Segment

from poolhall.clients.printable import printable

__all__ = ["EscapeUnprintable"]


class _Escaped:
    """A renderable rendered as usual, its text segments made printable."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from _printable_segments(console.render(self.inner, options))


def _printable_segments(segments: Iterable[Segment]) -> Iterable[Segment]:
    for segment in segments:
        text = segment.text
        if segment.control or text == "\n" or text.isprintable():
            yield segment
        else:
            lines = text.split("\n")  # rich's own line breaks stay; the rest is escaped
            yield Segment("\n".join(printable(line) for line in lines), segment.style)


class EscapeUnprintable(RenderHook):
    """A console render hook: whatever is printed, no character of it drives the terminal."""

    def process_renderables(self, renderables: list[ConsoleRenderable]
                            ) -> list[ConsoleRenderable]:
        return [_Escaped(renderable) for renderable in renderables]
