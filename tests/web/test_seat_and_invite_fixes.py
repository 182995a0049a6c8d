"""What a newcomer GM found in a browser: a join link opened in a browser that sat at the table
replaced its seat at once (a GM checking a player's link became that player; a broken copy of a
link locked its player out); a link pasted with a space or a full stop after it was refused;
each invite threw the last link shown once away, and so did each owner's GM link; the "Plays"
tick boxes broke names letter by letter; a player with no character saw "Open a check" vanish
without a word; "Your tables" listed ids; an empty d12s field was sent as 0 dice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served, screenshot
from tests.web.dialogs import stay_when_asked
from tests.web.test_owner_page import printed_owner_link
from tests.web.test_sr3_browser_table import SAM

DOCS = Path(__file__).resolve().parents[2] / "docs"
STORED_TOKENS = "() => JSON.parse(localStorage.getItem('poolhall.tokens') ?? '{}')"


def _token(link: str) -> str:
    return link.split("token=", 1)[1]


def _second_tab(page: Page, link: str) -> Page:
    """Another tab of the same browser (its storage shared) at ``link``."""
    tab = page.context.new_page()
    tab.goto(link)
    return tab



def test_a_players_link_opened_where_the_gm_sits_asks_before_replacing_the_gm_seat(
        served: Served, open_page: PageOpener) -> None:
    """The GM opens Rae's link in a second tab to check it: the GM seat was replaced at once,
    and the GM link had been shown only once. Now the tab asks, naming both seats, and draws
    no table meanwhile; "Stay" keeps the GM seat, "Open as Rae" replaces it."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    rae_link = served.invite(campaign, gm_link, "player", "Rae")
    gm = open_page(gm_link)
    expect(gm.locator("ph-members")).to_contain_text("Rae")
    check = _second_tab(gm, rae_link)
    question = check.get_by_role("alertdialog", name="Open Cloud City as Rae?")
    expect(question).to_contain_text(
        "This browser sits at Cloud City as GM (GM). Open it as Rae (player) instead? Your GM"
        " seat will be forgotten in this browser unless you keep its link.")
    expect(check.locator("ph-log")).to_have_count(0)
    assert "token" not in check.url
    assert gm.evaluate(STORED_TOKENS) == {campaign: _token(gm_link)}  # nothing replaced yet
    stay = question.get_by_role("button", name="Stay GM (GM)")
    expect(stay).to_be_focused()  # the choice that forgets nothing
    screenshot(check, "seat-question")
    stay.click()
    expect(check.locator(".ph-who")).to_contain_text("you are gm")
    gm.reload()
    expect(gm.locator(".ph-who")).to_contain_text("you are gm")

    check.goto(rae_link)  # a second look: this time Rae's seat is wanted
    question = check.get_by_role("alertdialog", name="Open Cloud City as Rae?")
    question.get_by_role("button", name="Open as Rae").click()
    expect(check.locator(".ph-who")).to_contain_text("you are player")
    assert check.evaluate(STORED_TOKENS) == {campaign: _token(rae_link)}


