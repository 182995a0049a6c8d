"""The browser table's speed, measured in real Chromium against a real ``poolhall serve``.

::

    python tests/bench/browser_table.py                 # 200 rolls, a 2,000-line log
    python tests/bench/browser_table.py --rolls 50 --log-lines 500   # quick

Three figures, each printed beside its target (never asserted: the machine is shared, so
compare runs made together):

- **roll to drawn**: Ana clicks Roll in her page; the time until the line is in the log of all
  four pages (GM, Ana, Bo, a spectator; four browser contexts), p50 and p99 over ``--rolls``
  rolls on loopback. Every page stamps ``performance.timeOrigin + performance.now()`` (one
  clock for the whole browser) when a MutationObserver sees the line arrive and again at the
  next animation frame (painted); the click is stamped the same way in Ana's page, just before
  ``click()``. The script waits for each roll with promises the pages resolve (never by
  polling them: Playwright's polling runs a script in every page every frame, which on two
  cores was itself a part of the figure).
- **first load**: a fresh context (empty cache) opens the GM's link of a new campaign of
  each game system (``--systems``; the narrative one, with the most on its first screen, is
  the largest): the decoded size and the size on the wire (gzipped text; Resource Timing) of
  every file fetched until the network is idle (the parts a panel fetches once it is drawn
  included), and the time from navigation to the table on screen and usable (the page's own
  ``poolhall:live`` performance mark), median of ``--loads`` loads; then the same for a
  player's link (no GM tools). The parts a page fetches only when first needed (a test's or
  a check's card, checking a revealed roll, the replay) are not in a new table's first screen
  (tests/web/test_first_load.py pins the set). The other figures are of the d12 table.
- **a long log scrolling**: ``--log-lines`` rolls, a page that fetched them all (the "Load
  older" pages), then its log scrolled from a quarter of the way down, ``--scroll-px`` pixels
  per animation frame for 180 frames (40 px: 2,400 px/s, fast wheel scrolling): frames that
  took longer than 1.5 x 16.7 ms count as dropped; and the same frames with no scrolling (the
  machine's floor). The log is windowed (clients/web/elements/ph-log.js): the lines in the
  DOM are counted too.

The server runs with the request rate per address raised (four browsers on one loopback
address load about 25 files each) and the member rate raised (200 rolls in a row from one
member), as documented at each flag; everything else is the default.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from poolhall.clients.client import Client  # noqa: E402
from poolhall.events import core  # noqa: E402
from tests.serve_process import free_port, start_serve  # noqa: E402
from tests.web.chromium import CHROMIUM_ARGS  # noqa: E402
from tests.web.conftest import CHROMIUM, Served  # noqa: E402

SERVE_OPTIONS = ("--request-rate", "500", "--request-burst", "1000",  # 4 pages, 1 address
                 "--member-rate", "1000", "--member-burst", "1000",   # a script rolling
                 "--campaign-rate", "2000", "--campaign-burst", "2000")

WATCH_LOG = """() => {
  window.__drawn = [];
  const waiting = [];  // [n, resolve]: resolved once n lines are painted
  window.__painted = (n) => new Promise((done) => {
    if (window.__drawn.filter((entry) => entry.painted !== null).length >= n) done();
    else waiting.push([n, done]);
  });
  const list = document.querySelector("ph-log .ph-log-lines");
  new MutationObserver((changes) => {
    const at = performance.timeOrigin + performance.now();
    for (const change of changes) for (const node of change.addedNodes) {
      if (node.dataset?.type !== "dice_rolled") continue;
      const entry = {seq: Number(node.dataset.seq), dom: at, painted: null};
      window.__drawn.push(entry);
      requestAnimationFrame(() => {
        entry.painted = performance.timeOrigin + performance.now();
        const painted = window.__drawn.filter((one) => one.painted !== null).length;
        for (const wait of waiting.splice(0)) {
          if (painted >= wait[0]) wait[1](); else waiting.push(wait);
        }
      });
    }
  }).observe(list, {childList: true});
}"""

ROLL_ANSWERED = """() => new Promise((done) => {
  // Ana's Roll button is enabled again once the server answered
  const button = document.querySelector(".ph-roll-form button[type=submit]");
  if (!button.disabled) return done();
  const watch = new MutationObserver(() => {
    if (!button.disabled) { watch.disconnect(); done(); }
  });
  watch.observe(button, {attributes: true});
})"""

CLICK_ROLL = """(n) => {
  const form = document.querySelector(".ph-roll-form");
  form.elements.expression.value = "3d6";
  form.elements.reason.value = `bench ${n}`;
  const at = performance.timeOrigin + performance.now();
  form.querySelector("button[type=submit]").click();
  return at;
}"""

FIRST_LOAD = """() => {
  const files = [performance.getEntriesByType("navigation")[0],
                 ...performance.getEntriesByType("resource")];
  const live = performance.getEntriesByName("poolhall:live")[0];
  return {
    files: files.map((f) => ({name: f.name, bytes: f.decodedBodySize, sent: f.encodedBodySize})),
    interactive: live ? live.startTime : null,
    dom_content_loaded: files[0].domContentLoadedEventEnd,
  };
}"""

SCROLL = """async ([scrolling, pixels, frames]) => {
  // scrolling false: the same frames with no scrolling (the machine's floor)
  const list = document.querySelector("ph-log .ph-log-lines");
  list.scrollTop = Math.round(list.scrollHeight / 4);
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const deltas = [];
  let last = performance.now();
  let most = 0;
  for (let i = 1; i <= frames; i += 1) {
    list.scrollTop += scrolling ? pixels : 0;
    await new Promise((done) => requestAnimationFrame(done));
    const now = performance.now();
    deltas.push(now - last);
    last = now;
    most = Math.max(most, list.querySelectorAll("li[data-seq]").length);
  }
  return {deltas, most, height: list.scrollHeight};
}"""


ARRIVALS = """(() => {
  // bench only: stamp when a dice_rolled event frame reaches the page, before the page's
  // own listener runs (this one is registered first), to split the time in two
  window.__arrived = [];
  const Original = window.WebSocket;
  window.WebSocket = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const at = performance.timeOrigin + performance.now();
        const message = JSON.parse(event.data);
        if (message.type === "event" && message.event.type === "dice_rolled") {
          window.__arrived.push(at);
        }
      });
    }
  };
})();"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def line(label: str, figure: str, target: str) -> None:
    print(f"  {label:<44} {figure:>22}   target {target}")


