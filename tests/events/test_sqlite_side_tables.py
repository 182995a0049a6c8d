"""The small interfaces beside the SQLite log: issued tokens, sealed tokens, stored snapshots."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from poolhall.events import core
from poolhall.events.errors import StoreError
from poolhall.events.sqlite_backend import SqliteLog
from poolhall.events.sqlite_backend.snapshots import SqliteSnapshots
from tests.events.store_contract import opened, request, rolled


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SqliteLog]:
    store = SqliteLog(tmp_path / "log.db")
    yield store
    store.close()


def _invited(token_hash: str) -> core.MemberInvited:
    return core.MemberInvited(member="m1", name="Mira", role="player", token_hash=token_hash)


def test_the_issuing_tags_are_those_of_every_event_that_carries_a_token_hash() -> None:
    """``ISSUING`` is written out (so that opening the file imports no event type): it is
    exactly the tags of the events with a ``token_hash`` field."""
    from poolhall.events.codec import ALL_EVENTS, event_tag
    from poolhall.events.sqlite_backend.issued_tokens import ISSUING

    carrying = {event_tag(cls) for cls in ALL_EVENTS if "token_hash" in cls.__struct_fields__}
    assert carrying == ISSUING


def test_a_token_is_known_for_its_campaign_once_its_event_is_appended(log: SqliteLog) -> None:
    """An invite's and a replay link's token hash name their campaign, from the append on."""
    assert log.token_campaign("a" * 64) is None
    log.append_batch([request("c", 0, opened("c"), _invited("a" * 64), command="c1")])
    log.append_batch([request("c", 2, core.ReplayShared(member="r", name="R", last=2,
                                                        token_hash="b" * 64), command="c2")])
    assert log.token_campaign("a" * 64) == "c"
    assert log.token_campaign("b" * 64) == "c"
    assert log.token_campaign("c" * 64) is None


def test_a_token_of_a_refused_or_failed_append_is_not_known(log: SqliteLog) -> None:
    """Tokens are written in the events' transaction: none for a conflict or a failed batch."""
    log.append_batch([request("c", 0, opened("c"))])
    (stale,) = log.append_batch([request("c", 0, _invited("a" * 64), command="late")])
    assert isinstance(stale, StoreError)
    log.db.execute("CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.campaign = 'd'"
                   " BEGIN SELECT RAISE(ABORT, 'boom'); END")
    results = log.append_batch([request("c", 1, _invited("b" * 64), command="c2"),
                                request("d", 0, opened("d"), command="d1")])
    assert all(isinstance(r, StoreError) for r in results)
    assert log.token_campaign("a" * 64) is None
    assert log.token_campaign("b" * 64) is None


def test_a_sealed_token_is_stored_with_its_command_and_never_changed(log: SqliteLog) -> None:
    """The sealed token comes back for its command only; the database refuses to change it."""
    sealed = msgspec.structs.replace(request("c", 0, opened("c"), _invited("a" * 64),
                                             command="c1"), sealed_token="00ff")
    log.append_batch([sealed, request("d", 0, opened("d"), command="d1")])
    assert log.sealed_token("c", "c1") == "00ff"
    assert log.sealed_token("d", "d1") is None
    assert log.sealed_token("c", "zz") is None
    with sqlite3.connect(log.path) as connection, pytest.raises(sqlite3.IntegrityError):
        connection.execute("UPDATE sealed_tokens SET sealed = 'aa'")


def test_snapshot_rows_are_found_by_fingerprint_and_seq(tmp_path: Path) -> None:
    """The latest row at or before a seq, of this code's fingerprint; a row at a seq is
    replaced, a discarded one gone; a deleted table reads as none and is made again by the
    next save."""
    log = SqliteLog(tmp_path / "log.db")
    log.append_batch([request("c", 0, opened("c"), rolled(1), rolled(2))])
    rows = SqliteSnapshots(log.path)
    rows.save("c", "new", [(1, "h1", b"one", "s1"), (3, "h3", b"three", "s3")])
    rows.save("c", "old", [(2, "h2", b"two", "s2")])
    assert rows.latest("c", "new", 10) == (3, "h3", b"three", "s3")
    assert rows.latest("c", "new", 2) == (1, "h1", b"one", "s1")
    assert rows.latest("c", "old", 10) == (2, "h2", b"two", "s2")
    assert rows.latest("c", "new", 0) is None
    assert rows.latest("x", "new", 9) is None
    rows.save("c", "new", [(3, "h3", b"again", "s3")])
    assert rows.latest("c", "new", 3) == (3, "h3", b"again", "s3")
    with sqlite3.connect(log.path) as connection:
        connection.execute("DROP TABLE snapshots")
    assert rows.latest("c", "new", 3) is None
    rows.save("c", "new", [(1, "h1", b"one", "s1")])
    assert rows.latest("c", "new", 3) == (1, "h1", b"one", "s1")
    rows.discard("c", 1)
    assert rows.latest("c", "new", 3) is None
    assert log.verify() == (3, [])
    log.close()
