"""A long log in the page: only the lines near the view are in the DOM, yet it reads as the
whole log — scrolling to the top shows the first lines, older lines fetched above the view and
new lines arriving below it leave what one reads where it is, and a view at the bottom follows
the newest line (tests/bench/browser_table.py measures how fast it scrolls)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served, logs_read_through, serving

ROLLS = 300
SCRIPTED = ("--member-rate", "1000", "--member-burst", "1000",
            "--campaign-rate", "1000", "--campaign-burst", "1000")
"""The GM's script rolls 300 times in a row (the default member rate allows 10 a second)."""

SETTLED = """async (list) => {
  // keyboard scrolling is animated: wait until the view has stood still for 400 ms (counted
  // in time, not frames: on a busy machine the animation of the last key may start frames
  // after the key, and a few still frames before it read as settled)
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  let last = list.scrollTop;
  let since = performance.now();
  for (;;) {
    await frame();
    if (list.scrollTop !== last) {
      last = list.scrollTop;
      since = performance.now();
    } else if (performance.now() - since >= 400) {
      return;
    }
  }
}"""

TOP_LINE = """(list) => {
  // the line at the top of the list's view, and where it is on the screen
  const top = list.getBoundingClientRect().top;
  const line = [...list.children].find((li) => li.getBoundingClientRect().bottom > top + 1);
  return {seq: Number(line.dataset.seq), y: line.getBoundingClientRect().top};
}"""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The table's server, letting one member send a few hundred commands at once."""
    yield from serving(tmp_path, *SCRIPTED)


def next_frames(page: Page) -> None:
    """Wait until the page has drawn twice (a person resizing a window takes longer)."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() =>"
                  " requestAnimationFrame(done)))")


def top_line(page: Page) -> dict[str, float]:
    """The seq of the line at the top of the log's view, and its y on the screen."""
    line: dict[str, float] = page.locator("ph-log .ph-log-lines").evaluate(TOP_LINE)
    return line


def steady_top_line(page: Page) -> dict[str, float]:
    """:func:`top_line` once two looks, each after the view stood still, agree: on a loaded
    machine (load 10) a frame can come late enough that an animation still running reads as
    settled, and a line read then was not where the view stopped."""
    listed = page.locator("ph-log .ph-log-lines")
    listed.evaluate(SETTLED)
    line = top_line(page)
    for _ in range(10):
        listed.evaluate(SETTLED)
        again = top_line(page)
        if again == line:
            return line
        line = again
    raise AssertionError(f"the log's view never stood still: last at {line}")


def press(page: Page, key: str, times: int = 1) -> None:
    """Keys pressed in the focused log, then its (animated) scrolling waited out."""
    for _ in range(times):
        page.keyboard.press(key)
    page.locator("ph-log .ph-log-lines").evaluate(SETTLED)


