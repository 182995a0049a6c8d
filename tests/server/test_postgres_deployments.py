"""Several PostgreSQL deployments run from one directory (one schema per group of a club):
each has an admin token of its own, in a file named after it, that ``poolhall serve
--show-admin-token`` and the CLI find; a file of the old single name is never taken by a new
deployment (docs/how-to/postgresql.md, "One admin token for the whole deployment")."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from poolhall.server.auth import admin_token_path
from tests.postgres import fresh_schema
from tests.serve_process import free_port, poolhall, serve_database


@pytest.fixture
def other_url() -> Iterator[str]:
    """A second deployment's URL: another fresh schema of the tests' database."""
    yield from fresh_schema()


def _served(url: str, cwd: Path, *options: str) -> str:
    """Start ``poolhall serve --db url`` in ``cwd``, stop it once it answers; what it said."""
    log = cwd / f"serve-{free_port()}.log"
    process = serve_database(url, free_port(), cwd, log, options=options)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
    return log.read_text()


def _held_hash(url: str) -> str:
    """The admin token's hash this deployment's database holds."""
    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT value FROM deployment"
                                 " WHERE key = 'admin_token_sha256'").fetchone()
    assert row is not None
    return str(row[0])


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def test_a_second_deployment_started_beside_the_first_makes_its_own_admin_token(
        postgres_url: str, other_url: str, tmp_path: Path) -> None:
    """Group A's and group B's deployments (two schemas) started from one directory: each
    makes and prints its own token, in a file named after its schema; neither database holds
    the other's hash; the CLI run there with ``--db`` finds each deployment's own."""
    said_a = _served(postgres_url, tmp_path)
    said_b = _served(other_url, tmp_path)
    file_a, file_b = tmp_path / admin_token_path(postgres_url), tmp_path / admin_token_path(
        other_url)
    assert file_a != file_b
    assert file_a.name.startswith("poolhall-poolhall_test+t_"), file_a.name
    token_a, token_b = file_a.read_text().strip(), file_b.read_text().strip()
    assert token_a != token_b
    assert f"admin token: created in {file_a.name}" in said_a, said_a
    assert f"admin token: created in {file_b.name}" in said_b, said_b
    assert f"/owner#token={token_b}" in said_b
    assert token_a not in said_b
    assert _held_hash(postgres_url) == _sha(token_a)
    assert _held_hash(other_url) == _sha(token_b)

    port = free_port()
    process = serve_database(other_url, port, tmp_path, tmp_path / "b.log")
    try:
        created = poolhall("campaign", "create", "Group B", "--system", "d12", "--json",
                           "--url", f"ws://127.0.0.1:{port}", "--db", other_url, cwd=tmp_path)
        assert json.loads(created.stdout)["campaign"]
        refused = poolhall("campaign", "create", "Not B's", "--system", "d12", "--url",
                           f"ws://127.0.0.1:{port}", "--db", postgres_url, cwd=tmp_path,
                           check=False)
        assert refused.returncode != 0  # A's token opens nothing on B
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(20)


def test_a_token_file_of_the_old_name_is_never_taken_by_a_new_deployment(
        postgres_url: str, other_url: str, tmp_path: Path) -> None:
    """``poolhall.admin-token`` (the one name every deployment's file had) holding group A's
    token: a new deployment beside it makes its own and says the old file was not used; A
    started there again renames the file after itself, and the CLI then finds it."""
    _served(postgres_url, tmp_path)
    file_a = tmp_path / admin_token_path(postgres_url)
    token_a = file_a.read_text().strip()
    old = tmp_path / "poolhall.admin-token"
    file_a.rename(old)  # as an earlier build left it

    said_b = _served(other_url, tmp_path)
    assert _held_hash(other_url) != _sha(token_a)
    assert "poolhall.admin-token here is not used for this new deployment" in said_b, said_b
    assert old.read_text().strip() == token_a  # group A's file is left alone
    missing = poolhall("campaign", "create", "X", "--system", "d12", "--url",
                       f"ws://127.0.0.1:{free_port()}", "--db", postgres_url, cwd=tmp_path,
                       check=False)
    assert "poolhall.admin-token here has the name earlier builds gave it" in missing.stderr

    said_a = _served(postgres_url, tmp_path)
    assert f"renamed poolhall.admin-token to {file_a.name}" in said_a, said_a
    assert not old.exists()
    assert file_a.read_text().strip() == token_a


def test_show_admin_token_shows_the_deployments_token_or_says_why_not(
        postgres_url: str, tmp_path: Path) -> None:
    """A later start with ``--show-admin-token`` shows the owner's link from the deployment's
    file here; elsewhere it says there is no file; a file whose token the database does not
    hold is not shown, and it says so."""
    first = tmp_path / "first"
    first.mkdir()
    _served(postgres_url, first)
    token = (first / admin_token_path(postgres_url)).read_text().strip()

    said = _served(postgres_url, first, "--show-admin-token")
    assert f"/owner#token={token}" in said, said
    assert f"admin token: {token}" in said

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    said = _served(postgres_url, elsewhere, "--show-admin-token")
    assert token not in said
    assert (f"--show-admin-token: cannot show the admin token: no"
            f" {admin_token_path(postgres_url)} here") in said, said

    (elsewhere / admin_token_path(postgres_url)).write_text("ph_" + "x" * 43 + "\n")
    said = _served(postgres_url, elsewhere, "--show-admin-token")
    assert "x" * 43 not in said
    assert "holds another token than the one this deployment's database holds" in said, said
