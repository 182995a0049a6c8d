"""A page open while the operator restores a backup: it is told what happened and what to do.

The restored log ends before events the page already shows, so the page's resume is refused
``diverged``. A person sees the server's words and that reloading the page shows the table as
the server has it now; after the reload it does, with no line the restore took away.
"""

from __future__ import annotations

import sqlite3

from playwright.sync_api import expect

from tests.web.conftest import PageOpener, Served, log_read_through
from tests.web.test_owner_page import expected_outage_only, restart


def test_a_page_open_across_a_restore_says_to_reload_and_a_reload_shows_the_restored_table(
        served: Served, open_page: PageOpener) -> None:
    """The operator backs up, the player rolls twice, the operator restores the backup: the
    player's page says the log was put back and to reload; reloaded, it shows the backup's log."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    ana = open_page(ana_link)
    backup = served.directory / "backup.db"
    with sqlite3.connect(served.directory / "table.db") as live, sqlite3.connect(backup) as copy:
        live.backup(copy)  # what `sqlite3 poolhall.db ".backup ..."` does
    kept = int(served.as_gm(gm_link, "state", campaign)["head"])  # type: ignore[call-overload]
    served.send(ana_link, {"type": "roll", "expression": "1d6", "reason": "lost"},
                {"type": "roll", "expression": "1d8", "reason": "lost too"})
    expect(ana.locator("[data-type=dice_rolled]")).to_have_count(2)

    served.process.terminate()
    served.process.wait(15)
    for stale in ("table.db-wal", "table.db-shm"):
        (served.directory / stale).unlink(missing_ok=True)
    backup.replace(served.directory / "table.db")
    restart(served)

    problem = ana.locator(".ph-problem")
    expect(problem).to_contain_text("your last event is", timeout=20_000)
    expect(problem).to_contain_text("reload this page to see the table as the server has it now")
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "closed")

    ana.reload()  # the page's ~25 files again, and a join from nothing: slow under load
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live",
                                                            timeout=20_000)
    expect(ana.locator(".ph-problem")).to_be_hidden()
    # live means joined: the log's lines are drawn after, and a read before them finds none
    expect(ana.locator("ph-log .ph-log-line").last).to_have_attribute("data-seq", str(kept))
    expect(ana.locator("[data-type=dice_rolled]")).to_have_count(0)
    assert log_read_through(ana) == list(range(1, kept + 1))
    expected_outage_only(open_page)