def test_a_long_log_keeps_only_the_lines_near_the_view_and_reads_whole(
        served: Served, open_page: PageOpener) -> None:
    """After 300 rolls the GM (desktop) and Ana (phone) open the table: a few dozen lines are in
    the page, the scrollbar spans the whole log, the top shows the campaign's first line, lines
    arriving or fetched out of sight never move what they read, and at the bottom they follow."""
    campaign, gm_link = served.create_campaign("Long Night", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, *({"type": "roll", "expression": "3d6" if n % 3 else "12d6",
                            "reason": "a long reason that wraps on a phone " * (n % 4)}
                           for n in range(ROLLS)))
    head = int(str(served.as_gm(gm_link, "state", campaign)["head"]))
    gm, ana = open_page(gm_link), open_page(ana_link, width=360, height=800)
    # a phone shows one view at a time (test_phone_layout.py): Ana taps the log's
    ana.get_by_role("navigation", name="Views").get_by_role("button", name="Log").click()
    for page in (gm, ana):
        page.locator("ph-log").scroll_into_view_if_needed()
        lines = page.locator("ph-log li[data-seq]")
        expect(lines.last).to_have_attribute("data-seq", str(head))
        expect(lines.last).to_be_in_viewport()  # joined at the bottom

    # Ana drags the scrollbar to the top of the 50 lines her page joined with: the page fetches
    # the older ones above them; the line she reads stays where it is
    ana.locator(".ph-log-lines").evaluate("(list) => { list.scrollTop = 0; }")
    expect(ana.get_by_role("button", name="Load older")).to_be_hidden()  # the whole log is here
    after = top_line(ana)
    top = ana.locator(".ph-log-lines").evaluate("(list) => list.getBoundingClientRect().top")
    assert after["seq"] == head - 49, (after, top)
    assert abs(after["y"] - top) < 1, (after, top)
    assert ana.locator("ph-log li").count() < 100  # of 303 lines

    # the GM fetches the rest with the button, then goes to the top by keyboard
    gm.get_by_role("button", name="Load older").click()
    expect(gm.get_by_role("button", name="Load older")).to_be_hidden()
    listed = gm.locator(".ph-log-lines")
    listed.focus()
    press(gm, "Home")
    first = gm.locator("ph-log li[data-seq='1']")
    expect(first).to_be_in_viewport()
    expect(first).to_contain_text("campaign “Long Night” created")
    assert gm.locator("ph-log li").count() < 100
    sizes = listed.evaluate("(list) => [list.scrollHeight, list.clientHeight]")
    assert sizes[0] > 20 * sizes[1], f"the scrollbar does not span the whole log: {sizes}"

    # halfway down, the GM reads; Ana rolls: the new lines land out of sight
    press(gm, "PageDown", 12)
    reading = steady_top_line(gm)
    assert 1 < reading["seq"] < head - 20
    served.send(ana_link, *({"type": "roll", "expression": "2d6", "reason": f"while you read {n}"}
                            for n in range(3)))
    expect(gm.locator("ph-log .ph-log-line").first).to_have_attribute(
        "aria-setsize", str(head + 3))  # the log grew ...
    expect(gm.get_by_role("log", name="New log lines")).to_contain_text("while you read 2")
    still = steady_top_line(gm)  # a view the new lines moved stays moved: this still sees it
    assert still["seq"] == reading["seq"], (reading, still)
    assert abs(still["y"] - reading["y"]) < 1, (reading, still)
    expect(gm.locator("ph-log li", has_text="while you read 2")).to_have_count(0)  # ... unseen

    # at the bottom the view follows each new line
    for page in (gm, ana):
        page.locator(".ph-log-lines").focus()
        press(page, "End")
        expect(page.locator("ph-log li", has_text="while you read 2")).to_be_in_viewport()
    served.send(ana_link, {"type": "roll", "expression": "1d20", "reason": "the last one"})
    for page in (gm, ana):
        expect(page.locator("ph-log li", has_text="the last one")).to_be_in_viewport()
    # Ana's window grows very tall and back (the log's list with it): she still follows the log
    ana.set_viewport_size({"width": 360, "height": 3000})
    next_frames(ana)
    ana.set_viewport_size({"width": 360, "height": 800})
    next_frames(ana)
    served.send(ana_link, {"type": "roll", "expression": "1d20", "reason": "after the picture"})
    expect(ana.locator("ph-log li", has_text="after the picture")).to_be_in_viewport()

    # read through, top to bottom: every line once, in order
    whole = list(range(1, head + 6))
    assert logs_read_through(gm, ana) == [whole, whole]


SCROLL_AS_IT_ARRIVES = """(list) => {
  // the reader scrolls up with the wheel in the very frame a new line arrives (the log has
  // just put its view at the bottom for it, and that scroll event is still to come)
  window.__scrolled = false;
  new MutationObserver((changes, observer) => {
    if (!changes.some((change) => [...change.addedNodes].some(
        (node) => node.textContent?.includes("as you scroll")))) return;
    observer.disconnect();
    list.dispatchEvent(new WheelEvent("wheel", {deltaY: -600}));
    list.scrollTop = Math.round(list.scrollHeight / 3);
    window.__scrolled = true;
  }).observe(list, {childList: true});
}"""


def test_a_reader_scrolling_as_a_line_arrives_is_not_taken_back_to_the_bottom(
        served: Served, open_page: PageOpener) -> None:
    """The log takes the scroll event that follows its own placement for its own, without
    reading where the list is; a reader who scrolled before that event came keeps their
    place when the next line arrives."""
    campaign, gm_link = served.create_campaign("Scroll Night", "d12")
    served.send(gm_link, *({"type": "roll", "expression": "3d6"} for _ in range(60)))
    gm = open_page(gm_link)
    listed = gm.locator("ph-log .ph-log-lines")
    expect(gm.locator("ph-log li[data-seq]").last).to_be_in_viewport()
    listed.evaluate(SCROLL_AS_IT_ARRIVES)
    served.send(gm_link, {"type": "roll", "expression": "1d6", "reason": "as you scroll"})
    gm.wait_for_function("() => window.__scrolled")
    next_frames(gm)
    reading = steady_top_line(gm)
    assert reading["seq"] < 55, reading  # a line a third of the way down, drawn there
    served.send(gm_link, {"type": "roll", "expression": "1d6", "reason": "after you scrolled"})
    expect(gm.get_by_role("log", name="New log lines")).to_contain_text("after you scrolled")
    next_frames(gm)
    assert steady_top_line(gm) == reading
    expect(gm.locator("ph-log li", has_text="after you scrolled")).not_to_be_in_viewport()
