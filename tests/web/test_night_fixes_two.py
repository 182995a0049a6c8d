"""More of what the narrative game night found, each in a browser: a nameless invite, GM links
that could not be told apart, odds before a difficulty, the phone's roll form covering a
check, a conditions form that started at 0, the character file chooser, and long names on a
d12 table at phone width."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.conftest import SCREENSHOTS, PageOpener, Served, screenshot
from tests.web.test_narrative_night_fixes import (
    LONG,
    NO_SIDEWAYS_SCROLL,
    PAST_THEIR_CARD,
    narrative_table,
)
from tests.web.test_owner_page import printed_owner_link

UNCOVERED = """(control) => {
  const box = control.getBoundingClientRect();
  const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
  return top === control || control.contains(top);
}"""
"""Whether a person tapping the middle of ``control`` reaches it (nothing lies on top)."""


def members_of(page: Page) -> list[str]:
    return page.locator("ph-members li .ph-member-about").all_inner_texts()


def test_an_invite_with_no_name_is_asked_for_one_and_nothing_is_sent(
        served: Served, open_page: PageOpener) -> None:
    """Invite with an empty name made a working member called "player" (then "player-2"):
    the form asks for a name in plain words, beside the field, and sends nothing."""
    _, gm_link = narrative_table(served)
    gm = open_page(gm_link)
    invite = gm.get_by_role("form", name="Invite a member")
    invite.get_by_label("Name").fill("   ")
    invite.get_by_role("button", name="Invite").click()
    expect(invite.locator(".ph-error")).to_have_text("give the member a name")
    expect(invite.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    expect(invite.get_by_label("Name")).to_be_focused()
    expect(gm.locator(".ph-invite-result")).to_be_hidden()
    # the form refused before sending (the error above is drawn after its check): no invite
    assert not [frame for frame in open_page.sent if '"type":"invite"' in str(frame)]
    assert members_of(gm) == ["GM gm (you)"]
    invite.get_by_label("Name").fill("Ana")
    expect(invite.locator(".ph-error")).to_be_empty()
    invite.get_by_role("button", name="Invite").click()
    expect(gm.locator(".ph-invite-result")).to_contain_text("Join link for Ana")
    expect(gm.locator("ph-members")).to_contain_text("Ana player")


def test_each_gm_link_has_a_name_of_its_own_and_the_right_one_is_removed(
        served: Served, open_page: PageOpener) -> None:
    """Each "Another GM link" was a member called "GM": the table listed "GM gm (you)" and
    "GM gm". Now each is "GM 2", "GM 3", as the owner's page says beside the link, and the GM
    removes the lost one by that name; the other keeps working."""
    owner = open_page(printed_owner_link(served), live=False)
    form = owner.get_by_role("form", name="Create a campaign")
    form.get_by_label("Title").fill("Outer Rim")
    form.get_by_role("button", name="Create").click()
    row = owner.locator("li[data-campaign=outer-rim]")
    gm_link = row.get_by_label("GM link for Outer Rim").input_value()
    links = {}
    for name in ("GM 2", "GM 3"):
        row.get_by_role("button", name="Another GM link").click()
        expect(row.locator(".ph-owner-gm-name").last).to_contain_text(f"the GM “{name}”")
        links[name] = row.get_by_label(f"GM link for Outer Rim ({name})").input_value()
    screenshot(owner, "night2-owner-gm-links")

    gm = open_page(gm_link)
    expect(gm.locator("ph-members li")).to_have_count(3)
    assert members_of(gm) == ["GM gm (you)", "GM 2 gm", "GM 3 gm"]
    members = gm.locator("ph-members")
    members.get_by_role("button", name="Remove GM 2").click()
    members.get_by_role("form", name="Remove GM 2").get_by_role(
        "button", name="Yes, remove").click()
    expect(gm.locator("ph-members li")).to_have_count(2)
    assert members_of(gm) == ["GM gm (you)", "GM 3 gm"]
    screenshot(gm, "night2-gm-links-at-the-table")

    kept = open_page(links["GM 3"])
    expect(kept.locator("ph-invite")).to_be_visible()
    lost = open_page(links["GM 2"], live=False)
    expect(lost.get_by_role("alert", name="This table is closed to you")).to_be_visible()


def test_odds_wait_for_the_difficulty(served: Served, open_page: PageOpener) -> None:
    """"94.4% to succeed" stood beside "no difficulty yet" and read as the real chance: until
    the GM sets the difficulty the card says the odds come then, and shows none."""
    campaign, gm_link = narrative_table(served)
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    served.send(ana_link, {"type": "open_check", "check": "han-1", "character": "han",
                           "skill": "Cool"})
    ana = open_page(ana_link)
    card = ana.locator("ph-narrative-check[data-check=han-1]")
    expect(card.locator(".ph-nc-notation")).to_have_text("1y2g")
    expect(card.locator(".ph-nc-odds")).to_have_text("Odds once the GM sets the difficulty.")
    expect(card.locator(".ph-nc-success, .ph-nc-table")).to_have_count(0)
    served.send(gm_link, {"type": "set_difficulty", "check": "han-1", "level": "simple"})
    expect(card.locator(".ph-nc-difficulty")).to_have_text("Simple")
    expect(card.locator(".ph-nc-success")).to_contain_text(re.compile(r"% to succeed$"))


def test_on_a_phone_the_roll_form_keeps_to_one_line_and_a_check_can_be_rolled(
        served: Served, open_page: PageOpener) -> None:
    """At 390x844 the sticky roll form took about 220 px and hid a check's controls: it is one
    line (dice, Roll, More) and the check's Roll, brought into view, is not under it; More
    opens the rest, and a roll that is not public shows its choice even when folded."""
    campaign, gm_link = narrative_table(served)
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    served.send(ana_link, {"type": "open_check", "check": "han-1", "character": "han",
                           "skill": "Cool"})
    served.send(gm_link, {"type": "set_difficulty", "check": "han-1", "level": "easy"})
    ana = open_page(ana_link, width=390, height=844)
    form = ana.locator("ph-roll")
    box = form.bounding_box()
    assert box
    assert box["height"] <= 80, box
    expect(form.get_by_label("reason")).to_be_hidden()

    card = ana.locator("ph-narrative-check[data-check=han-1]")
    # the card drawn whole first (its odds come later, from a worker: they make it taller)
    expect(card.locator(".ph-nc-success")).to_contain_text("% to succeed", timeout=15_000)
    roll = card.locator(".ph-nc-roll")
    roll.focus()  # as a keyboard, or a person scrolling to it, brings it into view
    ana.evaluate("() => new Promise((done) => requestAnimationFrame(() =>"
                 " requestAnimationFrame(done)))")  # the scroll it causes, drawn
    assert roll.evaluate(UNCOVERED), (roll.bounding_box(), form.bounding_box())
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    ana.screenshot(path=str(SCREENSHOTS / "night2-phone-check.png"))  # the screen, as seen
    roll.click()  # Playwright clicks only where the button itself receives the click
    expect(ana.locator("ph-narrative-check[data-check=han-1]")).to_have_count(0)  # rolled

    more = form.get_by_role("button", name="More")
    more.click()
    expect(form.get_by_role("button", name="Less")).to_have_attribute("aria-expanded", "true")
    form.get_by_label("reason").fill("a hunch")
    form.get_by_label("who sees this roll").select_option("self")
    form.get_by_label("dice expression").fill("2d6")
    form.get_by_role("button", name="Less").click()
    expect(form.get_by_label("who sees this roll")).to_be_visible()  # private: never hidden
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(ana.locator("ph-log [data-type=dice_rolled]").last).to_contain_text("a hunch")


def test_the_conditions_form_starts_at_the_current_value_and_follows_it(
        served: Served, open_page: PageOpener) -> None:
    """The number always started at 0: it shows the chosen condition's current value, follows
    it as it changes, and leaves alone what someone is typing."""
    campaign, gm_link = narrative_table(served)
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    served.send(gm_link, {"type": "set_condition", "character": "han", "condition": "wounds",
                          "value": 3})
    ana = open_page(ana_link)
    form = ana.get_by_role("form", name="Set a condition of Han")
    value = form.get_by_label("value", exact=True)
    form.get_by_label("condition", exact=True).select_option("wounds")
    expect(value).to_have_value("3")
    served.send(gm_link, {"type": "set_condition", "character": "han", "condition": "wounds",
                          "value": 4})
    expect(value).to_have_value("4")
    form.get_by_label("condition", exact=True).select_option("strain")
    expect(value).to_have_value("0")
    value.fill("2")
    served.send(gm_link, {"type": "set_condition", "character": "han", "condition": "strain",
                          "value": 1})
    expect(ana.locator("ph-conditions [data-condition=strain]")).to_have_text("strain 1")
    expect(value).to_have_value("2")  # what she typed stays
    form.get_by_role("button", name="Set").click()
    expect(ana.locator("ph-conditions [data-condition=strain]")).to_have_text("strain 2")
    served.send(gm_link, {"type": "set_condition", "character": "han", "condition": "strain",
                          "value": 5})
    expect(value).to_have_value("5")  # set: it follows again


def test_the_character_file_chooser_stays_clear_of_its_neighbours(
        served: Served, open_page: PageOpener) -> None:
    """"Characters in and out": the file chooser ran under the next label ("…ld here")."""
    _, gm_link = narrative_table(served)
    gm = open_page(gm_link)
    card = gm.locator("ph-characters")
    chooser = card.get_by_label("character file").bounding_box()
    id_here = card.get_by_label("Id here").bounding_box()
    words = card.locator("label", has_text="Id here").bounding_box()
    edge = card.bounding_box()
    assert chooser
    assert id_here
    assert words
    assert edge
    for box in (chooser, id_here, words):
        assert box["x"] + box["width"] <= edge["x"] + edge["width"], (box, edge)
    assert chooser["y"] + chooser["height"] <= words["y"], (chooser, words)  # a line each
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    card.screenshot(path=str(SCREENSHOTS / "night2-characters.png"))


def test_long_names_on_a_d12_table_at_phone_width(
        served: Served, open_page: PageOpener) -> None:
    """An 80-character character name with no space (in every character select) and as long
    a member name, on a d12 table 390 px wide: the GM's Call for a test and the Basic test
    widened the page to 889 px; now nothing runs past its card."""
    campaign, gm_link = served.create_campaign("Long d12", "d12")
    served.send(gm_link, {"type": "create_character", "character": "long", "name": LONG,
                          "stats": {"system": "d12", "ratings": {"CON": 3, "CHA": 2, "STR": 4}}},
                {"type": "call_threshold_test", "character": "long", "stats": ["STR"],
                 "dt": 6, "label": "L" * 60})
    player = served.invite(campaign, gm_link, "player", "M" * 80, "long")
    for link in (gm_link, player):
        page = open_page(link, width=390, height=844)
        expect(page.locator("ph-d12-test")).to_have_count(1)
        page.evaluate("() => document.querySelectorAll('details')"
                      ".forEach((d) => { d.open = true; })")
        for view in ("Table", "Sheet", "Log"):
            page.get_by_role("navigation", name="Views").get_by_role("button", name=view).click()
            assert page.evaluate(NO_SIDEWAYS_SCROLL), (view, page.evaluate(
                "document.documentElement.scrollWidth"))
            assert page.evaluate(PAST_THEIR_CARD) == [], view
        page.get_by_role("navigation", name="Views").get_by_role("button", name="Table").click()
        button = page.locator("ph-d12-test button").first
        button.focus()
        assert button.evaluate(UNCOVERED)
        screenshot(page, f"night2-d12-long-{'gm' if link == gm_link else 'player'}")
