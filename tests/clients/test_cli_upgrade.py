"""An upgrade from release 0.1.0 as an operator runs it (docs/how-to/upgrade.md): ``poolhall
verify`` of a file of the older layouts read as it is, ``poolhall migrate``'s words, a file
opened by 0.1.0 again after its migration, ``poolhall --version``.

The older files are the fixtures of ``tests/fixtures/logs/`` (written by 0.1.0's code), each
copied first: nothing here writes the fixtures.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.serve_process import poolhall

LOGS = Path(__file__).parents[1] / "fixtures" / "logs"

FIXTURE_ROLLS = {"block-layout.sqlite": 15, "journal-layout.sqlite": 18}
"""The rolls of each fixture: every one a ``dice_rolled`` of no dice whose total its constant
(0) does not make, as 0.1.0's test helper wrote them, so ``verify`` finds each wrong."""


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
        f"its total is {n}; its faces and constant make 0"
        for n in totals]  # the fixture's rolls only: every chain holds
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
