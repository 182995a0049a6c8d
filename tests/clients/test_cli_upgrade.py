"""An upgrade from release 0.1.0 as an operator runs it (docs/how-to/upgrade.md): ``poolhall
verify`` of a file of the older layouts read as it is, ``poolhall migrate``'s words, a file
opened by 0.1.0 again after its migration, ``poolhall --version``.

The older files are the fixtures of ``tests/fixtures/logs/`` (written by 0.1.0's code), each
copied first: nothing here writes the fixtures.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from poolhall.events.log_contract import CommandRecord
from poolhall.events.sqlite_backend import SqliteReader
from poolhall.events.sqlite_backend.schema import PLAIN, is_plain
from tests.serve_process import free_port, poolhall, start_serve

LOGS = Path(__file__).parents[1] / "fixtures" / "logs"

FIXTURE_ROLLS = {"block-layout.sqlite": 15, "journal-layout.sqlite": 18}
"""The rolls of each fixture: every one a ``dice_rolled`` of ``1d6`` with no dice, whose total
its constant (0) does not make, as 0.1.0's test helper wrote them, so ``verify`` finds each
wrong twice (a die left out, a total its faces do not make)."""


def _copy(name: str, directory: Path) -> Path:
    path = directory / name
    shutil.copyfile(LOGS / name, path)
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", sorted(FIXTURE_ROLLS))
def test_verify_reads_a_file_of_an_older_layout_as_it_is(tmp_path: Path, name: str) -> None:
    """``poolhall verify`` of a 0.1.0 file (the backup an operator verifies before an
    upgrade) walks its chains and recomputes its rolls, the journal layout's tail included,
    as it does once the file is migrated; the file is left byte for byte, nothing beside it."""
    old = tmp_path / "old"
    old.mkdir()
    path = _copy(name, old)
    before = _digest(path)
    peek = tmp_path / "peek"  # read here, so that nothing but verify opens the file verified
    peek.mkdir()
    totals = _totals(_copy(name, peek))
    campaign, seq, head = _query(  # a head hash held elsewhere: the journal's, if it has one
        _copy(name, peek), "SELECT campaign, seq, hash FROM {log} ORDER BY position DESC"
        " LIMIT 1")[0]
    expect = f"{campaign}@{seq}={head}"
    result = poolhall("verify", str(path), "--json", "--expect", expect, cwd=tmp_path,
                      check=False)
    assert "no such index" not in result.stderr, result.stderr
    assert result.stderr == ""
    found = json.loads(result.stdout)
    assert found["checked"] == 22
    assert found["expected"] == 1
    assert found["rolls"]["rolls_unstamped"] == FIXTURE_ROLLS[name]
    assert [p["problem"] for p in found["problems"]] == [
        problem for n in totals for problem in (
            "it holds 0 dice in 0 term(s); 1d6 asks for 1 in 1: dice left out",
            f"its total is {n}; its faces and constant make 0")
    ]  # the fixture's rolls only: every chain holds
    assert result.returncode == 1  # those rolls are problems found in the log
    assert _digest(path) == before
    assert sorted(p.name for p in old.iterdir()) == [name]

    migrated = _copy(name, tmp_path)  # the same file once a server of this release opened it
    poolhall("migrate", "--db", str(migrated), cwd=tmp_path)
    after = json.loads(poolhall("verify", str(migrated), "--json", "--expect", expect,
                                cwd=tmp_path, check=False).stdout)
    assert after == found

    text = poolhall("verify", str(path), cwd=tmp_path, check=False)  # in words, too
    assert text.returncode == 1
    assert "problem(s) in 22 events" in text.stdout
    assert "error" not in text.stderr


def _query(path: Path, select: str) -> list[tuple[object, ...]]:
    """The rows of ``select`` on the file's log: ``{log}`` is its events, and its journal's
    after them when it has one."""
    with closing(sqlite3.connect(path)) as connection:
        journal = connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'journal'"
                                     ).fetchone() is not None
        log = "(SELECT position, campaign, seq, type, payload, hash FROM events" + (
            " UNION ALL SELECT position, campaign, seq, type, payload, hash FROM journal"
            if journal else "") + ")"
        return connection.execute(select.format(log=log)).fetchall()


def _totals(path: Path) -> list[int]:
    """Each roll's total, campaign by campaign in the order they began, each in seq order."""
    return [json.loads(str(payload))["total"] for (payload,) in _query(
        path, "SELECT r.payload FROM {log} AS r JOIN (SELECT campaign, min(position) AS first"
        " FROM {log} GROUP BY campaign) AS b ON b.campaign = r.campaign"
        " WHERE r.type = 'dice_rolled' ORDER BY b.first, r.seq")]


