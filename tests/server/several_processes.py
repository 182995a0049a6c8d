"""Several real ``poolhall serve`` processes on one PostgreSQL, for the tests of what any
process of a deployment must answer alike (campaign creation, report links)."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

from tests.serve_process import free_port, serve_database

__all__ = ["admin_token", "processes"]


@contextlib.contextmanager
def processes(url: str, tmp_path: Path, count: int = 3) -> Iterator[list[int]]:
    """``count`` servers on the database at ``url``, started one after the other (the first
    makes the admin token) in ``tmp_path``; their ports. Stopped after."""
    started: list[subprocess.Popen[bytes]] = []
    ports: list[int] = []
    try:
        for n in range(count):
            port = free_port()
            started.append(serve_database(url, port, tmp_path, tmp_path / f"serve{n}.log"))
            ports.append(port)
        yield ports
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


def admin_token(tmp_path: Path) -> str:
    """The deployment's admin token, from the file the first server wrote."""
    return next(tmp_path.glob("poolhall-*.admin-token")).read_text().strip()
