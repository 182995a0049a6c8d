"""Replay in the browser: the table as it stood at any event, a timeline with marks, a link to a
moment, and playing forward."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Browser, Page, Route, expect

from tests.web.conftest import Served


def _session_of_rolls(served: Served, *more: dict[str, object]) -> tuple[str, str]:
    """A d12 campaign: a game session with six free rolls (and ``more``), then a second
    session."""
    campaign, gm_link = served.create_campaign("Replayed", "d12")
    served.send(gm_link, {"type": "start_session", "title": "The heist"},
                *({"type": "roll", "expression": f"1d{sides}"} for sides in (4, 6, 8, 10, 12, 20)),
                *more, {"type": "end_session"}, {"type": "start_session", "title": "Aftermath"})
    return campaign, gm_link  # 18 events: each session start and end also ends an epoch of
    # rolls (seed revealed, next committed), and the campaign's creation commits the first


def test_a_moment_of_the_campaign_shows_the_table_and_log_as_they_stood(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM opens a replay link at the third roll: the log ends there, later rolls unseen."""
    campaign, gm_link = _session_of_rolls(served)
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq=8")
    log = page.locator("ph-log")
    expect(log.locator(".ph-log-line").last).to_have_attribute("data-seq", "8")
    expect(log.locator("[data-type=dice_rolled]")).to_have_count(2)
    expect(page.locator(".ph-position")).to_contain_text("event 8 of 18")
    assert page.url.endswith(f"/replay#campaign={campaign}&seq=8")
    marks = page.locator("ph-timeline line.ph-mark-session")
    expect(marks).to_have_count(3)  # two starts and an end
    page.get_by_role("button", name="next mark").click()
    expect(page.locator(".ph-position")).to_contain_text("event 13 of 18")
    expect(log.locator("[data-type=game_session_ended]")).to_have_count(1)