def test_a_broken_copy_of_a_link_replaces_nothing(served: Served, open_page: PageOpener) -> None:
    """Ana, seated, opens a copy of her link missing its last character: the bad token was kept
    and her own no longer opened the table. Now the page says the link opens nothing and that
    her seat stays; "Back to the table" opens it as Ana."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    ana = open_page(ana_link)
    expect(ana.locator("ph-members")).to_contain_text("Ana")
    ana.goto(ana_link[:-1])
    notice = ana.get_by_role("alert", name="This join link opens nothing")
    expect(notice).to_contain_text("This join link does not open Cloud City")
    expect(notice).to_contain_text(
        "This browser keeps its player seat there: the link changed nothing.")
    assert ana.evaluate(STORED_TOKENS) == {campaign: _token(ana_link)}
    notice.get_by_role("button", name="Back to the table").click()
    expect(ana.locator(".ph-who")).to_contain_text("you are player")
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")


@pytest.mark.parametrize("pasted", ["{} ", "{}.", "{},", "({})", "<{}>", "{}\n"])
def test_a_join_link_pasted_with_what_chat_adds_after_it_opens_the_table(
        served: Served, open_page: PageOpener, pasted: str) -> None:
    """A link copied from chat or mail with a space, a full stop, a comma or a bracket after it
    was refused ("This token does not open …"), and that bad token kept. Tokens never end in
    those characters (``ph_`` and URL-safe base64), so the page drops them."""
    campaign, gm_link = served.create_campaign("Cloud City", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    page = open_page(f"{served.origin}/", live=False)
    landing = page.get_by_role("form", name="Open a table")
    landing.get_by_label("Join link").fill(pasted.format(ana_link))
    landing.get_by_role("button", name="Open the table").click()
    expect(page.locator(".ph-who")).to_contain_text("you are player")
    assert page.evaluate(STORED_TOKENS) == {campaign: _token(ana_link)}


def test_your_tables_lists_titles_with_the_id_only_where_two_share_one(
        served: Served, open_page: PageOpener) -> None:
    """"Your tables" listed "cloud-city-2": now each table by its title, as the page last saw it,
    with its id beside it only when two tables share the title."""
    first, gm_one = served.create_campaign("Cloud City", "narrative")
    second, gm_two = served.create_campaign("Cloud City", "d12")
    third, gm_three = served.create_campaign("Выход", "d12")
    assert (first, second) == ("cloud-city", "cloud-city-2")
    ana = open_page(served.invite(first, gm_one, "player", "Ana"))
    for campaign, gm_link in ((second, gm_two), (third, gm_three)):
        ana.goto(served.invite(campaign, gm_link, "player", "Ana"))
        # its title is noted once welcomed (the same tab: the page reloads to open it)
        ana.wait_for_function(
            f"() => JSON.parse(localStorage.getItem('poolhall.seats') ?? '{{}}')[{campaign!r}]")
    ana.goto(f"{served.origin}/")
    tables = ana.get_by_role("navigation", name="Tables you joined")
    expect(tables.get_by_role("link")).to_have_text(
        ["Cloud City (cloud-city)", "Cloud City (cloud-city-2)", "Выход"])
    tables.get_by_role("link", name="Выход").click()
    expect(ana.locator(".ph-title")).to_have_text("Выход")


def test_every_invite_link_of_the_visit_stays_listed_and_leaving_asks_while_one_is_not_copied(
        served: Served, open_page: PageOpener) -> None:
    """The GM invites Quinn, then Rae, and copies afterwards: Quinn's link, shown only once,
    was gone. Now both stay listed with their names and roles; leaving the page while one was
    never copied asks first (the browser's "Leave site?"), and not once both are copied."""
    campaign, gm_link = served.create_campaign("Cloud City", "d12")
    gm = open_page(gm_link)
    gm.context.grant_permissions(["clipboard-read", "clipboard-write"])
    invite = gm.locator("ph-invite")
    for name, role in (("Quinn", "player"), ("Rae", "spectator")):
        invite.get_by_label("Role").select_option(role)
        invite.get_by_label("Name").fill(name)
        invite.get_by_role("button", name="Invite").click()
        expect(invite.get_by_label(f"join link for {name}")).to_be_visible()
    entries = invite.locator(".ph-invite-link")
    expect(entries).to_have_count(2)
    expect(entries.nth(0)).to_contain_text("Quinn · player")
    expect(entries.nth(1)).to_contain_text("Rae · spectator")
    links = {name: invite.get_by_label(f"join link for {name}").input_value()
             for name in ("Quinn", "Rae")}
    screenshot(gm, "invite-links-kept")

    asked = stay_when_asked(gm)
    gm.evaluate("location.reload()")
    expect(gm.get_by_label("join link for Quinn")).to_be_visible()  # stayed
    assert asked == ["beforeunload"]
    invite.get_by_role("button", name="Copy Quinn's link").click()
    assert gm.evaluate("navigator.clipboard.readText()") == links["Quinn"]
    gm.evaluate("location.reload()")
    expect(gm.get_by_label("join link for Quinn")).to_be_visible()
    assert asked == ["beforeunload", "beforeunload"]  # Rae's is not copied yet
    invite.get_by_role("button", name="Copy Rae's link").click()
    gm.reload()
    expect(gm.locator(".ph-connection")).to_have_attribute("data-state", "live")
    assert asked == ["beforeunload", "beforeunload"]
    expect(gm.locator(".ph-invite-link")).to_have_count(0)

    for name, role in (("Quinn", "player"), ("Rae", "spectator")):
        expect(open_page(links[name]).locator(".ph-who")).to_contain_text(f"you are {role}")
    # the tutorial names the button by its visible words
    tutorial = (DOCS / "tutorials" / "open-a-table.md").read_text()
    assert "**Remove GM 2**" not in tutorial


def test_the_owner_page_keeps_every_gm_link_it_made_and_asks_before_leaving_them_uncopied(
        served: Served, open_page: PageOpener) -> None:
    """"Another GM link" replaced the one shown before it (shown once), and a reload dropped
    every GM link with no word. Now each stays listed with its member's name, and leaving
    asks first while one was never copied."""
    owner = open_page(printed_owner_link(served), live=False)
    form = owner.get_by_role("form", name="Create a campaign")
    form.get_by_label("Title").fill("Outer Rim")
    form.get_by_role("button", name="Create").click()
    row = owner.locator("li[data-campaign=outer-rim]")
    first = row.get_by_label("GM link for Outer Rim", exact=True).input_value()
    row.get_by_role("button", name="Another GM link").click()
    expect(row.get_by_label("GM link for Outer Rim (GM 2)")).to_be_visible()
    expect(row.get_by_label("GM link for Outer Rim", exact=True)).to_have_value(first)
    expect(row.locator(".ph-owner-gm-name")).to_have_text(
        ["At the table this link is the GM “GM 2”: if it is ever lost, remove that member there."])
    asked = stay_when_asked(owner)
    owner.evaluate("location.reload()")
    expect(row.get_by_label("GM link for Outer Rim (GM 2)")).to_be_visible()
    assert asked == ["beforeunload"]


@pytest.mark.parametrize("width", [1280, 390])
def test_the_plays_tick_boxes_keep_each_name_on_one_line(
        served: Served, open_page: PageOpener, width: int) -> None:
    """"R o o k", "Ha n Sol o": the Name field's flex rule also matched the tick boxes, and
    each name was squeezed beside its box to a letter a line, at 1280 px and at 390 px."""
    campaign, gm_link = served.create_campaign("Cloud City", "d12")
    served.send(gm_link, *({"type": "create_character", "character": key, "name": name,
                            "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 2}}}
                           for key, name in (("han", "Han Solo"), ("rook", "Rook"),
                                             ("ganger", "Ganger"))))
    gm = open_page(gm_link, width=width, height=844)
    if width < 700:
        gm.locator(".ph-phone-tabs").get_by_role("button", name="Sheet").click()
    box = gm.get_by_role("group", name="Plays")
    expect(box.locator("label.ph-check")).to_have_count(3)
    box.scroll_into_view_if_needed()
    lines = box.locator("label.ph-check span").evaluate_all("""(spans) => spans.map((span) => {
      const range = document.createRange();
      range.selectNodeContents(span);
      return [span.textContent, new Set([...range.getClientRects()].map((r) => r.top)).size];
    })""")
    assert lines == [["Han Solo", 1], ["Rook", 1], ["Ganger", 1]], lines
    screenshot(gm, f"invite-plays-{width}")


@pytest.mark.parametrize("system", ["narrative", "sr3", "d12"])
def test_a_player_with_no_character_is_told_so_where_the_forms_would_be(
        served: Served, open_page: PageOpener, system: str) -> None:
    """Ben plays no character (none given yet, or retired): "Open a check" just vanished. Now a
    sentence says so and what the GM does; it goes once the GM gives Ben a character."""
    campaign, gm_link = served.create_campaign("Cloud City", system)
    ben = open_page(served.invite(campaign, gm_link, "player", "Ben"))
    note = ben.locator(".ph-no-character")
    expect(note).to_have_text("You play no character here yet: the GM gives you one with"
                              " Characters, beside your name under At the table.")
    stats = {"narrative": {"system": "narrative"}, "sr3": SAM,
             "d12": {"system": "d12", "ratings": {"CON": 2, "CHA": 2}}}[system]
    served.send(gm_link, {"type": "create_character", "character": "bo", "name": "Bo",
                          "stats": stats},
                {"type": "assign_characters", "member": "ben", "characters": ["bo"]})
    expect(note).to_be_hidden()
    served.send(gm_link, {"type": "retire_character", "character": "bo"})
    expect(note).to_be_visible()


def test_an_empty_d12s_field_is_said_to_be_empty_and_nothing_is_sent(
        served: Served, open_page: PageOpener) -> None:
    """Roll the test with the d12s field empty said "the dice is between 1 and 100 (how many
    d12s)": the page sent Number("") = 0. Now the page says the field is empty, marks it,
    and sends nothing."""
    campaign, gm_link = served.create_campaign("Cloud City", "d12")
    gm = open_page(gm_link)
    gm.get_by_text("Basic test", exact=True).click()
    form = gm.get_by_role("form", name="Roll a basic test")
    form.get_by_label("DT").fill("7")
    form.get_by_role("button", name="Roll the test").click()
    expect(form.locator(".ph-error")).to_have_text("d12s is empty")
    expect(form.get_by_label("d12s")).to_have_attribute("aria-invalid", "true")
    sent = [json.loads(frame)["type"] for frame in open_page.sent_from(gm)]
    assert "roll_basic_test" not in sent, sent
    form.get_by_label("d12s").fill("3")
    form.get_by_label("DT").fill("")
    form.get_by_role("button", name="Roll the test").click()
    expect(form.locator(".ph-error")).to_have_text("DT is empty")
    expect(form.get_by_label("DT")).to_have_attribute("aria-invalid", "true")
    form.get_by_label("DT").fill("7")
    form.get_by_role("button", name="Roll the test").click()
    expect(gm.locator("ph-log")).to_contain_text("basic test for no one, 3 dice at DT 7")
