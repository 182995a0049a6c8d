"""What an attacker-tester found in join links and in names people choose: a join link the server
refuses as ``invalid`` (text glued onto a pasted link, a campaign that is no id) said
"connecting…" for ever and tried again every 10 s, its failed joins getting the next member at
the same address refused; a skill named ``constructor`` was "listed twice" in the GM's form (it
was in every plain object); a campaign, a member named "Constructor" likewise; a refused replay
link stuck to its tab, and the GM's own replay there was refused with it."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served, screenshot
from tests.web.test_character_conflict_page import SAM, updates_sent
from tests.web.test_replay import _session_of_rolls

KEPT_GM_SEAT = "This browser keeps its GM seat there: the link changed nothing."
STORED_TOKENS = "() => JSON.parse(localStorage.getItem('poolhall.tokens') ?? '{}')"
LONG_TOKEN = "ph_" + "A" * 30 + "%20" + "B" * 180
"""A token broken by a space, a paragraph after it: 214 characters, which the server refuses
as ``invalid`` (over 128), and no token poolhall issues begins as it does."""


def _token(link: str) -> str:
    return link.split("token=", 1)[1]


def _joins(opened: PageOpener, page: Page) -> list[dict[str, object]]:
    """The ``join`` frames ``page`` has sent, in order."""
    frames = [json.loads(frame) for frame in opened.sent_from(page)]
    return [frame for frame in frames if frame.get("type") == "join"]


def _without_refused_joins(opened: PageOpener, *tokens: str) -> None:
    """Drop the joins carrying ``tokens`` from what the pages sent: a damaged link's join is
    sent once, for the server to refuse (its refusal is the test's point), and breaks the
    ``poolhall schema`` every other frame sent is checked against at the end of a test."""
    opened.sent[:] = [frame for frame in opened.sent
                      if not any(token in str(frame) for token in tokens)]


def test_a_damaged_link_over_a_seat_is_refused_once_and_keeps_the_seat(
        served: Served, open_page: PageOpener) -> None:
    """The GM, seated, opens a link whose token is 214 characters long (a pasted link broken
    by a space, a paragraph glued on): "connecting…" for ever, a join every 10 s, also after
    a reload, and the only button left, Leave, forgot the seat. Now its join is tried once:
    the page says the link is damaged and why, and keeps the GM seat; "Back to the table"
    opens it."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    gm = open_page(gm_link)
    joined = len(_joins(open_page, gm))
    gm.goto(f"{served.origin}/#campaign={campaign}&token={LONG_TOKEN}")
    notice = gm.get_by_role("alert", name="This join link opens nothing")
    expect(notice.locator("h2")).to_have_text("This join link is damaged")
    expect(notice).to_contain_text(
        "Its token has 214 characters, more than any token poolhall makes (128 at most).")
    expect(notice).to_contain_text(KEPT_GM_SEAT)
    assert "token" not in gm.url
    assert gm.evaluate(STORED_TOKENS) == {campaign: _token(gm_link)}
    assert gm.evaluate("() => document.querySelector('ph-app').connection.stopped")
    assert len(_joins(open_page, gm)) == joined + 1  # once, not again every 10 s
    screenshot(gm, "damaged-link")
    back = notice.get_by_role("button", name="Back to the table")
    expect(back).to_be_focused()
    back.click()
    expect(gm.locator(".ph-who")).to_contain_text("you are gm")
    expect(gm.locator(".ph-connection")).to_have_attribute("data-state", "live")
    _without_refused_joins(open_page, "A" * 30 + " ")


def test_a_damaged_link_in_a_browser_with_no_seat_keeps_nothing(
        served: Served, open_page: PageOpener) -> None:
    """A fresh browser opens a link whose campaign is "C N" (no table's id): "connecting…"
    for ever, the link's token kept in this browser for good. Now it is tried once, nothing is
    kept, the page says why, and "Open another link" brings the landing page's form, which
    says it of a damaged link pasted there before trying it."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    page = open_page(f"{served.origin}/#campaign=C%20N&token={_token(ana_link)}", live=False)
    notice = page.get_by_role("alert", name="This join link opens nothing")
    expect(notice.locator("h2")).to_have_text("This join link is damaged")
    expect(notice).to_contain_text("Its campaign “C N” is not a table's id")
    expect(notice).to_contain_text("Nothing was kept in this browser.")
    assert page.evaluate(STORED_TOKENS) == {}
    assert len(_joins(open_page, page)) == 1
    notice.get_by_role("button", name="Open another link").click()
    landing = page.get_by_role("form", name="Open a table")
    field = landing.get_by_label("Join link")
    expect(field).to_be_focused()
    field.fill(f"{served.origin}/#campaign={campaign}&token={LONG_TOKEN}")
    landing.get_by_role("button", name="Open the table").click()
    expect(landing.get_by_role("alert")).to_have_text(
        "That join link is damaged: its token has 214 characters, more than any token "
        "poolhall makes (128 at most).")
    expect(field).to_have_attribute("aria-invalid", "true")
    assert len(_joins(open_page, page)) == 1  # the form tried nothing
    field.fill(ana_link)
    landing.get_by_role("button", name="Open the table").click()
    expect(page.locator(".ph-who")).to_contain_text("you are player")
    _without_refused_joins(open_page, '"campaign":"C N"')


def test_a_token_with_words_glued_on_opens_the_table(served: Served,
                                                     open_page: PageOpener) -> None:
    """Ana's link pasted as "…token=ph_…Thanks!" (no space before the word): refused as a
    wrong token. Every token poolhall issues is ``ph_`` and 43 characters, so what follows
    those is dropped, and the table opens."""
    campaign, gm_link = served.create_campaign("Cloud City", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    page = open_page(f"{ana_link}Thanks!%E2%80%8B")
    expect(page.locator(".ph-who")).to_contain_text("you are player")
    assert page.evaluate(STORED_TOKENS) == {campaign: _token(ana_link)}


def test_a_kept_token_refused_as_invalid_is_tried_once(served: Served,
                                                       open_page: PageOpener) -> None:
    """A browser that kept such a token before (as this page's older version did) joined
    with it every 10 s, saying "connecting…": a join refused ``invalid`` is now final, like
    ``unauthorized``, and the table is closed to it, saying why."""
    campaign, _ = served.create_campaign("Cloud City", "narrative")
    page = open_page(f"{served.origin}/", live=False)
    page.evaluate("([campaign, token]) => localStorage.setItem('poolhall.tokens',"
                  " JSON.stringify({[campaign]: token}))", [campaign, LONG_TOKEN])
    page.goto(f"{served.origin}/#campaign={campaign}")
    closed = page.get_by_role("alert", name="This table is closed to you")
    expect(closed).to_contain_text("The token holds at most 128 characters.")
    assert page.evaluate("() => document.querySelector('ph-app').connection.stopped")
    assert len(_joins(open_page, page)) == 1
    _without_refused_joins(open_page, LONG_TOKEN)


def test_a_bad_replay_link_is_forgotten_and_the_gms_own_replay_opens(
        served: Served, open_page: PageOpener) -> None:
    """After a bad replay link in a tab, the GM's own replay in that tab (no token in the
    address) said "refused" until a new tab: the link's token stuck to it. Now a refused
    replay link is forgotten; the page offers the GM's own replay, which opens."""
    campaign, gm_link = _session_of_rolls(served)
    gm = open_page(gm_link)
    gm.goto(f"{served.origin}/replay#campaign={campaign}&token=ph_bad")
    expect(gm.locator(".ph-connection")).to_have_text("refused")
    expect(gm.locator(".ph-problem")).to_contain_text("does not open")
    own = gm.get_by_role("button", name="Open the replay with your own seat")
    own.click()
    expect(gm.locator(".ph-connection")).to_have_text("connected")
    expect(gm.locator("ph-replay-links")).to_be_visible()  # the GM's replay
    gm.goto(f"{served.origin}/")
    gm.goto(f"{served.origin}/replay#campaign={campaign}&token={LONG_TOKEN}")
    expect(gm.get_by_role("alert")).to_have_text(
        "This replay link is damaged: its token has 214 characters, more than any token "
        "poolhall makes (128 at most). Check that it was copied whole.")
    gm.goto(f"{served.origin}/")
    gm.goto(f"{served.origin}/replay#campaign={campaign}")
    expect(gm.locator(".ph-connection")).to_have_text("connected")


def test_skills_named_as_an_objects_own_functions_save(served: Served,
                                                       open_page: PageOpener) -> None:
    """A player gave Han the skills "constructor", "toString", "valueOf" and
    "hasOwnProperty" (the server takes them): the GM's form then said "the skill
    “constructor” is listed twice" and sent nothing, so Han could no longer be edited in the
    browser. Now the form saves; a row of them removed is listed as removed after a reload
    over a change from elsewhere."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    names = ["constructor", "toString", "valueOf", "hasOwnProperty"]
    skills = {name: {"rank": 1, "characteristic": "presence"} for name in names}
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": {"system": "narrative", "skills": skills}})
    gm = open_page(gm_link)
    form = gm.locator("ph-narrative-sheet form")
    form.get_by_label("character", exact=True).select_option("han")
    form.get_by_label("Agility", exact=True).fill("4")
    form.get_by_role("button", name="Save changes").click()
    expect(form.locator(".ph-nd-sheet-status")).to_have_text("Han saved.")
    assert set(updates_sent(open_page, gm)[-1]["stats"]["skills"]) == set(names)

    form.get_by_role("button", name="remove constructor").click()
    served.send(gm_link, {"type": "update_character", "character": "han", "name": "Han Solo"})
    expect(form.locator(".ph-sheet-changed")).to_contain_text("Han Solo changed meanwhile")
    form.get_by_role("button", name="Save changes").click()
    form.get_by_role("button", name="Reload the form").click()
    expect(form.locator(".ph-sheet-kept")).to_contain_text("skills › constructor: removed")


def test_an_sr3_skill_named_constructor_saves(served: Served, open_page: PageOpener) -> None:
    """The Shadowrun form refused its own skill "constructor" as "listed twice" too."""
    _, gm_link = served.create_campaign("Seattle", "sr3")
    served.send(gm_link, {"type": "create_character", "character": "sam", "name": "Sam",
                          "stats": {**SAM, "skills": {"constructor": {
                              "rating": 2, "attribute": "intelligence", "kind": "technical"}}}})
    gm = open_page(gm_link)
    form = gm.locator("ph-sr3-character form")
    form.get_by_label("Character to edit").select_option("sam")
    form.get_by_label("Body", exact=True).fill("5")
    form.get_by_role("button", name="Save changes").click()
    expect(form.locator(".ph-sr3-character-status")).to_have_text("Sam saved.")
    assert "constructor" in updates_sent(open_page, gm)[-1]["stats"]["skills"]


def test_a_campaign_and_a_member_named_constructor(served: Served,
                                                   open_page: PageOpener) -> None:
    """A fresh browser opening a link for the campaign "constructor" was taken to have a seat
    there already (Object's own `constructor`) and asked whether to replace it; and the page
    of a member named "Constructor" with no seed set threw (their seed was a function)."""
    campaign, gm_link = served.create_campaign("Constructor", "narrative")
    assert campaign == "constructor"
    link = served.invite(campaign, gm_link, "player", "Constructor")
    page = open_page(link)  # no question asked: it opens, and the page throws nothing
    expect(page.locator(".ph-who")).to_contain_text("you are player")
    expect(page.locator("ph-seed summary")).to_have_text("Your seed: none yet")
    assert page.evaluate(STORED_TOKENS) == {campaign: _token(link)}
    expect(page.get_by_role("alertdialog")).to_have_count(0)
    assert re.search(r"#campaign=constructor$", page.url)
