"""The chaos trials' shared pieces: the server as a real process, its memory, its health.

:class:`ServerProcess` runs ``poolhall serve`` (``python -m poolhall serve``) exactly as a
user does, on a loopback port and a fresh SQLite file, with the operator's flags passed through
(``--server-arg=--queue-limit=64``); its output goes to files so that a traceback is counted,
not lost. :class:`RssSampler` watches its resident memory from a thread. :func:`health` times
one ``GET /health``. Nothing here asserts: the trials print figures and verdicts.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from _paths import ROOT

from tests.serve_process import free_port

__all__ = ["ROOT", "RssSampler", "ServerProcess", "commands_in_log", "count_events", "health",
           "health_body", "health_now", "percentile_ms"]


def _die_with_parent() -> None:
    """In the server's child, before exec: SIGTERM when the trial dies (Linux), even by -9."""
    with contextlib.suppress(Exception):
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


_PRCTL: Any = None
with contextlib.suppress(OSError, AttributeError):  # resolved before any fork, not in one
    _PRCTL = ctypes.CDLL(None).prctl


def percentile_ms(values: list[float], q: float) -> float:
    """The ``q`` quantile of latencies in seconds, in milliseconds (nan when empty)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class ServerProcess:
    """``poolhall serve`` in its own process group: started, probed, killed, restarted."""

    def __init__(self, db: Path, server_args: list[str]) -> None:
        self.db, self.server_args = db, list(server_args)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.out_path = db.with_name(db.stem + ".server.out")
        self.err_path = db.with_name(db.stem + ".server.err")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def admin_token(self) -> str:
        return db_token(self.db)

    def start(self, timeout: float = 60.0) -> None:
        """Start (or restart, same log and port) and return once ``/health`` answers."""
        with open(self.out_path, "ab") as out, open(self.err_path, "ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "poolhall", "serve", "--db", str(self.db),
                 "--port", str(self.port), *self.server_args],
                stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=self.db.parent,
                env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
                start_new_session=True,  # Ctrl-C reaches the trial, which stops us itself
                preexec_fn=_die_with_parent,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n"
                                   + self.log_tail())
            if health_now(self.port):
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not answer /health in time:\n" + self.log_tail())

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def rss_mb(self) -> float:
        """Resident memory now, in MB (nan once the process is gone)."""
        with contextlib.suppress(OSError, ValueError, AssertionError):
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def kill9(self) -> None:
        """SIGKILL: no shutdown, no flush; what a power cut or the OOM killer does."""
        if self.alive():
            assert self.proc is not None
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM (graceful), SIGKILL if it will not stop; the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        return self.proc.returncode

    def output(self) -> str:
        text = ""
        for path in (self.out_path, self.err_path):
            with contextlib.suppress(OSError):
                text += path.read_text(errors="replace")
        return text

    def tracebacks(self) -> int:
        """Tracebacks the server printed so far (each one is a crash or an unhandled error)."""
        return self.output().count("Traceback (most recent call last)")

    def log_lines(self) -> int:
        with contextlib.suppress(OSError):
            return len(self.err_path.read_text(errors="replace").splitlines())
        return 0

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self.output().splitlines()[-lines:])


def db_token(db: Path) -> str:
    """The admin token ``poolhall serve`` wrote beside a new log."""
    return db.with_name(db.name + ".admin-token").read_text().strip()


def health_now(port: int, timeout: float = 1.0) -> bool:
    """``GET /health`` answered 200, blocking (for use outside the event loop, or at start)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return sock.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def health_body(port: int, timeout: float = 5.0) -> str:
    """What ``/health`` says (where the faults should show), or why it said nothing."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            reply = b""
            while len(reply) < 65536:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                reply += chunk
    except OSError as error:
        return f"no answer: {error}"
    return reply.partition(b"\r\n\r\n")[2].decode(errors="replace").strip()


async def health(port: int, timeout: float = 2.0) -> tuple[bool, float]:
    """One ``GET /health`` over a fresh connection: answered 200, and how long it took."""
    started = time.perf_counter()
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status = await reader.readline()
            ok = status.startswith(b"HTTP/1.1 200")
    except (OSError, TimeoutError, asyncio.IncompleteReadError):
        ok = False
    finally:
        if writer is not None:
            writer.close()
    return ok, time.perf_counter() - started


class RssSampler(threading.Thread):
    """Samples the server's RSS every 50 ms; ``mark()`` starts a new window for the peak."""

    def __init__(self, server: ServerProcess) -> None:
        super().__init__(daemon=True, name="rss-sampler")
        self.server = server
        self.peak = 0.0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.05):
            rss = self.server.rss_mb()
            if rss == rss:  # not nan
                self.peak = max(self.peak, rss)

    def mark(self) -> float:
        """The RSS now, and the peak restarts from it."""
        now = self.server.rss_mb()
        self.peak = now if now == now else 0.0
        return now

    def stop(self) -> None:
        self.stopped.set()


def count_events(db: Path) -> dict[str, int]:
    """Events in the log per campaign (read-only, beside a running server: WAL allows it)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as con:
        return dict(con.execute("SELECT campaign, count(*) FROM events GROUP BY campaign"))


def commands_in_log(db: Path) -> set[str]:
    """Every command id the log holds an answer for."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as con:
        return {row[0] for row in con.execute("SELECT command_id FROM commands")}
