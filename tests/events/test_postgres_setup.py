"""The tests' PostgreSQL: a fresh schema per test, and never a skipped test in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[2]


def test_each_test_gets_an_empty_schema_of_its_own(postgres_url: str) -> None:
    """The URL's connections create their tables in a new, empty schema."""
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        schema = conn.execute("select current_schema()").fetchone()
        assert schema is not None
        assert schema[0].startswith("t_")
        tables = conn.execute("select count(*) from information_schema.tables "
                              "where table_schema = current_schema()").fetchone()
        assert tables == (0,)
        conn.execute("create table here (x int)")
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("select count(*) from here").fetchone() == (0,)


def test_no_postgresql_fails_in_ci_and_skips_elsewhere(tmp_path: Path) -> None:
    """With CI set, a PostgreSQL test that finds no server fails; without, it is skipped."""
    probe = tmp_path / "test_probe.py"
    probe.write_text("def test_needs_postgres(postgres_url):\n    pass\n")
    nowhere = "postgresql://127.0.0.1:1/nothing?connect_timeout=2"
    outcomes = {}
    for ci in ("true", ""):
        env = {**os.environ, "POOLHALL_TEST_POSTGRES": nowhere, "CI": ci}
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-n", "0",  # one process: xdist's workers cost 5 s
             "-p", "no:cacheprovider", "-p", "tests.conftest", "-rs",
             "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), str(probe)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        outcomes[ci] = (run.returncode, run.stdout)
    code, said = outcomes["true"]
    assert code == 1, said
    assert "CI never skips a PostgreSQL test" in said, said
    code, said = outcomes[""]
    assert code == 0, said
    assert "SKIPPED" in said, said
    assert "install-postgresql.sh" in said, said
