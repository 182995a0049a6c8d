"""What a narrative game night found (a GM, three players and a spectator), each in a browser:
long names, empty fields, forms that kept old data, errors that outstayed their truth, a
removed player's page, a lost claim race, and a light side point spent with one click."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from poolhall.events.narrative_values import MAX_DESTINY
from tests.web.conftest import PageOpener, Served, screenshot

LONG = "X" * 80
"""The longest name the character form takes, with no space to wrap at."""

HAN = {"system": "narrative", "agility": 3, "presence": 3,
       "skills": {"Ranged (Light)": {"rank": 2, "characteristic": "agility"},
                  "Cool": {"rank": 1, "characteristic": "presence"}}}

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"
PAST_THEIR_CARD = """() => [...document.querySelectorAll('.ph-panel, .ph-side > *, .ph-tools > *')]
  .filter((card) => getComputedStyle(card).display !== 'contents') // no box: not a card
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


def test_an_emptied_characteristic_and_a_nameless_skill_row_are_refused_not_saved(
        served: Served, open_page: PageOpener) -> None:
    """An emptied Agility was saved as 0, and a skill row with no name dropped with its rank,
    both without a word: each is refused in plain words beside its field, and nothing sent.
    An id that is no id is refused with the Id field marked invalid and described by the
    refusal, as every other field (it was an alert tied to no field)."""
    _, gm_link = narrative_table(served)
    gm = open_page(gm_link)
    form = gm.locator("ph-narrative-sheet form")
    sent: list[str] = []
    gm.on("websocket", lambda socket: socket.on("framesent", lambda f: sent.append(str(f))))
    form.get_by_label("name", exact=True).fill("Ørjan Kessel")
    identifier = form.get_by_label("id", exact=True)
    identifier.fill("Ørjan Kessel!")
    form.get_by_role("button", name="Create character").click()
    error = form.locator(":scope > output.ph-error")
    expect(error).to_have_text(
        "the id is lowercase letters, digits, '-' and '_' (at most 40 characters)")
    expect(identifier).to_have_attribute("aria-invalid", "true")
    expect(identifier).to_have_attribute("aria-describedby", str(error.get_attribute("id")))
    identifier.fill("orjan-kessel")
    expect(identifier).not_to_have_attribute("aria-invalid", "true")
    agility = form.get_by_label("Agility", exact=True)
    agility.fill("")
    form.get_by_role("button", name="Create character").click()
    expect(error).to_have_text("Agility is a whole number from 0 to 10: it is empty")
    expect(agility).to_have_attribute("aria-invalid", "true")
    agility.fill("3")
    expect(error).to_be_empty()

    form.get_by_role("button", name="Add a skill").click()
    form.get_by_role("button", name="Add a skill").click()
    rows = form.locator(".ph-nd-skill-row")
    rows.nth(0).get_by_label("skill", exact=True).fill("Cool")
    rows.nth(1).get_by_label("rank", exact=True).fill("2")  # no name
    form.get_by_role("button", name="Create character").click()
    expect(error).to_have_text("skill row 2 has no name: name the skill, or remove its row")
    expect(rows.nth(1).get_by_label("skill", exact=True)).to_have_attribute(
        "aria-invalid", "true")
    rows.nth(0).get_by_label("rank", exact=True).fill("")
    rows.nth(1).get_by_label("skill", exact=True).fill("Stealth")
    form.get_by_role("button", name="Create character").click()
    expect(error).to_have_text("the rank of Cool is a whole number from 0 to 5: it is empty")
    assert not [frame for frame in sent if "create_character" in frame]

    rows.nth(0).get_by_label("rank", exact=True).fill("1")
    form.get_by_role("button", name="Create character").click()
    expect(form.locator(".ph-nd-sheet-status")).to_have_text("Ørjan Kessel (orjan-kessel) created.")
    stats = gm.evaluate("() => document.querySelector('ph-app').store.state.table.characters"
                        ".find((c) => c.name === 'Ørjan Kessel').stats")
    assert stats["agility"] == 3
    assert stats["skills"] == {"Cool": {"rank": 1, "characteristic": "agility"},
                               "Stealth": {"rank": 2, "characteristic": "agility"}}


