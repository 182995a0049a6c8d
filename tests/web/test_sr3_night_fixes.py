"""What the Shadowrun game night found, each in a browser: skills typed as a character sheet
writes them, the skill row cut to "qui…" in the GM's side column, odds of nearly certain tests
reading "100.00%", a Conditions card that did not say what the wounds do, and a Karma reroll
offered on a secret test the server will not reroll."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served, screenshot
from tests.web.test_private_rolls_page import sr3_sealed_test_card
from tests.web.test_sr3_browser_table import create

ROOM = """(select) => {
  // the room the widest option leaves beside it (the arrow takes about 20 px of it)
  const style = getComputedStyle(select);
  const probe = document.createElement("span");
  probe.style.font = style.font;
  probe.style.position = "absolute";
  probe.style.whiteSpace = "pre";
  document.body.append(probe);
  let widest = 0;
  for (const option of select.options) {
    probe.textContent = option.textContent;
    widest = Math.max(widest, probe.getBoundingClientRect().width);
  }
  probe.remove();
  return select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
    - widest;
}"""

TROLL = {"system": "sr3", "body": 10, "quickness": 4, "strength": 9, "charisma": 1,
         "intelligence": 3, "willpower": 3, "karma_earned": 30}
"""Body 10: ten dice at TN 3 fail once in 59,049 tests."""


def test_skills_typed_as_a_sheet_writes_them_are_saved_and_their_row_is_not_cut(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM types "Unarmed Combat" and "Etiquette (Matrix)" as their sheet says: the server
    took ids only and answered "'unarmed combat' is not a skill id". Now the form saves them
    as "unarmed-combat" and "etiquette-matrix" (and shows so) and the table offers "Unarmed
    combat 4". In the side column of a laptop's table the skill's attribute and kind read
    "qui…" and "co…": each now has room for its longest choice."""
    _, gm_link = served.create_campaign("Seattle Shadows", "sr3")
    gm = open_page(gm_link)
    form = gm.locator("ph-sr3-character form")
    form.get_by_label("Name").fill("Sam Shadow")
    for skill, rating, attribute, kind in (("Unarmed Combat", "4", "strength", "combat"),
                                           ("Etiquette (Matrix)", "3", "charisma", "social")):
        form.get_by_role("button", name="Add a skill").click()
        row = form.locator("tr.ph-sr3-skill").last
        row.get_by_label("skill", exact=True).fill(skill)
        row.get_by_label("rating").fill(rating)
        row.get_by_label("linked attribute").select_option(attribute)
        row.get_by_label("kind").select_option(kind)
    form.get_by_role("button", name="Create character").click()
    expect(gm.locator("ph-sr3-sheets [data-character=sam-shadow]")).to_be_visible()
    expect(form.locator(".ph-error")).to_be_empty()
    expect(form.get_by_label("skill", exact=True)).to_have_count(2)
    expect(form.get_by_label("skill", exact=True).first).to_have_value("unarmed-combat")
    expect(form.get_by_label("skill", exact=True).last).to_have_value("etiquette-matrix")
    roll = gm.locator("ph-sr3-declare").get_by_label("Roll", exact=True)
    expect(roll.locator("option[value='skill:unarmed-combat']")).to_have_text("Unarmed combat 4")
    expect(roll.locator("option[value='skill:etiquette-matrix']")).to_have_text(
        "Etiquette matrix 3")

    selects = form.locator("tr.ph-sr3-skill select")
    expect(selects).to_have_count(4)
    for select in selects.all():
        assert select.evaluate(ROOM) >= 20, select.get_attribute("aria-label")
    screenshot(gm, "sr3-night-skills-1280")


def test_odds_nearly_certain_read_as_not_quite_certain(
        served: Served, open_page: Callable[..., Page]) -> None:
    """A troll's Body 10 against TN 3 fails once in 59,049 tests: its odds read "> 99.99%",
    never "100.00%", which told the table it could not fail. Then he is hurt: his Conditions
    card gave only "Physical boxes 6"; it now says what the boxes do ("Serious (Physical): +3
    TN, −3 initiative"), and once his Stun monitor is full, that he does not act."""
    campaign, gm_link = served.create_campaign("Seattle Shadows", "sr3")
    create(served, gm_link, campaign, "rook", "Rook", TROLL)
    gm = open_page(gm_link)
    declare = gm.locator("ph-sr3-declare")
    declare.get_by_label("Roll", exact=True).select_option("attribute:body")
    declare.get_by_label("Test", exact=True).select_option("damage_resistance")
    declare.get_by_label("Target number").fill("3")
    declare.get_by_role("button", name="Declare").click()
    row = gm.locator("ph-sr3-declared [data-character=rook] tbody tr").first
    expect(row.locator("td").nth(1)).to_have_text("> 99.99%")
    expect(gm.locator("ph-sr3-declared")).not_to_contain_text("100.00%")

    # the Conditions card says what the boxes do, as the server applies them
    conditions = gm.locator("ph-conditions [data-character=rook]")
    expect(conditions.locator(".ph-condition-effect")).to_be_hidden()  # unhurt
    served.send(gm_link, {"type": "set_condition", "character": "rook", "condition": "physical",
                          "value": 6})
    expect(conditions).to_contain_text("Physical boxes 6")
    expect(conditions.locator(".ph-condition-effect")).to_have_text(
        "Serious (Physical): +3 TN, −3 initiative")
    served.send(gm_link, {"type": "set_condition", "character": "rook", "condition": "stun",
                          "value": 10})
    expect(conditions.locator(".ph-condition-effect")).to_have_text(
        "Unconscious: does not act")


