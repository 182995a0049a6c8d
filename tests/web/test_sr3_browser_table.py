"""The Shadowrun 3 table in four browsers: a Combat Turn with initiative, a declared test drawing
Combat Pool dice, a Karma Pool reroll, pools refreshing at the next turn; the GM's character
form."""

from __future__ import annotations

import json
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from tests.serve_process import poolhall
from tests.web.conftest import Served, heard, listen, screenshot

SAM = {"system": "sr3", "body": 4, "quickness": 5, "strength": 3, "charisma": 3,
       "intelligence": 5, "willpower": 4, "karma_earned": 10,
       "skills": {"pistols": {"rating": 6, "attribute": "quickness", "kind": "combat"}}}
"""Combat Pool (5 + 5 + 4) // 2 = 7; Karma Pool 10 // 10 = 1."""
ROOK = {"system": "sr3", "body": 6, "quickness": 4, "strength": 6, "charisma": 2,
        "intelligence": 3, "willpower": 3, "initiative_dice": 2,
        "skills": {"clubs": {"rating": 5, "attribute": "strength", "kind": "combat"}}}


def create(served: Served, gm_link: str, campaign: str, character: str, name: str,
           stats: dict[str, object]) -> None:
    """The GM creates a character over the Python client (the form has its own test)."""
    served.send(gm_link, {"type": "create_character", "character": character, "name": name,
                          "stats": stats})


def pool_left(page: Page, character: str, pool: str = "combat") -> Locator:
    return page.locator(f"ph-sr3-combat [data-character={character}] [data-pool={pool}] "
                        ".ph-sr3-left")


def _start_combat(gm: Page, everyone: tuple[Page, ...]) -> None:
    """The GM starts a combat: refused with no one ticked, then with Sam and Rook; every page
    shows the first Combat Turn, its initiative dice, Sam's full Combat Pool, and who acts
    first (never "acts now": nobody records who has acted within a pass)."""
    start = gm.locator("ph-sr3-combat form")
    for name in ("Sam", "Rook"):
        start.get_by_label(name).uncheck()
    start.get_by_role("button", name="Start combat").click()
    expect(start.locator(".ph-error")).to_have_text("tick the characters who fight")
    for name in ("Sam", "Rook"):
        start.get_by_label(name).check()
    start.get_by_role("button", name="Start combat").click()
    for page in everyone:
        expect(page.locator("ph-sr3-combat h2")).to_have_text("Combat Turn 1 · pass 1")
        expect(page.locator("ph-sr3-combat .ph-sr3-combatant")).to_have_count(2)
        expect(pool_left(page, "sam")).to_have_text("7/7")
        expect(page.locator("[data-type=initiative_scores_rolled] svg.ph-die")).to_have_count(3)
        # the table keeps passes, not Combat Phases: the first in the order "acts first"
        expect(page.locator("ph-sr3-combat .ph-sr3-badge")).to_have_text("acts first")

