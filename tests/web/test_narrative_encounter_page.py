"""A narrative encounter in three browsers: initiative from Cool and Vigilance checks, two
rounds with a player slot claimed by Ana and an NPC slot filled by the GM, Ana spending her
roll's advantage, the GM spending an NPC's threat, and each page offering only the symbols its
member may spend (in combat and out of it)."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served

HAN = {"system": "narrative", "agility": 3, "presence": 3,
       "skills": {"Ranged (Light)": {"rank": 2, "characteristic": "agility"},
                  "Cool": {"rank": 1, "characteristic": "presence"}}}
VADER = {"system": "narrative", "willpower": 4,
         "skills": {"Vigilance": {"rank": 2, "characteristic": "willpower"}}}
TROOPER = {"system": "narrative", "brawn": 0, "agility": 0, "intellect": 0, "cunning": 0,
           "willpower": 0, "presence": 0}
"""No ability dice at all: the Trooper's check holds only difficulty and setback dice."""


def rolled_check(served: Served, gm_link: str, check: str, character: str, skill: str,
                 level: str, *extra: dict[str, object]) -> None:
    """The GM builds and rolls a check through the shared check's commands."""
    served.send(gm_link,
                {"type": "open_check", "check": check, "character": character, "skill": skill,
                 **({"characteristic": "presence"} if skill == "Athletics" else {})},
                {"type": "set_difficulty", "check": check, "level": level},
                *extra, {"type": "roll_check", "check": check})


def left(page: Page, check: str, symbol: str) -> int:
    """What the page's table says is left of ``symbol`` on ``check``."""
    return int(page.evaluate(
        "([check, symbol]) => document.querySelector('ph-app').store.state.table.table"
        ".game.checks[check].left[symbol]", [check, symbol]))


