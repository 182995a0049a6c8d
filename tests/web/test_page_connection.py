"""The connection as people live it: a player's page drops off mid-check and comes back with
no gap and no duplicate; a link that dies without a word (a phone asleep) is noticed and
resumed, and a reconnect that hangs is given up for the next; a spectator has no controls and
a command forged from its page is refused; every frame a page sends is a message of the
protocol's schema."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from playwright.sync_api import Page, expect

from tests.web.conftest import (
    PageOpener,
    Served,
    heard,
    invalid_frames,
    listen,
    logs_read_through,
)
from tests.web.page_clock import (
    ANSWER_DUE_MS,
    BACK_SHOWN_MS,
    JOIN_DUE_MS,
    RECONNECTED_TIMEOUT,
    SILENCE_MS,
    install_clock,
    until,
)
from tests.web.silent_relay import SilentRelay, through


def narrative_table(served: Served) -> tuple[str, str, str, str, str]:
    """A narrative campaign with Han (Ana's) and Leia (Bo's), a spectator, and a check open
    for Han: the campaign, then the GM's, Ana's, Bo's and the spectator's links."""
    campaign, gm_link = served.create_campaign("Edge of the Empire", "narrative")
    served.send(gm_link, *({
        "type": "create_character", "character": character, "name": name,
        "stats": {"system": "narrative", "agility": 3,
                  "skills": {"Ranged (Light)": {"characteristic": "agility", "rank": 1}}}}
        for character, name in (("han", "Han"), ("leia", "Leia"))))
    ana = served.invite(campaign, gm_link, "player", "Ana", "han")
    bo = served.invite(campaign, gm_link, "player", "Bo", "leia")
    watcher = served.invite(campaign, gm_link, "spectator", "Sam")
    served.send(gm_link, {"type": "open_check", "character": "han", "skill": "Ranged (Light)",
                          "check": "shot"})
    return campaign, gm_link, ana, bo, watcher


def test_a_player_offline_mid_check_comes_back_with_no_gap_and_no_duplicate(
        served: Served, open_page: PageOpener) -> None:
    """Ana's phone loses the network mid-check; meanwhile the GM adds a die, Bo rolls and Ana
    rolls too; back online her page shows "back", every line once and her roll exactly once.
    (Her page's clock is moved past the 2.5 s "back" is said.)"""
    campaign, gm_link, ana_link, bo_link, watcher_link = narrative_table(served)
    gm, ana, bo, watcher = (open_page(link, prepare=install_clock if link == ana_link else None)
                            for link in (gm_link, ana_link, bo_link, watcher_link))

    ana.context.set_offline(True)
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "offline")
    expect(ana.locator(".ph-connection")).to_have_text("you are offline")
    expect(gm.locator("ph-members li", has_text="Ana")).to_have_class("ph-offline")
    form = ana.locator(".ph-roll-form")
    form.get_by_label("dice expression").fill("2d6")
    form.get_by_label("reason").fill("from the tunnel")
    form.get_by_role("button", name="Roll").click()  # waits in the page while offline
    served.send(gm_link, {"type": "add_dice", "check": "shot", "kind": "difficulty", "count": 2})
    bo.locator(".ph-roll-form").get_by_label("dice expression").fill("1d20")
    bo.locator(".ph-roll-form").get_by_role("button", name="Roll").click()
    expect(gm.locator("[data-type=dice_rolled]")).to_have_count(1)
    expect(ana.locator("[data-type=dice_rolled]")).to_have_count(0)  # still offline

    ana.context.set_offline(False)
    expect(ana.locator(".ph-connection")).to_have_text("back")
    for page in (gm, ana, bo, watcher):
        expect(page.locator("[data-type=dice_rolled]", has_text="from the tunnel")).to_have_count(1)
        expect(page.locator("[data-type=dice_rolled]")).to_have_count(2)

    state: dict[str, Any] = served.as_gm(gm_link, "state", campaign)
    head = int(state["head"])
    expect(ana.locator("ph-log li[data-seq]").last).to_have_attribute("data-seq", str(head))
    read = logs_read_through(gm, ana, bo, watcher)
    assert read == [list(range(1, head + 1))] * 4
    log = {line["seq"]: line for line in state["log"]}
    assert [seq for seq in read[1] if seq in log] == sorted(log)  # Ana's
    tunnel = [roll for roll in state["rolls"] if roll["reason"] == "from the tunnel"]
    assert len(tunnel) == 1
    assert tunnel[0]["expression"] == "2d6"
    # "back" is said for 2.5 s (reconnecting.js BACK_SHOWN_MS), then the page is live again
    ana.clock.fast_forward(BACK_SHOWN_MS)
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")


