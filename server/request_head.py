"""An HTTP request before it is whole: its bytes bounded, and an address's half-sent requests
counted. The sans-I/O core of the door's first phase
(:class:`poolhall.server.gated_connection.GatedConnection` feeds it).

Until a request's blank line arrives, nothing of it can be answered, yet each connection
sending one costs the event loop every tables shares. Two bounds keep that cost small:

- :class:`RequestHead` keeps a request's bytes until its blank line and refuses one past
  :data:`MAX_REQUEST_BYTES`, :data:`MAX_HEADER_LINES` lines or a line of
  :data:`MAX_LINE_BYTES`. The bytes are handed to websockets' parser once, whole: fed a
  packet at a time, its parser ran on every packet, so a request sent a byte at a time cost
  a parse per byte. websockets' own limits (128 headers of 8 KiB, read from environment
  variables) stay as a second line; these are the server's, in code.
- :class:`ReadingSlots` lets an address send :attr:`ReadingSlots.per_source` requests at once;
  its further connections wait, unread (their bytes stay in the kernel), for one of those to
  finish. An honest browser sends its request as soon as it connects, so its requests finish
  in a round trip and another connection of its address waits milliseconds at most; an
  attacker trickling requests a byte at a time holds only its own address's few slots.

Neither reads a clock or a socket.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["MAX_HEADER_LINES", "MAX_LINE_BYTES", "MAX_REQUEST_BYTES", "BareLineFeed",
           "ReadingSlots", "RequestHead", "TooLarge"]

MAX_REQUEST_BYTES = 16 * 1024
"""Most bytes of a request's line and headers. A browser's handshake is under 1 KiB (2-4 KiB
with cookies other sites on ``localhost`` set); the server sets none. The issue that set it:
128 headers of 8 KB each were read, 1 MiB per connection, 266 MB for 64 connections."""

MAX_HEADER_LINES = 64
"""Most header lines of a request (a browser sends 10-20)."""

MAX_LINE_BYTES = 8 * 1024
"""Most bytes of the request line or of one header line (the usual limit of HTTP servers)."""

END = b"\r\n\r\n"

C = TypeVar("C", bound=Hashable)


class TooLarge(Exception):
    """The request is past one of the bounds; the message says which, in plain words."""


class BareLineFeed(Exception):
    """A line of the request ends in LF alone, not CR LF: its blank line (CR LF CR LF) would
    never come, and the connection waited out the join timeout for it; websockets' parser
    refuses such a line anyway. The message says so in plain words."""


class RequestHead:
    """A request's bytes until its blank line."""

    __slots__ = ("_data",)

    def __init__(self) -> None:
        self._data = bytearray()

    def __len__(self) -> int:
        return len(self._data)

    def feed(self, data: bytes) -> tuple[bytes, bytes] | None:
        """Add ``data``; once the blank line is in, the request up to and with it, and
        whatever followed it (a pipelined request, a body, early frames: websockets' parser
        must not read those as frames of a handshake not answered yet, see
        :class:`poolhall.server.gated_connection.GatedConnection`); else ``None``. Raises
        :class:`TooLarge` past a bound, :class:`BareLineFeed` at a line ending in LF alone."""
        start = max(0, len(self._data) - len(END) + 1)
        checked = len(self._data)
        self._data += data
        end = self._data.find(END, start)
        if _bare_line_feed(self._data, checked, len(self._data) if end < 0 else end):
            raise BareLineFeed("a line of the request ends in LF alone: HTTP lines end in CR LF")
        if end < 0:
            if len(self._data) > MAX_REQUEST_BYTES:
                raise TooLarge(f"the request's headers are over {MAX_REQUEST_BYTES} bytes")
            return None
        if end + len(END) > MAX_REQUEST_BYTES:
            raise TooLarge(f"the request's headers are over {MAX_REQUEST_BYTES} bytes")
        lines = self._data[:end].split(b"\r\n")
        if len(lines) - 1 > MAX_HEADER_LINES:
            raise TooLarge(f"the request has over {MAX_HEADER_LINES} header lines")
        if max(len(line) for line in lines) > MAX_LINE_BYTES:
            raise TooLarge(f"a line of the request is over {MAX_LINE_BYTES} bytes")
        cut = end + len(END)
        head, following = bytes(self._data[:cut]), bytes(self._data[cut:])
        self._data = bytearray()
        return head, following

    def rest(self) -> bytes:
        """What was fed and not handed over (the connection ended before the blank line)."""
        data, self._data = bytes(self._data), bytearray()
        return data


def _bare_line_feed(data: bytearray, start: int, stop: int) -> bool:
    """Whether ``data[start:stop]`` holds an LF with no CR before it (counted in C: a packet
    full of line ends costs no Python loop)."""
    region = data[start:stop]
    feeds = region.count(b"\n")
    if not feeds:
        return False
    paired = region.count(b"\r\n")
    if region[:1] == b"\n" and start > 0 and data[start - 1] == 0x0D:  # its CR came before
        paired += 1
    return feeds != paired


class ReadingSlots(Generic[C]):
    """Which connections of each source may be read now, and which wait for their turn."""

    def __init__(self, per_source: int) -> None:
        self.per_source = max(1, per_source)
        self._reading: dict[str, int] = {}
        self._waiting: dict[str, dict[C, None]] = {}
        self.reading = 0
        """Connections whose request is being read now, from every source."""
        self.waiting = 0
        """Connections waiting, unread, for their source's turn."""

    def start(self, source: str, connection: C) -> bool:
        """A new connection from ``source``: ``True`` if it may be read now, ``False`` if it
        waits (the caller stops reading it until :meth:`finish` hands it back)."""
        if self._reading.get(source, 0) < self.per_source:
            self._reading[source] = self._reading.get(source, 0) + 1
            self.reading += 1
            return True
        self._waiting.setdefault(source, {})[connection] = None
        self.waiting += 1
        return False

    def finish(self, source: str, connection: C, was_reading: bool) -> C | None:
        """``connection`` is done with its turn (its request is whole, or it closed); the
        source's next waiting connection, now counted as reading (the caller reads it), if
        any. ``was_reading``: whether it had a turn, or was still waiting."""
        queue = self._waiting.get(source)
        if not was_reading:
            if queue is not None and connection in queue:
                del queue[connection]
                self.waiting -= 1
                if not queue:
                    del self._waiting[source]
            return None
        if queue:
            following = next(iter(queue))
            del queue[following]
            self.waiting -= 1
            if not queue:
                del self._waiting[source]
            return following  # takes over the slot: the source's count is unchanged
        left = self._reading.get(source, 0) - 1
        if left > 0:
            self._reading[source] = left
        else:
            self._reading.pop(source, None)
        self.reading = max(0, self.reading - 1)
        return None

    def reading_from(self, source: str) -> int:
        return self._reading.get(source, 0)

    @property
    def most_reading_from_one_source(self) -> int:
        """The most connections of any one source being read now: what the per-source cap
        bounds (``reading`` also counts every other source's, an honest page's included)."""
        return max(self._reading.values(), default=0)

    def waiting_from(self, source: str) -> int:
        return len(self._waiting.get(source, ()))
