"""The narrative table in a browser: a GM, two players and a spectator build a check together,
roll it, and all see the same dice, the same words and the server's exact odds."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from poolhall.events.messages import CLIENT_DECODER
from tests.serve_process import poolhall
from tests.web.conftest import PageOpener, Served, heard, listen, screenshot

VIEW_WAIT = 20_000
"""Milliseconds to wait for a check's view: its odds come from a worker process, which on a
loaded machine (two shared cores) may take seconds to start the first time."""


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
        served: Served, open_page: PageOpener) -> None:
    """The GM sets Hard and spends a dark side point, Ana's pool comes from Han's sheet and she
    adds a boost; the odds equal `poolhall odds`; the roll reads the same on all four pages;
    a button that goes away once pressed (Set difficulty, Roll) leaves the focus nearby; a
    screen reader is told of a die added and of the roll once each, in words."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    gm = open_page(gm_link)
    create_character(gm, "Han", {"agility": 3}, [("Ranged (Light)", 2, "agility")])
    served.send(gm_link, {"type": "create_character", "character": "boba", "name": "Boba",
                          "stats": {"system": "narrative"}})  # listed before Vader
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
    expect(opener.get_by_label("skill", exact=True)).to_contain_text(
        "Ranged (Light) (rank 2, Agility)")
    opener.get_by_role("button", name="Open check").click()
    for page in everyone:
        card = check_card(page, "han-1")
        expect(card.locator(".ph-nc-title")).to_have_text("Han's Ranged (Light)")
        expect(card.locator(".ph-nc-notation")).to_have_text("2y1g", timeout=VIEW_WAIT)

    card = check_card(ana, "han-1")
    card.get_by_role("button", name="Roll").click()  # before the GM set the difficulty
    expect(card.locator(".ph-nc-actions .ph-error")).to_contain_text(
        "the GM sets the difficulty level of the task prior to the roll")
    expect(card.locator(".ph-nc-difficulty")).to_have_text("no difficulty yet")

    gm_card = check_card(gm, "han-1")
    gm_card.get_by_label("difficulty", exact=True).select_option("hard")
    gm_card.get_by_role("button", name="Set difficulty").press("Enter")  # by keyboard
    expect(gm_card.locator(".ph-nc-notation")).to_have_text("2y1g3p", timeout=VIEW_WAIT)
    # the form went with its button: the focus is on the check's card, not the page's body
    # (where a keyboard user's next Tab started again from the top)
    expect(gm_card).to_be_focused()
    gm_card.locator(".ph-nc-destiny-form").get_by_role(
        "button", name="Spend a dark side point").click()
    expect(gm_card.locator(".ph-nc-notation")).to_have_text("2y1g2p1r", timeout=VIEW_WAIT)
    upgraded = json.loads(poolhall("odds", "2y1g2p1r", "--json", "--exact",
                                   cwd=served.directory).stdout)
    # the spectator's page has told of the upgrade's chance before it is listened to (on a
    # slow machine that chance was heard after, as if the boost had been told of twice)
    expect(check_card(cy, "han-1").locator(".ph-nc-p-success dd")).to_have_attribute(
        "data-exact", upgraded["exact"]["p_success"], timeout=VIEW_WAIT)
    listen(cy)
    card.locator(".ph-nc-dice-form").get_by_label("dice", exact=True).select_option("boost")
    card.locator(".ph-nc-dice-form").get_by_role("button", name="Add").click()

    cli = json.loads(poolhall("odds", "2y1g2p1r1b", "--json", "--exact",
                              cwd=served.directory).stdout)
    for page in everyone:
        card_of = check_card(page, "han-1")
        expect(card_of.locator(".ph-nc-notation")).to_have_text("2y1g2p1r1b", timeout=VIEW_WAIT)
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
        # the GM's destiny upgrade is listed once, as the upgrade (it was listed again as "a
        # dark side destiny point was spent on it")
        expect(card_of.locator(".ph-nc-changes li")).to_have_text([
            re.compile(r"upgraded 1 difficulty-side die \(GM destiny point\)$"),
            re.compile(r"added 1 boost die")])
        expect(card_of.locator("svg.ph-nd")).to_have_count(7)
        expect(page.locator(".ph-nd-destiny-count")).to_have_text("3 light, 1 dark")
    # a screen reader hears the die added and the new chance, not the whole table of odds
    added = sorted(heard(cy), key=lambda words: "to succeed" in words)
    assert len(added) == 2, added
    assert "added 1 boost die" in added[0], added
    assert re.fullmatch(r"Han's Ranged \(Light\): \d+\.\d% to succeed", added[1]), added

    expect(check_card(ben, "han-1").get_by_role("button", name="Roll")).to_have_count(0)
    expect(check_card(ben, "han-1").get_by_role(
        "button", name="Spend a light side point")).to_be_visible()
    for control in ("button", "select", "input"):
        expect(cy.locator(f"ph-narrative-table {control}")).to_have_count(0)
    expect(cy.locator("ph-roll, ph-narrative-sheet")).to_have_count(0)
    screenshot(gm, "narrative-gm-1280")
    gm.set_viewport_size({"width": 360, "height": 900})
    screenshot(gm, "narrative-gm-360")
    gm.set_viewport_size({"width": 1280, "height": 900})
    screenshot(ben, "narrative-player-360")

    expect(card.locator(".ph-nc-dice svg.ph-nd-challenge")).to_have_attribute(
        "aria-label", re.compile(r"^challenge die \(.*GM destiny point\)$"))
    card.get_by_role("button", name="Roll").press("Enter")  # by keyboard
    results = [page.locator("ph-narrative-results li[data-check=han-1]") for page in everyone]
    for result in results:
        expect(result.locator("svg.ph-nd")).to_have_count(7)
    # one announcement per roll: the log's line, in words, with no "button" in it (every
    # table message said "No encounter is running." again)
    expect(cy.get_by_role("log", name="New log lines")).to_contain_text("rolled han-1")
    rolled = heard(cy)
    assert len(rolled) == 1, rolled
    assert "Ana rolled han-1 for Han" in rolled[0], rolled
    expect(cy.get_by_role("log", name="New log lines").get_by_role("button")).to_have_count(0)
    faces = dice_labels(results[0])
    words = results[0].locator(".ph-nd-words").inner_text()
    assert words
    assert all(":" in label for label in faces)
    for page, result in zip(everyone, results, strict=True):
        assert dice_labels(result) == faces
        expect(result.locator(".ph-nd-words")).to_have_text(words)
        expect(page.locator("ph-log [data-type=check_rolled] .ph-nd-words")).to_have_text(words)
        expect(check_card(page, "han-1")).to_have_count(0)
    # the card went with the Roll button Ana pressed: her focus is on the open checks' section
    expect(ana.get_by_role("region", name="Open checks")).to_be_focused()
    screenshot(ana, "narrative-player-1280")
    sent = open_page.sent_from(gm) + open_page.sent_from(ana)  # since each was opened
    commands = [json.loads(frame)["type"] for frame in sent]
    assert {"create_character", "set_destiny_pool", "open_check", "roll_check", "set_difficulty",
            "flip_destiny", "add_dice"} <= set(commands)
    for frame in sent:  # every message the pages sent is one the schema allows
        CLIENT_DECODER.decode(frame)
    screenshot(ben, "narrative-player-360-rolled")


