"""Running ``poolhall`` as a real process, the way a user does, for CLI and shutdown tests."""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import resource
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


PORTS_PER_BLOCK = 600
"""Each pytest-xdist worker, and each chaos trial the suite runs beside the tests, hands out
ports from a block of its own, below the kernel's ephemeral range (32768 and up, which
``bind(0)`` and outgoing connections use)."""
FIRST_PORT = 20000
WORKER_BLOCKS = 4
"""Blocks 0-3 are the workers' (``gw0``..``gw3``); the blocks after them are for processes the
tests start beside themselves (:data:`PORT_BLOCK_VARIABLE`), up to block 19."""
PORT_BLOCK_VARIABLE = "POOLHALL_TEST_PORT_BLOCK"
"""Names the block of a process the suite starts that picks ports while the tests go on (the
chaos trials, :mod:`tests.chaos.test_chaos_quick`): it would otherwise inherit its worker's."""


def _worker_ports() -> Iterator[int]:
    """This process's ports, endlessly: its block (``$POOLHALL_TEST_PORT_BLOCK``, else its
    worker's, ``$PYTEST_XDIST_WORKER``), from a place set by the process id, so that a script
    a test runs and waits for does not start where the test did."""
    named = os.environ.get(PORT_BLOCK_VARIABLE)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    block = int(named) if named else int(worker) % WORKER_BLOCKS if worker.isdigit() else 0
    start = os.getpid() % PORTS_PER_BLOCK
    for step in itertools.count():
        yield FIRST_PORT + block * PORTS_PER_BLOCK + (start + step) % PORTS_PER_BLOCK


_PORTS = _worker_ports()
"""The one sequence of this process (a generator: the only state this module keeps)."""


def until(condition: Callable[[], object], timeout: float = 5.0,
          said: Callable[[], str] = lambda: "the condition never held") -> None:
    """Wait until ``condition()`` holds, looking every 10 ms; fail with ``said()`` after
    ``timeout`` seconds (a wait for something a process does, never a measure of its speed;
    ``tests.conftest.until`` is the same for a test on the event loop)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(said())
        time.sleep(0.01)


def free_port() -> int:
    """A loopback port nobody is bound to, which no other worker of the run will hand out.

    ``bind(0)`` once gave two workers the same port: each released it to start its server,
    one server failed to bind, and the other worker's health check reached the other server
    (a test then found no admin token file beside its own database). Each worker (and each
    chaos trial) now counts through its own block and skips a port something holds."""
    return next(port for port in _PORTS if _nobody_holds(port))


def _nobody_holds(port: int) -> bool:
    """Whether ``port`` can be bound on the loopback now (no listener, no lingering
    connection)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def poolhall(*args: str, cwd: Path, check: bool = True, file_size: int | None = None,
             environment: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run one ``poolhall`` command and return what it printed (``environment``: more
    environment variables)."""
    result = subprocess.run(
        [sys.executable, "-m", "poolhall", *args], cwd=cwd, capture_output=True, text=True,
        timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200",
                         **(environment or {})},
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


def cli_module(code: Path = ROOT) -> str:
    """The module that runs ``poolhall`` in the checkout ``code``: ``poolhall`` (its
    ``__main__``), or ``clients.cli`` in a revision from before the one namespace."""
    return "poolhall" if (code / "poolhall" / "__main__.py").exists() else "clients.cli"


def start_serve(db: Path, port: int, *options: str, file_size: int | None = None,
                log: Path | None = None, wait: float = 20,
                code: Path = ROOT,
                environment: dict[str, str] | None = None,
                verbose: bool = False) -> subprocess.Popen[bytes]:
    """``poolhall serve`` in the database's directory, once its health check answers.

    Its output is a pipe the caller may read, or with ``log`` appended to that file: a
    long-running server's pipe that nobody reads fills and stalls it. ``code`` is the
    checkout whose server runs (another revision's, for the benchmarks' ``--against``);
    ``environment``: more environment variables; ``verbose``: ``poolhall -v serve``, whose
    output has the debug lines too (a test waits for ``unloaded CAMPAIGN`` rather than
    sleeping for as long as an unload might take).
    """
    with contextlib.ExitStack() as files:
        output = files.enter_context(open(log, "ab")) if log is not None else subprocess.PIPE
        process = subprocess.Popen(
            [sys.executable, "-m", cli_module(code), *(("-v",) if verbose else ()), "serve",
             "--db", str(db), "--port",
             str(port), *options],
            stdout=output, stderr=subprocess.STDOUT, cwd=db.parent,
            env={**os.environ, "PYTHONPATH": str(code), **(environment or {})},
            preexec_fn=file_size_limit(file_size) if file_size is not None else None,
        )
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as reply:
                if reply.status == 200:
                    return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    said = log.read_text() if log is not None else process.stdout.read().decode() \
        if process.stdout else ""
    raise RuntimeError("server did not start: " + said)


def serve_database(database: str, port: int, cwd: Path, log: Path,
                   wait: float = 30, options: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    """``poolhall serve --db DATABASE`` (a ``postgresql://`` URL) on ``port``, run in ``cwd``,
    its output appended to ``log``, once its health check answers (``options``: more flags
    of ``serve``, e.g. the benchmarks' lifted limits)."""
    with open(log, "ab") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "poolhall", "serve", "--db", database, "--port",
             str(port), *options], stdout=output, stderr=subprocess.STDOUT, cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as reply:
                if reply.status == 200:
                    return process
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("server did not start: " + log.read_text())


class Watcher:
    """A running ``poolhall watch``: its lines read in a thread, waited for by their text."""

    def __init__(self, *args: str, cwd: Path, merge_stderr: bool = True,
                 columns: int = 200) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "poolhall", "watch", *args], cwd=cwd,
            stdout=subprocess.PIPE, text=True,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": str(columns)})
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self._lines.put(line)

    def wait_for(self, text: str, timeout: float = 30) -> str:
        """The first line it prints holding ``text``; fails after ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                line = self._lines.get(timeout=0.5)
                if text in line:
                    return line
        raise AssertionError(f"watch never printed {text!r}")

    def stop(self) -> None:
        """End the watch if it still runs."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
