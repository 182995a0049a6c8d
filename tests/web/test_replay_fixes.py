"""The replay page after a GM's morning-after review: a Shadowrun replay's sheets at every step,
a session's link that can check its dice, the moment's link with its game session, a bad step
in the address said in words, a join link opened again in the same tab, and a revoked link."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.web.conftest import Served, serving
from tests.web.test_replay import _session_of_rolls
from tests.web.test_sr3_browser_table import SAM


def _at(page: Page, seq: int) -> None:
    """Wait until the replay shows the table after event ``seq``."""
    page.wait_for_function("seq => document.querySelector('ph-replay').shown === seq", arg=seq)


def test_a_shadowrun_replay_shows_the_sheets_at_every_step(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Stepping one event at a time (the scrubber's arrow key), the sheets show Sam at each
    step: a step drew the table with no views first, "No characters yet.", and the same
    sheets coming back with its views were taken as drawn (30 of 36 steps stayed empty)."""
    campaign, gm_link = served.create_campaign("Redmond", "sr3")
    created, *acks = served.send(
        gm_link, {"type": "create_character", "character": "sam", "name": "Sam", "stats": SAM},
        *({"type": "roll", "expression": "1d6"} for _ in range(5)))
    start, last = created.seqs[-1], acks[-1].seqs[-1]
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq={start}")
    sheets = page.locator("ph-sr3-sheets")
    expect(sheets).to_contain_text("Sam")
    page.locator("input.ph-scrubber").focus()
    for seq in range(start + 1, last + 1):
        page.keyboard.press("ArrowRight")
        _at(page, seq)
        expect(sheets.locator("[data-character=sam]")).to_have_count(1)
        expect(sheets).not_to_contain_text("No characters yet")


def test_a_sessions_link_checks_the_sessions_dice(
        served: Served, open_page: Callable[..., Page]) -> None:
    """A session's link reads the seed reveal its end wrote (#14): opened at the session's first
    roll, its mark says verified (the seed is read ahead with the timeline, not only once the
    reveal is among the lines shown), and so does every roll at the last moment; none says the
    seed is not revealed (the link stopped at #13: "seed: not revealed yet")."""
    campaign, gm_link = _session_of_rolls(served)
    (shared,) = served.send(gm_link, {"type": "share_replay", "session": 1})
    assert shared.token is not None
    stranger = open_page(
        f"{served.origin}/replay#campaign={campaign}&token={shared.token}&seq=7")
    expect(stranger.locator(".ph-position")).to_contain_text("event 7 of 14")
    first_roll = stranger.locator("ph-log .ph-log-line[data-seq='7'] .ph-fair")
    expect(first_roll).to_have_attribute("data-state", "verified")
    first_roll.click()
    panel = stranger.locator("ph-log .ph-fair-panel")
    expect(panel).to_contain_text("commitment")
    expect(panel).not_to_contain_text("not revealed yet")
    stranger.evaluate("() => document.querySelector('ph-replay').seek(14)")
    _at(stranger, 14)
    expect(stranger.locator("ph-log .ph-fair")).to_have_count(6)  # the six rolls, #7 to #12
    for seq in range(7, 13):
        expect(stranger.locator(f"ph-log .ph-log-line[data-seq='{seq}'] .ph-fair")
               ).to_have_attribute("data-state", "verified")


