"""What a Dodge answers, on the page (sr3law D1, D4): a Dodge of an astral attack is an astral
Dodge drawing the Astral Combat Pool, named so on its cards and in the log; a Dodge of one's
own test, or "on the astral plane" against a physical attack, is refused beside its field."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served
from tests.web.test_sr3_browser_table import ROOK, create

MARA = {"system": "sr3", "body": 3, "quickness": 4, "strength": 2, "charisma": 5,
        "intelligence": 5, "willpower": 6, "magic": 6,
        "skills": {"sorcery": {"rating": 6, "attribute": "willpower", "kind": "sorcery"}}}
"""Astral Combat Pool (Intelligence 5 + Willpower 6 + Charisma 5) // 2 = 8."""


def test_a_dodge_takes_the_plane_of_the_attack_it_answers(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The reference's decision, "the Combat Pool is not used on the astral plane": Rook's
    astral attack (test #1) is dodged by Mara with the Astral Combat Pool, though the Dodge
    was declared without ticking "on the astral plane" (it was a physical Dodge drawing the
    Combat Pool). The card and the log call it "Astral Combat Pool (dodge, astral)" (they said
    "Combat Pool"). "Whenever a character takes damage from a ranged or melee attack, he or she
    can allocate dice to either dodge the attack": Rook's Dodge of his own attack is refused
    beside "Against test #", and Mara's astral Dodge of his physical attack (test #3) beside
    "on the astral plane"."""
    campaign, gm_link = served.create_campaign("Astral Shallows", "sr3")
    create(served, gm_link, campaign, "rook", "Rook", ROOK)
    create(served, gm_link, campaign, "mara", "Mara", MARA)
    gm = open_page(gm_link)
    served.send(gm_link, {"type": "roll_pool_test", "character": "rook", "skill": "clubs",
                          "kind": "combat", "tn": 4, "astral": True})
    expect(gm.locator("ph-sr3-tests [data-test='1']")).to_be_visible()

    declare = gm.locator("ph-sr3-declare")
    declare.get_by_label("Character", exact=True).select_option("mara")
    declare.get_by_label("Roll", exact=True).select_option("none")
    expect(declare.get_by_label("Test", exact=True)).to_have_value("dodge")
    declare.get_by_label("Against test #").fill("1")
    declare.get_by_role("button", name="Declare").click()
    card = gm.locator("ph-sr3-declared [data-character=mara]")
    expect(card.locator("h3")).to_have_text(
        "Mara: Astral Combat Pool (dodge, astral), TN 4, Astral Combat Pool dice only")
    card.get_by_label("Astral Combat Pool dice (up to 8)").fill("2")
    card.get_by_role("button", name="Roll").click()
    dodge = gm.locator("ph-sr3-tests [data-test='2']")
    expect(dodge.locator("h3")).to_have_text("#2 Mara: Astral Combat Pool (dodge, astral), TN 4")
    expect(dodge.locator(".ph-sr3-group[data-source=astral_combat] .ph-sr3-die")).to_have_count(2)
    expect(gm.locator("[data-type=pool_test_rolled]").last).to_contain_text(
        "rolls test #2, Astral Combat Pool (dodge, astral), TN 4")

    against = declare.get_by_label("Against test #")
    declare.get_by_label("Character", exact=True).select_option("rook")
    declare.get_by_label("Roll", exact=True).select_option("none")
    against.fill("1")
    declare.get_by_role("button", name="Declare").click()
    expect(declare.locator(".ph-error")).to_contain_text(
        "test #1 is rook's own: a test answers an opponent's")
    expect(against).to_have_attribute("aria-invalid", "true")

    served.send(gm_link, {"type": "roll_pool_test", "character": "rook", "skill": "clubs",
                          "kind": "combat", "tn": 4})
    expect(gm.locator("ph-sr3-tests [data-test='3']")).to_be_visible()
    declare.get_by_label("Character", exact=True).select_option("mara")
    declare.get_by_label("Roll", exact=True).select_option("none")
    against.fill("3")
    declare.locator("summary").click()
    astral = declare.get_by_label("on the astral plane")
    astral.check()
    declare.get_by_role("button", name="Declare").click()
    expect(declare.locator(".ph-error")).to_contain_text(
        "test #3, rook's clubs test (combat), was not made on the astral plane, so a Dodge "
        "against it is not either")
    expect(astral).to_have_attribute("aria-invalid", "true")
    expect(gm.locator("ph-sr3-tests [data-test]")).to_have_count(3)


def test_a_wounded_declaration_says_its_wounds_in_the_log(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Standard SR3's wound modifiers raise every target number: Rook with Physical 3 and Stun
    1 (+3) declares Clubs at TN 4. The card's odds said "(against target number 7: 4 + 3 for
    wounds)" while the log's line, like ``sr3 declare``'s, said "TN 4" alone; it says "TN 4 +
    3 for wounds" now (sr3law D3)."""
    campaign, gm_link = served.create_campaign("Bruised", "sr3")
    create(served, gm_link, campaign, "rook", "Rook", ROOK)
    for condition, value in (("physical", 3), ("stun", 1)):
        served.send(gm_link, {"type": "set_condition", "character": "rook",
                              "condition": condition, "value": value})
    gm = open_page(gm_link)
    declare = gm.locator("ph-sr3-declare")
    declare.get_by_label("Character", exact=True).select_option("rook")
    declare.get_by_label("Target number").fill("4")
    declare.get_by_role("button", name="Declare").click()
    card = gm.locator("ph-sr3-declared [data-character=rook]")
    expect(card.locator("caption")).to_contain_text("(against target number 7: 4 + 3 for wounds)")
    expect(gm.locator("[data-type=pool_test_declared]")).to_contain_text(
        "Rook declares Clubs (combat), TN 4 + 3 for wounds, 5 dice")
