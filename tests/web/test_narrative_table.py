"""The narrative table in a browser: a GM, two players and a spectator build a check together,
roll it, and all see the same dice, the same words and the server's exact odds."""

from __future__ import annotations

import json
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from tests.serve_process import poolhall
from tests.web.conftest import Served, screenshot


def create_character(gm: Page, name: str, characteristics: dict[str, int],
                     skills: list[tuple[str, int, str]]) -> None:
    """The GM fills the character form: name, characteristics, one row per skill."""
    form = gm.locator("ph-narrative-sheet form")
    form.get_by_label("character", exact=True).select_option("")
    form.get_by_label("name", exact=True).fill(name)
    for characteristic, value in characteristics.items():
        form.get_by_label(characteristic.title(), exact=True).fill(str(value))
    for skill, rank, linked in skills:
        form.get_by_role("button", name="Add a skill").click()
        row = form.locator(".ph-nd-skill-row").last
        row.get_by_label("skill", exact=True).fill(skill)
        row.get_by_label("rank", exact=True).fill(str(rank))
        row.get_by_label("characteristic", exact=True).select_option(linked)
    form.get_by_role("button", name="Create character").click()
    expect(form.locator(".ph-nd-sheet-status")).to_contain_text(f"{name} (")


def check_card(page: Page, check: str) -> Locator:
    return page.locator(f"ph-narrative-check[data-check={check}]")


def dice_labels(scope: Locator) -> list[str]:
    """The text alternative of every die in `scope`, in order."""
    return [str(label) for label in scope.locator("svg.ph-nd").evaluate_all(
        "dice => dice.map(d => d.getAttribute('aria-label'))")]


def test_a_check_built_together_is_rolled_and_all_four_see_the_same_dice_and_words(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM sets Hard and spends a dark side point, Ana's pool comes from Han's sheet and she
    adds a boost; the odds equal `poolhall odds`; the roll reads the same on all four pages."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    gm = open_page(gm_link)
    create_character(gm, "Han", {"agility": 3}, [("Ranged (Light)", 2, "agility")])
    create_character(gm, "Leia", {"presence": 4}, [("Charm", 1, "presence")])
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "han"))
    ben = open_page(served.invite(campaign, gm_link, "player", "Ben", "leia"), width=360)
    cy = open_page(served.invite(campaign, gm_link, "spectator", "Cy"))
    everyone = (gm, ana, ben, cy)

    destiny = gm.locator("ph-narrative-destiny")
    destiny.get_by_label("light", exact=True).fill("2")
    destiny.get_by_label("dark", exact=True).fill("2")
    destiny.get_by_role("button", name="Set the pool").click()
    for page in everyone:
        expect(page.locator(".ph-nd-destiny-count")).to_have_text("2 light, 2 dark")
        expect(page.locator("ph-narrative-destiny svg[aria-label='dark side destiny point']")
               ).to_have_count(2)

    opener = ana.locator("ph-narrative-opener form")
    expect(opener.get_by_label("skill", exact=True)).to_contain_text("Ranged (Light) (rank 2, Agility)")
    opener.get_by_role("button", name="Open check").click()
    for page in everyone:
        card = check_card(page, "han-1")
        expect(card.locator(".ph-nc-title")).to_have_text("Han's Ranged (Light)")
        expect(card.locator(".ph-nc-notation")).to_have_text("2y1g")

    card = check_card(ana, "han-1")
    card.get_by_role("button", name="Roll").click()  # before the GM set the difficulty
    expect(card.locator(".ph-nc-actions .ph-error")).to_contain_text(
        "the GM sets the difficulty level of the task prior to the roll")
    expect(card.locator(".ph-nc-difficulty")).to_have_text("no difficulty yet")

    gm_card = check_card(gm, "han-1")
    gm_card.get_by_label("difficulty", exact=True).select_option("hard")
    gm_card.get_by_role("button", name="Set difficulty").click()
    expect(gm_card.locator(".ph-nc-notation")).to_have_text("2y1g3p")
    gm_card.locator(".ph-nc-destiny-form").get_by_role(
        "button", name="Spend a dark side point").click()
    expect(gm_card.locator(".ph-nc-notation")).to_have_text("2y1g2p1r")
    card.locator(".ph-nc-dice-form").get_by_label("dice", exact=True).select_option("boost")
    card.locator(".ph-nc-dice-form").get_by_role("button", name="Add").click()

    cli = json.loads(poolhall("odds", "2y1g2p1r1b", "--json", "--exact",
                              cwd=served.directory).stdout)
    for page in everyone:
        card_of = check_card(page, "han-1")
        expect(card_of.locator(".ph-nc-notation")).to_have_text("2y1g2p1r1b")
        expect(card_of.locator(".ph-nc-difficulty")).to_have_text("Hard")
        expect(card_of.locator(".ph-nc-p-success dd")).to_have_attribute(
            "data-exact", cli["exact"]["p_success"])
        expect(card_of.locator(".ph-nc-p-success dd")).to_have_text(
            f"{100 * cli['odds']['p_success']:.1f}%")
        expect(card_of.locator(".ph-nc-p-triumph dd")).to_have_attribute(
            "data-exact", cli["exact"]["p_triumph"])
        expect(card_of.locator(".ph-nc-p-despair dd")).to_have_attribute(
            "data-exact", cli["exact"]["p_despair"])
        advantage = card_of.locator(".ph-nc-p-advantage dd").get_attribute("data-p")
        assert float(str(advantage)) == cli["odds"]["p_advantage"]["1"]
        expect(card_of.locator(".ph-nc-changes")).to_contain_text("a dark side destiny point")
        expect(card_of.locator("svg.ph-nd")).to_have_count(7)
        expect(page.locator(".ph-nd-destiny-count")).to_have_text("3 light, 1 dark")

    expect(check_card(ben, "han-1").get_by_role("button", name="Roll")).to_have_count(0)
    expect(check_card(ben, "han-1").get_by_role(
        "button", name="Spend a light side point")).to_be_visible()
    for control in ("button", "select", "input"):
        expect(cy.locator(f"ph-narrative-table {control}")).to_have_count(0)
    expect(cy.locator("ph-roll, ph-narrative-sheet")).to_have_count(0)
    screenshot(gm, "narrative-gm-1280")
    screenshot(ben, "narrative-player-360")

    card.get_by_role("button", name="Roll").click()
    results = [page.locator("ph-narrative-results li[data-check=han-1]") for page in everyone]
    for result in results:
        expect(result.locator("svg.ph-nd")).to_have_count(7)
    faces = dice_labels(results[0])
    words = results[0].locator(".ph-nd-words").inner_text()
    assert words and all(":" in label for label in faces)
    for page, result in zip(everyone, results, strict=True):
        assert dice_labels(result) == faces
        expect(result.locator(".ph-nd-words")).to_have_text(words)
        expect(page.locator("ph-log [data-type=check_rolled] .ph-nd-words")).to_have_text(words)
        expect(check_card(page, "han-1")).to_have_count(0)
    screenshot(ana, "narrative-player-1280")
    screenshot(ben, "narrative-player-360-rolled")
