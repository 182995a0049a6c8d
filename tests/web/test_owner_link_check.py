"""The owner's page checks its link as the table's page does (reconnecting.js ``LinkCheck``): a
laptop that slept with the page open, its link dead without a word, is not left looking
connected, a Create whose answer was lost is not left disabled, and a reconnect that hangs is
given up for the next one. The owner's clock is moved past the page's waits (Playwright's
``page.clock``: tests.web.page_clock) instead of waiting them out."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served, heard, listen
from tests.web.page_clock import (
    ANSWER_DUE_MS,
    JOIN_DUE_MS,
    RECONNECTED_TIMEOUT,
    SILENCE_MS,
    install_clock,
    until,
)
from tests.web.silent_relay import SilentRelay, through
from tests.web.test_owner_page import printed_owner_link

CONNECTED = "connected: create a campaign, then send its GM the link."


def sent_types(open_page: PageOpener, page: Page) -> list[str]:
    """The type of each frame ``page`` has sent, in order."""
    return [json.loads(frame)["type"] for frame in open_page.sent_from(page)]


def answered_check(open_page: PageOpener, page: Page) -> bool:
    """Whether an answer to the page's link check came (its id: reconnecting.js ``probe``)."""
    return any(str(json.loads(frame).get("id", "")).startswith("link-")
               for frame in open_page.received_from(page))


def shown_again(page: Page) -> None:
    """The laptop wakes: its page is shown again."""
    page.evaluate('() => document.dispatchEvent(new Event("visibilitychange"))')


def test_the_owner_page_shown_again_checks_its_link_and_joins_again_when_it_is_dead(
        served: Served, open_page: PageOpener, relay: SilentRelay) -> None:
    """Shown again on a live link, the page asks (an empty history page, which the owner's
    session refuses at once, with its id) and, answered, stays connected. Shown again after
    its link died without a word, it asks, hears nothing, says the connection is lost, joins
    again and reads the list anew."""
    owner = open_page(through(relay, served, printed_owner_link(served)), live=False,
                      prepare=install_clock)
    status = owner.locator(".ph-owner-status")
    expect(status).to_have_text(CONNECTED)
    expect(owner.locator(".ph-owner-empty")).to_be_visible()  # the list was read
    shown_again(owner)
    until(owner, "the check's answer", lambda: answered_check(open_page, owner))
    owner.clock.fast_forward(SILENCE_MS)  # past the 4 s a check waits for its answer
    expect(status).to_have_text(CONNECTED)
    assert sent_types(open_page, owner) == ["join", "list_campaigns", "history"]

    listen(owner)
    relay.go_silent()
    expect(status).to_have_text(CONNECTED)  # it cannot know
    shown_again(owner)
    until(owner, "the link's check", lambda: sent_types(open_page, owner)[3:] == ["history"])
    owner.clock.fast_forward(SILENCE_MS)  # unanswered: the link is given up
    expect(status).to_have_text("back: connected again.", timeout=RECONNECTED_TIMEOUT)
    assert heard(owner) == ["connection lost: reconnecting…", "back: connected again."]
    assert sent_types(open_page, owner)[3:] == ["history", "join", "list_campaigns"]


def test_a_create_unanswered_on_a_dead_link_is_given_up_and_sent_again_as_the_same_command(
        served: Served, open_page: PageOpener, relay: SilentRelay) -> None:
    """The link dies after Create reached the server: its answer never comes. The page does
    not wait with Create disabled: 5 s on it checks the link, finds it dead, says the answer
    was lost and joins again; the list holds the campaign, and Create pressed again gets the
    server's first answer (the GM's link), never a second campaign."""
    owner = open_page(through(relay, served, printed_owner_link(served)), live=False,
                      prepare=install_clock)
    status = owner.locator(".ph-owner-status")
    expect(status).to_have_text(CONNECTED)
    form = owner.get_by_role("form", name="Create a campaign")
    create = form.get_by_role("button", name="Create")
    form.get_by_label("Title").fill("Edge of the Empire")
    relay.go_silent(to_the_server_too=False)
    create.click()
    expect(create).to_be_disabled()  # sent, not answered

    until(owner, "the create", lambda: sent_types(open_page, owner)[-1] == "create_campaign")
    owner.clock.fast_forward(ANSWER_DUE_MS)  # unanswered: the page checks the link
    until(owner, "the link's check", lambda: sent_types(open_page, owner)[-1] == "history")
    owner.clock.fast_forward(SILENCE_MS)  # nothing heard: the link is given up
    expect(form.get_by_role("alert")).to_have_text(re.compile(
        r"^The connection was lost before the server answered"), timeout=RECONNECTED_TIMEOUT)
    expect(create).to_be_enabled()
    expect(status).to_have_text("back: connected again.", timeout=RECONNECTED_TIMEOUT)
    row = owner.locator("li[data-campaign=edge-of-the-empire]")
    expect(row).to_contain_text("Edge of the Empire")  # the first try did reach the server
    create.click()
    expect(row.get_by_label("GM link for Edge of the Empire")).to_be_visible()
    expect(owner.locator(".ph-owner-list li")).to_have_count(1)
    creates = [json.loads(frame) for frame in open_page.sent_from(owner)
               if json.loads(frame)["type"] == "create_campaign"]
    assert len(creates) == 2
    assert creates[0]["id"] == creates[1]["id"]


def test_a_reconnect_whose_handshake_is_never_answered_is_given_up_for_the_next_one(
        served: Served, open_page: PageOpener, relay: SilentRelay) -> None:
    """The link drops and the page's next connection is taken and never answered, as behind
    a captive portal or a middlebox that hung. The page does not wait for the browser's own
    limit (it said "reconnecting…" for 226 s, until Chromium's 240 s): 10 s on it gives that
    attempt up, the next one gets through, and the list is read anew."""
    owner = open_page(through(relay, served, printed_owner_link(served)), live=False,
                      prepare=install_clock)
    status = owner.locator(".ph-owner-status")
    expect(status).to_have_text(CONNECTED)
    listen(owner)
    relay.hang_next("handshake")
    relay.cut()
    expect(status).to_have_text("connection lost: reconnecting…")
    until(owner, "the hung attempt", lambda: relay.websockets == 2)
    owner.clock.fast_forward(JOIN_DUE_MS)  # its handshake unanswered: the attempt is given up
    expect(status).to_have_text("back: connected again.", timeout=RECONNECTED_TIMEOUT)
    assert heard(owner) == ["connection lost: reconnecting…", "back: connected again."]
    assert sent_types(open_page, owner) == ["join", "list_campaigns", "join", "list_campaigns"]
    assert relay.websockets == 3  # the first, the hung one, the one that got through
