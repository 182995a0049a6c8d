"""Running ``poolhall`` as a real process, the way a user does, for CLI and shutdown tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """An unused loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def poolhall(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run one ``poolhall`` command and return what it printed."""
    result = subprocess.run(
        [sys.executable, "-m", "clients.cli", *args], cwd=cwd, capture_output=True, text=True,
        timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
    )
    if check and result.returncode != 0:
        raise AssertionError(f"poolhall {' '.join(args)} failed ({result.returncode}):\n"
                             f"{result.stdout}\n{result.stderr}")
    return result


def start_serve(db: Path, port: int, *options: str) -> subprocess.Popen[bytes]:
    """``poolhall serve`` in the database's directory, once its health check answers."""
    process = subprocess.Popen(
        [sys.executable, "-m", "clients.cli", "serve", "--db", str(db), "--port", str(port),
         *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=db.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
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