async def roll_many(url: str, link: str, count: int) -> None:
    """``count`` free rolls as the member of ``link``, 16 in flight at a time."""
    fragment = dict(part.split("=", 1) for part in link.split("#", 1)[1].split("&"))
    client = Client(url, fragment["token"], fragment["campaign"])
    await client.connect()
    try:
        for start in range(0, count, 16):
            await asyncio.gather(*(client.call(core.Roll, expression="2d6", reason=f"line {n}")
                                   for n in range(start, min(count, start + 16))))
    finally:
        await client.close()


def roll_to_drawn(served: Served, pages: dict[str, Page], rolls: int) -> None:
    ana = pages["ana"]
    for page in pages.values():
        page.evaluate(WATCH_LOG)
    clicks: list[float] = []
    for n in range(rolls):
        clicks.append(ana.evaluate(CLICK_ROLL, n))
        for page in pages.values():
            page.evaluate("(n) => window.__painted(n)", n + 1)
        ana.evaluate(ROLL_ANSWERED)
    drawn = {who: page.evaluate("window.__drawn") for who, page in pages.items()}
    arrived = {who: page.evaluate("window.__arrived") for who, page in pages.items()}
    network = [max(arrived[who][n] for who in pages) - clicks[n] for n in range(rolls)]
    own = [drawn[who][n]["dom"] - arrived[who][n] for who in pages for n in range(rolls)]
    in_dom = [max(drawn[who][n]["dom"] for who in pages) - clicks[n] for n in range(rolls)]
    painted = [max(drawn[who][n]["painted"] for who in pages) - clicks[n] for n in range(rolls)]
    for who in pages:
        seqs = [entry["seq"] for entry in drawn[who]]
        assert seqs == sorted(set(seqs)), f"{who}: lines lost or doubled"
        assert len(seqs) == rolls, f"{who}: lines lost or doubled"
    print(f"roll to drawn in all 4 pages ({rolls} rolls, loopback):")
    line("event frame reached all 4 pages, p50", f"{percentile(network, 50):.1f} ms", "-")
    line("event frame reached all 4 pages, p99", f"{percentile(network, 99):.1f} ms", "-")
    line("the page's own work, frame to DOM, p50", f"{percentile(own, 50):.2f} ms", "-")
    line("the page's own work, frame to DOM, p99", f"{percentile(own, 99):.2f} ms", "-")
    line("in the DOM, p50", f"{percentile(in_dom, 50):.1f} ms", "-")
    line("in the DOM, p99", f"{percentile(in_dom, 99):.1f} ms", "p99 < 50 ms")
    line("painted (next animation frame), p50", f"{percentile(painted, 50):.1f} ms", "-")
    line("painted (next animation frame), p99", f"{percentile(painted, 99):.1f} ms", "p99 < 50 ms")


