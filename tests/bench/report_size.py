"""The post-game report of a 100,000-event campaign: how long it takes, how big the HTML is.

::

    python tests/bench/report_size.py                       # 100,000 events, narrative
    python tests/bench/report_size.py --system sr3 --served # also `poolhall report` end to end

The campaign is played with a seeded generator and fair dice by the builders of
``tests/projections/analytics_logs.py``: game sessions of about 2,500 events (checks with
destiny flips, or Shadowrun tests in Combat Turns, or d12 tests) and free rolls between them.
Measured in this process: the fold (:func:`poolhall.projections.analytics.report`), the rows of
``export --rolls``, the HTML of the campaign and of one session, the JSON. With ``--served``
the log is also written into a SQLite file with the store's own append, a server is started
on it in a child process, and ``poolhall report CAMPAIGN --html FILE --json`` runs as a
subprocess: wall time, the interpreter's start-up, the fetch of the whole log (through the
server's replay budget) and the report together.

Figures are printed, never asserted; the machine is shared, so compare runs made together.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from poolhall.events.log import AppendRequest, prepare  # noqa: E402
from poolhall.events.sqlite_backend import SqliteLog  # noqa: E402
from poolhall.projections.analytics import (  # noqa: E402
    for_session,  # noqa: E402
    report,
    roll_rows,
)
from poolhall.reports.html import render_html  # noqa: E402
from tests.projections.analytics_logs import (  # noqa: E402
    LogBuilder,
    d12_session,
    free_session,
    narrative_session,
    sr3_session,
)

TOKEN = "ph_bench-admin-token-0123456789abcdef"
PLAY = {"narrative": narrative_session, "sr3": sr3_session, "d12": d12_session}
CHILD = """
import asyncio, sys
from poolhall.server.app import Server
async def main():
    server = Server(sys.argv[1], "127.0.0.1", 0, admin_token=sys.argv[2])
    await server.start()
    print("READY", server.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop()
asyncio.run(main())
"""


class Clock:
    """Wall and CPU seconds since the last lap (the machine is shared: CPU time is the figure
    that does not depend on what else runs)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def lap(self) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        took = (wall - self.wall, cpu - self.cpu)
        self.wall, self.cpu = wall, cpu
        return took


def build(system: str, events: int) -> LogBuilder:
    """A campaign of about ``events`` events: sessions of ~1,000 rolls, free rolls between."""
    log = LogBuilder(system=system)
    rng = random.Random(2026)
    session = 0
    while len(log.events) < events:
        session += 1
        PLAY[system](log, rng, 1000, session=session)
        free_session(log, rng, 50)
    del log.events[events:]
    return log


def write(log: LogBuilder, db: Path) -> None:
    """The events into a fresh SQLite log, one append per event, in batches."""
    store = SqliteLog(db)
    try:
        batch: list[AppendRequest] = []
        for head, recorded in enumerate(log.events):
            batch.append(AppendRequest(campaign="night", expected_head=head,
                                       events=(prepare(recorded.event),), actor=recorded.actor,
                                       command_id=recorded.command, at=recorded.at))
            if len(batch) == 1000 or head == len(log.events) - 1:
                for result in store.append_batch(batch):
                    if isinstance(result, Exception):
                        raise result
                batch.clear()
    finally:
        store.close()


def served(log: LogBuilder, tmp: Path) -> None:
    db = tmp / "bench.db"
    write(log, db)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), TOKEN], cwd=ROOT, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("READY"), line
        url = f"ws://127.0.0.1:{line.split()[1]}"
        page = tmp / "cli.html"
        started = time.perf_counter()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "poolhall", "report", "night",
                               "--html", str(page), "--json", "--url", url, "--admin-token",
                               TOKEN], cwd=ROOT, env=env, capture_output=True, check=True)
        took = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
        print(f"poolhall report night --html --json against the server: {took:.2f} s wall, "
              f"{cpu:.2f} s of the command's CPU (start-up, fetching {len(log.events):,} events "
              f"and folding them as the client does, report, page; the server's own time "
              f"aside); JSON "
              f"{len(done.stdout) / 1024:.0f} KB, HTML {page.stat().st_size / 1024:.0f} KB")
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--system", choices=sorted(PLAY), default="narrative")
    parser.add_argument("--served", action="store_true",
                        help="also time `poolhall report` against a real server on the log")
    args = parser.parse_args()
    started = time.perf_counter()
    log = build(args.system, args.events)
    print(f"built {len(log.events):,} {args.system} events in "
          f"{time.perf_counter() - started:.1f} s")

    clock = Clock()
    result = report(log.events)
    fold = clock.lap()
    page = render_html(result)
    html = clock.lap()
    one = render_html(for_session(report(log.events), 1), 1)
    session_page = clock.lap()
    json_bytes = len(msgspec.json.encode(result))
    rows = roll_rows(log.events)
    export = clock.lap()
    total = (fold[0] + html[0], fold[1] + html[1])
    print(f"report of {len(log.events):,} events: fold {fold[1]:.2f} s + HTML {html[1]:.2f} s"
          f" = {total[1]:.2f} s of CPU ({total[0]:.2f} s wall); {len(result.sessions)} "
          f"sessions, {result.campaign_figures.luck.rolls:,} rolls judged")
    print(f"HTML of the campaign: {len(page.encode()) / 1024:.0f} KB "
          f"({page.count('<svg')} charts); of session 1: {len(one.encode()) / 1024:.0f} KB "
          f"(fold and page {session_page[1]:.2f} s of CPU); --json: {json_bytes / 1024:.0f} KB")
    print(f"export --rolls: {len(rows):,} rows in {export[1]:.2f} s of CPU "
          f"({export[0]:.2f} s wall)")
    if args.served:
        with tempfile.TemporaryDirectory() as tmp:
            served(log, Path(tmp))


if __name__ == "__main__":
    main()