def test_a_moment_shows_who_sat_at_the_table_and_the_characters_they_played(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Before Ana is invited the GM sits alone and Han Solo is played by no one; at the end
    Ana plays him (docs: the page shows "the members and characters")."""
    campaign, gm_link = served.create_campaign("Cast", "narrative")
    created, = served.send(gm_link, {"type": "create_character", "character": "han",
                                     "name": "Han Solo",
                                     "stats": {"system": "narrative", "agility": 3}})
    served.invite(campaign, gm_link, "player", "Ana", "han")
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq={created.seqs[-1]}")
    cast = page.get_by_role("region", name="Members and characters")
    expect(cast.locator("li")).to_have_text(["GM (gm)"])
    expect(cast).to_contain_text("Played by no one: Han Solo")
    page.goto(f"{served.origin}/replay#campaign={campaign}")  # the page loads it again: the head
    expect(cast.locator("li")).to_have_text(["GM (gm)", "Ana (player) · Han Solo"])
    expect(cast).not_to_contain_text("Played by no one")


def test_playing_moves_forward_event_by_event_and_a_session_can_be_chosen(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The table's link opens the replay in a tab of its own; choosing session 1 starts at its
    first event; playing at 16 events/s reaches its end."""
    campaign, gm_link = _session_of_rolls(served)
    table = open_page(gm_link)
    with table.context.expect_page() as opened:
        table.get_by_role("link", name="Replay and post-game reports").click()
    page = opened.value  # a new tab, still at its first address for a moment under load
    # the campaign's replay; once the last moment is painted the address names it (&seq=18)
    expect(page).to_have_url(re.compile(rf"^{re.escape(served.origin)}/replay#campaign={campaign}(&seq=18)?$"))
    expect(page.locator(".ph-position")).to_contain_text("event 18 of 18")
    page.get_by_label("game session").select_option(label="session 1: The heist")
    expect(page.locator(".ph-position")).to_contain_text("event 4 of 13")
    page.get_by_label("speed").select_option("16")
    page.get_by_role("button", name="Play").click()
    expect(page.locator(".ph-position")).to_contain_text("event 13 of 13")
    expect(page.get_by_role("button", name="Play")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("ph-log [data-type=dice_rolled]")).to_have_count(6)


def test_a_read_only_link_replays_one_session_for_someone_without_a_seat(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM shares session 1; a stranger's browser replays just it; revoked, it opens nothing."""
    campaign, gm_link = _session_of_rolls(served)
    gm = open_page(gm_link)
    gm.goto(f"{served.origin}/replay#campaign={campaign}")
    links = gm.locator("ph-replay-links")
    expect(links.get_by_label("replay to share").locator("option")).to_have_count(3)
    links.get_by_label("replay to share").select_option(label="session 1: The heist")
    links.get_by_role("button", name="Make a read-only link").click()
    link = links.get_by_label("replay link").input_value()
    assert link.startswith(f"{served.origin}/replay#campaign={campaign}&token=")
    expect(links.locator("li")).to_have_count(1)

    stranger = open_page(link)  # the session and the seed reveal its end wrote (#14)
    expect(stranger.locator(".ph-position")).to_contain_text("event 14 of 14")
    assert "token" not in stranger.url
    expect(stranger.locator("ph-timeline line.ph-mark-session")).to_have_count(2)  # read
    stranger.get_by_role("button", name="previous mark").click()
    expect(stranger.locator("ph-log .ph-log-line").last).to_have_attribute("data-seq", "13")
    stranger.get_by_role("button", name="previous mark").click()
    expect(stranger.locator("ph-log .ph-log-line").last).to_have_attribute("data-seq", "4")
    expect(stranger.locator("ph-replay-links")).to_have_count(0)  # no GM tools for a link

    links.locator("li").get_by_role("button", name="Revoke").click()
    expect(links.locator("li")).to_have_count(0)
    stranger.reload()
    expect(stranger.locator(".ph-problem")).to_have_text("this replay link was revoked")


def test_the_post_game_report_of_the_session_opens_in_a_new_tab(
        served: Served, open_page: Callable[..., Page]) -> None:
    """From the replay of session 1 the GM opens its report: the CLI's page, no token in it;
    on a phone its widest table (a character's d12 figures) scrolls in its own box, and the
    page does not scroll sideways (it was 853 px wide at 390)."""
    campaign, gm_link = _session_of_rolls(
        served,
        {"type": "create_character", "character": "ana", "name": "Ana Vex",
         "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 0, "STR": 5}}},
        {"type": "call_threshold_test", "character": "ana", "stats": ["STR"], "dt": 6},
        {"type": "roll_threshold_test", "test": 1})
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&session=1")
    button = page.get_by_role("button", name="Report of session 1")
    with page.context.expect_page() as opened:
        button.click()
    report = opened.value
    report.wait_for_load_state()  # a busy machine may answer "being made" and reload first
    expect(report).to_have_title("Replayed: post-game report", timeout=30_000)
    assert "/report/" in report.url
    assert "token" not in report.url
    expect(report.locator("svg").first).to_be_visible()
    report.set_viewport_size({"width": 390, "height": 844})
    expect(report.get_by_role("cell", name="Ana Vex", exact=True)).to_be_visible()
    assert report.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
        report.evaluate("document.documentElement.scrollWidth")


def test_a_past_check_is_shown_with_its_odds_as_they_stood(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Replayed at the moment Han's shot was set Hard, the check shows its pool and the exact
    odds of that pool, though it was rolled since; after the roll it is no longer open."""
    campaign, gm_link = served.create_campaign("Odds Then", "narrative")
    acks = served.send(gm_link,
                       {"type": "create_character", "character": "han", "name": "Han",
                        "stats": {"system": "narrative", "agility": 2,
                                  "skills": {"Ranged (Light)": {"rank": 0,
                                                                "characteristic": "agility"}}}},
                       {"type": "open_check", "character": "han", "skill": "Ranged (Light)",
                        "check": "shot"},
                       {"type": "set_difficulty", "check": "shot", "level": "hard"},
                       {"type": "roll_check", "check": "shot"})
    set_hard, rolled = acks[2].seqs[-1], acks[3].seqs[-1]
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq={set_hard}")
    card = page.locator("ph-narrative-check")
    expect(card).to_have_count(1)
    expect(card.locator(".ph-nc-success")).to_contain_text("to succeed", timeout=20_000)
    # the marks come in pages of their own after the moment is drawn: a click before the roll's
    # mark is known has nowhere to go (seen at load 17: the view stayed at the moment)
    expect(page.locator("ph-timeline line.ph-mark")).to_have_count(1)  # check, triumph or despair
    page.get_by_role("button", name="next mark").click()  # the roll
    expect(page.locator(".ph-position")).to_contain_text(f"event {rolled} of {rolled}")
    expect(card).to_have_count(0)


COUNT_DRAWS = """() => {
  // the panel's draws from now on (a seek's table and its cleared views drew it twice)
  const panel = document.querySelector("ph-replay .ph-panel > *");
  window.__draws = 0;
  const render = panel.render.bind(panel);
  panel.render = () => { window.__draws += 1; render(); };
}"""


def test_a_seek_draws_the_panel_once(served: Served, open_page: Callable[..., Page]) -> None:
    """Each moment's table is drawn once, with none of the last moment's odds (they follow in
    a message of their own, and draw it again only if the moment has any)."""
    campaign, gm_link = _session_of_rolls(served)
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq=8")
    expect(page.locator(".ph-position")).to_contain_text("event 8 of 18")
    expect(page.locator(".ph-progress")).to_have_text("")  # the timeline read: no more seeks
    # the position is written as a seek starts, the panel drawn once its answer is back (CI
    # under load counted moment 8's draw too)
    page.wait_for_function("() => document.querySelector('ph-replay').shown === 8")
    page.evaluate(COUNT_DRAWS)
    page.evaluate("() => document.querySelector('ph-replay').seek(5)")
    expect(page.locator(".ph-position")).to_contain_text("event 5 of 18")
    page.wait_for_function("() => document.querySelector('ph-replay').shown === 5")
    assert page.evaluate("() => window.__draws") == 1


def test_the_log_before_a_moment_comes_back_a_page_at_a_time(
        served: Served, open_page: Callable[..., Page]) -> None:
    """A moment shows its last lines; Load older brings back the log up to it from the start."""
    campaign, gm_link = served.create_campaign("Long Night", "d12")
    served.send(gm_link, *({"type": "roll", "expression": "1d6"} for _ in range(18)))
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq=20")
    lines = page.locator("ph-log .ph-log-line")
    expect(lines).to_have_count(12)
    expect(lines.first).to_have_attribute("data-seq", "9")
    page.get_by_role("button", name="Load older").click()
    expect(lines).to_have_count(20)
    expect(lines.first).to_have_attribute("data-seq", "1")
    expect(page.get_by_role("button", name="Load older")).to_be_hidden()


def test_a_replay_link_opened_as_a_join_link_goes_to_the_replay_and_keeps_the_members_token(
        served: Served, open_page: Callable[..., Page]) -> None:
    """A replay link's token pasted after `/` instead of `/replay` (by hand, or a link
    cut short) opens the replay it reads, not an empty table; a GM who tries it in their own
    browser still has their table afterwards."""
    campaign, gm_link = _session_of_rolls(served)
    (shared,) = served.send(gm_link, {"type": "share_replay", "session": 1})
    assert shared.token is not None
    gm = open_page(gm_link)
    expect(gm.locator(".ph-who")).to_contain_text("you are gm")
    gm.goto("about:blank")  # a fresh load, as from a link clicked elsewhere
    gm.goto(f"{served.origin}/#campaign={campaign}&token={shared.token}")
    expect(gm.locator(".ph-position")).to_contain_text("event 14 of 14")
    assert gm.url.startswith(f"{served.origin}/replay#campaign={campaign}")
    assert "token" not in gm.url
    expect(gm.locator("ph-replay-links")).to_have_count(0)  # read with the link, no GM tools
    gm.goto("about:blank")
    gm.goto(f"{served.origin}/#campaign={campaign}")
    expect(gm.locator(".ph-who")).to_contain_text("you are gm")


def test_the_replay_link_names_the_campaign_before_the_table_is_drawn(
        served: Served, browser: Browser) -> None:
    """Joined, the table's "Replay and post-game reports" link names the campaign at once, even
    while its game system's module is still on its way (here it never comes): it pointed at a
    replay of no campaign until then, and a click under load opened "No campaign to replay"."""
    campaign, gm_link = served.create_campaign("Early", "d12")
    context = browser.new_context()
    held: list[Route] = []
    context.route("**/systems/d12.js", lambda route: held.append(route))  # never answered
    try:
        page = context.new_page()
        page.goto(gm_link)
        page.wait_for_selector(".ph-connection[data-state=live]", timeout=10_000)
        link = page.get_by_role("link", name="Replay and post-game reports")
        assert link.get_attribute("href") == f"/replay#campaign={campaign}"
        assert held  # the table was waiting for its module
    finally:
        context.close()