def first_load(browser: Any, link: str, loads: int, who: str = "the GM's") -> None:
    results = []
    for _ in range(loads):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(link)
        page.wait_for_function("() => performance.getEntriesByName('poolhall:live').length > 0")
        page.wait_for_load_state("networkidle")  # the parts a panel fetches once it is drawn
        results.append(page.evaluate(FIRST_LOAD))
        context.close()
    files = results[0]["files"]
    total = sum(f["bytes"] for f in files)
    largest = max(files, key=lambda f: f["bytes"])
    print(f"first load of {who} page (fresh context, empty cache; median of {loads}):")
    line("files", f"{len(files)}", "-")
    line("bytes, uncompressed (page + every file)", f"{total / 1024:.1f} KB", "< 150 KB")
    sent = sum(f["sent"] for f in files)
    line("bytes on the wire (gzip where the browser takes it)", f"{sent / 1024:.1f} KB", "-")
    line(f"largest file: {largest['name'].rsplit('/', 1)[-1]}",
         f"{largest['bytes'] / 1024:.1f} KB", "-")
    loaded = statistics.median(r["dom_content_loaded"] for r in results)
    line("DOMContentLoaded", f"{loaded:.0f} ms", "-")
    line("interactive (table shown, connected)",
         f"{statistics.median(r['interactive'] for r in results):.0f} ms", "< 1000 ms")


def new_table(served: Served, system: str) -> tuple[str, str]:
    """A new campaign of ``system``: its GM's link and a player's."""
    campaign, gm = served.create_campaign(f"Bench {system}", system)
    return gm, served.invite(campaign, gm, "player", "Ana")


def long_log(served: Served, browser: Any, link: str, lines: int, pixels: int) -> None:
    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API holds this thread's loop
        thread.submit(asyncio.run, roll_many(served.url, link, lines)).result()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(link)
    page.wait_for_selector(".ph-connection[data-state=live]")
    page.wait_for_selector("ph-log li[data-seq]")  # drawn once the system's module is loaded
    started = time.perf_counter()
    older = page.get_by_role("button", name="Load older")
    while older.is_visible():
        older.click()
        page.wait_for_function("() => document.querySelector('.ph-log-older').disabled === false"
                               " || document.querySelector('.ph-log-older').hidden")
    loaded = time.perf_counter() - started
    total = page.evaluate("() => document.querySelector('ph-log').frames.length")
    print(f"a long log ({total} lines; scrolled {pixels} px a frame for 180 frames):")
    line("fetching it all with Load older", f"{loaded * 1000:.0f} ms", "-")
    names = {False: "no scrolling (the machine's floor)", True: "scrolling"}
    for scrolling in (False, True):
        page.evaluate(SCROLL, [scrolling, pixels, 180])  # once to warm up: not counted
        result = page.evaluate(SCROLL, [scrolling, pixels, 180])
        deltas = result["deltas"]
        dropped = sum(1 for d in deltas if d > 1.5 * 1000 / 60)
        name = names[scrolling]
        line(f"{name}: frames dropped", f"{dropped} of {len(deltas)}", "0")
        line(f"{name}: p50 / max frame",
             f"{percentile(deltas, 50):.1f} / {max(deltas):.1f} ms", "16.7 ms")
        line(f"{name}: most lines in the DOM at once", f"{result['most']}", "-")
    context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rolls", type=int, default=200)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--systems", nargs="+", default=["narrative", "sr3", "d12"],
                        choices=["narrative", "sr3", "d12"],
                        help="the game systems whose first load is measured")
    parser.add_argument("--log-lines", type=int, default=2000)
    parser.add_argument("--scroll-px", type=int, default=40,
                        help="pixels scrolled per animation frame (40: 2,400 px/s, a fast wheel)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as driver:
        directory = Path(folder)
        port = free_port()
        process = start_serve(directory / "table.db", port, *SERVE_OPTIONS,
                              log=directory / "serve.log")
        browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=CHROMIUM_ARGS)
        try:
            served = Served(directory, port, process)
            campaign, gm = served.create_campaign("Bench Night", "d12")
            links = {"gm": gm,
                     "ana": served.invite(campaign, gm, "player", "Ana"),
                     "bo": served.invite(campaign, gm, "player", "Bo"),
                     "sam": served.invite(campaign, gm, "spectator", "Sam")}
            print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
            for system in args.systems if args.loads else []:
                system_gm, player = ((gm, links["ana"]) if system == "d12"
                                     else new_table(served, system))
                first_load(browser, system_gm, args.loads, f"the GM's {system}")
                first_load(browser, player, args.loads, f"a player's {system}")
            pages = {}
            for who, link in links.items():
                page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
                page.add_init_script(ARRIVALS)
                page.goto(link)
                page.wait_for_selector(".ph-connection[data-state=live]")
                pages[who] = page
            if args.rolls:
                roll_to_drawn(served, pages, args.rolls)
            for page in pages.values():
                page.context.close()
            if args.log_lines:
                long_log(served, browser, gm, args.log_lines, args.scroll_px)
        finally:
            browser.close()
            process.terminate()
            process.wait(15)


if __name__ == "__main__":
    main()