def test_the_open_check_skills_and_the_invite_names_follow_the_table_live(
        served: Served, open_page: PageOpener) -> None:
    """Zed gains Stealth while the GM's Open a check shows him with no skill: the form moves to
    Stealth (it stayed on "another skill (untrained)" until a reload); a renamed character
    reads by their new name in the invite's Plays list, ticked as before; what the GM typed
    stays."""
    _, gm_link = narrative_table(served)
    served.send(gm_link, {"type": "create_character", "character": "zed", "name": "Zed",
                          "stats": {"system": "narrative"}})
    gm = open_page(gm_link)
    opener = gm.locator("ph-narrative-opener form")
    opener.get_by_label("character", exact=True).select_option("zed")
    skill = opener.get_by_label("skill", exact=True)
    expect(skill).to_have_value("*other")
    opener.get_by_label("reason", exact=True).fill("sneak past")
    invite = gm.locator("ph-invite form")
    invite.get_by_label("Name").fill("Ana")
    invite.get_by_role("checkbox", name="Zed").check()

    served.send(gm_link, {"type": "update_character", "character": "zed", "name": "Zed Orrs",
                          "stats": {"system": "narrative", "skills": {
                              "Stealth": {"rank": 1, "characteristic": "agility"}}}})
    expect(skill).to_have_value("Stealth")
    expect(opener.get_by_label("untrained skill")).to_be_hidden()
    expect(opener.get_by_label("reason", exact=True)).to_have_value("sneak past")
    expect(invite.get_by_role("checkbox", name="Zed Orrs")).to_be_checked()
    assert invite.locator(".ph-invite-characters label").all_inner_texts() == [
        "Han", "Zed Orrs"]
    expect(invite.get_by_label("Name")).to_have_value("Ana")

    skill.select_option("*other")  # the GM's own choice stays while the sheet changes
    served.send(gm_link, {"type": "update_character", "character": "zed", "name": "Zed Orrs",
                          "stats": {"system": "narrative", "skills": {
                              "Stealth": {"rank": 2, "characteristic": "agility"}}}})
    expect(skill).to_contain_text("Stealth (rank 2, Agility)")
    expect(skill).to_have_value("*other")


