"""The report worker's memory against the length of the log (issue 26, item 7).

::

    python tests/chaos/report_memory.py                      # 10,000, 40,000 and 100,000 events
    python tests/chaos/report_memory.py --events 100000 --whole

Any member can ask for the report of their campaign, and the page is made in the server's
report worker. This writes a narrative campaign played with a seeded generator (game sessions
of destiny flips and checks, free rolls between; ``tests/projections/analytics_logs.py``) into a
real SQLite log with the store's own append, then runs
:func:`poolhall.server.report_page.build_page` - the worker's very job: read, fold, draw - in a
fresh process per length, and prints that process's peak RSS (``ru_maxrss``: matplotlib and the
interpreter included). ``--whole`` also runs the old way (the whole log decoded into a list, then
folded) for the comparison.

Bounded: a few seconds of a core per 10,000 events; the figures are printed, never asserted
(the suite's ``tests/server/test_report_memory.py`` asserts the page-at-a-time fold).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from poolhall.events.log import AppendRequest, prepare  # noqa: E402
from poolhall.events.sqlite_backend import SqliteLog, SqliteReader  # noqa: E402
from tests.projections.analytics_logs import (  # noqa: E402
    LogBuilder,
    free_session,
    narrative_session,
)

__all__ = ["measure", "write_campaign"]


def write_campaign(db: Path, events: int, seed: int = 2026) -> int:
    """A narrative campaign of ``events`` events written into a fresh log at ``db``, built
    and appended a few thousand at a time (this process never holds the whole log either);
    the head."""
    rng = random.Random(seed)
    log = LogBuilder(system="narrative")
    store = SqliteLog(db)
    head = 0
    try:
        session = 0
        while head < events:
            session += 1
            narrative_session(log, rng, 400, session=session)
            free_session(log, rng, 40)
            fresh = log.events[: events - head]  # numbered by the log, not the builder
            batch = [AppendRequest(campaign="night", expected_head=head + k,
                                   events=(prepare(r.event),), actor=r.actor,
                                   command_id=f"c{head + k + 1}", at=r.at)
                     for k, r in enumerate(fresh)]
            for result in store.append_batch(batch):
                if isinstance(result, Exception):
                    raise result
            head += len(fresh)
            log.events.clear()  # the builder's clock goes on
    finally:
        store.close()
    return head


def _job(database: str, head: int, whole: bool,
         out: multiprocessing.Queue[tuple[float, float, int]]) -> None:
    from poolhall.server.report_page import build_page

    started = time.process_time()
    if whole:  # the old way: every event decoded into one list, then folded
        from poolhall.events.log import to_recorded
        from poolhall.projections.analytics import report
        from poolhall.reports.html import render_html

        events = [to_recorded(row) for row in SqliteReader(database).rows("night", 0, head)]
        size = len(render_html(report(events)))
    else:
        page = build_page((database, "night", None, head, ()))
        html = page["html"]
        assert isinstance(html, bytes)
        size = len(html)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.put((peak, time.process_time() - started, size))


def measure(database: str, head: int, whole: bool = False) -> tuple[float, float, int]:
    """Peak RSS (MiB), CPU seconds and page size of one report made in a fresh process."""
    context = multiprocessing.get_context("forkserver")
    out: multiprocessing.Queue[tuple[float, float, int]] = context.Queue()
    child = context.Process(target=_job, args=(database, head, whole, out))
    child.start()
    result = out.get(timeout=600)
    child.join(30)
    peak, cpu, size = result
    return float(peak), float(cpu), int(size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, nargs="*", default=[10_000, 40_000, 100_000])
    parser.add_argument("--whole", action="store_true",
                        help="also measure the old way: the whole log in memory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for events in args.events:
            db = Path(tmp) / f"log-{events}.db"
            started = time.perf_counter()
            head = write_campaign(db, events)
            print(f"{head:,} events written in {time.perf_counter() - started:.1f} s", flush=True)
            peak, cpu, size = measure(str(db), head)
            print(f"  report worker, a page at a time: peak RSS {peak:.0f} MiB, "
                  f"{cpu:.1f} s of CPU, page {size / 1024:.0f} KiB", flush=True)
            if args.whole:
                peak, cpu, size = measure(str(db), head, whole=True)
                print(f"  the whole log in memory:          peak RSS {peak:.0f} MiB, "
                      f"{cpu:.1f} s of CPU, page {size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
