"""A catch-up's pages read as websocket text frames, built by SQLite in one row per page.

Part of the SQLite store (:mod:`events.store` reads through it), and like it the only I/O in
``events``.

A catch-up sends every event of a range as its own text frame (RFC 6455, 5.2: ``0x81``, the
payload's length in 7, 7+16 or 7+64 bits, the payload; a server does not mask). Reading a
frame per row made a Python bytes object, a tuple and a list slot per event, then Python
framed each one: about a third of a catch-up's time. Here SQLite concatenates a whole page of
frames, headers included, into one value: the interpreter sees one object per page of events
and holds its lock for none of the work.

The header is looked up, not computed: SQLite 3.40 has no ``unhex()``, and building it from
``substr()`` of a byte table, byte by byte, cost a third as much as the frame's JSON. A table
of the headers of medium frames shorter than :data:`TABLED` bytes (four bytes an entry) is
bound to each page's statement; other lengths (an event of over 4 KB, or a frame without its
hash) take the slower arithmetic branch.

The concatenation relies on SQLite's ``group_concat`` keeping the order of an ordered
subquery: a subquery with ORDER BY is not flattened into an aggregate, so its rows reach the
aggregate in that order (a test holds every page to the frames read one by one). Bytes are
concatenated as text and cast back to a BLOB, which keeps them as they are in a UTF-8 database
(the only encoding the store creates).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable

import msgspec

__all__ = ["FRAME_JSON", "TABLED", "FramePage", "PageReader", "frame_pages"]

FRAME_JSON = (
    """printf('{"type":"event","seq":%d,"at":%s,"actor":%s,"command":%s,"event":%s,"""
    """"hash":"%s"}', seq, json_quote(recorded_at), json_quote(actor), json_quote(command_id),"""
    " payload, hash)"
)
"""The SQL expression of a row's ``event`` frame: the field order and JSON of
``OutgoingEventFrame``'s encoding, which a test holds it to. The hash is the store's own hex
digest, never quoted (``json_quote`` cost 8% of a page); every other text may hold anything."""

TABLED = 4096
"""Payload lengths below which a medium frame's header is looked up in :data:`_HEADERS`."""

_HEADERS = b"".join(bytes((0x81, 126)) + size.to_bytes(2, "big") for size in range(TABLED))
"""The four-byte header of a medium frame (126 to 65,535 bytes) by its length."""

_BYTES = "x'" + bytes(range(256)).hex() + "'"


def _byte(value: str) -> str:
    """The SQL of the one-byte blob holding ``value & 255``."""
    return f"substr({_BYTES}, (({value}) & 255) + 1, 1)"


_SIZE = "length(CAST(frame AS BLOB))"
_HEADER = (
    # An event frame is 126 bytes or more whenever it has its hash: the common case is one
    # lookup, the length computed twice (BETWEEN takes it once); any other length is framed
    # by arithmetic, once, in a subquery.
    f"CASE WHEN {_SIZE} BETWEEN 126 AND {TABLED - 1} THEN substr(?4, 4 * {_SIZE} + 1, 4)"
    " ELSE (SELECT CASE WHEN size < 126 THEN x'81' || " + _byte("size")
    + " WHEN size < 65536 THEN x'817e' || " + _byte("size >> 8") + " || " + _byte("size")
    + " ELSE x'817f' || " + " || ".join(_byte(f"size >> {shift}")
                                       for shift in (56, 48, 40, 32, 24, 16, 8, 0))
    + f" END FROM (SELECT {_SIZE} AS size)) END"
)
_PAGE = (
    f"SELECT count(*), CAST(group_concat({_HEADER} || frame, '') AS BLOB)"
    f" FROM (SELECT {FRAME_JSON} AS frame FROM events"
    " WHERE campaign = ?1 AND seq > ?2 AND seq <= ?3 ORDER BY seq)"
)


class FramePage(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A page of a catch-up: how many events it holds and their text frames, back to back."""

    events: int
    frames: bytes


def frame_pages(connection: sqlite3.Connection, campaign: str, after: int, upto: int,
                size: int) -> list[FramePage]:
    """The events ``(after, upto]`` of ``campaign`` as pages of at most ``size`` events each
    (the first starting after ``after``), each one statement and one row; none past the last
    event stored."""
    pages: list[FramePage] = []
    for start in range(after, upto, size):
        ((count, frames),) = connection.execute(
            _PAGE, [campaign, start, min(start + size, upto), _HEADERS]).fetchall()
        if not count:
            break
        pages.append(FramePage(count, frames))
        if count < min(size, upto - start):
            break
    return pages


class PageReader:
    """Reads :func:`frame_pages` on a connection of each worker thread's own, kept open.

    Opening a connection and preparing the page statement cost about 0.5 ms: a quarter of
    the time to read 2,000 events, when each read opened its own. A kept connection holds no
    transaction between statements (WAL readers see each commit), and a small page cache: a
    catch-up reads each page of the table once.
    """

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._local = threading.local()
        self._open: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def pages(self, campaign: str, after: int, upto: int, size: int) -> list[FramePage]:
        """:func:`frame_pages` on this thread's connection (on one of its own once closed: a
        read still under way while the server stops)."""
        if self._closed:
            once = self._connect()
            try:
                return frame_pages(once, campaign, after, upto, size)
            finally:
                once.close()
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._connect()
            connection.execute("PRAGMA cache_size = -512")
            self._local.connection = connection
            with self._lock:
                self._open.append(connection)
        return frame_pages(connection, campaign, after, upto, size)

    def close(self) -> None:
        """Close every thread's connection (the log is closing: no read is under way)."""
        with self._lock:
            self._closed = True
            connections = list(self._open)
            self._open.clear()
        for connection in connections:
            connection.close()
