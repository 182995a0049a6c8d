"""The replay page's seek on a 100,000-event campaign, in real Chromium: from asking for a
moment to the table and log of that moment drawn.

::

    python tests/bench/replay_seek.py                 # 100,000 narrative events, 60 seeks
    python tests/bench/replay_seek.py --events 10000 --seeks 20

The campaign is played by the builders the report bench uses (seeded, fair dice: sessions of
checks, destiny flips and free rolls), written into a SQLite log with the store's own append,
and served by ``poolhall serve``. Chromium (Debian's, through Playwright) opens the replay page
with the admin token and waits until the timeline has read every event's time and marks (the
figure printed as "timeline read"); then it seeks to random moments, each measured in the page
from the call to the moment the log of that moment is drawn (``performance.now()``). Target:
every seek under 100 ms. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.bench.report_size import build, write  # noqa: E402
from tests.serve_process import free_port, start_serve  # noqa: E402
from tests.web.chromium import CHROMIUM_ARGS  # noqa: E402
from tests.web.conftest import CHROMIUM  # noqa: E402

SEEK = """async (seq) => {
  const replay = document.querySelector("ph-replay");
  const started = performance.now();
  replay.seek(seq);
  while (replay.shown !== seq) await new Promise((resolve) => setTimeout(resolve, 0));
  return performance.now() - started;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--seeks", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        started = time.perf_counter()
        write(build("narrative", args.events), db)
        print(f"wrote {args.events:,} narrative events in {time.perf_counter() - started:.1f} s")
        port = free_port()
        server = start_serve(db, port, "--member-rate", "1000", "--member-burst", "1000",
                             log=Path(tmp) / "serve.log")
        token = (Path(tmp) / "bench.db.admin-token").read_text().strip()
        try:
            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(bypass_csp=True)  # wait_for_function evaluates
                page.goto(f"http://127.0.0.1:{port}/#campaign=night&token={token}")
                started = time.perf_counter()
                page.goto(f"http://127.0.0.1:{port}/replay#campaign=night&seq=1")
                page.wait_for_function("document.querySelector('ph-replay')?.shown === 1",
                                       timeout=60_000)
                first = time.perf_counter() - started
                page.wait_for_function(
                    "document.querySelector('.ph-progress')?.textContent === '' && "
                    "document.querySelectorAll('ph-timeline line').length > 0",
                    timeout=600_000)
                read = time.perf_counter() - started
                rng = random.Random(7)
                took = [page.evaluate(SEEK, rng.randint(1, args.events))
                        for _ in range(args.seeks)]
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    took.sort()
    p99 = took[min(len(took) - 1, int(len(took) * 0.99))]
    print(f"replay page of {args.events:,} events: first table shown {first * 1000:.0f} ms "
          f"after opening; timeline read (every event's time and marks) in {read:.1f} s")
    print(f"seek to a random moment, {len(took)} seeks: p50 {statistics.median(took):.0f} ms, "
          f"p99 {p99:.0f} ms, max {took[-1]:.0f} ms   (target: < 100 ms)")


if __name__ == "__main__":
    main()
