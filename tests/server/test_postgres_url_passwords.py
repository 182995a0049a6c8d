"""A password in a ``postgresql://`` URL's query (``?password=...``, libpq's syntax as much
as ``user:password@``) is never printed nor logged: ``serve``'s log line and banner,
``migrate``'s answer and ``verify``'s error show it as ``***``."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from tests.serve_process import free_port, poolhall, serve_database

SECRET = "Sekr3t-in-the-query"


def test_serve_logs_and_prints_a_query_password_hidden(postgres_url: str,
                                                       tmp_path: Path) -> None:
    """The serving log line (``serving 0 campaigns from ...``) and the banner."""
    url = f"{postgres_url}&password={SECRET}&sslpassword={SECRET}-key"
    log = tmp_path / "serve.log"
    process = serve_database(url, free_port(), tmp_path, log)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
    said = log.read_text()
    assert "INFO poolhall.server.app: serving 0 campaigns from" in said, said
    assert "&password=***&sslpassword=***" in said, said
    assert SECRET not in said


def test_migrate_answers_with_a_query_password_hidden(postgres_url: str,
                                                     tmp_path: Path) -> None:
    """``migrate``'s answer, with the key percent-encoded as libpq also reads it, in text and
    in JSON."""
    url = f"{postgres_url}&pass%77ord={SECRET}"
    said = poolhall("migrate", "--db", url, cwd=tmp_path)
    assert "created the schema" in said.stdout
    assert "pass%77ord=***" in said.stdout, said.stdout
    said = poolhall("migrate", "--db", url, "--json", cwd=tmp_path)
    assert "already up to date" in said.stdout
    assert SECRET not in said.stdout + said.stderr


def test_verify_refuses_with_a_query_password_hidden(tmp_path: Path) -> None:
    """``verify``'s "cannot open ..." for a database that does not answer (no PostgreSQL
    needed: nothing listens on the port)."""
    url = f"postgresql://127.0.0.1:{free_port()}/poolhall?user=club&password={SECRET}"
    result = poolhall("verify", url, cwd=tmp_path, check=False)
    assert result.returncode == 3, result
    assert "cannot open postgresql://" in result.stderr, result.stderr
    assert "&password=***" in result.stderr
    assert SECRET not in result.stdout + result.stderr
