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

Building a page still costs SQLite about 3 µs of CPU an event (its ``printf`` and
allocations: a catch-up of 100,000 events stayed near 250,000 events/s), at every catch-up.
So each complete page of :data:`STORED_PAGE` events is also stored, once, in table
``framed_pages`` (:func:`store_pages`, called off the commit path as the campaign grows), and
a catch-up reads a stored page as one value: under 1 µs of the server's CPU an event, most of
it the socket's. Stored pages are derived data keyed by :data:`FORMAT` (a hash of the SQL
that builds them): one of another format, or missing, is built from the rows as before.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

import msgspec

from events import event_blocks, journal
from events.client_payload import CLIENT_PAYLOAD_SQL
from events.read_transaction import read_transaction

__all__ = ["FORMAT", "FRAME_JSON", "PAGES_TABLE", "STORED_PAGE", "STORE_CHUNK", "STORE_MOST",
           "TABLED", "FramePage", "PageReader", "Writer", "frame_pages", "store_pages",
           "stored_upto"]

FRAME_JSON = (
    """printf('{"type":"event","seq":%d,"at":%s,"actor":%s,"command":%s,"event":%s,"""
    """"hash":"%s"}', seq, json_quote(recorded_at), json_quote(actor), json_quote(command_id),"""
    f" {CLIENT_PAYLOAD_SQL}, hash)"
)
"""The SQL expression of a row's ``event`` frame: the field order and JSON of
``OutgoingEventFrame``'s encoding, which a test holds it to. The hash is the store's own hex
digest, never quoted (``json_quote`` cost 8% of a page); every other text may hold anything.
The payload is the one a client receives (:mod:`events.client_payload`: no token hash)."""

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
_PAGE_JOURNAL = (
    f"SELECT count(*), CAST(group_concat({_HEADER} || frame, '') AS BLOB)"
    " FROM (" + journal.union(f"SELECT seq, {FRAME_JSON} AS frame FROM {{table}}"
                              " WHERE campaign = ?1 AND seq > ?2 AND seq <= ?3", True, "seq")
    + ")"
)
""":data:`_PAGE` over an older release's journal too (:mod:`events.journal`): the same frames,
as the ordered compound is not flattened into the aggregate either (SQLite merges its two arms,
each read in its index's order)."""
_PAGE_BLOCKS = (
    f"SELECT count(*), CAST(group_concat({_HEADER} || frame, '') AS BLOB)"
    f" FROM ({event_blocks.in_range(FRAME_JSON + ' AS frame')})"
)
""":data:`_PAGE` in the layout by block (:mod:`events.event_blocks`): the same frames, read
run by run in sequence order (the ordered join is not flattened into the aggregate either).
:data:`_PAGE`, the first layout's, stays what :data:`FORMAT` is the hash of."""
_PAGES = {"blocks": _PAGE_BLOCKS, "journal": _PAGE_JOURNAL, "events": _PAGE}


class FramePage(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A page of a catch-up: how many events it holds and their text frames, back to back."""

    events: int
    frames: bytes


STORED_PAGE = 200
"""Events in a stored page (:data:`PAGES_TABLE`): a page of a read of this size on a multiple
of it is read stored when it can be."""

STORE_CHUNK = STORED_PAGE
"""Events stored per transaction: the log's write lock is held for one insert of ~65 KB (no
fsync), so an append that finds it taken waits about SQLite's first busy step (1 ms), not the
several steps a longer insert would cost it."""
STORE_MOST = 50 * STORED_PAGE
"""Events stored per call at most: a campaign written before pages were stored (or in another
format) is caught up a little at each of its next appends, never in one long burst."""

FORMAT = hashlib.sha256((_PAGE + _HEADERS.hex()).encode()).hexdigest()[:16]
"""The frame format of this code's pages: a stored page of another format is never read."""

PAGES_TABLE = (
    "CREATE TABLE IF NOT EXISTS framed_pages (campaign TEXT NOT NULL, after_seq INTEGER NOT NULL,"
    " format TEXT NOT NULL, events INTEGER NOT NULL, frames BLOB NOT NULL,"
    " PRIMARY KEY (campaign, after_seq))")
"""Stored pages: the frames of events ``(after_seq, after_seq + events]`` as :data:`_PAGE`
builds them. Derived data: only a catch-up reads it, and it builds any page it lacks."""

_STORED = ("SELECT after_seq, frames FROM framed_pages WHERE campaign = ? AND after_seq >= ?"
           " AND after_seq <= ? AND format = ? AND events = ?")


def _stored(connection: sqlite3.Connection, campaign: str, first: int, last: int) -> dict[
        int, bytes]:
    """The stored pages of this format starting at ``first``..``last``, by their start (none
    in a file without the table: an older one, or one whose table was dropped)."""
    try:
        return dict(connection.execute(
            _STORED, [campaign, first, last, FORMAT, STORED_PAGE]).fetchall())
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return {}
        raise