def test_two_rounds_a_claimed_slot_and_each_side_spending_its_symbols(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The whole encounter in the page, as the rules have it (started by keyboard, the focus
    then on its heading)."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    for character, name, stats in (("han", "Han", HAN), ("vader", "Vader", VADER),
                                   ("trooper", "Trooper", TROOPER)):
        served.send(gm_link, {"type": "create_character", "character": character,
                              "name": name, "stats": stats})
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    gm, ana = open_page(gm_link), open_page(ana_link)
    cy = open_page(served.invite(campaign, gm_link, "spectator", "Cy"), width=360)

    gm.locator("ph-narrative-encounter").get_by_role("button", name="Start encounter").press(
        "Enter")
    for page in (gm, ana, cy):
        expect(page.locator("ph-narrative-encounter h2")).to_have_text("Encounter 1")
    # the button went once pressed: the GM's keyboard is on the encounter's heading
    expect(gm.get_by_role("heading", name="Encounter 1")).to_be_focused()
    expect(ana.locator("ph-narrative-encounter").get_by_role(
        "button", name="Start encounter")).to_have_count(0)

    rolled_check(served, gm_link, "han-init", "han", "Cool", "simple")
    rolled_check(served, gm_link, "vader-init", "vader", "Vigilance", "simple")
    rolled_check(served, gm_link, "vader-wary", "vader", "Vigilance", "easy")
    ana_encounter = ana.locator("ph-narrative-encounter")
    initiative = ana_encounter.get_by_role("form", name="Enter initiative")
    expect(initiative.get_by_label("check")).to_have_value("han-init")
    initiative.get_by_role("button", name="Enter initiative").click()
    gm_encounter = gm.locator("ph-narrative-encounter")
    gm_initiative = gm_encounter.get_by_role("form", name="Enter initiative")
    gm_initiative.get_by_label("check").select_option("vader-init")
    gm_initiative.get_by_role("button", name="Enter initiative").click()
    for page in (gm, ana, cy):
        expect(page.locator("ph-narrative-encounter li.ph-ne-slot")).to_have_count(2)
    # Vader has his slot: his other Vigilance is no longer offered (one initiative each)
    expect(gm_initiative).to_be_hidden()
    expect(gm_encounter.locator("li[data-side=player]")).to_contain_text("Han's Cool")
    expect(gm_encounter.locator("li[data-side=npc]")).to_contain_text("Vader's Vigilance")
    # the list numbers its slots: the words do not again ("1. 1. player slot")
    expect(gm_encounter.locator("li.ph-ne-slot").first).to_have_text(
        re.compile(r"^(player|NPC) slot · "))
    # counted words agree with their count: "5 advantage" and "1 successes" read wrong; the
    # net result is said as its roll's line says it (none of advantage: not said)
    counted = (r"(no net success|\b1 success|\b(?!1\b)\d+ successes)"
               r"(, \b1 advantage|, \b(?!1\b)\d+ advantages)?(, triumph|, \d+ triumphs)?")
    for slot in gm_encounter.locator("li.ph-ne-slot").all():
        expect(slot).to_have_text(re.compile(counted + "$"))
    expect(cy.locator("ph-log [data-type=initiative_entered]").first).to_contain_text(
        re.compile(counted + r" \(Cool, player slot\)"))

    for round_number in (1, 2):
        gm_encounter.get_by_role("button", name="Start round 1" if round_number == 1
                                 else "Next round").click()
        expect(ana_encounter.locator(".ph-ne-status")).to_have_text(f"Round {round_number}")
        player_slot = ana_encounter.locator("li[data-side=player]")
        player_slot.get_by_role("button", name="Claim").click()
        npc_slot = gm_encounter.locator("li[data-side=npc]")
        npc_slot.get_by_label("who").select_option("vader")
        npc_slot.get_by_role("button", name="Fill").click()
        for page in (gm, ana, cy):
            expect(page.locator("ph-narrative-encounter li[data-side=player]")).to_contain_text(
                "Han acts")
            expect(page.locator("ph-narrative-encounter li[data-side=npc]")).to_contain_text(
                "Vader acts")
    expect(cy.locator("ph-log")).to_contain_text("round 2 begins")
    # the GM's round buttons stand apart (they touched: "Next round" ran into "End encounter")
    next_box = gm_encounter.get_by_role("button", name="Next round").bounding_box()
    end_box = gm_encounter.get_by_role("button", name="End encounter").bounding_box()
    assert next_box is not None
    assert end_box is not None
    assert end_box["x"] - (next_box["x"] + next_box["width"]) >= 4, (next_box, end_box)
    assert cy.locator("ph-narrative-encounter form").count() == 0  # a spectator only watches

    # Han shoots with 8 boost dice and no difficulty: 11 dice without a threat side, so
    # advantage comes up unless all 11 show none (1 in 2,048)
    rolled_check(served, gm_link, "han-shot", "han", "Ranged (Light)", "simple",
                 {"type": "add_dice", "check": "han-shot", "kind": "boost", "count": 8})
    # the Trooper (no ability dice) against Formidable and 10 setback dice: threat comes up
    # unless all 15 dice show none (about 1 in 8,000)
    rolled_check(served, gm_link, "trooper-shot", "trooper", "Athletics", "formidable",
                 {"type": "add_dice", "check": "trooper-shot", "kind": "setback", "count": 10})
    han_result = ana.locator("ph-narrative-results li[data-check=han-shot]")
    expect(han_result.locator(".ph-nd-left")).to_contain_text("advantage")
    before = left(ana, "han-shot", "advantage")
    assert before > 0

    # in combat Han's advantage is his player's to spend: the GM's page offers no form for it
    # (the server refuses it too: tests/narrative/test_narrative_encounter.py)
    gm_han = gm.locator("ph-narrative-results li[data-check=han-shot]")
    expect(gm_han.locator(".ph-nd-left")).to_contain_text("advantage")
    expect(gm_han.get_by_role("form")).to_have_count(0)

    spend = han_result.get_by_role("form", name="Spend the result of han-shot")
    spend.get_by_label("symbol").select_option("advantage")
    box = spend.get_by_label("on", exact=True).bounding_box()
    assert box is not None
    assert box["height"] < 60, box  # one line of text, not a 144-pixel box
    spend.get_by_label("on", exact=True).fill("aim at the next trooper")
    spend.get_by_role("button", name="Spend").click()
    for page in (gm, ana, cy):
        result = page.locator("ph-narrative-results li[data-check=han-shot]")
        expect(result.locator(".ph-nd-spends")).to_contain_text(
            "Ana spent 1 advantage on aim at the next trooper")
    assert left(ana, "han-shot", "advantage") == before - 1

    assert ana.locator("ph-narrative-results li[data-check=trooper-shot] form").count() == 0
    trooper = gm.locator("ph-narrative-results li[data-check=trooper-shot]")
    threat = left(gm, "trooper-shot", "threat")
    assert threat > 0
    trooper.get_by_label("symbol").select_option("threat")
    trooper.get_by_label("on", exact=True).fill("the trooper's blaster overheats")
    trooper.get_by_role("button", name="Spend").click()
    expect(ana.locator("ph-log")).to_contain_text("on the trooper's blaster overheats")
    assert left(ana, "trooper-shot", "threat") == threat - 1
    # what is left reads as a count of threats ("Left to spend: 5 threat" read wrong)
    rest = "Nothing left to spend." if threat == 1 else (
        f"Left to spend: {threat - 1} threat{'s' if threat - 1 != 1 else ''}")
    expect(ana.locator("ph-narrative-results li[data-check=trooper-shot] .ph-nd-left")
           ).to_have_text(rest)

    gm_encounter.get_by_role("button", name="End encounter").click()  # asked first
    expect(gm_encounter).to_contain_text("End the encounter for everyone?")
    gm_encounter.get_by_role("button", name="Keep fighting").click()
    expect(gm_encounter.get_by_role("button", name="Yes, end it")).to_be_hidden()
    expect(ana.locator("ph-narrative-encounter .ph-ne-status")).to_have_text("Round 2")
    gm_encounter.get_by_role("button", name="End encounter").click()
    gm_encounter.get_by_role("button", name="Yes, end it").click()
    for page in (gm, ana, cy):
        expect(page.locator("ph-log")).to_contain_text("encounter 1 ended after 2 rounds")
        expect(page.locator("ph-narrative-encounter .ph-ne-status")).to_have_text(
            "No encounter is running.")
    # out of combat the GM spends it all: Ana's page no longer offers her the rest of Han's
    # advantage, and the GM's page does
    expect(han_result.get_by_role("form")).to_have_count(0)
    expect(gm_han.get_by_role("form", name="Spend the result of han-shot")).to_be_visible()


