"""Tokens and the CLI: kept out of ``ps`` and of service logs, read from files."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from tests.serve_process import free_port, poolhall, start_serve


def _stop(process: subprocess.Popen[bytes]) -> str:
    """Stop a ``poolhall serve`` process; everything it printed."""
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=20)
    return output.decode()


def test_serve_prints_the_owner_link_once_then_the_admin_token_path_only(tmp_path: Path) -> None:
    """The first start on a new database prints the owner's link (the token in its fragment)
    once, saying so, and where the token is kept; a later start prints the path only (stdout
    of a service ends up in logs), saying how to see the link again; ``--show-admin-token``
    prints it on request."""
    db = tmp_path / "poolhall.db"
    output = _stop(start_serve(db, free_port()))
    token = (tmp_path / "poolhall.db.admin-token").read_text().strip()
    assert f"/owner#token={token}" in output
    assert "shown on this first start only" in output
    assert f"admin token: created in {db}.admin-token" in output
    output = _stop(start_serve(db, free_port()))
    assert token not in output
    assert f"admin token: in {db}.admin-token" in output
    assert "`poolhall serve --show-admin-token` shows it again" in output
    process = start_serve(db, free_port(), "--show-admin-token")
    output = _stop(process)
    assert f"admin token: {token}" in output
    assert "shows it again" not in output  # the link is there
    (tmp_path / "poolhall.db.admin-token").chmod(0o644)  # written back by hand, umask 022
    output = _stop(start_serve(db, free_port()))
    assert "(mode 0644: readable by others, chmod 600 it)" in output
    assert "admin token file" in output
    assert "is readable by other users (mode 0644)" in output


def test_serve_refuses_an_empty_admin_token_file(tmp_path: Path) -> None:
    """``poolhall serve`` beside an empty admin token file exits 1 saying so."""
    (tmp_path / "poolhall.db.admin-token").write_text("")
    result = poolhall("serve", "--db", str(tmp_path / "poolhall.db"), "--port", "0",
                      cwd=tmp_path, check=False)
    assert result.returncode == 1
    assert "poolhall.db.admin-token is empty" in result.stderr
    assert "Traceback" not in result.stderr


def test_member_tokens_can_come_from_a_file(tmp_path: Path) -> None:
    """``--token-file`` reads the member token from a file; an empty one is refused plainly."""
    port = free_port()
    process = start_serve(tmp_path / "poolhall.db", port)
    try:
        url = f"ws://127.0.0.1:{port}"
        created = json.loads(poolhall("campaign", "create", "Files", "--system", "d12",
                                      "--url", url, "--json", cwd=tmp_path).stdout)
        gm_file = tmp_path / "gm.token"
        gm_file.write_text(created["token"] + "\n")
        invited = json.loads(poolhall("invite", "files", "--role", "player", "--character",
                                      "han", "--url", url, "--token-file", str(gm_file),
                                      "--json", cwd=tmp_path).stdout)
        assert invited["member"] == "han"
        assert invited["token"].startswith("ph_")
        empty = Path(tmp_path / "empty.token")
        empty.write_text("\n")
        refused = poolhall("roll", "files", "1d6", "--url", url, "--token-file", str(empty),
                           cwd=tmp_path, check=False)
        assert refused.returncode == 2
        assert f"the token file {empty} is empty" in refused.stderr
        # Beside the admin token file, an empty token given is refused, never the admin's.
        attempts: list[tuple[tuple[str, ...], dict[str, str], str]] = [
            (("--token", ""), {}, "--token is empty"),
            ((), {"POOLHALL_TOKEN": ""}, "POOLHALL_TOKEN is set but empty")]
        for flags, environment, said in attempts:
            refused = poolhall("roll", "files", "1d6", "--url", url, *flags, cwd=tmp_path,
                               check=False, environment=environment)
            assert refused.returncode == 2, refused.stderr
            assert said in refused.stderr, refused.stderr
    finally:
        _stop(process)
