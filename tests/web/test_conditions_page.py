"""Conditions on the sheet in the browser: the GM marks Sam's wounds, everyone sees them, and
the wound modifier reaches the declared test's odds (equal to `poolhall sr3-odds` at the raised
target number) and his initiative, while a character with a full Stun monitor does not act; a
player sets her own character's strain and not another's."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.serve_process import poolhall
from tests.web.conftest import Served
from tests.web.test_sr3_browser_table import ROOK, SAM, create


def test_wounds_marked_by_the_gm_reach_the_tests_odds(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Sam reads "nothing marked" until the GM marks 3 Physical boxes (Moderate, +2): his
    Pistols test against TN 5 has the odds of 7, and his initiative is 2 lower, said so on the
    sheet, in the log and in the combat panel; Rook, unconscious, is left out of the order."""
    campaign, gm_link = served.create_campaign("Seattle Nights", "sr3")
    create(served, gm_link, campaign, "sam", "Sam", SAM)
    gm = open_page(gm_link)
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "sam"))
    sam = gm.locator("ph-conditions [data-character=sam]")
    expect(sam.locator(".ph-condition-values")).to_have_text("nothing marked")  # not 2 zeros
    expect(sam.locator(".ph-condition")).to_have_count(0)
    form = gm.get_by_role("form", name="Set a condition of Sam")
    form.get_by_label("condition").select_option("physical")
    form.get_by_label("value").fill("3")
    form.get_by_role("button", name="Set").click()
    for page in (gm, ana):
        expect(page.locator("ph-conditions [data-character=sam] [data-condition=physical]")
               ).to_have_text("Physical boxes 3")
        expect(page.locator("ph-log")).to_contain_text("Sam's physical: 0 → 3")
    served.send(gm_link, {"type": "declare_pool_test", "character": "sam", "skill": "pistols",
                          "kind": "other", "tn": 5})
    card = ana.locator("ph-sr3-declared [data-character=sam]")
    expect(card.locator("caption")).to_contain_text("against target number 7: 5 + 2 for wounds")
    odds = json.loads(poolhall("sr3-odds", "6", "--tn", "7", "--json",
                               cwd=served.directory).stdout)["rows"]
    expect(card.locator("tbody tr").first.locator("td").nth(1)).to_have_text(
        f"{100 * odds[0]['at_least'][1]:.1f}%")

    # the same modifier comes off Sam's initiative; Rook, Stun monitor full, does not act
    create(served, gm_link, campaign, "rook", "Rook", ROOK)
    served.send(gm_link, {"type": "set_condition", "character": "rook", "condition": "stun",
                          "value": 10}, {"type": "start_combat"})
    expect(ana.locator("ph-sr3-sheets")).to_contain_text("Reaction 5 + 1d6 - 2 for wounds")
    line = ana.locator("ph-log [data-type=initiative_scores_rolled]")
    expect(line).to_contain_text("− 2 for wounds)")
    expect(line).to_contain_text("not acting: Rook (unconscious)")
    combat = ana.locator("ph-sr3-combat")
    expect(combat.locator("[data-character=sam] .ph-sr3-rolled")).to_contain_text(
        "− 2 for wounds")
    expect(combat.locator("[data-character=rook] .ph-sr3-out")).to_have_text(
        "unconscious: does not act")
    expect(combat.locator(".ph-sr3-acting")).to_have_text("Acting this pass: Sam")


def test_a_player_sets_her_characters_strain_and_no_other(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Narrative: each character reads "nothing marked" until a condition is set (seven 0s
    each, before); Ana sets Han's strain; she has no form for Leia's until the GM gives her
    Leia in Han's place."""
    campaign, gm_link = served.create_campaign("Edge", "narrative")
    for character, name in (("han", "Han"), ("leia", "Leia")):
        served.send(gm_link, {"type": "create_character", "character": character, "name": name,
                              "stats": {"system": "narrative"}})
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "han"))
    # nothing set: one muted line a character, not seven values of 0 each
    cards = ana.locator("ph-conditions .ph-condition-values")
    expect(cards).to_have_text(["nothing marked", "nothing marked"])
    expect(ana.locator("ph-conditions .ph-condition")).to_have_count(0)
    form = ana.get_by_role("form", name="Set a condition of Han")
    form.get_by_label("condition").select_option("strain")
    form.get_by_label("value").fill("4")
    form.get_by_role("button", name="Set").click()
    expect(ana.locator("ph-conditions [data-character=han] [data-condition=strain]")
           ).to_have_text("strain 4")
    expect(ana.locator("ph-conditions [data-character=han] .ph-condition")).to_have_count(7)
    expect(cards.nth(1)).to_have_text("nothing marked")  # Leia's
    # Set pressed again as the form stands (at the value set): said so, nothing logged
    strain_lines = ana.locator("ph-log [data-type=condition_changed]")
    expect(strain_lines).to_have_count(1)
    expect(form.get_by_label("value")).to_have_value("4")
    form.get_by_role("button", name="Set").click()
    expect(form.locator(".ph-error")).to_have_text("Han's strain is already 4: nothing to change")
    expect(strain_lines).to_have_count(1)
    # each value stands apart from the next ("wound threshold 0wounds 0" ran together)
    values = ana.locator("ph-conditions [data-character=han] .ph-condition")
    first, second = values.nth(0).bounding_box(), values.nth(1).bounding_box()
    assert first is not None
    assert second is not None
    assert second["x"] >= first["x"] + first["width"] + 8 or second["y"] > first["y"]
    # and for a screen reader too: the values are read apart ("strain 4wounds 0" ran together)
    read = ana.locator("ph-conditions [data-character=han]").aria_snapshot()
    assert re.search(r"strain threshold 0\s*,\s*strain 4\s*,", read), read
    # Han's Set form stands apart from Leia's name below it (the two touched)
    set_box = form.bounding_box()
    leia = ana.locator("ph-conditions [data-character=leia] h3").bounding_box()
    assert set_box is not None
    assert leia is not None
    assert leia["y"] - (set_box["y"] + set_box["height"]) >= 8, (set_box, leia)
    expect(ana.get_by_role("form", name="Set a condition of Leia")).to_have_count(0)

    # the GM gives her Leia instead of Han: her forms follow at once, with no reload
    served.send(gm_link, {"type": "assign_characters", "member": "ana", "characters": ["leia"]})
    expect(ana.get_by_role("form", name="Set a condition of Leia")).to_have_count(1)
    expect(ana.get_by_role("form", name="Set a condition of Han")).to_have_count(0)