def states_said(page: Page) -> list[str]:
    """The connection states the page's status said since it was last asked, in order."""
    return [said for said in heard(page) if said in {"reconnecting…", "back", "connected"}]


def types_sent(open_page: PageOpener, page: Page, since: int = 0) -> list[str]:
    """The type of each frame ``page`` sent, from its ``since``-th on."""
    return [json.loads(frame)["type"] for frame in open_page.sent_from(page)[since:]]


def answered_check(open_page: PageOpener, page: Page) -> bool:
    """Whether an answer to the page's link check came (its id: reconnecting.js ``probe``)."""
    return any(str(json.loads(frame).get("id", "")).startswith("link-")
               for frame in open_page.received_from(page))


def test_a_roll_on_a_link_that_died_silently_is_resent_once_on_a_new_one(
        served: Served, open_page: PageOpener, relay: SilentRelay) -> None:
    """Ana's phone link goes silent: her roll reaches the server but its answer never reaches
    her. The page does not wait forever with Roll disabled: it checks the link, finds it dead,
    says reconnecting, joins again and resends the roll, which the server answers with its
    first answer: the roll is in every log once. The GM starts a game session meanwhile: a
    roll that did reach the server is sent again with its id all the same, never asked about
    (only one never written to a socket is: tests/web/test_offline_night_fixes.py), and is
    applied once. Ana's clock is moved past the page's waits (5 s unanswered, 4 s of silence,
    2.5 s of "back")."""
    campaign, gm_link, ana_link, _, _ = narrative_table(served)
    gm = open_page(gm_link)
    ana = open_page(through(relay, served, ana_link), width=360, height=740,
                    prepare=install_clock)
    listen(ana)
    relay.go_silent(to_the_server_too=False)
    form = ana.locator(".ph-roll-form")
    form.get_by_label("dice expression").fill("7d4+53")
    form.get_by_role("button", name="Roll").click()
    expect(gm.locator("[data-type=dice_rolled]", has_text="7d4+53")).to_have_count(1)
    expect(form.get_by_role("button", name="Roll")).to_be_disabled()  # no answer yet
    served.send(gm_link, {"type": "start_session"})
    rolled = len(open_page.sent_from(ana))

    ana.clock.fast_forward(ANSWER_DUE_MS)  # the roll unanswered: the page checks the link
    until(ana, "the link's check", lambda: types_sent(open_page, ana, rolled) == ["history"])
    ana.clock.fast_forward(SILENCE_MS)  # nothing heard: the link is given up
    expect(form.get_by_role("button", name="Roll")).to_be_enabled(timeout=RECONNECTED_TIMEOUT)
    expect(ana.locator(".ph-unsent")).to_have_count(0)
    # "back" is said for 2.5 s from the welcome, which came before the roll's answer
    ana.clock.fast_forward(BACK_SHOWN_MS)
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")
    assert states_said(ana)[:2] == ["reconnecting…", "back"]
    ana.get_by_role("navigation", name="Views").get_by_role("button", name="Log").click()
    for page in (gm, ana):
        expect(page.locator("[data-type=dice_rolled]", has_text="7d4+53")).to_have_count(1)
    rolls = served.as_gm(gm_link, "state", campaign)["rolls"]
    assert [roll["expression"] for roll in rolls] == ["7d4+53"]  # type: ignore[attr-defined]
    sent = [json.loads(frame) for frame in open_page.sent_from(ana)]
    assert [message["type"] for message in sent if message.get("expression")] == ["roll"] * 2
    assert len({message["id"] for message in sent if message["type"] == "roll"}) == 1


