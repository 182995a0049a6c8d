"""The page's own waits (reconnecting.js), for the browser tests of its link check that move the
page's clock on (Playwright's ``page.clock``) instead of waiting them out: a dead link is
noticed 9 s after a command and a hung reconnect given up after 10 s, which cost those tests a
minute of idle time a run, on a suite near CI's 10-minute limit.

A test installs the clock before the page loads (``open_page(..., prepare=install_clock)``;
time then flows as usual), waits until the page has started the wait it means to skip (the
timer exists: the request it follows was sent, the attempt opened), then moves the clock past
it (``page.clock.fast_forward``): the timer fires at once, in the page, as it would have. The
waits are read from the reconnecting.js the server serves, so they follow the page's."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from importlib.resources import files

from playwright.sync_api import Page

__all__ = ["ANSWER_DUE_MS", "BACK_SHOWN_MS", "JOIN_DUE_MS", "RECONNECTED_TIMEOUT",
           "SILENCE_MS", "install_clock", "until"]

_RECONNECTING_JS = (files("poolhall.clients") / "web" / "reconnecting.js").read_text()


def _page_wait(name: str) -> int:
    """reconnecting.js's ``export const NAME = <ms>;``."""
    found = re.search(rf"^export const {name} = ([0-9_]+);$", _RECONNECTING_JS, re.MULTILINE)
    assert found, f"reconnecting.js has no `export const {name} = <ms>;`"
    return int(found[1])


ANSWER_DUE_MS = _page_wait("ANSWER_DUE_MS")
"""A command unanswered this long makes the page check its link."""
SILENCE_MS = _page_wait("SILENCE_MS")
"""A check that hears nothing this long gives the socket up."""
JOIN_DUE_MS = _page_wait("JOIN_DUE_MS")
"""An attempt to connect not welcomed this long is given up."""
BACK_SHOWN_MS = _page_wait("BACK_SHOWN_MS")
""""back" is said this long after a join again."""

RECONNECTED_TIMEOUT = 10_000
"""Once the clock is past the page's wait, what is left is real time: the next attempt opened
after at most 0.3 s (0.6 s after a hung one: ``RETRY_DELAYS``, jittered), its handshake, the
join and the catch-up, well under a second on an idle machine: 10 s leaves room on a busy
one."""


def install_clock(page: Page) -> None:
    """``open_page``'s ``prepare``: the page's clock is Playwright's (flowing as usual until a
    test moves it on)."""
    page.clock.install()


def until(page: Page, what: str, done: Callable[[], bool], timeout: float = 10_000) -> None:
    """Wait until ``done()`` (it is asked every 50 ms, Playwright's events of the page heard
    meanwhile); fail saying ``what`` was awaited after ``timeout`` ms."""
    deadline = time.monotonic() + timeout / 1000
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout / 1000:g} s: {what}")
        page.wait_for_timeout(50)
