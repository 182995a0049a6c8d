"""The servers the load benchmarks measure when they compare: another revision's beside this
one (``--against REV``), or several processes on one PostgreSQL (``--processes N``).

``table_load.py``, ``log_scale.py`` and ``connection_scale.py`` share this module so that
"the release before" is checked out, started and measured one way for all three:

- :func:`checkout` puts a git revision in a temporary detached worktree (``git worktree add
  --detach``), removed at the end: the revision's own code, not a copy someone keeps around;
- :func:`serve_sqlite` starts ``python -m poolhall serve`` (the user's command) of a
  checkout, its ``PYTHONPATH`` at that checkout, on a SQLite file of its own; both sides of a
  comparison are started this way, with the same flags (:func:`settings_flags` leaves out
  those a revision's ``serve`` does not take: the flags are generated from each revision's
  settings, which differ a little);
- :func:`serve_postgres` starts N processes on a fresh PostgreSQL database, dropped after,
  through the chaos trials' :class:`Servers` (the first process makes the schema and the
  admin token; the others find the token's hash in the database);
- :class:`Served` is what a benchmark needs of either: ports, CPU seconds, stop;
- :func:`ratio_line` prints a figure for both sides and the ratio (this / before).

Alternating the two servers round by round in one run is what makes the ratio mean
something on a shared machine: both see the same load from other work, give or take a round.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for entry in (str(ROOT), str(HERE.parent / "chaos")):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from tests.serve_process import cli_module, free_port, start_serve  # noqa: E402

__all__ = ["RELEASE_BEFORE", "Served", "checkout", "ratio_line", "revision_name",
           "serve_postgres", "serve_sqlite", "settings_flags", "thread_cpu"]

RELEASE_BEFORE = "34f704b"
"""main before the store rewrite (#28) and fair rolls (#31) landed: the issues' baseline."""


def thread_cpu(pids: list[int]) -> dict[str, tuple[float, float]]:
    """User and system CPU seconds so far of processes ``pids``, all threads: their event
    loops' (the main threads), and all the others (the SQLite writer, PostgreSQL's pool)."""
    found = {"event loop": (0.0, 0.0), "other threads": (0.0, 0.0)}
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError, IndexError, ValueError):
                    text = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
                    fields = text.rsplit(")", 1)[1].split()
                    key = "event loop" if int(tid) == pid else "other threads"
                    user, system = found[key]
                    found[key] = (user + int(fields[11]) / tick, system + int(fields[12]) / tick)
    return found


@functools.cache
def _serve_help(code: Path) -> str:
    return subprocess.run([sys.executable, "-m", cli_module(code), "serve", "--help"], cwd=code,
                          capture_output=True, text=True, check=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(code), "COLUMNS": "200"}).stdout


def settings_flags(code: Path, settings: dict[str, object]) -> list[str]:
    """``settings`` as flags of ``poolhall serve``, less those the server at ``code`` does
    not take (its ``serve --help`` says which it does)."""
    known = _serve_help(code)
    flags: list[str] = []
    for name, value in settings.items():
        flag = "--" + name.replace("_", "-")
        if f"{flag} " not in known:
            continue
        # a flag's type is its default's: an int setting refuses "1e+09", a float takes "10"
        text = str(int(value)) if isinstance(value, int | float) and float(value).is_integer() \
            else str(value)
        flags += [flag, text]
    return flags


def revision_name(code: Path = ROOT) -> str:
    """The short commit of a checkout, ``+`` when it has changes not committed."""
    head = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(code), "status", "--porcelain",
                            "--untracked-files=no"], capture_output=True, text=True).stdout
    return head + ("+" if dirty.strip() else "")


@contextlib.contextmanager
def checkout(revision: str) -> Iterator[Path]:
    """Revision ``revision`` of this repository in a temporary detached worktree, removed
    (with the bytecode its server wrote) when done."""
    work = Path(tempfile.mkdtemp(prefix="poolhall-against-"))
    path = work / revision.replace("/", "_")
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), revision],
                   check=True, capture_output=True, text=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                       capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