def test_a_page_shown_again_finds_its_dead_link_and_catches_up(
        served: Served, open_page: PageOpener, relay: SilentRelay) -> None:
    """Ana's phone sleeps and its link dies without a word; the GM rolls meanwhile. Nothing is
    sent while the table is idle; when the page is shown again it checks the link (one small
    request), says reconnecting, and catches up: the GM's roll once, no gap. Ana's clock is
    moved past the 4 s the check waits for an answer."""
    campaign, gm_link, ana_link, _, _ = narrative_table(served)
    ana = open_page(through(relay, served, ana_link), width=360, height=740,
                    prepare=install_clock)
    listen(ana)
    relay.go_silent()
    served.send(gm_link, {"type": "roll", "expression": "5d8+42"})
    until(ana, "the roll sent to Ana's dead link", lambda: relay.dropped > 0)
    expect(ana.locator("[data-type=dice_rolled]")).to_have_count(0)
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "live")  # it can't know
    quiet = len(open_page.sent_from(ana))

    ana.evaluate("""() => {  // the phone wakes: its page is shown again
      document.dispatchEvent(new Event("visibilitychange"));
    }""")
    until(ana, "the link's check", lambda: types_sent(open_page, ana, quiet) == ["history"])
    ana.clock.fast_forward(SILENCE_MS)  # unanswered: the link is given up
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "back",
                                                           timeout=RECONNECTED_TIMEOUT)
    assert states_said(ana)[:2] == ["reconnecting…", "back"]
    expect(ana.locator("[data-type=dice_rolled]", has_text="5d8+42")).to_have_count(1)
    sent = [json.loads(frame) for frame in open_page.sent_from(ana)]
    assert [message["type"] for message in sent[quiet:]] == ["history", "join"]
    head = int(served.as_gm(gm_link, "state", campaign)["head"])  # type: ignore[call-overload]
    assert logs_read_through(ana) == [list(range(1, head + 1))]


def test_a_shown_page_whose_link_died_silently_finds_out_within_half_a_minute_of_quiet(
        served: Served, open_page: PageOpener, relay: SilentRelay) -> None:
    """Ana's page is open on the table, shown, while nothing happens. After 30 s without a
    frame it asks (one small request) and, answered, stays connected. Then its link dies
    without a word and the GM rolls: the page still says connected (it cannot know), sends
    nothing more for the next 20 s of quiet, and at 30 s asks, hears nothing in 4 s, says
    reconnecting and catches up: the roll once, no gap (it said connected for 2.5 min). The
    page's clock is Playwright's, moved forward: the half-minutes pass at once."""
    campaign, gm_link, ana_link, _, _ = narrative_table(served)
    ana = open_page(through(relay, served, ana_link), width=360, height=740,
                    prepare=install_clock)
    status = ana.locator(".ph-connection")
    listen(ana)
    quiet = len(open_page.sent_from(ana))

    def sent_since_quiet(count: int) -> list[str]:
        """The types of Ana's frames since she went quiet, once there are ``count`` (or 5 s
        on: a frame sent reaches the test a moment after the page's timer sent it)."""
        for _ in range(50):
            if len(open_page.sent_from(ana)) >= quiet + count:
                break
            ana.wait_for_timeout(100)
        return [json.loads(frame)["type"] for frame in open_page.sent_from(ana)[quiet:]]

    ana.clock.fast_forward(31_000)
    assert sent_since_quiet(1) == ["history"]
    until(ana, "the check's answer", lambda: answered_check(open_page, ana))
    ana.clock.fast_forward(5_000)  # past the 4 s the check waits
    expect(status).to_have_attribute("data-state", "live")

    relay.go_silent()
    served.send(gm_link, {"type": "roll", "expression": "5d8+42"})
    ana.clock.fast_forward(20_000)
    ana.wait_for_timeout(500)
    expect(ana.locator("[data-type=dice_rolled]")).to_have_count(0)
    expect(status).to_have_attribute("data-state", "live")  # it cannot know yet
    assert sent_since_quiet(1) == ["history"]

    ana.clock.fast_forward(10_000)  # 30 s of quiet: it asks
    assert sent_since_quiet(2) == ["history", "history"]
    ana.clock.fast_forward(4_000)  # no answer in 4 s: given up
    expect(status).to_have_attribute("data-state", "back", timeout=RECONNECTED_TIMEOUT)
    assert states_said(ana)[:2] == ["reconnecting…", "back"]
    expect(ana.locator("[data-type=dice_rolled]", has_text="5d8+42")).to_have_count(1)
    assert sent_since_quiet(3) == ["history", "history", "join"]
    head = int(served.as_gm(gm_link, "state", campaign)["head"])  # type: ignore[call-overload]
    assert logs_read_through(ana) == [list(range(1, head + 1))]


