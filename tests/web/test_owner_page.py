"""Opening a table without a terminal: the owner's link `poolhall serve` printed, a campaign
created in the page, a GM invited from it who opens the table with no terminal at all."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.serve_process import start_serve
from tests.web.conftest import ONE_ADDRESS_FOR_EVERYONE, PageOpener, Served
from tests.web.page_clock import BACK_SHOWN_MS, install_clock

OWNER_LINK = re.compile(r"http://127\.0\.0\.1:\d+/owner#token=\S+")


def printed_owner_link(served: Served) -> str:
    """The owner's link, as the real ``poolhall serve`` process printed it."""
    printed = (served.directory / "serve.log").read_text()
    found: list[str] = OWNER_LINK.findall(printed)
    assert len(found) == 1, printed
    return found[0]


def test_the_owner_creates_a_campaign_from_the_printed_link_and_the_gm_opens_the_table(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The owner opens the printed link, creates "Edge of the Empire" (narrative), copies the
    GM's link; the GM opens it in another browser and is at the table as GM."""
    owner = open_page(printed_owner_link(served), live=False)
    expect(owner.locator(".ph-owner-status")).to_contain_text("connected")
    assert "token" not in owner.url  # the admin token left the address bar at once
    expect(owner.locator(".ph-owner-empty")).to_be_visible()
    form = owner.get_by_role("form", name="Create a campaign")
    form.get_by_label("Title").fill("Edge of the Empire")
    form.get_by_label("Game system").select_option("narrative")
    form.get_by_role("button", name="Create").click()
    row = owner.locator("li[data-campaign=edge-of-the-empire]")
    expect(row).to_contain_text("Edge of the Empire")
    expect(row).to_contain_text("narrative dice")
    gm_link = row.get_by_label("GM link for Edge of the Empire").input_value()
    assert gm_link.startswith(served.origin + "/#campaign=edge-of-the-empire&token=ph_")

    gm = open_page(gm_link)
    expect(gm.locator(".ph-title")).to_have_text("Edge of the Empire")
    expect(gm.locator("ph-invite")).to_be_visible()  # the GM's tools: invites, sessions
    # no character yet: the invite form says to create them first (they come with the invite),
    # or to give them later
    expect(gm.locator("ph-invite .ph-invite-hint")).to_contain_text(
        "create the player's characters first")
    expect(gm.locator("ph-invite .ph-invite-hint")).to_contain_text(
        "later, with Characters beside the player")

    # a second GM link for the same campaign, from the list (tokens are shown once each)
    owner.reload()
    row = owner.locator("li[data-campaign=edge-of-the-empire]")
    # the button names its campaign for a screen reader (each row's read the same)
    row.get_by_role("button", name="New GM link for Edge of the Empire", exact=True).click()
    second = row.get_by_label("GM link for Edge of the Empire").input_value()
    assert second != gm_link
    assert second.startswith(served.origin + "/#campaign=")
    co_gm = open_page(second)
    expect(co_gm.locator("ph-invite")).to_be_visible()


def test_the_owner_link_is_printed_on_the_first_start_only(served: Served) -> None:
    """The first start prints the owner's link; a restart on the same database prints the
    token file's path and no link (output often ends up in logs)."""
    printed_owner_link(served)
    served.process.terminate()
    served.process.wait(15)
    from tests.serve_process import free_port, start_serve
    port = free_port()
    again = start_serve(served.directory / "table.db", port,
                        log=served.directory / "again.log")
    try:
        deadline = time.monotonic() + 20
        said = ""
        while "admin token:" not in said and time.monotonic() < deadline:
            time.sleep(0.05)  # the health check may answer before the lines are written
            said = (served.directory / "again.log").read_text()
        assert "/owner#token=" not in said
        assert "admin token: in " in said
    finally:
        again.terminate()
        again.wait(15)


def test_a_wrong_owner_link_says_so(served: Served, open_page: Callable[..., Page]) -> None:
    """A link with a token that is not the admin's opens no owner's page, in plain words."""
    owner = open_page(f"{served.origin}/owner#token=ph_{'x' * 43}", live=False)
    expect(owner.locator(".ph-owner-status")).to_contain_text("does not open the owner's page")
    expect(owner.get_by_role("form", name="Create a campaign")).to_be_hidden()


WEBSOCKET_REFUSED = re.compile(r"console: WebSocket connection to 'ws://127\.0\.0\.1:\d+/' failed")
"""What Chromium logs (a console error) at each try to reach a server that is down: expected
while a test has stopped it, and only then."""


def restart(served: Served) -> subprocess.Popen[bytes]:
    """``poolhall serve`` again on the same port and database (the same links work), after
    ``served.process`` stopped; the caller stops it."""
    process = start_serve(served.directory / "table.db", served.port, *ONE_ADDRESS_FOR_EVERYONE,
                          log=served.directory / "serve.log")
    served.process = process
    return process


def expected_outage_only(open_page: PageOpener) -> None:
    """Drop the console errors of the tries at reaching the stopped server; keep any other."""
    open_page.problems[:] = [problem for problem in open_page.problems
                             if not WEBSOCKET_REFUSED.match(problem)]


def after_the_outage(owner: Page, open_page: PageOpener,
                     process: subprocess.Popen[bytes] | None) -> None:
    """Close the owner's page before its server stops (a page trying again would log
    errors), keep the console errors other than the outage's, and stop the restarted server."""
    owner.close()
    expected_outage_only(open_page)
    if process is not None:
        process.terminate()
        process.wait(15)


def test_the_owner_page_says_when_the_server_is_gone_and_carries_on_once_it_is_back(
        served: Served, open_page: PageOpener) -> None:
    """The trial's evening: the server restarts under an open owner's page. The page says the
    connection is lost; Create and New GM link pressed meanwhile say at once that nothing was
    sent, and stay usable; the page reconnects by itself, says "back", and Create works with no
    reload. Back online after a time offline, the list holds a campaign made meanwhile. (The
    page's clock is moved past the 2.5 s "back" is said.)"""
    owner = open_page(printed_owner_link(served), live=False, prepare=install_clock)
    status = owner.locator(".ph-owner-status")
    expect(status).to_have_text("connected: create a campaign, then send its GM the link.")
    form = owner.get_by_role("form", name="Create a campaign")
    create = form.get_by_role("button", name="Create")
    form.get_by_label("Title").fill("Edge of the Empire")
    create.click()
    edge = owner.locator("li[data-campaign=edge-of-the-empire]")
    expect(edge.get_by_label("GM link for Edge of the Empire")).to_be_visible()

    served.process.terminate()
    served.process.wait(15)
    process: subprocess.Popen[bytes] | None = None
    try:
        expect(status).to_have_text("connection lost: reconnecting…")
        expect(status).to_have_attribute("data-state", "reconnecting")
        form.get_by_label("Title").fill("Dockside Heist")
        form.get_by_label("Game system").select_option("d12")
        create.click()
        expect(form.get_by_role("alert")).to_have_text(re.compile(
            r"^Not connected to the server, so nothing was sent"))
        expect(create).to_be_enabled()
        expect(form.get_by_label("Title")).to_have_value("Dockside Heist")  # kept for the retry
        edge.get_by_role("button", name="Another GM link").click()
        expect(edge.get_by_role("alert")).to_contain_text("Not connected to the server")
        expect(edge.get_by_role("button", name="Another GM link")).to_be_enabled()

        process = restart(served)
        expect(status).to_have_text("back: connected again.", timeout=15_000)  # for 2.5 s
        create.click()  # no reload
        dockside = owner.locator("li[data-campaign=dockside-heist]")
        expect(dockside).to_contain_text("d12 pools")
        expect(dockside.get_by_label("GM link for Dockside Heist")).to_be_visible()
        expect(form.locator("output")).to_be_empty()
        expect(owner.locator(".ph-owner-list li")).to_have_count(2)
        edge.get_by_role("button", name="Another GM link").click()
        expect(edge.locator("output")).to_be_empty()
        second = edge.get_by_label("GM link for Edge of the Empire (GM 2)").input_value()
        assert second.startswith(served.origin + "/#campaign=edge-of-the-empire&token=ph_")
        owner.clock.fast_forward(BACK_SHOWN_MS)
        expect(status).to_have_attribute("data-state", "live")  # "back" is said for a while
        expect(status).to_have_text("connected: create a campaign, then send its GM the link.")

        owner.context.set_offline(True)  # a laptop off the Wi-Fi: the list is not told
        expect(status).to_have_text("connection lost: reconnecting…")
        served.cli("campaign", "create", "Made Meanwhile", "--system", "sr3")
        owner.context.set_offline(False)
        expect(status).to_have_text("back: connected again.", timeout=15_000)
        expect(owner.locator("li[data-campaign=made-meanwhile]")).to_contain_text("Shadowrun 3")
    finally:
        after_the_outage(owner, open_page, process)


def test_a_create_cut_off_by_the_server_s_death_is_sent_again_as_the_same_command(
        served: Served, open_page: PageOpener) -> None:
    """Create is pressed while the server hangs, and the server dies before answering: the form
    says the answer was lost and Create is usable again; pressed once the page is back, it
    sends the same command (id and retry_key), which the server answers as the first try,
    never as a second campaign."""
    owner = open_page(printed_owner_link(served), live=False)
    status = owner.locator(".ph-owner-status")
    expect(status).to_contain_text("connected")
    form = owner.get_by_role("form", name="Create a campaign")
    create = form.get_by_role("button", name="Create")
    form.get_by_label("Title").fill("Edge of the Empire")
    owner.wait_for_load_state("networkidle")  # the icon fetched: only the command is cut off
    served.process.send_signal(signal.SIGSTOP)  # hangs: the frame waits unread
    process: subprocess.Popen[bytes] | None = None
    try:
        create.click()
        expect(create).to_be_disabled()  # sent, not answered
        served.process.kill()
        served.process.wait(15)
        expect(form.get_by_role("alert")).to_have_text(re.compile(
            r"^The connection was lost before the server answered"))
        expect(create).to_be_enabled()
        expect(status).to_have_text("connection lost: reconnecting…")

        process = restart(served)
        expect(status).to_have_text("back: connected again.", timeout=15_000)
        expect(owner.locator(".ph-owner-empty")).to_be_visible()  # the first try never ran
        create.click()
        row = owner.locator("li[data-campaign=edge-of-the-empire]")
        expect(row.get_by_label("GM link for Edge of the Empire")).to_be_visible()
        expect(owner.locator(".ph-owner-list li")).to_have_count(1)
    finally:
        after_the_outage(owner, open_page, process)
    creates = [message for message in map(json.loads, open_page.sent)
               if message["type"] == "create_campaign"]
    assert len(creates) == 2, creates
    assert creates[0]["id"] == creates[1]["id"]
    assert creates[0]["retry_key"] == creates[1]["retry_key"]


def test_a_blank_title_is_asked_for_by_the_form_s_own_label(
        served: Served, open_page: Callable[..., Page]) -> None:
    """A title of spaces (or none) is the page's to refuse, in the words of its label: the
    server's "the name holds at least 1 characters" named a field this form calls Title."""
    owner = open_page(printed_owner_link(served), live=False)
    expect(owner.locator(".ph-owner-status")).to_contain_text("connected")
    form = owner.get_by_role("form", name="Create a campaign")
    title = form.get_by_label("Title")
    for typed in ("   ", ""):
        title.fill(typed)
        form.get_by_role("button", name="Create").click()
        expect(form.locator("output.ph-error")).to_have_text("give the campaign a title")
        expect(title).to_have_attribute("aria-invalid", "true")
        expect(title).to_be_focused()
    title.fill("Night of the Long Dice")  # typing clears the complaint, and the title is taken
    expect(form.locator("output.ph-error")).to_have_text("")
    expect(title).not_to_have_attribute("aria-invalid", "true")
    form.get_by_role("button", name="Create").click()
    expect(owner.locator("li[data-campaign=night-of-the-long-dice]")).to_contain_text(
        "Night of the Long Dice")
