"""Stored catch-up pages: the same bytes as pages built from the rows, derived data only."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from websockets.frames import Frame, Opcode

from events import framed_pages
from events.codec import encode
from events.framed_pages import FORMAT, STORE_CHUNK, STORE_MOST, STORED_PAGE, FramePage
from events.messages import OutgoingEventFrame
from events.store import SqliteLog, SqliteReader
from tests.events.store_contract import opened, request, rolled

IDS = ["plain", 'a "quoted" id', "back\\slash", "tab\tnew\nline\x01\x1f\x7f", "é ☃ 𝄞",
       "</script>", "\u2028\u2029", '\\"\\\\"']
"""Command ids a client may choose that JSON must escape (or carry as they are)."""


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SqliteLog]:
    """A log of campaign ``a``: 1,003 events, each roll's command id from :data:`IDS`."""
    store = SqliteLog(tmp_path / "log.db")
    store.append_batch([request("a", 0, opened("a"), command="open")]
                       + [request("a", 1 + n, rolled(n % 6), command=f"{IDS[n % len(IDS)]}{n}",
                                  actor="han") for n in range(1002)])
    yield store
    store.close()


def _expected(log: SqliteLog, after: int, upto: int) -> bytes:
    """The frames of ``(after, upto]`` as the server encodes each event and websockets frames
    it: what every page must hold, stored or built."""
    return b"".join(
        Frame(Opcode.TEXT, encode(OutgoingEventFrame(
            seq=r.seq, at=r.at, actor=r.actor, command=r.command_id,
            event=msgspec.Raw(r.payload), hash=r.hash))).serialize(mask=False, extensions=[])
        for r in log.rows("a", after, upto))


def _stored(path: Path) -> list[tuple[int, str, int]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT after_seq, format, events FROM framed_pages"
                          " ORDER BY after_seq").fetchall()


def test_stored_pages_hold_the_bytes_the_server_would_frame(log: SqliteLog) -> None:
    """Stored, a page is the frames websockets would write of the server's encoding, command
    ids with quotes, backslashes, control characters and non-ASCII included; read back from
    any start (inside a page or not) the frames are the same as built from the rows."""
    assert log.store_frame_pages("a", 0, 1003) == 1000  # complete pages only
    assert _stored(log.path) == [(after, FORMAT, STORED_PAGE) for after in range(0, 1000, 200)]
    for after, upto in ((0, 1003), (150, 650), (200, 400), (399, 1003), (1000, 1003)):
        pages = log.frame_pages("a", after, upto, STORED_PAGE)
        assert b"".join(page.frames for page in pages) == _expected(log, after, upto)
        assert sum(page.events for page in pages) == upto - after
    assert [page.events for page in log.frame_pages("a", 150, 650, STORED_PAGE)] == [
        50, 200, 200, 50]


def test_a_stored_page_is_read_instead_of_built_unless_of_another_format(
        log: SqliteLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A catch-up reads the stored value (here one planted to tell it apart); a page stored by
    code of another frame format, or holding another count of events, is built again."""
    log.store_frame_pages("a", 0, 400)
    with sqlite3.connect(log.path) as db:
        db.execute("UPDATE framed_pages SET frames = x'00' WHERE after_seq = 200")
    assert log.frame_pages("a", 0, 400, STORED_PAGE)[1] == FramePage(STORED_PAGE, b"\x00")
    monkeypatch.setattr(framed_pages, "FORMAT", "another")
    assert b"".join(p.frames for p in log.frame_pages("a", 0, 400, STORED_PAGE)) == \
        _expected(log, 0, 400)
    monkeypatch.undo()
    with sqlite3.connect(log.path) as db:
        db.execute("UPDATE framed_pages SET events = 199 WHERE after_seq = 200")
    assert b"".join(p.frames for p in log.frame_pages("a", 0, 400, STORED_PAGE)) == \
        _expected(log, 0, 400)


def test_pages_are_stored_from_where_they_end_a_bounded_number_at_a_time(
        log: SqliteLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked without a start, the store goes on from its last page; each call stores at most
    ``STORE_MOST`` events, ``STORE_CHUNK`` a transaction; a log shorter than asked stops it."""
    monkeypatch.setattr(framed_pages, "STORE_MOST", 3 * STORED_PAGE)
    monkeypatch.setattr(framed_pages, "STORE_CHUNK", 2 * STORED_PAGE)
    assert log.store_frame_pages("a", None, 5000) == 600
    assert log.store_frame_pages("a", None, 5000) == 1000
    assert log.store_frame_pages("a", None, 5000) == 1000
    assert [after for after, _, _ in _stored(log.path)] == list(range(0, 1000, 200))
    assert log.store_frame_pages("none", None, 5000) == 0
    assert STORE_CHUNK <= STORE_MOST


def test_pages_are_derived_data_a_log_catches_up_without(log: SqliteLog) -> None:
    """With the table dropped (or in a file from before it), catch-ups build every page, and
    the next store creates it again; verify never reads it."""
    log.store_frame_pages("a", 0, 1000)
    with sqlite3.connect(log.path) as db:
        db.execute("UPDATE framed_pages SET frames = x'00'")  # verify must not see this
    assert log.verify() == (1003, [])
    with sqlite3.connect(log.path) as db:
        db.execute("DROP TABLE framed_pages")
    reader = SqliteReader(log.path)  # read-only, as a tool opens it
    assert b"".join(p.frames for p in reader.frame_pages("a", 0, 1003, STORED_PAGE)) == \
        _expected(log, 0, 1003)
    assert log.store_frame_pages("a", None, 1003) == 1000
    assert len(_stored(log.path)) == 5