class Served:
    """One or more running ``poolhall serve`` processes: their ports, CPU and logs."""

    def __init__(self, label: str, processes: list[subprocess.Popen[bytes]], ports: list[int],
                 logs: list[Path], stop: Callable[[], object]) -> None:
        self.label, self.processes, self.ports, self.logs = label, processes, ports, logs
        self._stop = stop

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    def thread_cpu(self) -> dict[str, tuple[float, float]]:
        return thread_cpu(self.pids)

    def cpu_seconds(self) -> float:
        """User + system CPU of every process (all threads) so far."""
        return sum(sum(split) for split in self.thread_cpu().values()) or float("nan")

    def stop(self) -> None:
        self._stop()

    def log_tail(self, lines: int = 20) -> str:
        """What went wrong in the servers' output: the end of any with a traceback, else the
        last lines logged at WARNING or ERROR (never the start-up lines: they hold the owner's
        link)."""
        tails = []
        for log in self.logs:
            with contextlib.suppress(OSError):
                text = log.read_text(errors="replace").strip().splitlines()
                if any(line.startswith("Traceback") for line in text):
                    tails.append(f"{log.name}:\n" + "\n".join(text[-lines:]))
                    continue
                said = [line for line in text if " WARNING " in line or " ERROR " in line]
                if said:
                    tails.append(f"{log.name} ({len(said)} warnings and errors):\n"
                                 + "\n".join(said[-lines:]))
        return "\n".join(tails)


def serve_sqlite(label: str, code: Path, db: Path, token: str,
                 settings: dict[str, object]) -> Served:
    """``poolhall serve`` of the checkout ``code`` on the SQLite file ``db`` (its directory
    made), with ``token`` as its admin token and ``settings`` as flags, once ``/health``
    answers."""
    db.parent.mkdir(parents=True, exist_ok=True)
    token_file = db.with_name(db.name + ".admin-token")  # where every revision looks for it
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    port = free_port()
    log = db.with_name("serve.log")
    process = start_serve(db, port, *settings_flags(code, settings), log=log, wait=60,
                          code=code)

    def stop() -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    return Served(label, [process], [port], [log], stop)


@contextlib.contextmanager
def serve_postgres(server_url: str, processes: int, work: Path,
                   settings: dict[str, object]) -> Iterator[tuple[Served, str, str]]:
    """``processes`` ``poolhall serve`` processes of this checkout on a fresh database of the
    PostgreSQL at ``server_url`` (dropped after): the servers, the admin token they share,
    and the database's URL."""
    from _several import Servers  # psycopg: needed for PostgreSQL runs only

    from tests.postgres import fresh_database

    with fresh_database(server_url) as url:
        servers = Servers(url, work, processes, options=tuple(settings_flags(ROOT, settings)))
        try:
            servers.start()
            served = Served(f"{processes} process{'es' if processes > 1 else ''}",
                            list(servers.processes.values()), servers.ports,
                            [work / f"serve{n}.log" for n in range(processes)], servers.stop)
            yield served, servers.admin_token(), url
        finally:
            servers.stop()


def ratio_line(figure: str, this: list[float], before: list[float], unit: str = "",
               digits: int = 0, floor: float | None = None,
               ceiling: float | None = None) -> tuple[str, bool]:
    """``figure``'s median for this code and the revision before, the ratio this / before,
    and whether it is at least ``floor`` (or at most ``ceiling``); the line and that verdict."""
    ours, theirs = statistics.median(this), statistics.median(before)
    ratio = ours / theirs if theirs else float("nan")
    ok = (floor is None or ratio >= floor) and (ceiling is None or ratio <= ceiling)
    bound = (f"target >= {floor:.2f}x" if floor is not None
             else f"target <= {ceiling:.2f}x" if ceiling is not None else "")
    said = f"   ({bound}: {'met' if ok else 'NOT MET'})" if bound else ""
    return (f"   {figure}: this {ours:,.{digits}f}{unit}, before {theirs:,.{digits}f}{unit}: "
            f"ratio {ratio:.3f}x{said}", ok)
