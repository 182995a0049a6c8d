"""A roll pressed as the server stops (SIGTERM: a restart, a rolling upgrade behind a proxy,
docs: several-servers.md): the server refuses it ``shutting_down`` unapplied, and the page sends
it again, same id, once it is welcomed back; the player never sees the refusal."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served
from tests.web.page_clock import RECONNECTED_TIMEOUT
from tests.web.test_owner_page import expected_outage_only, restart


def _refused_shutting_down(open_page: PageOpener, page: Page) -> list[str]:
    """The ids of the page's commands the server refused ``shutting_down``."""
    answers = [json.loads(frame) for frame in open_page.received_from(page)]
    return [answer["id"] for answer in answers
            if answer["type"] == "error" and answer["code"] == "shutting_down"]


def test_a_roll_pressed_as_the_server_stops_is_applied_once_after_the_page_reconnects(
        served: Served, open_page: PageOpener) -> None:
    """The log's writes are held up (a write lock on the file, as a slow disk would): the
    GM's roll from a script waits in the campaign's queue, so the stop (SIGTERM) drains
    slowly, refusing what comes meanwhile. Ana presses Roll then: refused ``shutting_down``,
    her form shows no error and waits; the server stops, starts again on the same file, her
    page comes back and sends the roll again, same id: it is in the log once."""
    campaign, gm_link = served.create_campaign("Night", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    ana = open_page(ana_link)
    expect(ana.locator("ph-d12-table")).not_to_be_empty()
    form = ana.locator(".ph-roll-form")
    try:
        _press_roll_as_the_server_stops(served, open_page, ana, gm_link)
        expect(form.locator(".ph-error")).to_be_empty()  # not shown as a refusal
        expect(form.get_by_role("button", name="Roll")).to_be_disabled()  # still on its way
        restart(served)  # the fixture stops it
        expect(ana.locator(".ph-connection")).to_have_text("back", timeout=RECONNECTED_TIMEOUT)
        expect(ana.locator("[data-type=dice_rolled]", has_text="as it stops")).to_have_count(1)
        expect(form.get_by_role("button", name="Roll")).to_be_enabled()
        expect(form.locator(".ph-error")).to_be_empty()
        rolls = cast("list[dict[str, Any]]", served.as_gm(gm_link, "state", campaign)["rolls"])
        assert sorted(roll["reason"] for roll in rolls) == ["as it stops", "queued"]
        sent = [json.loads(frame) for frame in open_page.sent_from(ana)]
        roll_ids = [message["id"] for message in sent if message["type"] == "roll"]
        assert len(roll_ids) == 2  # sent, refused, sent again once back
        assert len(set(roll_ids)) == 1  # with its id
    finally:
        ana.close()  # before the fixture stops the server: a page trying again logs errors
        expected_outage_only(open_page)


def _press_roll_as_the_server_stops(served: Served, open_page: PageOpener, ana: Page,
                                    gm_link: str) -> None:
    """Hold the log's writes, queue the GM's roll from a script, stop the server (SIGTERM),
    and press Ana's Roll while it drains; let the writes go and wait for the server to exit
    (the queued roll acknowledged first)."""
    lock = sqlite3.connect(served.directory / "table.db", isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # the server's writes wait (up to its 5 s busy timeout)
    with ThreadPoolExecutor(1) as script:
        try:
            queued = script.submit(served.send, gm_link,
                                   {"type": "roll", "expression": "1d4", "reason": "queued"})
            time.sleep(0.5)  # in the campaign's queue, its write waiting for the lock
            served.process.send_signal(signal.SIGTERM)
            time.sleep(0.3)  # the server is stopping: it refuses what it reads
            form = ana.locator(".ph-roll-form")
            form.get_by_label("dice expression").fill("2d6")
            form.get_by_label("reason").fill("as it stops")
            form.get_by_role("button", name="Roll").click()
            deadline = time.monotonic() + 3
            while not _refused_shutting_down(open_page, ana) and time.monotonic() < deadline:
                ana.wait_for_timeout(20)
        finally:
            lock.rollback()
            lock.close()
        assert len(_refused_shutting_down(open_page, ana)) == 1  # the stop met Ana's roll
        assert served.process.wait(20) == 0
        assert len(queued.result(20)) == 1  # the queued roll was finished before the stop
