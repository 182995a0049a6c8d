"""The server child of ``table_load.py`` and ``connection_scale.py``: the real server in a
process of its own, its rate limits lifted.

The load generator and the server it measures must not share an interpreter (nor a GIL), so
:class:`ServerProcess` runs this file as a script, ``--serve-child DB TOKEN`` (the poolhall
server on a SQLite file) or ``--serve-bare TOKEN`` (the bare websockets peer of
``_bare_peer.py``), reads its ``READY`` line, and stops it gracefully at the end (killed if it
will not stop). :func:`serve_child` is what runs in that process: the settings the bench gives
it on top of :data:`LIFTED`, and the diagnoses asked for in its environment (cProfile, the GIL's
switch interval, the collector's census of ``_gc_census.py``).

It is a module of its own so that both benchmarks start the same server the same way, and
``table_load.py`` keeps to the load and its figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for entry in (str(ROOT), str(HERE)):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from _bare_peer import serve_bare  # noqa: E402
from _servers import thread_cpu  # noqa: E402

__all__ = ["CENSUS_ENV", "LIFTED", "PROFILE_ENV", "SETTINGS_ENV", "SWITCH_ENV", "ServerProcess",
           "serve_child"]

PROFILE_ENV = "POOLHALL_BENCH_PROFILE"
SETTINGS_ENV = "POOLHALL_BENCH_SETTINGS"
"""JSON of settings the server child takes on top of the bench's (connection_scale.py)."""
SWITCH_ENV = "POOLHALL_BENCH_SWITCH_INTERVAL"
CENSUS_ENV = "POOLHALL_BENCH_GC_CENSUS"
"""A file the server child writes what each collection found to (:mod:`_gc_census`)."""

LIFTED: dict[str, object] = dict(
    member_rate=1e9, member_burst=10**9, campaign_rate=1e9, campaign_burst=10**9,
    member_in_flight=10**9, member_connections=10**9, join_rate=1e9, join_burst=10**9,
    max_connections_per_address=10**6, request_rate=1e9, request_burst=10**9)
"""The bench measures capacity, so the per-member and per-campaign rates are lifted (its
clients share a few tokens and send far faster than a person does), and so are the caps per
address (every client connects from 127.0.0.1)."""


def serve_child(db: str, token: str) -> None:
    """Run the real server until SIGTERM/SIGINT or until the parent closes our stdin."""
    import ctypes
    import logging

    with contextlib.suppress(Exception):  # die with the parent (Linux)
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)
    logging.basicConfig(level=logging.WARNING, format="server %(levelname)s %(name)s: %(message)s")
    if os.environ.get(SWITCH_ENV):  # diagnosis: does the writer thread wait for the GIL?
        sys.setswitchinterval(float(os.environ[SWITCH_ENV]))
    from poolhall.server.app import Server
    from poolhall.server.settings import Settings

    census_to = os.environ.get(CENSUS_ENV)
    if census_to:  # diagnosis: what the collector's young generations hold
        from _gc_census import GcCensus, watch_stalls

        path, _, only = census_to.partition(":")
        out = open(path, "a")  # noqa: SIM115 (written to while the server runs)
        if only == "stalls":
            watch_stalls(out)
        else:
            GcCensus(out, collections=only != "reclaim")

    capacity = Settings(**{**LIFTED, **json.loads(os.environ.get(SETTINGS_ENV, "{}"))})

    async def main() -> None:
        started = time.perf_counter()
        server = Server(db, "127.0.0.1", 0, admin_token=token, settings=capacity)
        await server.start()
        print(f"READY {server.port} {time.perf_counter() - started:.6f} {len(server.hubs)}",
              flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not os.read(0, 1) else None)
        await stop.wait()
        await server.stop()

    profile_to = os.environ.get(PROFILE_ENV)
    if profile_to:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
        try:
            asyncio.run(main())
        finally:
            profiler.disable()
            profiler.dump_stats(profile_to)
    else:
        asyncio.run(main())


class ServerProcess:
    """The server child: started, timed, stopped gracefully, killed if it will not stop."""

    def __init__(self, db: Path, token: str, log_path: Path, profile_to: Path | None,
                 settings: dict[str, object] | None = None, *, bare: bool = False) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), **{SETTINGS_ENV: json.dumps(settings or {})})
        if profile_to is not None:
            env[PROFILE_ENV] = str(profile_to)
        self.log_path = log_path
        started = time.perf_counter()
        with open(log_path, "ab") as log:  # the child writes to its own copy of the descriptor
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()),
                 *(["--serve-bare", token] if bare else ["--serve-child", str(db), token])],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, cwd=ROOT, env=env,
                start_new_session=True,  # a Ctrl-C reaches us; we stop the server ourselves
            )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode().split()
        if not line or line[0] != "READY":
            self.stop()
            raise RuntimeError(f"server did not start; see {log_path}:\n{self.log_tail()}")
        self.ready_seconds = time.perf_counter() - started
        self.port, self.start_seconds, self.hubs = int(line[1]), float(line[2]), int(line[3])

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def ports(self) -> list[int]:
        return [self.port]

    @property
    def pids(self) -> list[int]:
        return [self.pid]

    def cpu_seconds(self) -> float:
        """User + system CPU of the whole server process (all threads) so far."""
        return sum(sum(split) for split in self.thread_cpu().values()) or float("nan")

    def thread_cpu(self) -> dict[str, tuple[float, float]]:
        """User and system CPU seconds so far: the event loop's thread, and all the others."""
        return thread_cpu([self.pid])

    def stop(self, timeout: float = 20.0) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""


def main(argv: list[str] | None = None) -> int:
    """The child's entry point: the server (``--serve-child``) or the bare peer."""
    parser = argparse.ArgumentParser(description="the server child of table_load.py")
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--serve-child", nargs=2, metavar=("DB", "TOKEN"))
    chosen.add_argument("--serve-bare", metavar="TOKEN")
    args = parser.parse_args(argv)
    if args.serve_bare:
        serve_bare(args.serve_bare)
    else:
        serve_child(*args.serve_child)
    return 0


if __name__ == "__main__":
    sys.exit(main())
