"""Private rolls at the browser table: the GM rolls in secret and a player rolls blind; each
page shows only what its member may see (a sealed line says who rolled and how, no dice);
when the GM ends the session the sealed lines turn into the whole rolls, checked by the page."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served
from tests.web.test_page_layout import NO_SIDEWAYS_SCROLL


def _roll(page: Page, expression: str, visibility: str) -> None:
    """Roll free dice from the page's roll form with the visibility chosen beside the button."""
    form = page.locator(".ph-roll-form")
    form.get_by_label("dice expression").fill(expression)
    form.get_by_label("who sees this roll").select_option(visibility)
    form.get_by_role("button", name="Roll").click()


def _line(page: Page, text: str):
    return page.locator("ph-log .ph-log-line", has_text=text)


def test_secret_and_blind_rolls_are_sealed_then_revealed_and_verified(
        served: Served, open_page: PageOpener) -> None:
    """The GM rolls in secret: Ana's page says the GM rolled in secret, with no dice. Ana
    rolls blind: her page shows no result, the GM's page shows the dice. The GM ends the
    session: Ana's page shows both rolls whole, revealed and verified."""
    campaign, gm_link = served.create_campaign("Hidden Hand", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, {"type": "start_session", "title": "Night"})
    gm = open_page(gm_link)
    ana = open_page(ana_link)
    expect(ana.locator(".ph-roll-form select[name=visibility] option")).to_have_text(
        ["public", "blind (GM only)", "self (you + GM)"])
    expect(gm.locator(".ph-roll-form select[name=visibility] option")).to_have_text(
        ["public", "secret (GM only)"])

    _roll(gm, "3d6", "gm")
    sealed = _line(ana, "The GM rolled in secret")
    expect(sealed).to_have_attribute("data-type", "private_roll")
    expect(sealed.locator("svg")).to_have_count(0)
    expect(sealed.locator(".ph-fair")).to_have_count(0)
    expect(_line(gm, "secret: only the GM sees this").locator("svg")).to_have_count(3)

    _roll(ana, "2d10", "blind")
    blind = _line(ana, "You rolled blind: the GM sees the result")
    expect(blind).to_have_attribute("data-type", "private_roll")
    expect(blind.locator("svg")).to_have_count(0)
    seen_by_gm = _line(gm, "blind: only the GM sees this (not Ana)")
    expect(seen_by_gm.locator("svg")).to_have_count(2)
    seqs = [sealed.get_attribute("data-seq"), blind.get_attribute("data-seq")]
    assert seen_by_gm.get_attribute("data-seq") == seqs[1]

    gm.get_by_role("button", name="End game session").click()
    for seq in seqs:
        line = ana.locator(f"ph-log .ph-log-line[data-seq='{seq}']")
        expect(line).to_have_attribute("data-type", "dice_rolled")
        expect(line).to_have_attribute("data-revealed", "true")
        expect(line).to_contain_text("revealed at the session's end")
        expect(line.locator(".ph-fair")).to_have_attribute("data-state", "verified")
    expect(ana.locator("ph-log [data-type=private_roll]")).to_have_count(0)
    expect(ana.locator(f"ph-log .ph-log-line[data-seq='{seqs[0]}'] svg")).to_have_count(3)


def test_a_refused_visibility_is_said_in_plain_words_and_fits_a_phone(
        served: Served, open_page: PageOpener) -> None:
    """On a 360 px phone the choice sits in the roll form without sideways scrolling; a
    visibility the server refuses (a player's ``gm``, put in the list here: the page offers
    it only to the GM) is told in the server's words beside the form, the choice marked."""
    campaign, gm_link = served.create_campaign("Narrow", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    ana = open_page(ana_link, width=360, height=740)
    choice = ana.locator(".ph-roll-form select[name=visibility]")
    expect(choice).to_be_in_viewport()
    assert ana.evaluate(NO_SIDEWAYS_SCROLL)
    choice.evaluate("""(select) => select.append(new Option("gm", "gm"))""")
    _roll(ana, "1d6", "gm")
    error = ana.locator(".ph-roll-form output.ph-error")
    expect(error).to_contain_text("only the gm rolls in secret")
    expect(choice).to_have_attribute("aria-invalid", "true")
    assert ana.evaluate(NO_SIDEWAYS_SCROLL)