def test_the_link_to_a_moment_keeps_the_game_session(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Session 1 chosen, "Copy a link to this moment" gives its address, session included (it
    dropped it: the link opened on the whole campaign)."""
    campaign, gm_link = _session_of_rolls(served)
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq=8&session=1")
    expect(page.get_by_label("game session")).to_have_value("1")
    _at(page, 8)
    page.get_by_role("button", name="Copy a link to this moment").click()
    expect(page.locator(".ph-shared")).to_contain_text(
        f"{served.origin}/replay#campaign={campaign}&seq=8&session=1")


def test_a_bad_step_in_the_address_is_said_and_put_right(
        served: Served, open_page: Callable[..., Page]) -> None:
    """seq=999, 0, abc, 1.5 and session=9 each get a sentence saying what is shown instead, and
    the address names what is shown (they showed another moment without a word, or
    "event 1.5 of 18")."""
    campaign, gm_link = _session_of_rolls(served)
    page = open_page(gm_link)
    notice = page.locator(".ph-address-notice")
    for asked, shown, words in [
            ("999", 18, "Event 999 is past the campaign's last event #18: showing #18."),
            ("0", 1, "Event 0 is before the campaign's first event #1: showing #1."),
            ("-3", 18, "The address's seq “-3” is not an event's number"),
            ("abc", 18, "The address's seq “abc” is not an event's number (a whole number "
                        "from 1 to 18): showing the last event, #18."),
            ("1.5", 18, "The address's seq “1.5” is not an event's number")]:
        page.goto("about:blank")
        page.goto(f"{served.origin}/replay#campaign={campaign}&seq={asked}")
        expect(notice).to_contain_text(words)
        expect(page.locator(".ph-position")).to_contain_text(f"event {shown} of 18")
        expect(page).to_have_url(f"{served.origin}/replay#campaign={campaign}&seq={shown}")
    page.goto("about:blank")
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq=8&session=9")
    expect(notice).to_have_text("There is no game session “9” in this campaign (its sessions: "
                                "1, 2): showing all of it.")
    expect(page).to_have_url(f"{served.origin}/replay#campaign={campaign}&seq=8")
    page.goto("about:blank")
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq=17&session=1")
    expect(notice).to_have_text("Event 17 is not in game session 1 (events 4 to 13): "
                                "showing #4.")
    expect(page).to_have_url(f"{served.origin}/replay#campaign={campaign}&seq=4&session=1")
    page.goto("about:blank")
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq=8")
    expect(page.locator(".ph-position")).to_contain_text("event 8 of 18")
    expect(notice).to_be_hidden()  # a good address: nothing to say


def test_a_revoked_link_says_so_and_the_gm_no_longer_offers_it(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The session link's page names its events in the session choice (not "the whole
    campaign"); revoked, the GM's part no longer offers it to copy, and the link's page,
    reloaded, says "refused" with no report button (it said "connected" and offered a
    "Post-game report")."""
    campaign, gm_link = _session_of_rolls(served)
    gm = open_page(gm_link)
    gm.goto(f"{served.origin}/replay#campaign={campaign}")
    links = gm.locator("ph-replay-links")
    links.get_by_label("replay to share").select_option(label="session 1: The heist")
    links.get_by_role("button", name="Make a read-only link").click()
    link = links.get_by_label("replay link").input_value()

    stranger = open_page(link)
    expect(stranger.locator(".ph-position")).to_contain_text("event 14 of 14")
    choice = stranger.get_by_label("game session")
    expect(choice.locator("option")).to_have_text(["all this link shows", "session 1: The heist"])
    expect(stranger.locator("ph-report-link")).to_have_count(0)

    links.locator("li").get_by_role("button", name="Revoke").click()
    expect(links.locator("li")).to_have_count(0)
    expect(links.get_by_label("replay link")).to_have_count(0)
    expect(links.get_by_role("button", name="Copy")).to_have_count(0)
    expect(links).to_contain_text("That link was revoked: it opens nothing now.")
    expect(links).not_to_contain_text(re.compile("Anyone with this link"))

    stranger.reload()
    expect(stranger.locator(".ph-problem")).to_have_text("this replay link was revoked")
    expect(stranger.locator(".ph-connection")).to_have_text("refused")
    expect(stranger.get_by_role("button", name=re.compile("report", re.I))).to_have_count(0)


def test_a_join_link_opened_again_in_the_same_tab_opens_the_table(
        served: Served, open_page: Callable[..., Page]) -> None:
    """After "Yes, leave", Ana pastes her join link in the same tab (only the part after # of
    the address changes): the table opens and the token leaves the address bar at once (the
    landing page stayed, the token in the address bar)."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    ana = open_page(ana_link)
    header = ana.locator(".ph-header")
    header.get_by_role("button", name="Leave this table").click()
    header.get_by_role("button", name="Yes, leave").click()
    expect(ana.get_by_role("form", name="Open a table")).to_be_visible()
    ana.goto(ana_link)
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")
    expect(ana.locator(".ph-who")).to_contain_text("you are player")
    expect(ana).to_have_url(f"{served.origin}/#campaign={campaign}")


def test_a_table_listed_on_the_landing_page_opens_with_one_click(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Ana joined two tables; the bare address lists them; a click (which changes only the
    part after #) opens that table, now through the page's `hashchange`."""
    first, gm_one = served.create_campaign("Cloud City", "narrative")
    second, gm_two = served.create_campaign("Outer Rim", "d12")
    ana = open_page(served.invite(first, gm_one, "player", "Ana"))
    ana.goto(served.invite(second, gm_two, "player", "Ana"))  # in the same tab: opened too
    expect(ana.locator(".ph-title")).to_contain_text("Outer Rim")
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")
    ana.goto(f"{served.origin}/")
    tables = ana.get_by_role("navigation", name="Tables you joined")
    tables.get_by_role("link", name="Cloud City").click()  # by its title
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")
    expect(ana.locator(".ph-title")).to_contain_text("Cloud City")


def test_a_campaign_over_a_history_page_lists_each_session_once(
        tmp_path: Path, open_page: Callable[..., Page]) -> None:
    """A campaign of 620 events: the timeline reads two history pages, and the second stops at
    the head. Asked past it (``before`` 1,001), the server answered the latest 500 events,
    121 to 620, and sessions 2 and 3, begun in what both pages held, were listed twice in
    the session picker and the links' (a helper's 52-session year showed 65)."""
    generator = serving(tmp_path, "--member-rate", "2000", "--member-burst", "2000",
                        "--campaign-rate", "2000", "--campaign-burst", "2000")
    served = next(generator)
    try:
        campaign, gm_link = served.create_campaign("A Long Year", "d12")
        rolls = ({"type": "roll", "expression": "1d6"} for _ in range(200))
        for session in range(1, 5):
            served.send(gm_link, {"type": "start_session", "title": f"Week {session}"},
                        *rolls if session < 4 else (), {"type": "end_session"})
            rolls = ({"type": "roll", "expression": "1d6"} for _ in range(200))
        page = open_page(gm_link)
        page.goto(f"{served.origin}/replay#campaign={campaign}")
        options = page.locator("ph-timeline select[name=session] option")
        expect(options).to_have_count(5, timeout=20_000)  # every event, then sessions 1 to 4
        page.wait_for_function("() => document.querySelector('.ph-progress').textContent === ''"
                               " && document.querySelector('ph-replay').times.size > 600")
        values = [value for value in options.evaluate_all("all => all.map(o => o.value)") if value]
        assert values == ["1", "2", "3", "4"]
        shared = page.locator("ph-replay-links select option")  # the links' picker: the same
        assert shared.evaluate_all("all => all.map(o => o.value).filter(v => v)") == values
        assert int(page.evaluate("() => document.querySelector('ph-replay').head")) > 600
    finally:
        generator.close()