OPENED_BY_0_1_0 = (
    "ALTER TABLE events ADD COLUMN block INTEGER GENERATED ALWAYS AS (position >> 14) VIRTUAL",
    "CREATE UNIQUE INDEX events_block ON events (block, campaign, seq)",
    "CREATE TABLE event_runs (campaign TEXT NOT NULL, first_seq INTEGER NOT NULL,"
    " block INTEGER NOT NULL, PRIMARY KEY (campaign, first_seq)) WITHOUT ROWID",
    "INSERT INTO event_runs SELECT campaign, 1, 0 FROM events WHERE seq = 1",
    "CREATE TABLE commands_v2 (id INTEGER PRIMARY KEY, campaign TEXT NOT NULL,"
    " command_id TEXT NOT NULL, actor TEXT NOT NULL, first_seq INTEGER NOT NULL,"
    " last_seq INTEGER NOT NULL)",
    "INSERT INTO commands_v2 SELECT rowid, campaign, command_id, actor, first_seq, last_seq"
    " FROM commands ORDER BY rowid",
    "DROP TABLE commands",
    "ALTER TABLE commands_v2 RENAME TO commands",
    "CREATE TABLE command_generations (gen INTEGER PRIMARY KEY, first INTEGER NOT NULL,"
    " last INTEGER NOT NULL, size INTEGER NOT NULL)",
    "CREATE TRIGGER commands_no_update BEFORE UPDATE ON commands"
    " BEGIN SELECT RAISE(ABORT, 'commands are append-only'); END",
    "CREATE TRIGGER commands_no_delete BEFORE DELETE ON commands"
    " BEGIN SELECT RAISE(ABORT, 'commands are append-only'); END",
)
"""What release 0.1.0's server does to a migrated file it opens (its ``event_blocks.adopt``
and ``command_migrations.migrate_commands``; the end state checked against a file 0.1.0
served): laid out by block again, ``commands`` rewritten without its key or
``commands_created``, and ``PRAGMA user_version`` left at the plain schema's number."""


def _opened_by_0_1_0(path: Path) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("BEGIN")
        for statement in OPENED_BY_0_1_0:
            connection.execute(statement)
        connection.execute("COMMIT")
        assert connection.execute("PRAGMA user_version").fetchone() == (PLAIN,)


def test_a_migrated_file_that_0_1_0_opened_again_is_migrated_again(tmp_path: Path) -> None:
    """An operator goes back to 0.1.0 for a night, then upgrades again: this release's
    server opens the file 0.1.0 laid out again (its ``user_version`` unchanged) with every
    event, command and token, after migrating it once more."""
    path = _copy("block-layout.sqlite", tmp_path)
    path.chmod(0o600)
    poolhall("migrate", "--db", str(path), cwd=tmp_path)
    _opened_by_0_1_0(path)
    port = free_port()
    server = start_serve(path, port, log=tmp_path / "serve.log")
    server.send_signal(signal.SIGTERM)
    assert server.wait(20) == 0
    said = (tmp_path / "serve.log").read_text()
    assert "no such index" not in said
    assert "migrated to the plain schema, 22 events of 3 campaigns from the 0.1.0 layout" \
        in said
    reader = SqliteReader(path)
    try:
        assert reader.verify() == (22, [])
        assert reader.campaigns() == ["nar", "shadow", "twelve"]
        assert {c: reader.head(c) for c in reader.campaigns()} == {
            "nar": 8, "shadow": 7, "twelve": 7}
        assert reader.command_records("nar", ["nar2"]) == {"nar2": CommandRecord("gm", 4, 5)}
        assert reader.token_campaign("c" * 64) == "twelve"
    finally:
        reader.close()
    with closing(sqlite3.connect(path)) as connection:
        assert is_plain(connection)
        assert "event_runs" not in {name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master")}


def test_migrate_says_what_it_did_and_refuses_a_path_with_no_file(tmp_path: Path) -> None:
    """``poolhall migrate`` says how many events of how many campaigns it migrated from which
    layout, in words and in ``--json``, and ``already up to date`` the second time; a path
    with no file behind it (a typo) is refused with exit 2, as ``verify`` refuses it, and no
    empty log is created there."""
    path = _copy("block-layout.sqlite", tmp_path)
    path.chmod(0o600)
    first = poolhall("migrate", "--db", str(path), cwd=tmp_path)
    assert re.fullmatch(rf"{path}: migrated 22 events of 3 campaigns from the 0\.1\.0 layout"
                        r" in \d+\.\d s\n", first.stdout), first.stdout
    assert "migrating from the 0.1.0 layout to the plain schema" in first.stderr
    again = json.loads(poolhall("migrate", "--db", str(path), "--json", cwd=tmp_path).stdout)
    assert again == {"database": str(path), "done": "already up to date", "migrated": None}
    assert poolhall("migrate", "--db", str(path), cwd=tmp_path).stdout == \
        f"{path}: already up to date\n"

    other = _copy("journal-layout.sqlite", tmp_path)
    other.chmod(0o600)
    said = json.loads(poolhall("migrate", "--db", str(other), "--json", cwd=tmp_path).stdout)
    assert said["done"].startswith("migrated 22 events of 3 campaigns from an older layout in")
    assert said["migrated"]["events"] == 22
    assert said["migrated"]["campaigns"] == 3
    assert said["migrated"]["from"] == "an older layout"
    assert said["migrated"]["seconds"] >= 0

    for as_json in ((), ("--json",)):
        typo = poolhall("migrate", "--db", "typo.db", *as_json, cwd=tmp_path, check=False)
        assert typo.returncode == 2, typo
        if as_json:
            assert json.loads(typo.stdout)["message"] == "no database at typo.db"
        else:
            assert typo.stderr == "error: no database at typo.db\n"
        assert not (tmp_path / "typo.db").exists()
    verified = poolhall("verify", "typo.db", cwd=tmp_path, check=False)  # the same words
    assert (verified.returncode, verified.stderr) == (2, "error: no database at typo.db\n")


def test_migrate_says_it_added_the_index_of_creations_to_a_file_of_0_2_0_dev0(
        tmp_path: Path) -> None:
    """A file of the plain schema written by a 0.2.0.dev0 build (release 27f0b80: this
    release's tables, without the unique index of creations): ``poolhall migrate`` says it
    added that index, which it builds as it opens the file (it said "already up to date"),
    and ``already up to date`` the next time."""
    path = _copy("block-layout.sqlite", tmp_path)
    path.chmod(0o600)
    poolhall("migrate", "--db", str(path), cwd=tmp_path)
    with closing(sqlite3.connect(path)) as connection:  # as 27f0b80 left the file
        connection.execute("DROP INDEX commands_one_creation")
    said = json.loads(poolhall("migrate", "--db", str(path), "--json", cwd=tmp_path).stdout)
    assert said == {"database": str(path), "migrated": None,
                    "done": "added the unique index commands_one_creation (one campaign per"
                            " create_campaign)"}, said
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND"
                                  " name = 'commands_one_creation'").fetchone() == (1,)
    assert poolhall("migrate", "--db", str(path), cwd=tmp_path).stdout == \
        f"{path}: already up to date\n"


