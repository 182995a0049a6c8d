"""The forms and the page's width as three groups found them on a phone and a tablet: an error
that names a field folded away on a phone shows that field, an invite that gets a numbered
name is announced under it, and the page's own buttons follow the window's width."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served
from tests.web.test_phone_layout import CHARACTER


def test_on_a_phone_whose_test_it_is_opens_more_and_focuses_as_character(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM of an SR3 table types ``6d6 tn5`` on a 390 px phone: the server asks whose test
    it is, naming the character field, which the form folds under More. The form opens More and
    the focus is on "as character", marked invalid (it was marked unseen, More closed)."""
    _, gm_link = served.create_campaign("Redmond Nights", "sr3")
    served.send(gm_link, *[{"type": "create_character", "character": c, "name": c.title(),
                            "stats": CHARACTER["sr3"]} for c in ("sam", "kat")])
    gm = open_page(gm_link, width=390, height=844)
    form = gm.get_by_role("form", name="Roll dice")
    character = form.get_by_label("as character")
    # the table is drawn (the page says "connected" before: an error shown earlier is cleared)
    expect(character.locator("option")).to_have_text(["no character", "Sam", "Kat"])
    expect(character).to_be_hidden()  # folded under More
    form.get_by_label("dice expression").fill("6d6 tn5")
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(form.locator(":scope > output.ph-error")).to_contain_text("say whose test it is")
    expect(character).to_be_visible()
    expect(character).to_have_attribute("aria-invalid", "true")
    expect(character).to_be_focused()
    expect(form.get_by_role("button", name="Less")).to_have_attribute("aria-expanded", "true")
    character.select_option("sam")
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(gm.locator("ph-log .ph-log-line").last).to_contain_text("Sam")


def test_an_invite_that_gets_a_numbered_name_is_announced_under_it(
        served: Served, open_page: Callable[..., Page]) -> None:
    """With a Fin at the table, the GM invites "Fin" again: the member made is "Fin 2", and the
    page says the link is Fin 2's, in its words and its field's label (it said "Join link for
    Fin", the other member's name); the link opens Fin 2's seat."""
    campaign, gm_link = served.create_campaign("Dockside", "d12")
    served.invite(campaign, gm_link, "player", "Fin")
    gm = open_page(gm_link)
    invite = gm.locator("ph-invite")
    invite.get_by_label("Name").fill("Fin")
    invite.get_by_role("button", name="Invite").click()
    expect(invite.get_by_role("status").first).to_have_text(
        "Join link for Fin 2: give it to them privately. It is shown only this once.")
    expect(invite.get_by_role("button", name="Copy")).to_be_focused()
    link = invite.get_by_label("join link for Fin 2", exact=True).input_value()
    open_page(link)
    expect(gm.locator("ph-members li", has_text="Fin 2")).to_have_class("ph-online")


def test_the_page_buttons_go_back_to_the_header_when_a_tablet_in_the_sheet_view_widens(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM opens the Sheet view on a 390 px screen (the page's two buttons at its end), then
    the tablet turns to landscape (1280 px: no views, no bar): **Dice roll animation** and
    **Leave this table** are in the header again (they stayed at the end of the side column),
    and back at the Sheet view's end once it narrows again."""
    _, gm_link = served.create_campaign("Dockside", "d12")
    gm = open_page(gm_link, width=390, height=844)
    gm.get_by_role("navigation", name="Views").get_by_role("button", name="Sheet").click()
    header, end = gm.locator(".ph-header"), gm.locator(".ph-page-end")
    expect(end.get_by_role("button", name="Leave this table")).to_be_visible()
    gm.set_viewport_size({"width": 1280, "height": 900})
    for name in ("Dice roll animation", "Leave this table"):
        expect(header.get_by_role("button", name=name)).to_be_in_viewport()
    expect(end).to_be_empty()
    gm.set_viewport_size({"width": 390, "height": 844})
    expect(end.get_by_role("button", name="Dice roll animation")).to_be_visible()
    expect(header.get_by_role("button")).to_have_count(0)