def test_a_refusal_goes_when_what_it_was_about_changes(
        served: Served, open_page: PageOpener) -> None:
    """"No dark side destiny point left" goes once the pool is rolled; a player's "the light
    side already did on 'han-1'" goes once han-1 is rolled; "initiative comes first" goes once
    an initiative is entered. Each stayed on the page for the rest of the night."""
    campaign, gm_link = narrative_table(served)
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    gm, ana = open_page(gm_link), open_page(ana_link)

    # a side with 0 points is not offered (the GM's dark and "light for a player" buttons and
    # the player's light one were, and only the server's refusal said why): the button is off
    # with the reason beside it, and comes back when the pool changes
    destiny = gm.locator("ph-narrative-destiny")
    dark = destiny.get_by_role("button", name="Spend a dark side point")
    for_a_player = destiny.get_by_role("button", name="Spend light for a player")
    expect(dark).to_be_disabled()
    expect(for_a_player).to_be_disabled()
    expect(destiny.locator(".ph-nd-spend")).to_contain_text("no dark side points in the pool")
    expect(destiny.locator(".ph-nd-spend")).to_contain_text("no light side points in the pool")
    served.send(gm_link, {"type": "set_destiny_pool", "light": 2, "dark": 1})
    expect(gm.locator(".ph-nd-destiny-count")).to_have_text("2 light, 1 dark")
    expect(dark).to_be_enabled()
    expect(for_a_player).to_be_enabled()
    expect(destiny.locator(".ph-nd-none")).to_have_count(2)
    expect(destiny.locator(".ph-nd-none:visible")).to_have_count(0)

    served.send(gm_link, {"type": "open_check", "check": "han-1", "character": "han",
                          "skill": "Cool"},
                {"type": "set_difficulty", "check": "han-1", "level": "easy"})
    served.send(ana_link, {"type": "flip_destiny", "side": "light", "effect": "other",
                           "check": "han-1"})
    spend = ana.locator("ph-narrative-destiny .ph-nd-spend")
    expect(ana.locator(".ph-nd-destiny-count")).to_have_text("1 light, 2 dark")
    spend.get_by_label("on", exact=True).select_option("han-1")
    spend.get_by_role("button", name="Spend a light side point").click()
    ana_error = spend.locator(":scope > output.ph-error")
    expect(ana_error).to_contain_text("the light side already did on 'han-1'")
    served.send(ana_link, {"type": "roll_check", "check": "han-1"})
    expect(ana.locator("ph-narrative-results li[data-check=han-1]")).to_be_visible()
    expect(ana_error).to_be_empty()

    # an Impossible check says it needs a destiny point first, and offers that spend (it
    # showed odds and a Roll the server refuses, with "upgrade ability" offered)
    served.send(gm_link, {"type": "open_check", "check": "han-3", "character": "han",
                          "skill": "Cool"},
                {"type": "set_difficulty", "check": "han-3", "level": "impossible"})
    impossible = ana.locator("ph-narrative-check[data-check=han-3]")
    note = impossible.locator(".ph-nc-impossible")
    expect(note).to_contain_text("once a destiny point is spent on it")
    expect(impossible.get_by_label("to", exact=True)).to_have_value("attempt_impossible")
    impossible.get_by_role("button", name="Spend a light side point").click()
    expect(note).to_be_hidden()
    expect(impossible.locator(".ph-nc-changes li")).to_have_text(
        ["a light side destiny point was spent on it to attempt the impossible"])
    # that was the last light point: Ana's light button is off, and stays off after the
    # spend's answer (the form re-enabled its button once the command came back); the card's
    # says its side's point for this check is spent
    expect(ana.locator(".ph-nd-destiny-count")).to_have_text("0 light, 3 dark")
    expect(spend.get_by_role("button", name="Spend a light side point")).to_be_disabled()
    expect(spend).to_contain_text("no light side points in the pool")
    expect(impossible.locator(".ph-nc-spent")).to_contain_text(
        "The light side's destiny point for this check is spent")
    impossible.get_by_role("button", name="Roll").click()
    expect(ana.locator("ph-narrative-results li[data-check=han-3]")).to_be_visible()
    served.send(gm_link, {"type": "flip_destiny", "side": "dark", "effect": "other"})
    expect(spend.get_by_role("button", name="Spend a light side point")).to_be_enabled()
    expect(spend.locator(".ph-nd-none")).to_be_hidden()

    encounter = gm.locator("ph-narrative-encounter")
    encounter.get_by_role("button", name="Start encounter").click()
    encounter.get_by_role("button", name="Start round 1").click()
    round_error = encounter.locator(".ph-ne-gm > output.ph-error")
    expect(round_error).to_contain_text("initiative comes first")
    served.send(gm_link, {"type": "open_check", "check": "han-2", "character": "han",
                          "skill": "Cool"},
                {"type": "set_difficulty", "check": "han-2", "level": "simple"},
                {"type": "roll_check", "check": "han-2"},
                {"type": "enter_initiative", "check": "han-2"})
    expect(encounter.locator("li.ph-ne-slot")).to_have_count(1)
    expect(round_error).to_be_empty()