def test_migrate_leaves_an_empty_file_and_another_program_s_file_as_they_are(
        tmp_path: Path) -> None:
    """An empty file (a ``touch``, a copy cut short) is no log: ``migrate`` made it one and
    said "already up to date". Another program's SQLite file with tables named ``events`` and
    ``commands`` failed half-way, and was left in WAL mode for good. Both are refused with
    exit 2, and neither file changes by a byte; ``verify`` refuses the second in the same
    words."""
    empty = tmp_path / "empty.db"
    empty.touch()
    other = tmp_path / "other.db"
    with closing(sqlite3.connect(other)) as connection:
        connection.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)")
        connection.execute("CREATE TABLE commands (id INTEGER PRIMARY KEY, what TEXT)")
        connection.execute("INSERT INTO events (what) VALUES ('a meeting')")
        connection.commit()
    before = {path: _digest(path) for path in (empty, other)}
    refused = poolhall("migrate", "--db", "empty.db", cwd=tmp_path, check=False)
    assert (refused.returncode, refused.stderr) == (
        2, "error: empty.db is empty: there is no log to bring up to date (`poolhall serve`"
        " makes a new one)\n")
    for command in (("migrate", "--db", "other.db"), ("verify", "other.db")):
        refused = poolhall(*command, cwd=tmp_path, check=False)
        assert refused.returncode == 2, refused
        assert refused.stderr.startswith("error: other.db is not a poolhall log (its events"
                                         " table has no actor, campaign"), refused.stderr
    assert {path: _digest(path) for path in (empty, other)} == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["empty.db", "other.db"]


def test_a_migration_the_disk_refuses_is_never_said_to_be_done(tmp_path: Path) -> None:
    """A migration that cannot be written (a full disk, here a cap on the file's size) logs
    that it began and then the error, never "migrated" (it was logged before the commit);
    the file is left byte for byte."""
    path = _copy("block-layout.sqlite", tmp_path)
    path.chmod(0o600)
    before = _digest(path)
    refused = poolhall("migrate", "--db", str(path), cwd=tmp_path, check=False,
                       file_size=40 * 1024)
    assert refused.returncode == 1, refused
    assert "migrating from the 0.1.0 layout" in refused.stderr
    assert "migrated" not in refused.stderr + refused.stdout
    assert "cannot write" in refused.stderr
    assert _digest(path) == before
