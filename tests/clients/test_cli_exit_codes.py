"""Exit codes and reasons the CLI gives when it cannot do what was asked: a member removed
while watching, an address or a database it cannot use (docs/reference/cli-conventions.md)."""

from __future__ import annotations

import json
import signal
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.serve_process import Watcher, free_port, poolhall, start_serve


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A ``poolhall serve`` process (joins time out after 1 s), its directory and its URL."""
    directory = tmp_path_factory.mktemp("exit-codes")
    port = free_port()
    process = start_serve(directory / "poolhall.db", port, "--join-timeout", "1")
    yield directory, f"ws://127.0.0.1:{port}"
    process.send_signal(signal.SIGTERM)
    process.wait(20)


def test_watch_of_a_removed_member_says_so_and_exits_1(served: tuple[Path, str]) -> None:
    """The GM removes Eve while she watches: watch says the server closed the connection and
    why (not that it stopped answering), then that the rejoin was refused, and exits 1 (a
    refusal), not 3 (unreachable); with ``--json`` the error carries the server's code."""
    cwd, url = served
    created = json.loads(poolhall("campaign", "create", "Removed", "--system", "d12", "--url",
                                  url, "--json", cwd=cwd).stdout)
    campaign = created["campaign"]
    for name, as_json in (("Eve", ()), ("Mal", ("--json",))):
        invited = json.loads(poolhall("invite", campaign, "--role", "player", "--name", name,
                                      "--url", url, "--json", cwd=cwd).stdout)
        watcher = Watcher(campaign, "--url", url, "--token", invited["token"], *as_json,
                          cwd=cwd, merge_stderr=False)
        try:
            watcher.wait_for("live" if not as_json else f"\"{name}\"")  # joined
            poolhall("remove-member", campaign, invited["member"], "--url", url, cwd=cwd)
            if as_json:
                assert watcher.process.wait(30) == 1
                assert watcher.process.stdout is not None
                reconnecting = json.loads(watcher.wait_for('"connection":"reconnecting"'))
                assert reconnecting["reason"] == ("the server closed the connection: you were"
                                                  " removed from this table by the GM")
                error = json.loads(watcher.wait_for('"error"'))
                assert error["error"] == "unauthorized"
                assert "you were removed from this table by the GM" in error["message"]
                continue
            line = watcher.wait_for("reconnecting")
            assert "not answering" not in line
            assert "the server closed the connection: you were removed from this table by " \
                "the GM" in line
            assert watcher.process.wait(30) == 1
            assert watcher.process.stderr is not None
            error = watcher.process.stderr.read()
            assert error.count("\n") == 1, error
            assert error.startswith(f"error: stopped following {campaign}: rejoin refused: "
                                    "unauthorized: you were removed"), error
        finally:
            watcher.stop()


@pytest.mark.parametrize(("address", "said"), [
    ("ws://127.0.0.1:99999", "has the port '99999': a port is a number from 1 to 65535"),
    ("ws://127.0.0.1:abc", "has the port 'abc'"),
    ("wss://127.0.0.1:0", "has the port '0'"),
    ("ws://[::1", "has a host that cannot be read"),
    ("ws://:8765", "names no host"),
    ("http://127.0.0.1:8765", "is not a websocket address"),
])
def test_a_malformed_url_is_a_usage_error_in_one_line(tmp_path: Path, address: str,
                                                      said: str) -> None:
    """A port out of range or not a number, a bracket left open, no host: one line naming
    --url and exit 2, as for ``http://``; the same with ``--json``; never a traceback."""
    base = ("roll", "edge", "2d6", "--url", address, "--admin-token", "ph_" + "x" * 30)
    result = poolhall(*base, cwd=tmp_path, check=False)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"error: --url {address!r} {said}"), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    as_json = poolhall(*base, "--json", cwd=tmp_path, check=False)
    assert as_json.returncode == 2, as_json.stderr
    assert "Traceback" not in as_json.stderr
    error = json.loads(as_json.stdout)
    assert error["error"] == "usage"
    assert said in error["message"]