def test_the_player_who_loses_a_claim_race_is_told_who_took_the_slot(
        served: Served, open_page: PageOpener) -> None:
    """Ana and Ben press Claim on the same slot; Ben's claim reaches the server first. Ana's
    Claim form goes with the slot, and the encounter's own line says why (it said nothing)."""
    campaign, gm_link = narrative_table(served)
    served.send(gm_link, {"type": "create_character", "character": "kira", "name": "Kira Vance",
                          "stats": HAN},
                {"type": "start_encounter"})
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    ben_link = served.invite(campaign, gm_link, "player", "Ben", "kira")
    for check, who in (("han-i", "han"), ("kira-i", "kira")):
        served.send(gm_link, {"type": "open_check", "check": check, "character": who,
                              "skill": "Cool"},
                    {"type": "set_difficulty", "check": check, "level": "simple"},
                    {"type": "roll_check", "check": check},
                    {"type": "enter_initiative", "check": check})
    served.send(gm_link, {"type": "advance_round"})
    ana = open_page(ana_link)
    slot = ana.locator("ph-narrative-encounter li.ph-ne-slot[data-slot='1']")
    expect(slot.get_by_role("button", name="Claim")).to_be_visible()
    # Ana's page is a moment behind: the table with Ben's claim reaches it after she pressed
    ana.evaluate("""() => {
      const store = document.querySelector('ph-app').store;
      window.heldTables = [];
      window.ownTable = store.table;
      store.table = (message) => window.heldTables.push(message);
    }""")
    served.send(ben_link, {"type": "claim_slot", "slot": 1, "character": "kira"})
    ana.wait_for_function("() => window.heldTables.length > 0")
    # she presses Claim, and the table with Ben's claim comes in before the server's answer
    # (as the server sends them: an event's table first)
    ana.evaluate("""() => {
      const button = [...document.querySelectorAll("li.ph-ne-slot[data-slot='1'] button")]
        .find((b) => b.textContent === "Claim");
      button.click();
      const store = document.querySelector('ph-app').store;
      store.table = window.ownTable;
      for (const message of window.heldTables) store.table(message);
    }""")
    expect(slot).to_contain_text("Kira Vance acts")
    expect(slot.get_by_role("form")).to_have_count(0)
    notice = ana.locator("ph-narrative-encounter .ph-ne-notice")
    expect(notice).to_have_text(
        "Slot 1 was not yours: slot 1 is taken this round (Kira Vance took it).")
    screenshot(ana, "night-claim-race")


def test_a_removed_players_page_closes_live_and_after_a_reload(
        served: Served, open_page: PageOpener) -> None:
    """The GM removes Ana: her page (open, with every control) gives way to a notice in plain
    words with no control but Leave this table, at once and again after a reload. It kept
    every control, answered "send join with your token first", and reloaded nearly blank."""
    campaign, gm_link = narrative_table(served)
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    ana = open_page(ana_link)
    expect(ana.get_by_role("button", name="Open check")).to_be_visible()
    member = ana.evaluate("() => document.querySelector('ph-app').me.member")
    served.send(gm_link, {"type": "remove_member", "member": member})
    for attempt in ("live", "reloaded"):
        if attempt == "reloaded":
            ana.reload()
        notice = ana.get_by_role("alert", name="This table is closed to you")
        expect(notice).to_contain_text("You were removed from this table by the GM.")
        expect(notice).to_contain_text("ask the GM for a new join link")
        expect(ana.locator(".ph-main, .ph-phone-tabs, ph-roll, ph-narrative-table")
               ).to_have_count(0)
        controls = ana.locator("ph-app :is(button, input, select, textarea):visible")
        assert controls.all_inner_texts() == ["Leave this table"], attempt
        screenshot(ana, f"night-removed-{attempt}")
    ana.get_by_role("button", name="Leave this table").click()
    ana.get_by_role("button", name="Yes, leave").click()
    expect(ana.get_by_role("form", name="Open a table")).to_be_visible()