def test_a_check_rolled_before_the_encounter_is_not_offered_as_initiative(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Han's Cool check rolled before the encounter began is no initiative of it (the server
    refuses it): Ana's page offers none until Han rolls Cool again, then only that one."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": HAN})
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "han"))
    rolled_check(served, gm_link, "han-earlier", "han", "Cool", "simple")
    served.send(gm_link, {"type": "start_encounter"})
    encounter = ana.locator("ph-narrative-encounter")
    expect(encounter.locator("h2")).to_have_text("Encounter 1")
    initiative = encounter.get_by_role("form", name="Enter initiative")
    expect(initiative).to_be_hidden()
    rolled_check(served, gm_link, "han-init", "han", "Cool", "simple")
    expect(initiative).to_be_visible()
    expect(initiative.locator("select[name=check] option")).to_have_text(
        ["Han's Cool (han-init)"])


def test_the_gm_choosing_who_fills_a_slot_keeps_the_choice_while_the_table_moves(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Round 1 with two player slots: the GM chooses Leia in slot 2's **who** and is still on
    it when Ana opens a check (and when the GM sets its difficulty). Every check's status was in
    the encounter's key, and each change rebuilt every slot's form: the focus fell to the
    slots' list and both choices went back to Han, so the next Tab and Enter claimed slot 1
    for the wrong character. A slot whose own data did not change keeps its form."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    leia = {**HAN, "skills": {"Cool": {"rank": 2, "characteristic": "presence"}}}
    for character, name, stats in (("han", "Han", HAN), ("leia", "Leia", leia)):
        served.send(gm_link, {"type": "create_character", "character": character,
                              "name": name, "stats": stats})
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han", "leia")
    served.send(gm_link, {"type": "start_encounter"})
    rolled_check(served, gm_link, "han-init", "han", "Cool", "simple")
    rolled_check(served, gm_link, "leia-init", "leia", "Cool", "simple")
    served.send(ana_link, {"type": "enter_initiative", "check": "han-init"},
                {"type": "enter_initiative", "check": "leia-init"})
    served.send(gm_link, {"type": "advance_round"})
    gm = open_page(gm_link)
    encounter = gm.locator("ph-narrative-encounter")
    expect(encounter.locator(".ph-ne-status")).to_have_text("Round 1")
    whos = encounter.locator("li.ph-ne-slot").get_by_label("who")
    expect(whos).to_have_count(2)
    expect(whos.nth(0)).to_have_value("han")
    second = whos.nth(1)
    second.select_option("leia")
    second.focus()
    second.evaluate("(select) => { select.dataset.kept = 'yes'; }")  # the same control after

    served.send(ana_link, {"type": "open_check", "check": "han-2", "character": "han",
                           "skill": "Ranged (Light)"})
    expect(gm.locator("ph-narrative-check[data-check=han-2]")).to_be_visible()
    served.send(gm_link, {"type": "set_difficulty", "check": "han-2", "level": "average"})
    expect(gm.locator("ph-narrative-check[data-check=han-2] .ph-nc-difficulty")).to_have_text(
        "Average")
    expect(second).to_be_focused()
    expect(second).to_have_value("leia")
    expect(second).to_have_attribute("data-kept", "yes")
    expect(whos.nth(0)).to_have_value("han")
    gm.keyboard.press("Tab")  # on to slot 2's own Claim, as the GM meant
    expect(encounter.locator("li.ph-ne-slot").nth(1).get_by_role("button", name="Claim")
           ).to_be_focused()
    gm.keyboard.press("Enter")
    expect(encounter.locator("li.ph-ne-slot").nth(1)).to_contain_text("Leia acts")
    # a slot that changed is drawn again: slot 1 now offers only Han, who has not acted
    expect(whos).to_have_count(1)
    expect(whos.first.locator("option")).to_have_text(["Han"])
