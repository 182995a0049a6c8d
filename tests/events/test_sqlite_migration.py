"""The one migration: a log the older layouts wrote opens in the plain schema, nothing lost.

``block-layout.sqlite`` was written by the store before issue 28 (the block layout, with its
runs and command index: ``tests/fixtures/logs/make_block_layout.py``), ``journal-layout.sqlite``
by the few hours' layout before it (rows still in its journal), ``old-commands-schema.sqlite``
by an older one still. Each is copied, opened by the server's log, and checked for every
promise: events, commands, tokens, sealed tokens, stored snapshots, the chains, the
constraints of the plain schema.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from poolhall.events.errors import StoreError
from poolhall.events.log_contract import CommandRecord, Created
from poolhall.events.sqlite_backend import SqliteLog, SqliteReader
from poolhall.events.sqlite_backend.schema import PLAIN
from poolhall.server.sealed_tokens import is_legacy
from poolhall.server.stored_snapshots import SnapshotStore, fingerprint, fold_from, stored_rows
from tests.events.store_contract import request, rolled

LOGS = Path(__file__).parents[1] / "fixtures" / "logs"


def _copy(name: str, tmp_path: Path) -> Path:
    path = tmp_path / name
    shutil.copyfile(LOGS / name, path)
    return path


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as connection:
        return {str(n) for (n,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_the_block_layout_opens_in_the_plain_schema_with_everything_it_held(
        tmp_path: Path) -> None:
    """Every event, command, token, sealed token and stored snapshot of the block layout
    is there after the migration; its runs and command index are gone."""
    path = _copy("block-layout.sqlite", tmp_path)
    assert SqliteReader(path).verify() == (22, [])  # read as it is, before any migration
    log = SqliteLog(path)
    try:
        assert log.verify() == (22, [])
        assert {c: log.head(c) for c in ("nar", "shadow", "twelve")} == {
            "nar": 8, "shadow": 7, "twelve": 7}
        assert log.directory() == [Created("nar", "nar0", "gm", 2),
                                   Created("shadow", "shadow0", "gm", 2),
                                   Created("twelve", "twelve0", "gm", 2)]
        assert log.command_records("nar", ["nar2", "nar3", "nope"]) == {
            "nar2": CommandRecord("gm", 4, 5), "nar3": CommandRecord("gm", 6, 7)}
        assert log.token_campaign("a" * 64) == "nar"
        assert log.token_campaign("e" * 64) == "nar"
        assert log.token_campaign("c" * 64) == "twelve"
        assert log.token_campaign("f" * 64) is None
        sealed = log.sealed_token("shadow", "shadow2")
        assert sealed is not None
        assert is_legacy(sealed)  # kept as it was; no longer read
        store = SnapshotStore(path)
        kept = [row for row in stored_rows(path) if row.campaign == "nar"]  # columns unchanged
        assert kept
        assert kept[-1].seq == 6
        assert kept[-1].head_hash == log.hashes_at({"nar": 6})["nar"]
        latest = store.latest("nar")  # read only while the fixture's fingerprint is this code's
        assert latest is None or (latest.state.head == 6 and kept[-1].fingerprint == fingerprint())
        assert fold_from(log, store, "nar", every=0).state.head == 8
        assert log.append_batch([request("nar", 8, rolled(6), command="after")]) == [[9]]
        assert log.append_batch([request("nar", 9, rolled(6), command="nar1")]) == [
            CommandRecord("gm", 3, 3)]
    finally:
        log.close()
    assert _tables(path) == {"events", "commands", "sealed_tokens", "issued_tokens",
                             "write_probes", "snapshots", "fair_seeds"}
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (PLAIN,)
        with pytest.raises(sqlite3.IntegrityError):  # the promise the old layout lacked
            connection.execute("INSERT INTO events (campaign, seq, type, version, payload,"
                               " recorded_at, actor, command_id, hash) VALUES ('nar', 2,"
                               " 'dice_rolled', 1, '{}', 'now', 'gm', 'x', 'x')")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute("DELETE FROM events WHERE campaign = 'nar'")
    again = SqliteLog(path)  # opened again: nothing to migrate
    try:
        assert again.verify() == (23, [])
    finally:
        again.close()


@pytest.mark.parametrize(("name", "events", "heads"), [
    ("journal-layout.sqlite", 22, {"a": 7, "b": 8, "c": 7}),
    ("old-commands-schema.sqlite", 7, {"a": 6, "b": 1}),
])
def test_older_layouts_open_in_the_plain_schema(tmp_path: Path, name: str, events: int,
                                                heads: dict[str, int]) -> None:
    """The journal layout (its journal's rows the tail of the log) and an older commands
    table migrate by the same statements, and verify clean."""
    path = _copy(name, tmp_path)
    before = SqliteReader(path).verify()
    assert before[1] == []
    log = SqliteLog(path)
    try:
        assert log.verify() == before
        assert before[0] == events
        assert {c: log.head(c) for c in heads} == heads
        for created in log.directory():
            head = log.head(created.campaign)
            assert log.append_batch([request(created.campaign, head, rolled(1),
                                             command="after-migration")]) == [[head + 1]]
    finally:
        log.close()
    assert "journal" not in _tables(path)
    assert "command_generations" not in _tables(path)


def test_a_log_the_plain_schema_refuses_is_left_as_it_was(tmp_path: Path) -> None:
    """An old file holding an event twice (which its layout allowed across blocks) is not
    migrated: the open fails, naming the file, and the file is unchanged."""
    path = _copy("block-layout.sqlite", tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TRIGGER IF EXISTS events_no_update")
        connection.execute(
            "INSERT INTO events (position, campaign, seq, type, version, payload, recorded_at,"
            " actor, command_id, hash) SELECT 100000, campaign, seq, type, version, payload,"
            " recorded_at, actor, command_id, hash FROM events WHERE campaign = 'nar'"
            " AND seq = 2")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="block-layout.sqlite"):
        SqliteLog(path)
    assert path.read_bytes() == before
    assert "event_runs" in _tables(path)


def test_a_plain_log_from_before_the_replace_triggers_gets_them_as_it_opens(
        tmp_path: Path) -> None:
    """A log of the plain schema written before the triggers that refuse a REPLACE (its
    ``fair_seeds`` with a no-update trigger only, as the seed vault made it) opens, and from
    then on refuses an ``INSERT OR REPLACE`` of an event, a command, a sealed token or a
    seed, and the removal of a seed, with no new ``user_version`` (no rewrite)."""
    path = tmp_path / "before.sqlite"
    log = SqliteLog(path)
    log.append_batch([request("a", 0, rolled(1), rolled(2), command="a1")])
    log.seed_vault().put("a", 1, b"\x01" * 32)
    log.close()
    with sqlite3.connect(path) as connection:  # as the previous release left the file
        for table in ("events", "commands", "sealed_tokens", "fair_seeds"):
            connection.execute(f"DROP TRIGGER {table}_no_replace")
        connection.execute("DROP TRIGGER fair_seeds_no_delete")
        connection.execute("INSERT OR REPLACE INTO fair_seeds VALUES ('a', 1, zeroblob(32))")
        connection.execute("INSERT OR REPLACE INTO fair_seeds VALUES ('a', 1, X'"
                           + "01" * 32 + "')")  # the REPLACE got through, before
    SqliteLog(path).close()
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (PLAIN,)
        for statement in (
                "INSERT OR REPLACE INTO events (campaign, seq, type, version, payload,"
                " recorded_at, actor, command_id, hash) SELECT campaign, seq, type, version,"
                " payload, recorded_at, 'mallory', command_id, hash FROM events",
                "REPLACE INTO commands SELECT campaign, command_id, 'mallory', first_seq,"
                " last_seq FROM commands",
                "INSERT OR REPLACE INTO fair_seeds VALUES ('a', 1, zeroblob(32))",
                "DELETE FROM fair_seeds"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                connection.execute(statement)
    reader = SqliteReader(path)
    try:
        assert reader.verify() == (2, [])
        assert [row.actor for row in reader.rows("a")] == ["gm", "gm"]
    finally:
        reader.close()


def test_a_table_renamed_and_made_again_gets_its_triggers_back(tmp_path: Path) -> None:
    """``ALTER TABLE events RENAME`` takes the triggers along, by name; a table made again
    under the old name had none, and the next open kept it so (``CREATE TRIGGER IF NOT
    EXISTS`` went by name). The open now makes each trigger again where the file's differs."""
    path = tmp_path / "renamed.sqlite"
    log = SqliteLog(path)
    log.append_batch([request("a", 0, rolled(1), rolled(2), command="a1")])
    log.close()
    with sqlite3.connect(path) as connection:
        (made,) = connection.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone()
        connection.execute("ALTER TABLE events RENAME TO events_old")
        connection.execute(made)
        connection.execute("INSERT INTO events SELECT * FROM events_old")
    SqliteLog(path).close()
    with sqlite3.connect(path) as connection:
        for statement in ("UPDATE events SET actor = 'mallory'", "DELETE FROM events"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                connection.execute(statement)


def test_no_migration_drops_the_unrevealed_seeds(tmp_path: Path) -> None:
    """The migration drops the old layouts' derived tables: never ``fair_seeds``, whose
    seeds cannot be made again (an old file that had one keeps every seed)."""
    path = _copy("block-layout.sqlite", tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE fair_seeds (campaign TEXT NOT NULL, epoch INTEGER"
                           " NOT NULL CHECK (epoch >= 1), seed BLOB NOT NULL CHECK"
                           " (length(seed) = 32), PRIMARY KEY (campaign, epoch)) WITHOUT ROWID")
        connection.execute("INSERT INTO fair_seeds VALUES ('nar', 1, X'" + "07" * 32 + "')")
    log = SqliteLog(path)
    try:
        vault = log.seed_vault()
        assert vault.get("nar", 1) == b"\x07" * 32
        vault.close()
    finally:
        log.close()
    assert "event_runs" not in _tables(path)  # the migration did run
