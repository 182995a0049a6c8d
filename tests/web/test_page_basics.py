"""The table in a browser: a join link opens it, the token leaves the address bar, free dice."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served


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
