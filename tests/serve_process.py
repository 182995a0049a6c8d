"""Running ``poolhall`` as a real process, the way a user does, for CLI and shutdown tests."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """An unused loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def poolhall(*args: str, cwd: Path, check: bool = True,
             file_size: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run one ``poolhall`` command and return what it printed."""
    result = subprocess.run(
        [sys.executable, "-m", "clients.cli", *args], cwd=cwd, capture_output=True, text=True,
        timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
        preexec_fn=file_size_limit(file_size) if file_size is not None else None,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"poolhall {' '.join(args)} failed ({result.returncode}):\n"
                             f"{result.stdout}\n{result.stderr}")
    return result


def file_size_limit(size: int) -> Callable[[], None]:
    """A ``preexec_fn`` that caps every file the process writes at ``size`` bytes.

    A real write failure, as on a full disk: SQLite's writes past the cap fail (EFBIG) and it
    reports a disk I/O error. The cap applies to root too, where chmod would not.
    """
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def start_serve(db: Path, port: int, *options: str,
                file_size: int | None = None) -> subprocess.Popen[bytes]:
    """``poolhall serve`` in the database's directory, once its health check answers."""
    process = subprocess.Popen(
        [sys.executable, "-m", "clients.cli", "serve", "--db", str(db), "--port", str(port),
         *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=db.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=file_size_limit(file_size) if file_size is not None else None,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as reply:
                if reply.status == 200:
                    return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("server did not start: " + process.stdout.read().decode())