def test_a_reconnect_that_hangs_before_its_welcome_is_given_up_and_a_roll_made_meanwhile_sent(
        served: Served, open_page: PageOpener, relay: SilentRelay) -> None:
    """Ana's link is cut; the page's next connection has its handshake answered and its join
    sent, then the path dies both ways: no welcome, no close. She rolls meanwhile. The page
    does not wait for ever: 10 s on it gives that attempt up, opens another, says back and
    sends the roll, once (it waited "reconnecting…" for 600 s, and the roll was never sent).
    Ana's clock is moved past those 10 s."""
    campaign, gm_link, ana_link, _, _ = narrative_table(served)
    gm = open_page(gm_link)
    ana = open_page(through(relay, served, ana_link), width=360, height=740,
                    prepare=install_clock)
    status = ana.locator(".ph-connection")
    listen(ana)
    quiet = len(open_page.sent_from(ana))
    relay.hang_next("welcome")
    relay.cut()
    expect(status).to_have_attribute("data-state", "reconnecting")
    form = ana.locator(".ph-roll-form")
    form.get_by_label("dice expression").fill("3d6+61")
    form.get_by_role("button", name="Roll").click()  # waits in the page until it is joined

    until(ana, "the hung attempt's join", lambda: types_sent(open_page, ana, quiet) == ["join"])
    ana.clock.fast_forward(JOIN_DUE_MS)  # never welcomed: the attempt is given up
    expect(status).to_have_attribute("data-state", "back", timeout=RECONNECTED_TIMEOUT)
    assert states_said(ana)[:2] == ["reconnecting…", "back"]
    for page in (gm, ana):
        expect(page.locator("[data-type=dice_rolled]", has_text="3d6+61")).to_have_count(1)
    rolls = served.as_gm(gm_link, "state", campaign)["rolls"]
    assert [roll["expression"] for roll in rolls] == ["3d6+61"]  # type: ignore[attr-defined]
    sent = [json.loads(frame)["type"] for frame in open_page.sent_from(ana)[quiet:]]
    assert sent == ["join", "join", "roll"]  # the hung attempt's join, then the good one's
    assert relay.websockets == 3


FORGED_ROLL = """async () => {
  const [campaign, token] = Object.entries(JSON.parse(localStorage.getItem("poolhall.tokens")))[0];
  const socket = new WebSocket(`ws://${location.host}/`);
  return await new Promise((resolve) => {
    socket.onopen = () => socket.send(JSON.stringify({type: "join", token, campaign}));
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "welcome") {
        socket.send(JSON.stringify({type: "roll", id: "forged-1", expression: "1d6"}));
      } else if (message.id === "forged-1") {
        socket.close();
        resolve(message);
      }
    };
  });
}"""


def test_a_spectator_has_no_controls_and_a_forged_command_is_refused(
        served: Served, open_page: PageOpener,
        client_message_schema: jsonschema.Validator) -> None:
    """Sam watches: the table and log but no control to act with; a roll forged from Sam's
    page with Sam's own token is refused and nothing is added to the log."""
    campaign, gm_link, ana_link, bo_link, watcher_link = narrative_table(served)
    gm, ana, bo, watcher = (open_page(link) for link in (gm_link, ana_link, bo_link, watcher_link))
    expect(watcher.locator(".ph-who")).to_contain_text("you are spectator")
    expect(watcher.locator("ph-log")).to_contain_text("Sam invited as spectator")
    controls = watcher.locator(
        "ph-app :is(button, input, select, textarea):visible:not(.ph-header *)")
    expect(controls).to_have_count(0)
    expect(watcher.locator("ph-roll, ph-invite, ph-sessions")).to_have_count(0)
    for page in (gm, ana, bo):
        expect(page.locator(".ph-roll-form")).to_be_visible()
    head = int(served.as_gm(gm_link, "state", campaign)["head"])  # type: ignore[call-overload]

    refusal = watcher.evaluate(FORGED_ROLL)
    assert refusal["type"] == "error", refusal
    assert refusal["code"] == "forbidden", refusal
    assert int(served.as_gm(gm_link, "state", campaign)["head"]) == head  # type: ignore[call-overload]
    expect(gm.locator("[data-type=dice_rolled]")).to_have_count(0)

    sent = [json.loads(frame) for frame in open_page.sent]
    assert {"join", "roll"} <= {message["type"] for message in sent}  # the forged one too
    assert invalid_frames(client_message_schema, open_page.sent) == []
    assert invalid_frames(client_message_schema, ['{"type": "roll", "id": "x"}', "{"]) != []