def test_a_secret_test_offers_no_karma_reroll_until_the_session_ends(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM's secret Perception test showed "Reroll failures with Karma Pool", and pressing
    it was refused (a private test is not rerolled: the Karma Pool is the table's to see).
    Its card now says it was rolled in secret and offers no reroll; once the session ends
    and the seed is revealed, the mark is gone and the reroll is offered, as the server then
    allows it. The players never saw the card before the reveal."""
    campaign, gm_link = served.create_campaign("Seattle Shadows", "sr3")
    create(served, gm_link, campaign, "rook", "Rook", TROLL)
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "rook")
    served.send(gm_link, {"type": "start_session", "title": "The docks"})
    gm, ana = open_page(gm_link), open_page(ana_link)
    declare = gm.locator("ph-sr3-declare")
    declare.get_by_label("Roll", exact=True).select_option("attribute:intelligence")
    declare.get_by_label("Test", exact=True).select_option("perception")
    declare.get_by_label("Target number").fill("5")
    declare.get_by_label("who sees this roll").select_option("gm")
    declare.get_by_role("button", name="Roll in private").click()
    sr3_sealed_test_card(gm, ana, "rolled in secret: only the GM sees it")
    card = gm.locator("ph-sr3-tests [data-test='1']")
    screenshot(gm, "sr3-night-secret-test-1280")

    served.send(gm_link, {"type": "end_session"})
    expect(card.locator(".ph-private-mark")).to_have_count(0)
    expect(card.get_by_role("button", name="Reroll failures with Karma Pool")).to_be_visible()
    revealed = ana.locator("ph-sr3-tests [data-test='1']")
    expect(revealed).to_be_visible()
    expect(revealed.get_by_role("button", name="Reroll failures with Karma Pool")).to_be_visible()


def test_an_open_tests_karma_button_says_every_die_is_rerolled_and_the_total_lost(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Rule (sr3-dice-pools.md, Karma Pool 3): an open test has no failures: Karma Pool
    rerolls all its dice and the earlier result is lost. Its button said "Reroll failures",
    and a GM lost a highest total of 17 for a 9 unwarned; a test with a TN keeps the words."""
    campaign, gm_link = served.create_campaign("Seattle Shadows", "sr3")
    create(served, gm_link, campaign, "rook", "Rook", TROLL)
    served.send(gm_link,
                {"type": "roll_pool_test", "character": "rook", "attribute": "body",
                 "open": True},
                {"type": "roll_pool_test", "character": "rook", "attribute": "body", "tn": 4})
    gm = open_page(gm_link)
    open_card = gm.locator("ph-sr3-tests [data-test='1']")
    expect(open_card.get_by_role("button", name="Reroll every die with Karma Pool (this total "
                                 "is lost)")).to_be_visible()
    tn_card = gm.locator("ph-sr3-tests [data-test='2']")
    expect(tn_card.get_by_role("button", name="Reroll failures with Karma Pool")).to_be_visible()
    open_card.get_by_role("button", name="Reroll every die with Karma Pool (this total is "
                          "lost)").click()
    expect(open_card).to_contain_text("rerolled 1 time with Karma Pool")


def test_rolling_the_only_declared_test_leaves_the_focus_by_its_result(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Ana rolls the only declared test by keyboard: its card goes, and the declared tests'
    part with it (hidden once empty). The focus went to the whole "The table" section, 1,328 px
    tall with its top off the screen, and the next Tab to the top of the Declare form; it is
    now on the heading of the Latest tests, on the screen, and the next Tab goes into them."""
    campaign, gm_link = served.create_campaign("Seattle Shadows", "sr3")
    create(served, gm_link, campaign, "rook", "Rook", TROLL)
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "rook"))
    served.send(gm_link, {"type": "roll_pool_test", "character": "rook", "attribute": "body",
                          "tn": 4},
                {"type": "declare_pool_test", "character": "rook", "attribute": "body",
                 "kind": "damage_resistance", "tn": 3})
    card = ana.locator("ph-sr3-declared [data-character=rook]")
    # the button says whose test it rolls (each card's read "Roll" alone)
    card.get_by_role("button", name="Roll Rook's test", exact=True).press("Enter")
    expect(ana.locator("ph-sr3-tests [data-test='2']")).to_be_visible()
    expect(card).to_have_count(0)
    latest = ana.get_by_role("heading", name="Latest tests")
    expect(latest).to_be_focused()
    expect(latest).to_be_in_viewport()
    ana.keyboard.press("Tab")
    assert ana.evaluate("document.activeElement.closest('ph-sr3-tests') !== null")
