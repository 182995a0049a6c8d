"""What a narrative game night found (a GM, three players and a spectator), each in a browser:
long names, empty fields, forms that kept old data, errors that outstayed their truth, a
removed player's page, a lost claim race, and a light side point spent with one click."""

from __future__ import annotations

from tests.web.conftest import PageOpener, Served, screenshot

LONG = "X" * 80
"""The longest name the character form takes, with no space to wrap at."""

HAN = {"system": "narrative", "agility": 3, "presence": 3,
       "skills": {"Ranged (Light)": {"rank": 2, "characteristic": "agility"},
                  "Cool": {"rank": 1, "characteristic": "presence"}}}

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"
PAST_THEIR_CARD = """() => [...document.querySelectorAll('.ph-panel, .ph-side > *, .ph-tools > *')]
  .flatMap((card) => {
    const edge = card.getBoundingClientRect().right;
    return [...card.querySelectorAll('*')]
      .filter((part) => part.getBoundingClientRect().right > edge + 1)
      .map((part) => `${part.tagName}.${part.className}`);
  })"""
"""The parts of the page's cards that run out of their card (over the next column)."""


def narrative_table(served: Served) -> tuple[str, str]:
    campaign, gm_link = served.create_campaign("Outer Rim", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": HAN})
    return campaign, gm_link


def test_a_long_name_without_spaces_never_widens_the_page_nor_covers_a_control(
        served: Served, open_page: PageOpener) -> None:
    """An 80-character name with no space, as a character, a member and a check's opponent:
    the page stays within its 1280 px window and the GM's Set difficulty can be pressed."""
    campaign, gm_link = narrative_table(served)
    served.send(gm_link, {"type": "create_character", "character": "long", "name": LONG,
                          "stats": HAN},
                {"type": "create_character", "character": "sarge",
                 "name": "Stormtrooper Sergeant", "stats": HAN})
    served.invite(campaign, gm_link, "player", LONG, "long")
    served.send(gm_link, {"type": "open_check", "check": "long-1", "character": "long",
                          "skill": "Cool", "target": "han"},
                {"type": "open_check", "check": "han-1", "character": "han",
                 "skill": "Cool", "target": "long"})
    gm = open_page(gm_link, width=1280)
    card = gm.locator("ph-narrative-check[data-check=han-1]")
    gm.locator("ph-narrative-check[data-check=long-1]").get_by_label(
        "difficulty", exact=True).select_option("opposed")
    card.get_by_label("difficulty", exact=True).select_option("opposed")
    screenshot(gm, "night-long-name")
    assert gm.evaluate(NO_SIDEWAYS_SCROLL), gm.evaluate("document.documentElement.scrollWidth")
    assert gm.evaluate(PAST_THEIR_CARD) == []
    for part in ("ph-narrative-check", "ph-invite", "ph-conditions", "ph-members",
                 "ph-characters"):
        for box in gm.locator(part).evaluate_all(
                "parts => parts.map(p => p.getBoundingClientRect().toJSON())"):
            assert box["right"] <= 1280, (part, box)
    for label in gm.locator("ph-invite .ph-invite-characters label").all():
        inner = label.evaluate("l => [l.scrollWidth, l.parentElement.clientWidth]")
        assert inner[0] <= inner[1], inner
    card.get_by_label("their skill", exact=True).fill("Cool")
    card.get_by_role("button", name="Set difficulty").click(timeout=3000)
