"""The table in a browser: a join link opens it, the token leaves the address bar, free dice."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from playwright.sync_api import Page, expect

from tests.web.conftest import Served, screenshot


def test_a_join_link_opens_the_table_and_its_token_leaves_the_address_bar(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM opens the link `campaign create` printed: the table, and no token in the URL."""
    campaign, link = served.create_campaign("Edge of the Empire", "narrative")
    page = open_page(link)
    expect(page.locator(".ph-title")).to_have_text("Edge of the Empire")
    assert "token" not in page.url
    assert page.url.endswith(f"#campaign={campaign}")
    expect(page.locator("ph-log")).to_contain_text("campaign “Edge of the Empire” created")
    page.reload()  # the token was kept in this browser's storage
    expect(page.locator(".ph-connection")).to_have_attribute("data-state", "live")


def test_free_dice_are_drawn_for_everyone_and_a_bad_expression_is_explained(
        served: Served, open_page: Callable[..., Page]) -> None:
    """A player rolls 3d6: both pages draw the same three dice; `3d` is refused beside the form."""
    campaign, gm_link = served.create_campaign("Dice Night", "d12")
    player_link = served.invite(campaign, gm_link, "player", "Ana")
    gm, player = open_page(gm_link), open_page(player_link)
    form = player.locator(".ph-roll-form")
    form.get_by_label("dice expression").fill("3d")
    form.get_by_role("button", name="Roll").click()
    expect(form.locator(".ph-error")).to_contain_text("number of sides")
    expect(form.get_by_label("dice expression")).to_have_attribute("aria-invalid", "true")
    form.get_by_label("dice expression").fill("3d6")
    form.get_by_role("button", name="Roll").click()
    for page in (gm, player):
        expect(page.locator("[data-type=dice_rolled] svg.ph-die")).to_have_count(3)
    labels = [player.locator("[data-type=dice_rolled] svg.ph-die").nth(i).get_attribute(
        "aria-label") for i in range(3)]
    assert labels == [gm.locator("[data-type=dice_rolled] svg.ph-die").nth(i).get_attribute(
        "aria-label") for i in range(3)]
    assert all(label and label.startswith("d6 showing ") for label in labels)


STORED_TOKENS = "() => JSON.parse(localStorage.getItem('poolhall.tokens') ?? '{}')"


def test_leaving_the_table_asks_first_and_staying_keeps_the_seat(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Ana taps "Leave this table": the page asks first, saying she needs her join link to come
    back (it was shown once). "Stay" (or Escape) keeps her seat; "Yes, leave" forgets it in
    this browser."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana"))
    header = ana.locator(".ph-header")
    leave = header.get_by_role("button", name="Leave this table")
    leave.click()
    expect(header.locator(".ph-confirm")).to_have_text(
        "Leave this table? This browser forgets your seat: you need your join link to come back."
        "Yes, leaveStay")
    expect(header.get_by_role("button", name="Yes, leave")).to_be_focused()
    expect(leave).to_be_hidden()
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")  # still here
    assert campaign in ana.evaluate(STORED_TOKENS)
    screenshot(ana, "leave-question")

    header.get_by_role("button", name="Stay").click()
    expect(header.locator(".ph-confirm")).to_be_hidden()
    expect(leave).to_be_focused()
    ana.reload()  # the seat was kept
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")
    expect(ana.locator(".ph-who")).to_contain_text("you are player")

    leave.click()
    ana.keyboard.press("Escape")  # Escape is "Stay", as a dialog's would be
    expect(header.locator(".ph-confirm")).to_be_hidden()
    expect(leave).to_be_focused()
    leave.click()
    header.get_by_role("button", name="Yes, leave").click()
    expect(ana.get_by_role("form", name="Open a table")).to_be_visible()
    assert ana.evaluate(STORED_TOKENS) == {}
    expect(ana.get_by_role("navigation", name="Tables you joined")).to_have_count(0)


def test_the_logs_times_are_on_the_readers_clock(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Rule (no surprises): a GM in Mumbai (UTC+5:30) reads each line's time on their own
    clock, not the log's UTC (the page showed the UTC hours)."""
    _, link = served.create_campaign("Night", "d12")

    def in_mumbai(page: Page) -> None:
        page.context.new_cdp_session(page).send("Emulation.setTimezoneOverride",
                                                {"timezoneId": "Asia/Kolkata"})

    page = open_page(link, prepare=in_mumbai)
    first = page.locator("ph-log time").first
    expect(first).not_to_have_text("")
    at = datetime.fromisoformat(str(first.get_attribute("datetime")))
    mumbai = at.astimezone(timezone(timedelta(hours=5, minutes=30)))
    assert first.inner_text() == mumbai.strftime("%H:%M")
    assert mumbai.strftime("%H:%M") != at.strftime("%H:%M")
