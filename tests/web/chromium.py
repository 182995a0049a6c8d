"""One Playwright driver and one Chromium per test worker, for all its browser tests.

Started for a worker's first browser test and kept for the next (starting the driver and the
browser cost about 1.2 s, and the browser tests of 25 modules each paid it on both workers);
stopped before the worker's first test of another folder (:func:`stop_before`), because
Playwright's sync driver runs an event loop of its own on the main thread while it is open,
and an asyncio test cannot run beside it. The browser tests are collected last
(``tests/web``), so a worker starts it once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

__all__ = ["CHROMIUM_ARGS", "Chromium", "KEY", "stop_before"]

CHROMIUM_ARGS = [
    # what a headless Chromium needs on a closed machine as root (see the env notes): no
    # sandbox (root), no GPU, and none of the background connections a closed network refuses
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


class Chromium:
    """The worker's driver and browser, started on first use (and again if the browser
    died, so one crash costs one test, not the rest of the worker's)."""

    def __init__(self, executable: str) -> None:
        self._executable = executable
        self._driver: Playwright | None = None
        self._browser: Browser | None = None

    def browser(self) -> Browser:
        if self._browser is not None and not self._browser.is_connected():
            self.stop()
        if self._browser is None:
            if not Path(self._executable).exists():
                pytest.fail(f"no Chromium at {self._executable}: install Debian's chromium "
                            "(`apt-get install chromium`) or set POOLHALL_CHROMIUM")
            self._driver = sync_playwright().start()
            self._browser = self._driver.chromium.launch(
                executable_path=self._executable, headless=True, args=CHROMIUM_ARGS)
        return self._browser

    def stop(self) -> None:
        if self._browser is not None:
            if self._browser.is_connected():
                self._browser.close()
            self._browser = None
        if self._driver is not None:
            self._driver.stop()
            self._driver = None


KEY = pytest.StashKey[Chromium]()
"""Where a worker's :class:`Chromium` is kept (the session's config stash)."""


def stop_before(item: pytest.Item) -> None:
    """Stop the worker's Chromium before a test of another folder than ``tests/web``."""
    chromium = item.config.stash.get(KEY, None)
    if chromium is not None and not item.nodeid.startswith("tests/web/"):
        chromium.stop()