def test_a_combat_turn_a_test_with_combat_pool_dice_and_a_karma_reroll(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM starts a combat (naming who fights); Sam's player declares a test with a reason
    (kept after a refusal, cleared once declared, shown on its cards), draws Combat Pool dice
    with the odds in view, rolls, rerolls with Karma Pool and then finds the reroll disabled,
    saying why (none left); Rook, with no Karma Pool, is offered neither Karma dice nor a
    reroll, his Dodge reads "Combat Pool dice only", and his Damage Resistance once the Dodge
    took his last Combat Pool die says that pool is spent this turn; all four pages see the
    same dice, Sam's pool is full again at the next Combat Turn and his Karma Pool once the
    scene ends. The spectator has no control, and hears each roll once."""
    campaign, gm_link = served.create_campaign("Seattle Nights", "sr3")
    create(served, gm_link, campaign, "sam", "Sam", SAM)
    create(served, gm_link, campaign, "rook", "Rook", ROOK)
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "sam")
    bo_link = served.invite(campaign, gm_link, "player", "Bo", "rook")
    cy_link = served.invite(campaign, gm_link, "spectator", "Cy")
    gm, ana, bo, cy = (open_page(gm_link), open_page(ana_link), open_page(bo_link),
                       open_page(cy_link, width=360))
    everyone = (gm, ana, bo, cy)

    _start_combat(gm, everyone)

    called = gm.locator("ph-sr3-declare")  # the GM calls Rook's test and sets its TN
    called.get_by_label("Character", exact=True).select_option("rook")
    expect(called.get_by_label("Roll", exact=True)).to_have_value("skill:clubs")
    called.get_by_label("Target number").fill("4")
    called.get_by_role("button", name="Declare").click()
    rook = "ph-sr3-declared [data-character=rook]"
    expect(bo.locator(rook).get_by_role("button", name="Roll")).to_be_visible()
    expect(cy.locator(rook)).to_contain_text("Rook: Clubs (combat), TN 4, 5 dice")
    assert ana.locator(f"{rook} button").count() == 0

    declare = ana.locator("ph-sr3-declare")
    expect(declare.get_by_label("Character", exact=True)).to_have_value("sam")
    declare.get_by_label("Roll", exact=True).select_option("skill:pistols")
    expect(declare.get_by_label("Test", exact=True)).to_have_value("combat")
    declare.get_by_label("Target number").fill("5")
    reason = declare.get_by_label("Reason")
    reason.fill("shoots Rook")
    declare.get_by_label("Against test #").fill("99")  # refused: the reason is kept
    declare.get_by_role("button", name="Declare").click()
    expect(declare.locator(".ph-error")).to_contain_text("99")
    expect(reason).to_have_value("shoots Rook")
    declare.get_by_label("Against test #").fill("")
    declare.get_by_role("button", name="Declare").click()
    card = ana.locator("ph-sr3-declared [data-character=sam]")
    expect(card.locator("h3")).to_have_text("Sam: Pistols (combat), TN 5, 6 dice")
    expect(card.locator(".ph-sr3-reason")).to_have_text("shoots Rook")
    expect(reason).to_have_value("")  # declared: the next test has its own reason
    odds = json.loads(poolhall("sr3-odds", "6", "--tn", "5", "--pool", "6", "--json",
                               cwd=served.directory).stdout)["rows"]
    for page in everyone:  # the server's exact odds, one row per pool die drawn (up to Pistols 6)
        rows = page.locator("ph-sr3-declared [data-character=sam] tbody tr")
        expect(rows).to_have_count(7)
        expect(rows.nth(3).locator("td").nth(1)).to_have_text(
            f"{100 * odds[3]['at_least'][1]:.1f}%")
    screenshot(ana, "sr3-player-declared-1280")
    card.get_by_label("Combat Pool dice (up to 6)").fill("3")
    expect(card.locator("tr.ph-sr3-chosen th")).to_have_text("+3")
    listen(cy)
    card.get_by_role("button", name="Roll").click()

    test = "ph-sr3-tests [data-test='1']"
    for page in everyone:
        expect(page.locator("ph-sr3-declared [data-character=sam]")).to_have_count(0)
        expect(page.locator(f"{test} .ph-sr3-die")).to_have_count(9)
        expect(page.locator(f"{test} [data-source=combat] .ph-sr3-die")).to_have_count(3)
        expect(page.locator(f"{test} .ph-sr3-reason")).to_have_text("shoots Rook")
        expect(pool_left(page, "sam")).to_have_text("4/7")
        expect(page.locator("[data-type=pool_test_rolled] .ph-sr3-die")).to_have_count(9)
    # a screen reader hears the roll once (the log's line), not the initiative order and
    # every pool again because Sam's Combat Pool went down
    expect(cy.get_by_role("log", name="New log lines")).to_contain_text("Sam")
    said = heard(cy)
    assert len(said) == 1, said
    assert "Sam" in said[0], said
    labels = ana.locator(f"{test} .ph-sr3-die").evaluate_all(
        "dice => dice.map(die => die.getAttribute('aria-label'))")
    result = ana.locator(f"{test} .ph-sr3-result").inner_text()
    for page in (gm, bo, cy):
        assert page.locator(f"{test} .ph-sr3-die").evaluate_all(
            "dice => dice.map(die => die.getAttribute('aria-label'))") == labels
        expect(page.locator(f"{test} .ph-sr3-result")).to_have_text(result)

    reroll = ana.locator(test).get_by_role("button", name="Reroll failures with Karma Pool")
    reroll.click()
    for page in everyone:
        expect(page.locator(test)).to_contain_text("rerolled 1 time with Karma Pool")
        expect(page.locator("[data-type=pool_test_rerolled]")).to_contain_text(
            "spends 1 Karma Pool point to reroll")
        expect(page.locator("ph-sr3-sheets [data-character=sam] .ph-sr3-karma")).to_contain_text(
            "Karma Pool 0 of 1")
    # none left this scene: the button stays, disabled, saying why (it was pressed and refused)
    expect(reroll).to_be_disabled()
    expect(reroll).to_have_accessible_description(
        "no Karma Pool left: it comes back when the scene ends")
    expect(gm.locator(test)).to_contain_text("rerolled 1 time")
    assert bo.locator(f"{test} button").count() == 0  # not Bo's character

    # Rook has no Karma Pool (0 of 0): his card offers no Karma Pool dice, his test no reroll
    rook_card = bo.locator(rook)
    expect(rook_card.get_by_role("button", name="Roll")).to_be_visible()
    expect(rook_card.get_by_label("Karma Pool dice")).to_be_hidden()
    rook_card.get_by_role("button", name="Roll").click()
    expect(bo.locator("ph-sr3-tests [data-test='2'] .ph-sr3-die")).to_have_count(5)
    expect(bo.locator("ph-sr3-tests [data-test='2'] button")).to_have_count(0)

    # a Dodge rolls Combat Pool dice alone: its card says so (it read "TN 4, 0 dice")
    called.get_by_label("Roll", exact=True).select_option("none")
    expect(called.get_by_label("Test", exact=True)).to_have_value("dodge")
    called.get_by_label("Against test #").fill("1")
    called.get_by_role("button", name="Declare").click()
    expect(bo.locator(rook).locator("h3")).to_have_text(
        "Rook: Combat Pool (dodge), TN 4, Combat Pool dice only")
    expect(bo.locator("[data-type=pool_test_declared]").last).to_contain_text(
        "Combat Pool dice only; may draw Combat up to 5")
    bo.locator(rook).get_by_label("Combat Pool dice (up to 5)").fill("5")
    bo.locator(rook).get_by_role("button", name="Roll").click()
    expect(pool_left(bo, "rook")).to_have_text("0/5")
    # his Damage Resistance: the Combat Pool would help, but it is spent for this turn
    called.get_by_label("Roll", exact=True).select_option("attribute:body")
    called.get_by_label("Test", exact=True).select_option("damage_resistance")
    called.get_by_label("Against test #").fill("")
    called.get_by_role("button", name="Declare").click()
    expect(bo.locator(rook).locator("h3")).to_have_text(
        "Rook: Body (damage resistance), TN 4, 6 dice")
    expect(bo.locator(f"{rook} .ph-sr3-pool-note")).to_have_text(
        "Combat Pool: no dice left this Combat Turn; it refreshes at the next one.")
    bo.set_viewport_size({"width": 390, "height": 844})  # a phone: nothing wider than it
    assert bo.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(bo, "sr3-player-spent-pool-390")
    bo.set_viewport_size({"width": 1280, "height": 900})

    screenshot(gm, "sr3-gm-1280")
    screenshot(cy, "sr3-spectator-360")
    ana.set_viewport_size({"width": 360, "height": 900})
    screenshot(ana, "sr3-player-360")
    ana.set_viewport_size({"width": 1280, "height": 900})

    heading = gm.locator("ph-sr3-combat h2")
    next_pass = gm.get_by_role("button", name="Next pass")
    for _ in range(10):  # every score drops 10 a pass; a new turn once no one is left above 0
        if heading.inner_text().startswith("Combat Turn 2"):
            break
        before = heading.inner_text()
        next_pass.click()
        expect(heading).not_to_have_text(before)
    for page in everyone:
        expect(page.locator("ph-sr3-combat h2")).to_have_text("Combat Turn 2 · pass 1")
        expect(pool_left(page, "sam")).to_have_text("7/7")
        expect(page.locator("[data-type=combat_turn_started]").last).to_contain_text(
            "Combat Turn 2 begins, pools full: Sam: Combat 7")

    gm.get_by_role("button", name="End scene").click()
    gm.get_by_role("button", name="End combat").click()
    for page in everyone:
        expect(page.locator("ph-sr3-sheets [data-character=sam] .ph-sr3-karma")).to_contain_text(
            "Karma Pool 1 of 1")
        expect(page.locator("ph-sr3-combat")).to_contain_text("No combat running.")

    assert cy.locator("ph-sr3-table button, ph-sr3-table input, ph-sr3-table select").count() == 0
    assert cy.locator("ph-sr3-declare, ph-roll, .ph-tools > *").count() == 0
    assert bo.locator("ph-sr3-combat button").count() == 0  # the combat is the GM's to run


def test_the_gm_creates_and_edits_a_character_in_a_form(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM fills in a runner (attributes, a skill), then edits the sheet; the table's sheet
    lists her attributes and skills ("Sorcery 5"), not only her pools; an id already used is
    refused beside the Id field and nothing changes."""
    campaign, gm_link = served.create_campaign("Redmond Barrens", "sr3")
    gm = open_page(gm_link)
    form = gm.locator("ph-sr3-character form")
    form.get_by_label("Name").fill("Jadé Ø")  # the id follows the name until it is typed in
    expect(form.get_by_label("Id")).to_have_value("jade-o")
    form.get_by_label("Id").fill("jade")
    form.get_by_label("Name").fill("Jade")
    expect(form.get_by_label("Id")).to_have_value("jade")
    for field, value in (("Body", "3"), ("Quickness", "6"), ("Intelligence", "6"),
                         ("Willpower", "5"), ("Magic", "6")):
        form.get_by_label(field, exact=True).fill(value)
    form.get_by_role("button", name="Add a skill").click()
    # every column has a name a screen reader says where the form is wide enough for its
    # header (narrower, each field is labelled on its own: the button "remove" and its skill)
    expect(form.locator(".ph-sr3-skills thead th")).to_have_text(
        ["Skill", "Rating", "Attribute", "Kind", "Remove"])
    expect(form.get_by_role("button", name="remove this skill")).to_have_count(1)
    form.get_by_label("skill", exact=True).fill("sorcery")
    expect(form.get_by_role("button", name="remove sorcery", exact=True)).to_have_count(1)
    form.get_by_label("rating").fill("5")
    form.get_by_label("linked attribute").select_option("willpower")
    form.get_by_label("kind").select_option("sorcery")
    form.get_by_role("button", name="Create character").click()
    sheet = gm.locator("ph-sr3-sheets [data-character=jade]")
    expect(sheet.locator("[data-pool=spell]")).to_contain_text("5")  # (6 + 5 + 6) // 3
    expect(sheet.locator("[data-pool=combat]")).to_contain_text("8")  # (6 + 6 + 5) // 2
    # what a player looks up on a sheet: the attributes (as a paper sheet abbreviates them)
    expect(sheet.get_by_role("list", name="Skills")).to_have_text("Sorcery 5")
    quickness = sheet.locator("[data-attribute=quickness]")
    expect(quickness).to_contain_text("Quickness 6")
    expect(quickness.locator("abbr")).to_have_text("Q")
    expect(sheet.locator("[data-attribute=magic]")).to_contain_text("Magic 6")
    expect(form.get_by_label("Character to edit")).to_have_value("jade")
    expect(form.get_by_role("button", name="Save changes")).to_be_visible()

    gm.set_viewport_size({"width": 360, "height": 800})
    screenshot(gm, "sr3-gm-character-form-360")
    gm.set_viewport_size({"width": 1280, "height": 900})
    form.get_by_label("Quickness").fill("8")
    form.get_by_role("button", name="Save changes").click()
    expect(sheet.locator("[data-pool=combat]")).to_contain_text("9")  # (8 + 6 + 5) // 2
    expect(quickness).to_contain_text("Quickness 8")
    expect(gm.locator("[data-type=character_updated]")).to_contain_text("character Jade updated")

    form.get_by_label("Character to edit").select_option("")
    form.get_by_label("Id").fill("jade")
    form.get_by_label("Name").fill("Another Jade")
    form.get_by_role("button", name="Create character").click()
    expect(form.locator(".ph-error")).to_have_text("character 'jade' exists")
    expect(form.get_by_label("Id")).to_have_attribute("aria-invalid", "true")
    expect(gm.locator("ph-sr3-sheets .ph-sr3-sheet")).to_have_count(1)