def test_the_gm_keeps_typing_a_sheet_while_the_table_moves_and_free_dice_read_in_words(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM opposes Han's check (against Vader) with Vader's Vigilance, the opponent the
    form offers, and withdraws it; then edits Han's
    sheet while Ana rolls a free pool and Force dice: the form keeps what the GM typed, the
    saved rank reaches Ana's check form, and each roll reads in words. A new character's id
    follows its name as the server makes ids ("Ørjan Lïf" is ``orjan-lif``)."""
    campaign, gm_link = served.create_campaign("Far Horizons", "narrative")
    gm = open_page(gm_link)
    create_character(gm, "Han", {"agility": 3}, [("Ranged (Light)", 2, "agility")])
    served.send(gm_link, {"type": "create_character", "character": "boba", "name": "Boba",
                          "stats": {"system": "narrative"}})  # listed before Vader
    served.send(gm_link, {
        "type": "create_character", "character": "vader", "name": "Vader",
        "stats": {"system": "narrative", "willpower": 3,
                  "skills": {"Vigilance": {"rank": 2, "characteristic": "willpower"}}}})
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "han"))

    opener = gm.locator("ph-narrative-opener form")
    opener.get_by_label("character", exact=True).select_option("han")
    opener.get_by_label("against", exact=True).select_option("vader")
    opener.get_by_role("button", name="Open check").click()
    card = check_card(gm, "han-1")
    card.get_by_label("difficulty", exact=True).select_option("opposed")
    # the check is against Vader: the opponent offered first is Vader, not the first listed
    expect(card.get_by_label("opponent", exact=True)).to_have_value("vader")
    expect(card.locator("datalist option[value=Vigilance]")).to_have_count(1)  # Vader's sheet
    card.get_by_label("their skill", exact=True).fill("Vigilance")
    card.get_by_role("button", name="Set difficulty").click()
    for page in (gm, ana):
        expect(check_card(page, "han-1").locator(".ph-nc-difficulty")).to_have_text(
            "Opposed: Vader's Vigilance")
        expect(check_card(page, "han-1").locator(".ph-nc-notation")).to_have_text(
            "2y1g1p2r", timeout=VIEW_WAIT)
    card.get_by_role("button", name="Cancel check").click()
    for page in (gm, ana):
        expect(page.locator("ph-narrative-results li[data-check=han-1]")).to_contain_text(
            "cancelled")

    sheet = gm.locator("ph-narrative-sheet form")
    sheet.get_by_label("character", exact=True).select_option("han")
    expect(sheet.get_by_label("id", exact=True)).to_have_value("han")
    expect(sheet.get_by_label("Agility", exact=True)).to_have_value("3")
    sheet.locator(".ph-nd-skill-row").get_by_label("rank", exact=True).fill("3")
    sheet.get_by_label("name", exact=True).fill("Han Solo")

    free = ana.locator("ph-narrative-free")
    free.get_by_role("button", name="Roll pool").click()
    expect(free.locator(".ph-nd-free-pool .ph-error")).to_have_text("choose at least one die")
    # each count is named by its word alone (it was "ability die ability")
    free.get_by_role("spinbutton", name="ability", exact=True).fill("2")
    free.get_by_role("spinbutton", name="boost", exact=True).fill("1")
    free.get_by_label("for character", exact=True).select_option("han")
    free.get_by_role("button", name="Roll pool").click()
    force = free.get_by_role("form", name="Roll Force dice")
    force.get_by_label("how many", exact=True).fill("2")
    force.get_by_label("reason", exact=True).fill("Move")
    force.get_by_role("button", name="Roll Force dice").click()
    for page in (gm, ana):
        pool = page.locator("ph-log [data-type=pool_rolled]")
        expect(pool).to_contain_text("rolled 2g1b for Han")
        expect(pool.locator("svg.ph-nd")).to_have_count(3)
        expect(pool.locator(".ph-nd-words")).not_to_be_empty()
        line = page.locator("ph-log [data-type=force_dice_rolled]")
        expect(line).to_contain_text("Ana rolled 2 Force dice for Han (Move)")  # one name each
        labels = dice_labels(line)
        light = sum(label.count("light side pip") for label in labels)
        dark = sum(label.count("dark side pip") for label in labels)
        expect(line.locator(".ph-nd-words")).to_have_text(f"{light} light, {dark} dark")

    # the table changed twice under the GM's fingers: what they typed is still there
    expect(sheet.get_by_label("name", exact=True)).to_have_value("Han Solo")
    expect(sheet.locator(".ph-nd-skill-row").get_by_label("rank", exact=True)).to_have_value("3")
    sheet.get_by_role("button", name="Save changes").click()
    expect(sheet.locator(".ph-nd-sheet-status")).to_have_text("Han Solo saved.")
    expect(ana.locator("ph-narrative-opener").get_by_label("skill", exact=True)).to_contain_text(
        "Ranged (Light) (rank 3, Agility)")
    expect(ana.locator("ph-log")).to_contain_text("character Han Solo updated")

    sheet.get_by_label("character", exact=True).select_option("")
    sheet.get_by_label("name", exact=True).fill("Ørjan Lïf")  # as the server makes ids
    expect(sheet.get_by_label("id", exact=True)).to_have_value("orjan-lif")
    sheet.get_by_label("name", exact=True).fill("李")  # no Latin letter: a free fallback
    expect(sheet.get_by_label("id", exact=True)).to_have_value("character")
    sheet.get_by_label("name", exact=True).fill("Han")
    sheet.get_by_role("button", name="Create character").click()
    expect(sheet.locator(".ph-error")).to_have_text("character 'han' exists")
    expect(sheet.get_by_label("id", exact=True)).to_have_attribute("aria-invalid", "true")

    served.send(gm_link, {"type": "start_session", "title": "One"})  # rolled at a session's start
    gm.locator("ph-narrative-destiny").get_by_role("button", name="Roll the destiny pool").click()
    for page in (gm, ana):
        line = page.locator("ph-log [data-type=destiny_pool_rolled]")
        expect(line.locator("svg.ph-nd-force")).to_have_count(1)
        after = line.locator(".ph-nd-after").inner_text()
        expect(page.locator(".ph-nd-destiny-count")).to_have_text(after.removeprefix(" → "))


def test_open_check_stays_in_view_and_each_roll_and_remove_button_names_its_own(
        served: Served, open_page: PageOpener) -> None:
    """Ana presses **Open check** by keyboard at the bottom of her window: the new card, put in
    above it, pushed the focused button off the screen (to y=966 of 900) and the page did not
    follow; it stays on the screen, also when the card grows with its odds. Each open check's
    **Roll** says which check it rolls ("Roll Han's Ranged (Light)"; two cards read "Roll",
    "Roll"), and each skill row's **Remove** which skill it removes ("remove this skill" on
    every row)."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    gm = open_page(gm_link)
    create_character(gm, "Han", {"agility": 3}, [("Ranged (Light)", 2, "agility"),
                                                 ("Cool", 1, "presence")])
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "han"))
    opener = ana.locator("ph-narrative-opener form")
    opener.get_by_label("skill", exact=True).select_option(
        label="Ranged (Light) (rank 2, Agility)")
    button = opener.get_by_role("button", name="Open check")
    button.evaluate("(b) => { b.focus(); b.scrollIntoView({block: 'end'}); }")
    in_window = "(b) => { const box = b.getBoundingClientRect();" \
        " return box.top >= 0 && box.bottom <= innerHeight + 1; }"  # + scrolled to whole px
    assert button.evaluate(in_window)
    ana.keyboard.press("Enter")
    card = check_card(ana, "han-1")
    expect(card).to_be_visible()
    expect(button).to_be_focused()
    # the page follows once the card is laid out (a ResizeObserver): waited for, not assumed
    # at once (a loaded machine ran the check before the observer)
    ana.wait_for_function(in_window, arg=button.element_handle(), timeout=5000)
    opener.get_by_label("skill", exact=True).select_option(label="Cool (rank 1, Presence)")
    button.focus()
    ana.keyboard.press("Enter")
    expect(check_card(ana, "han-2")).to_be_visible()
    for check, level in (("han-1", "hard"), ("han-2", "easy")):
        served.send(gm_link, {"type": "set_difficulty", "check": check, "level": level})
    expect(check_card(ana, "han-2").locator(".ph-nc-success")).to_contain_text(
        "% to succeed", timeout=VIEW_WAIT)  # the odds drawn: the cards taller
    expect(button).to_be_focused()
    ana.wait_for_function(in_window, arg=button.element_handle(), timeout=5000)

    expect(ana.locator("ph-narrative-check").get_by_role("button", name="Roll")).to_have_text(
        ["Roll", "Roll"])
    expect(card.get_by_role("button", name="Roll Han's Ranged (Light)", exact=True)
           ).to_be_visible()
    expect(check_card(ana, "han-2").get_by_role("button", name="Roll Han's Cool", exact=True)
           ).to_be_visible()

    form = gm.locator("ph-narrative-sheet form")
    form.get_by_label("character", exact=True).select_option("han")
    rows = form.locator(".ph-nd-skill-row")
    expect(rows.nth(0).get_by_role("button")).to_have_accessible_name("remove Ranged (Light)")
    expect(rows.nth(1).get_by_role("button")).to_have_accessible_name("remove Cool")
    form.get_by_role("button", name="Add a skill").click()
    added = rows.last
    expect(added.get_by_role("button")).to_have_accessible_name("remove this skill")
    added.get_by_label("skill", exact=True).fill("Stealth")
    expect(added.get_by_role("button")).to_have_accessible_name("remove Stealth")
    form.get_by_role("button", name="remove Cool", exact=True).click()
    expect(rows).to_have_count(2)
    assert form.get_by_label("skill", exact=True).evaluate_all(
        "(fields) => fields.map((field) => field.value)") == ["Ranged (Light)", "Stealth"]
