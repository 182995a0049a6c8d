"""The frame header SQLite writes is websockets' own, at every length boundary."""

from __future__ import annotations

import contextlib
import sqlite3

import msgspec
import pytest
from websockets.frames import Frame, Opcode

from events import framed_pages
from events.codec import encode
from events.framed_pages import TABLED, frame_pages
from events.messages import OutgoingEventFrame

LENGTHS = [125, 126, 127, 255, 256, 4095, TABLED, 65535, 65536, 70_000]
"""Frame sizes on each side of every header form and of the looked-up table."""


def _table(lengths: list[int], filler: str) -> tuple[sqlite3.Connection, list[bytes]]:
    """An ``events`` table in memory whose rows' frames are exactly ``lengths`` bytes long
    (padded in the payload with ``filler``), and those frames as the server encodes them."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE events (campaign TEXT, seq INTEGER, type TEXT, payload TEXT,"
               " recorded_at TEXT, actor TEXT, command_id TEXT, hash TEXT,"
               " PRIMARY KEY (campaign, seq))")
    frames: list[bytes] = []
    for seq, length in enumerate(lengths, start=1):
        def frame(pad: str, seq: int = seq) -> bytes:
            return encode(OutgoingEventFrame(seq=seq, at="t", actor="a", command="c",
                                             event=msgspec.Raw(f'{{"p":"{pad}"}}'.encode())))
        room = length - len(frame(""))
        pad = filler * (room // len(filler.encode())) + "x" * (room % len(filler.encode()))
        frames.append(frame(pad))
        assert len(frames[-1]) == length
        db.execute("INSERT INTO events VALUES ('c', ?, 'dice_rolled', ?, 't', 'a', 'c', '')",
                   [seq, f'{{"p":"{pad}"}}'])
    return db, frames


@pytest.mark.parametrize("filler", ["x", "é☃"])
def test_each_header_is_the_one_websockets_writes(filler: str) -> None:
    """Frames of 125, 126, 65,535, 65,536 bytes (and around the lookup table's end), ASCII or
    not (the length is in bytes, not characters), get websockets' bytes, page by page."""
    db, frames = _table(LENGTHS, filler)
    expected = [Frame(Opcode.TEXT, frame).serialize(mask=False, extensions=[])
                for frame in frames]
    pages = frame_pages(db, "c", 0, len(LENGTHS), 3)
    assert [page.events for page in pages] == [3, 3, 3, 1]
    assert [page.frames for page in pages] == [
        b"".join(expected[start:start + 3]) for start in range(0, len(LENGTHS), 3)]


@pytest.mark.parametrize("filler", ["x", "é☃"])
def test_a_stored_page_holds_the_headers_websockets_writes(
        filler: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages stored (here of 3 events) and read back hold the same bytes at every header
    boundary as websockets' framing of each frame."""
    monkeypatch.setattr(framed_pages, "STORED_PAGE", 3)
    db, frames = _table(LENGTHS, filler)
    db.isolation_level = None
    expected = [Frame(Opcode.TEXT, frame).serialize(mask=False, extensions=[])
                for frame in frames]
    assert framed_pages.store_pages(db, lambda: contextlib.nullcontext(db), "c", 0, 9) == 9
    assert [after for (after,) in db.execute("SELECT after_seq FROM framed_pages")] == [0, 3, 6]
    db.execute("UPDATE events SET payload = 'x'")  # what is read now can only be stored
    pages = frame_pages(db, "c", 0, 9, 3)
    assert [page.frames for page in pages] == [
        b"".join(expected[start:start + 3]) for start in range(0, 9, 3)]
