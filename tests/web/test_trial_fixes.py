"""The fixes found when the table was tried as a GM would: no stray "null" on a spectator's
narrative page, the rule's words (not the browser's bubble) beside a number past its limit, an
error gone once the state it was about has changed, and the focus kept on the control."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served
from tests.web.test_narrative_web import VIEW_WAIT, check_card
from tests.web.test_sr3_browser_table import SAM, create

HAN = {"system": "narrative", "agility": 3,
       "skills": {"Ranged (Light)": {"rank": 2, "characteristic": "agility"}}}


def test_the_narrative_spectator_page_shows_no_null(
        served: Served, open_page: Callable[..., Page]) -> None:
    """A spectator's narrative panel has no opener and no free dice, and no "null" for them."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    cy = open_page(served.invite(campaign, gm_link, "spectator", "Cy"))
    panel = cy.locator("ph-narrative-table")
    expect(panel.locator("ph-narrative-results")).to_be_attached()
    assert "null" not in panel.inner_text()
    assert "null" not in cy.locator("body").inner_text()


def test_an_error_goes_once_the_gm_sets_the_difficulty_and_the_focus_stays_on_roll(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Ana presses Roll with the keyboard before the difficulty is set: refused beside the
    button, which keeps the focus; the GM sets it and the refusal is gone from Ana's page."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": HAN})
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "han"))
    gm = open_page(gm_link)
    ana.locator("ph-narrative-opener form").get_by_role("button", name="Open check").click()
    card = check_card(ana, "han-1")
    expect(card.locator(".ph-nc-notation")).to_have_text("2y1g", timeout=VIEW_WAIT)
    roll = card.get_by_role("button", name="Roll")
    roll.focus()
    ana.keyboard.press("Enter")
    error = card.locator(".ph-nc-actions .ph-error")
    expect(error).to_contain_text("the GM sets the difficulty level of the task prior to the roll")
    expect(roll).to_be_focused()

    gm_card = check_card(gm, "han-1")
    gm_card.get_by_label("difficulty", exact=True).select_option("average")
    gm_card.get_by_role("button", name="Set difficulty").click()
    expect(card.locator(".ph-nc-difficulty")).to_have_text("Average")
    expect(error).to_have_text("")
    expect(gm_card.get_by_role("button", name="Set difficulty")).to_be_hidden()


def test_pool_dice_past_the_limit_get_the_rules_words_beside_the_control(
        served: Served, open_page: Callable[..., Page]) -> None:
    """7 Combat Pool dice on Pistols 6: no browser bubble; the rule's refusal is shown beside
    the Combat Pool field, which is marked invalid; typing again clears it."""
    campaign, gm_link = served.create_campaign("Seattle Nights", "sr3")
    create(served, gm_link, campaign, "sam", "Sam", SAM)
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "sam"))
    served.send(gm_link, {"type": "start_combat", "participants": ["sam"]},
                {"type": "declare_pool_test", "character": "sam", "skill": "pistols",
                 "kind": "combat", "tn": 5})
    card = ana.locator("ph-sr3-declared [data-character=sam]")
    field = card.get_by_label("Combat Pool dice (up to 6)")
    field.fill("7")
    card.get_by_role("button", name="Roll").click()
    error = card.locator("form .ph-error")
    expect(error).to_contain_text("at most 6 Combat Pool dice")
    expect(field).to_have_attribute("aria-invalid", "true")
    assert field.evaluate("(input) => input.validationMessage") != ""  # the browser's own
    assert field.evaluate("(input) => input.validationMessage") not in error.inner_text()
    field.fill("2")
    expect(error).to_have_text("")
    expect(field).not_to_have_attribute("aria-invalid", "true")