def test_wss_to_a_server_without_tls_says_the_tls_handshake_failed(served: tuple[Path, str]
                                                                   ) -> None:
    """``wss://`` to a plain server: the reason is the TLS handshake and what to try, never
    empty, and not "is poolhall serve running?" (it is)."""
    cwd, url = served
    result = poolhall("roll", "edge", "2d6", "--url", url.replace("ws://", "wss://"),
                      cwd=cwd, check=False)
    assert result.returncode == 3, result.stderr
    assert "the TLS handshake failed (" in result.stderr, result.stderr
    assert f"use {url}" in result.stderr, result.stderr
    assert "(): " not in result.stderr, result.stderr  # a reason is never empty
    assert ": ." not in result.stderr, result.stderr
    assert "Is `poolhall serve` running?" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def test_serve_verify_and_migrate_agree_on_a_bad_database(tmp_path: Path) -> None:
    """A malformed database URL is a usage error (2) and one that cannot be reached is 3,
    from ``serve``, ``verify`` and ``migrate`` alike; the password is never shown."""
    down = f"postgresql://poolhall:secret@127.0.0.1:{free_port()}/poolhall"
    for database, code, said in (
            ("postgresql://poolhall:secret@127.0.0.1:99999/poolhall", 2,
             "is not a database URL: the port '99999'"),
            ("postgresql://poolhall:secret@[::1/poolhall", 2, "is not a database URL"),
            (down, 3, "Connection refused")):
        for command in (("serve", "--port", "0", "--db", database), ("verify", database),
                        ("migrate", "--db", database)):
            result = poolhall(*command, cwd=tmp_path, check=False)
            assert result.returncode == code, (command, result.stderr)
            assert said in result.stderr, (command, result.stderr)
            assert "secret" not in result.stderr, result.stderr
            assert result.stderr.count("\n") == 1, result.stderr


def test_serve_on_a_text_file_refuses_it_alone(tmp_path: Path) -> None:
    """``serve --db`` on a log file readable by others: it is not a SQLite database, said
    alone (no warning first that it holds token hashes: it holds none), exit 2 as from
    ``verify``; nothing is created beside it."""
    text = tmp_path / "serve.log"
    text.write_text("poolhall serving ws://127.0.0.1:8765\n" * 20)
    text.chmod(0o644)
    for command in (("serve", "--port", "0", "--db", str(text)), ("verify", str(text))):
        result = poolhall(*command, cwd=tmp_path, check=False)
        assert result.returncode == 2, (command, result.stderr)
        assert result.stderr.startswith(f"error: {text} is not a SQLite database"), \
            result.stderr
        assert "token hashes" not in result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["serve.log"]


def test_a_server_that_never_answers_is_waited_for_aloud(tmp_path: Path) -> None:
    """A program at the port that takes the connection and says nothing (not a poolhall
    server, or a host dropping packets): after a few seconds a line says the command is still
    waiting and until when, instead of a silent terminal for the whole ``--timeout``; then
    the usual unreachable error and exit 3. With ``--json`` nothing but the JSON error is
    printed."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"ws://127.0.0.1:{silent.getsockname()[1]}"
        base = ("state", "edge", "--url", url, "--admin-token", "ph_" + "x" * 30, "--timeout",
                "6")
        with ThreadPoolExecutor() as both:  # at once: each waits out its 6 s
            results = list(both.map(lambda more: poolhall(*base, *more, cwd=tmp_path,
                                                           check=False), ((), ("--json",))))
        for as_json, result in zip((False, True), results, strict=True):
            assert result.returncode == 3, result.stderr
            lines = result.stderr.splitlines()
            if as_json:
                assert not lines, lines
                assert json.loads(result.stdout)["error"] == "unreachable", result.stdout
                continue
            assert lines[0] == f"waiting for {url} to answer (giving up after 6 s: --timeout)…"
            assert lines[1].startswith(f"error: cannot reach the server at {url}: "), lines
            assert len(lines) == 2, lines
