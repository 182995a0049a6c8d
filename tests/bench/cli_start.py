"""How long each ``poolhall`` command takes, start to exit (target: under 150 ms each).

For every command: ``poolhall CMD --help`` (the parser and nothing else), and where one can be
run again and again, a real quick one against a small campaign (``state``, ``roll``, ``verify``
of a small file, the odds commands ...), each the median wall time of ``--runs`` runs as a
fresh process (``python -m poolhall``, what the console script runs). A server is started
on a temporary database for the commands that need one; its own start is timed as ``serve``
(until ``/health`` answers). Run: ``python tests/bench/cli_start.py [--runs N] [--only CMD]``.

The figures are the user's wait, so they include the interpreter's own start (about 20 ms
here): a target of 150 ms leaves the command some 130 ms. Every run uses compiled bytecode, as
an installed poolhall does (:func:`cached_bytecode`). CPU time is printed beside wall time: on
a machine busy with other work it is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "poolhall"]
TARGET = 0.150

COMMANDS = ["serve", "campaign", "invite", "remove-member", "assign", "share-replay", "roll",
            "send", "watch", "sheet", "state", "verify", "migrate", "schema", "report", "export",
            "replay", "character", "odds", "narrative", "sr3-odds", "sr3", "d12-odds", "d12"]

REAL: dict[str, list[str]] = {
    "campaign": ["campaign", "create", "Bench", "--system", "d12", "{server}", "--json"],
    "invite": ["invite", "{d12}", "--role", "spectator", "{server}", "--json"],
    "roll": ["roll", "{d12}", "2d6", "{server}", "--json"],
    "send": ["send", "{d12}", '{{"type": "roll", "expression": "1d6"}}', "{server}",
             "--json"],
    "state": ["state", "{d12}", "{server}"],
    "verify": ["verify", "{copy}", "--json"],
    "migrate": ["migrate", "--db", "{copy}", "--json"],
    "schema": ["schema"],
    "report": ["report", "{d12}", "{server}", "--json"],
    "export": ["export", "{d12}", "--rolls", "--format", "jsonl", "{server}"],
    "replay": ["replay", "{d12}", "--speed", "inf", "{server}", "--json"],
    "odds": ["odds", "yyg", "vs", "pp"],
    "narrative": ["narrative", "checks", "{narrative}", "{server}", "--json"],
    "sr3-odds": ["sr3-odds", "6", "--tn", "5"],
    "sr3": ["sr3", "combat", "{sr3}", "{server}", "--json"],
    "d12-odds": ["d12-odds", "4", "--dt", "6"],
    "d12": ["d12", "tests", "{d12}", "{server}", "--json"],
}
"""A real run of each command that can be repeated (``watch`` never ends; ``sheet``,
``character``, ``remove-member`` and ``share-replay`` need a character, member or session made
first, and are timed by ``--help`` only)."""


class Timed(NamedTuple):
    wall: float
    """Median seconds, start to exit: what the user waits."""
    cpu: float
    """Median CPU seconds of the command's process (user and system): the figure that a
    machine busy with other work inflates least."""
    code: int


def timed(argv: list[str], runs: int, env: dict[str, str]) -> Timed:
    """``argv`` run ``runs`` times: median wall and CPU time, and the last exit code."""
    walls, cpus, code = [], [], 0
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, check=False, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        code = done.returncode
    return Timed(statistics.median(walls), statistics.median(cpus), code)


def cached_bytecode(prefix: Path) -> dict[str, str]:
    """The environment of every timed run: bytecode compiled once, into ``prefix``, as an
    installed poolhall has it (pip compiles it). A shell with ``PYTHONDONTWRITEBYTECODE`` set
    would otherwise compile every module from source on every run (0.1-0.2 s here)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("POOLHALL_TOKEN", None)  # every command acts as the admin, the GM anywhere
    subprocess.run([sys.executable, "-m", "compileall", "-q", "events", "projections",
                    "server", "clients", "reports"], cwd=ROOT, check=True, env=env,
                   stdout=subprocess.DEVNULL)
    subprocess.run([*CLI, "--help"], cwd=ROOT, check=True, env=env,  # the standard library's
                   stdout=subprocess.DEVNULL)  # and the dependencies' too, if not already
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve(db: Path, port: int, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], float]:
    """A server on ``db``, and the seconds until its ``/health`` answered."""
    start = time.perf_counter()
    process = subprocess.Popen([*CLI, "serve", "--db", str(db), "--port", str(port)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = start + 30
    while time.perf_counter() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                return process, time.perf_counter() - start
        except OSError:
            time.sleep(0.005)
    process.kill()
    raise SystemExit("the server did not answer /health within 30 s")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(timeout=30)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=5)
    options.add_argument("--only", action="append", help="time this command only (repeat)")
    given = options.parse_args()
    commands = given.only or COMMANDS
    folder = Path(tempfile.mkdtemp(prefix="cli-start-"))
    env = cached_bytecode(folder / "pycache")
    db, port = folder / "bench.db", free_port()
    process, _ = serve(db, port, env)
    try:
        server = ["--url", f"ws://127.0.0.1:{port}", "--db", str(db)]
        places: dict[str, object] = {"copy": str(folder / "copy.db")}
        for system in ("d12", "narrative", "sr3"):
            made = subprocess.run([*CLI, "campaign", "create", system.title(), "--system",
                                   system, *server, "--json"], cwd=ROOT, check=True,
                                  capture_output=True, env=env)
            places[system] = json.loads(made.stdout)["campaign"]
        subprocess.run([*CLI, "roll", str(places["d12"]), "3d6", *server], cwd=ROOT,
                       check=True, capture_output=True, env=env)
        stop(process)  # a copy of a closed file for the offline commands, then serve again
        shutil.copyfile(db, folder / "copy.db")
        starts = []
        for _ in range(given.runs):
            process, seconds = serve(db, port, env)
            starts.append(seconds)
            if len(starts) < given.runs:
                stop(process)
        print(f"{'command':<14} {'--help wall/cpu':>16} {'real wall/cpu':>16}  real command "
              f"(medians of {given.runs} runs; target {TARGET * 1000:.0f} ms wall)")
        for command in commands:
            helped = timed([*CLI, command, "--help"], given.runs, env)
            real: Timed | None = None
            what = ""
            if command == "serve":
                real, what = Timed(statistics.median(starts), 0.0, 0), "until /health answers"
            elif command in REAL:
                argv = []
                for part in REAL[command]:
                    argv.extend(server if part == "{server}" else [part.format(**places)])
                real = timed([*CLI, *argv], given.runs, env)
                what = " ".join(REAL[command][:2]) + (f" (exit {real.code})" if real.code
                                                      else "")
            over = helped.wall > TARGET or (real is not None and real.wall > TARGET)
            shown = (f"{real.wall * 1000:6.0f}/{real.cpu * 1000:4.0f} ms" if real is not None
                     else f"{'-':>14}")
            print(f"{command:<14} {helped.wall * 1000:6.0f}/{helped.cpu * 1000:4.0f} ms "
                  f"{shown}  {what}{'  > target' if over else ''}", flush=True)
    finally:
        stop(process)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