def test_light_for_a_player_is_asked_first_and_the_log_says_for_whom(
        served: Served, open_page: PageOpener) -> None:
    """"Spend light for a player" spent at once (one stray click burned a light point) and
    read "GM spent a light side point"; the pool's inputs allowed 20 where the server takes
    50; a Force roll read "Ana Han rolled 1 Force die" (the name twice when they share it)."""
    campaign, gm_link = narrative_table(served)
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    gm = open_page(gm_link)
    destiny = gm.locator("ph-narrative-destiny")
    for side in ("light", "dark"):
        expect(destiny.get_by_label(side, exact=True)).to_have_attribute("max", str(MAX_DESTINY))
    destiny.get_by_label("light", exact=True).fill("30")
    destiny.get_by_label("dark", exact=True).fill("2")
    destiny.get_by_role("button", name="Set the pool").click()
    count = gm.locator(".ph-nd-destiny-count")
    expect(count).to_have_text("30 light, 2 dark")

    spend = destiny.locator(".ph-nd-spend")
    spend.get_by_role("button", name="Spend light for a player").click()
    yes = spend.get_by_role("button", name="Yes, spend light")
    expect(yes).to_be_focused()
    expect(spend).to_contain_text("Spend one of the players' light side points")
    spend.get_by_role("button", name="Keep it").click()
    expect(yes).to_be_hidden()
    expect(spend.get_by_role("button", name="Spend light for a player")).to_be_focused()
    expect(count).to_have_text("30 light, 2 dark")  # nothing was sent
    spend.get_by_role("button", name="Spend light for a player").click()
    yes.click()
    expect(count).to_have_text("29 light, 3 dark")
    expect(yes).to_be_hidden()
    flipped = gm.locator("ph-log [data-type=destiny_flipped]")
    expect(flipped).to_contain_text(re.compile(r"GM spent a light side point .*for a player: "))
    # the question goes if the pool runs out of light while it is asked: nothing to spend
    spend.get_by_role("button", name="Spend light for a player").click()
    expect(yes).to_be_visible()
    served.send(gm_link, {"type": "set_destiny_pool", "light": 0, "dark": 2})
    expect(yes).to_be_hidden()
    expect(spend.get_by_role("button", name="Spend light for a player")).to_be_disabled()

    served.send(ana_link, {"type": "roll_force_dice", "character": "han", "reason": "Move"})
    force = gm.locator("ph-log [data-type=force_dice_rolled]")
    expect(force).to_contain_text("Ana rolled 1 Force die for Han (Move)")


def test_a_refused_untrained_skill_marks_the_skill_typed_not_the_picker(
        served: Served, open_page: PageOpener) -> None:
    """The GM opens a check of "Sneak!", typed as an untrained skill: the refusal of the name
    (about ``$.skill``) marked the skill picker, which says "another skill (untrained)…", not
    the skill typed. The field typed in is now marked; with no characteristic named for a
    skill not on the sheet, the characteristic is."""
    _, gm_link = narrative_table(served)
    gm = open_page(gm_link)
    opener = gm.locator("ph-narrative-opener form")
    picker = opener.get_by_label("skill", exact=True)
    picker.select_option("*other")
    typed = opener.get_by_label("untrained skill")
    typed.fill("Sneak!")
    opener.get_by_role("button", name="Open check").click()
    expect(opener.locator(":scope > output.ph-error")).not_to_have_text("")
    expect(typed).to_have_attribute("aria-invalid", "true")
    expect(picker).not_to_have_attribute("aria-invalid", "true")
    # the page sends the name as typed and the server judges it: the one frame outside the
    # schema is that check, which this test sent on purpose
    [bad] = [frame for frame in open_page.sent if '"skill":"Sneak!"' in str(frame)]
    open_page.sent.remove(bad)
    typed.fill("Sneakk")
    opener.get_by_role("button", name="Open check").click()
    expect(opener.locator(":scope > output.ph-error")).to_contain_text(
        "name the characteristic for an untrained check")
    expect(opener.get_by_label("characteristic")).to_have_attribute("aria-invalid", "true")
