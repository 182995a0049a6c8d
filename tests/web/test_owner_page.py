"""Opening a table without a terminal: the owner's link `poolhall serve` printed, a campaign
created in the page, a GM invited from it who opens the table with no terminal at all."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served

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
    row.get_by_role("button", name="New GM link").click()
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
