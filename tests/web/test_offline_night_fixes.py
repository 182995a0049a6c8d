"""What a 22-minute night on the browser table found about a connection lost and about the fair
dice's bookkeeping, each in a browser: a roll pressed offline waited without a word and was
recorded minutes later in the next game session; the page said "reconnecting…" whether the
browser was offline or the server gone; and the log's seed lines read "Ana seed revealed", as
if Ana had done something with a seed of hers."""

from __future__ import annotations

import json
from typing import Any, cast

from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import PageOpener, Served

NOT_SENT = ("You are offline: your roll is not sent yet; it will be sent when the connection"
            " is back.")


def _at_the_table(served: Served, *, session: bool = True) -> tuple[str, str, str]:
    """A d12 campaign with Ana, a player, and (``session``) game session 1 running: the
    campaign, the GM's link and Ana's."""
    campaign, gm_link = served.create_campaign("Night", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    if session:
        served.send(gm_link, {"type": "start_session"})
    return campaign, gm_link, ana_link


def _open_ready(open_page: PageOpener, link: str) -> Page:
    """Ana's page, its table drawn and every file of it in (a file asked for offline fails),
    and the part that speaks of actions held too (connection.js fetches it half a minute after
    the page is welcomed: the page's clock is moved on)."""
    fetched: list[str] = []

    def prepare(page: Page) -> None:
        page.clock.install()
        page.on("requestfinished", lambda request: fetched.append(request.url))

    page = open_page(link, prepare=prepare)
    expect(page.locator("ph-d12-table")).not_to_be_empty()
    page.clock.fast_forward(31_000)
    for _ in range(100):
        if all(any(url.endswith(f"/static/{file}") for url in fetched)
               for file in ("icon.svg", "unsent.js")):
            return page
        page.wait_for_timeout(100)
    raise AssertionError(f"not fetched in 10 s: icon.svg or unsent.js, of {fetched}")


def _roll(page: Page, expression: str, reason: str) -> Locator:
    """Press Roll on the page's roll form; the form."""
    form = page.locator(".ph-roll-form")
    form.get_by_label("dice expression").fill(expression)
    form.get_by_label("reason").fill(reason)
    form.get_by_role("button", name="Roll").click()
    return form


def _rolls_sent(open_page: PageOpener, page: Page) -> list[dict[str, Any]]:
    """The roll commands the page wrote to its sockets, in order."""
    sent = [json.loads(frame) for frame in open_page.sent_from(page)]
    return [message for message in sent if message["type"] == "roll"]


def _reasons_recorded(served: Served, gm_link: str, campaign: str) -> list[str]:
    """The reasons of the campaign's free rolls, as the server recorded them (``state``)."""
    rolls = cast("list[dict[str, Any]]", served.as_gm(gm_link, "state", campaign)["rolls"])
    return [roll["reason"] for roll in rolls]


def test_a_roll_pressed_offline_says_it_is_not_sent_and_can_be_cancelled(
        served: Served, open_page: PageOpener) -> None:
    """Ana's browser goes offline: the header says so (not "reconnecting…"). She presses Roll:
    beside the form, the page says the roll is not sent yet, why, and that it goes when the
    connection is back, with Cancel. Cancelled, it is never sent; the next roll, kept, goes
    once she is back online, and the words go with it."""
    campaign, gm_link, ana_link = _at_the_table(served)
    gm = open_page(gm_link)
    ana = _open_ready(open_page, ana_link)
    status = ana.locator(".ph-connection")

    ana.context.set_offline(True)
    expect(status).to_have_attribute("data-state", "offline")
    expect(status).to_have_text("you are offline")
    form = _roll(ana, "2d6", "cancelled one")
    notice = form.locator(".ph-unsent")
    expect(notice).to_contain_text(NOT_SENT)
    expect(notice).to_have_attribute("role", "status")
    expect(form.get_by_role("button", name="Roll")).to_be_disabled()
    notice.get_by_role("button", name="Cancel").click()
    expect(notice).to_have_count(0)
    expect(form.locator(".ph-error")).to_have_text("Your roll was not sent (cancelled).")
    expect(form.get_by_role("button", name="Roll")).to_be_enabled()

    form = _roll(ana, "3d6", "kept one")
    expect(form.locator(".ph-error")).to_be_empty()
    expect(form.locator(".ph-unsent")).to_contain_text(NOT_SENT)
    ana.context.set_offline(False)
    expect(status).to_have_text("back")
    for page in (gm, ana):
        expect(page.locator("[data-type=dice_rolled]", has_text="kept one")).to_have_count(1)
    expect(form.locator(".ph-unsent")).to_have_count(0)
    expect(form.get_by_role("button", name="Roll")).to_be_enabled()
    assert [roll["reason"] for roll in _rolls_sent(open_page, ana)] == ["kept one"]
    assert _reasons_recorded(served, gm_link, campaign) == ["kept one"]


def test_a_roll_held_offline_across_a_session_change_waits_to_be_asked(
        served: Served, open_page: PageOpener) -> None:
    """Ana presses Roll offline in game session 1; the GM ends it and starts session 2. Back
    online, the roll is not sent by itself (it was, into session 2, minutes after she pressed
    it): the page says why and offers Send it now, which sends it once into session 2, or
    Drop it, which forgets it."""
    campaign, gm_link, ana_link = _at_the_table(served)
    gm = open_page(gm_link)
    ana = _open_ready(open_page, ana_link)
    status = ana.locator(".ph-connection")

    ana.context.set_offline(True)
    form = _roll(ana, "2d6", "from session 1")
    expect(form.locator(".ph-unsent")).to_contain_text(NOT_SENT)
    served.send(gm_link, {"type": "end_session"}, {"type": "start_session"})
    ana.context.set_offline(False)
    expect(status).to_have_text("back")
    notice = form.locator(".ph-unsent")
    expect(notice).to_contain_text(
        "Your roll was not sent: the game session changed while it waited: game session 2"
        " started. Send it now, or drop it?")
    ana.wait_for_timeout(500)
    assert _rolls_sent(open_page, ana) == []
    expect(gm.locator("[data-type=dice_rolled]")).to_have_count(0)

    notice.get_by_role("button", name="Send it now").click()
    for page in (gm, ana):
        expect(page.locator("[data-type=dice_rolled]", has_text="from session 1")).to_have_count(1)
    expect(notice).to_have_count(0)
    expect(form.get_by_role("button", name="Roll")).to_be_enabled()
    started = gm.locator("[data-type=game_session_started]").last.get_attribute("data-seq")
    rolled = gm.locator("[data-type=dice_rolled]").get_attribute("data-seq")
    assert int(str(rolled)) > int(str(started))

    ana.context.set_offline(True)
    form = _roll(ana, "1d20", "never sent")
    served.send(gm_link, {"type": "end_session"})
    ana.context.set_offline(False)
    expect(notice).to_contain_text("the game session changed while it waited: game session 2"
                                   " ended")
    notice.get_by_role("button", name="Drop it").click()
    expect(notice).to_have_count(0)
    expect(form.locator(".ph-error")).to_have_text("Your roll was not sent (dropped).")
    assert [roll["reason"] for roll in _rolls_sent(open_page, ana)] == ["from session 1"]
    assert _reasons_recorded(served, gm_link, campaign) == ["from session 1"]


def test_the_fair_dice_seed_lines_say_what_happened_and_are_quieter(
        served: Served, open_page: PageOpener) -> None:
    """The GM starts a session (the epoch the campaign began ends), Ana rolls, the GM ends it:
    the log's seed lines say whose command began or ended the epoch and that the seed is the
    server's, with the rolls to check, in smaller grey print than a roll; no line reads
    "GM seed revealed"."""
    _, gm_link, ana_link = _at_the_table(served, session=False)
    served.send(gm_link, {"type": "start_session"})
    served.send(ana_link, {"type": "roll", "expression": "2d6"})
    served.send(gm_link, {"type": "end_session"})
    ana = open_page(ana_link)
    revealed = ana.locator("ph-log [data-type=seed_revealed]")
    expect(revealed).to_have_count(2)
    expect(revealed.first).to_contain_text(
        "GM ended dice epoch 1: the server revealed its seed (0 rolls to check)")
    expect(revealed.last).to_contain_text(
        "GM ended dice epoch 2: the server revealed its seed (1 roll to check)")
    committed = ana.locator("ph-log [data-type=seed_committed]")
    expect(committed.last).to_contain_text(
        "GM began dice epoch 3: the server committed to its seed")
    expect(ana.locator("ph-log")).not_to_contain_text("seed revealed")
    expect(ana.locator("ph-log")).not_to_contain_text("seed committed")
    style = "(line) => [getComputedStyle(line).color, parseFloat(getComputedStyle(line).fontSize)]"
    seed_colour, seed_size = revealed.last.evaluate(style)
    roll_colour, roll_size = ana.locator("ph-log [data-type=dice_rolled]").evaluate(style)
    time_colour = revealed.last.locator("time").evaluate("(time) => getComputedStyle(time).color")
    assert seed_colour == time_colour != roll_colour  # the muted grey of the times
    assert seed_size < roll_size


def test_the_replay_page_says_offline_too(served: Served, open_page: PageOpener) -> None:
    """The replay page shares the table's connection: offline, it says so (it said
    "connected", its words knowing only "reconnecting…"), and back online it is connected."""
    campaign, _, ana_link = _at_the_table(served)
    ana = open_page(ana_link)
    ana.goto(f"{served.origin}/replay#campaign={campaign}")
    status = ana.locator(".ph-connection")
    expect(status).to_have_attribute("data-state", "live")
    expect(ana.locator("ph-replay ph-log [data-type=game_session_started]")).to_have_count(1)
    ana.wait_for_load_state("networkidle")  # its files and icon in: none is asked for offline
    ana.context.set_offline(True)
    expect(status).to_have_attribute("data-state", "offline")
    expect(status).to_have_text("you are offline")
    ana.context.set_offline(False)
    expect(status).to_have_text("connected")