def frame_pages(connection: sqlite3.Connection, campaign: str, after: int, upto: int,
                size: int, *, stored: bool = True) -> list[FramePage]:
    """The events ``(after, upto]`` of ``campaign`` as pages on multiples of ``size`` (the
    first may be shorter), none past the last event stored.

    A page of :data:`STORED_PAGE` events on a multiple of it is taken from the stored pages
    when it is there (one query for the lot, unless ``stored`` is false); any other is built
    by SQLite, one statement and one row a page.
    """
    with read_transaction(connection):  # the layout and the pages in one view
        return _pages(connection, campaign, after, upto, size, stored)


def _pages(connection: sqlite3.Connection, campaign: str, after: int, upto: int, size: int,
           stored: bool) -> list[FramePage]:
    pages: list[FramePage] = []
    found: dict[int, bytes] = {}
    page = _PAGES[event_blocks.layout_of(connection)]
    if stored and size == STORED_PAGE and upto - after >= size:
        found = _stored(connection, campaign, after, upto - size)
    start = after
    while start < upto:
        end = min((start // size + 1) * size, upto)
        frames = found.get(start)
        if frames is not None:
            pages.append(FramePage(size, frames))
            start = end
            continue
        ((count, frames),) = connection.execute(
            page, [campaign, start, end, _HEADERS]).fetchall()
        if not count:
            break
        pages.append(FramePage(count, frames))
        if count < end - start:
            break
        start = end
    return pages


def stored_upto(connection: sqlite3.Connection, campaign: str) -> int:
    """Where the campaign's stored pages of this format end (0: none)."""
    try:
        (last,) = connection.execute(
            "SELECT max(after_seq) FROM framed_pages WHERE campaign = ? AND format = ?",
            [campaign, FORMAT]).fetchone()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return 0
        raise
    return 0 if last is None else int(last) + STORED_PAGE


Writer = Callable[[], AbstractContextManager[sqlite3.Connection]]
"""Lends the connection stored pages are written on, for one transaction."""


def store_pages(read: sqlite3.Connection, write: Writer, campaign: str, after: int,
                upto: int) -> int:
    """Build the pages of events ``(after, upto]`` (both multiples of :data:`STORED_PAGE`) on
    ``read`` and store them in one transaction on a connection ``write`` lends, replacing any
    page at the same place; where they now end (short of ``upto`` if the log is).

    The pages are built before the transaction begins: the log's write lock is held for the
    insert alone."""
    assert after % STORED_PAGE == 0 and upto % STORED_PAGE == 0
    pages = [page for page in frame_pages(read, campaign, after, upto, STORED_PAGE,
                                          stored=False) if page.events == STORED_PAGE]
    if not pages:
        return after
    with write() as connection:
        connection.execute("BEGIN IMMEDIATE")
        try:
            connection.execute(PAGES_TABLE)  # again: an operator may have dropped the table
            connection.executemany(
                "INSERT OR REPLACE INTO framed_pages (campaign, after_seq, format, events,"
                " frames) VALUES (?, ?, ?, ?, ?)",
                [(campaign, after + n * STORED_PAGE, FORMAT, STORED_PAGE, page.frames)
                 for n, page in enumerate(pages)])
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
    return after + len(pages) * STORED_PAGE


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
        return frame_pages(self._connection(), campaign, after, upto, size)

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, opened at its first use."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._connect()
            connection.execute("PRAGMA cache_size = -512")
            self._local.connection = connection
            with self._lock:
                self._open.append(connection)
        return connection

    def store(self, write: Writer, campaign: str, after: int | None, upto: int) -> int:
        """Store the complete pages of ``(after, upto]`` (from where the stored pages end if
        ``after`` is None), at most :data:`STORE_MOST` events of them, :data:`STORE_CHUNK` a
        transaction on the connection ``write`` lends, built on this thread's; where the
        stored pages now end. Nothing is stored once the reader is closed (the log is
        closing)."""
        if self._closed:
            return after or 0
        read = self._connection()
        start = stored_upto(read, campaign) if after is None else after
        upto = min(upto // STORED_PAGE * STORED_PAGE, start + STORE_MOST)
        if start >= upto:
            return start
        while start < upto:
            end = min(start + STORE_CHUNK, upto)
            stored = store_pages(read, write, campaign, start, end)
            if stored < end:  # the log is shorter than asked
                return stored
            start = end
        return start

    def close(self) -> None:
        """Close every thread's connection (the log is closing: no read is under way)."""
        with self._lock:
            self._closed = True
            connections = list(self._open)
            self._open.clear()
        for connection in connections:
            connection.close()
