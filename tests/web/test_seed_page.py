"""The page's own seed: a player takes the seed their page drew, their next roll mixes it in
and is verified once the GM ends the session; a seed the server refuses is refused in the
page in the server's words, and nothing is appended; on a phone the control is in the log's
view and nothing scrolls sideways."""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from poolhall.events.fair import client_seeds_digest
from tests.fair.test_fair_derivation import published_vectors
from tests.web.conftest import PageOpener, Served, screenshot
from tests.web.test_page_layout import NO_SIDEWAYS_SCROLL


def _events(served: Served, campaign: str) -> list[dict[str, Any]]:
    """The campaign's events as the server stored them (read-only), with their seq."""
    uri = f"file:{served.directory / 'table.db'}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        rows = db.execute("SELECT seq, payload FROM events WHERE campaign = ? ORDER BY seq",
                          (campaign,)).fetchall()
    return [{"seq": seq, **json.loads(payload)} for seq, payload in rows]


def _refusal(served: Served, link: str, command: dict[str, Any]) -> dict[str, Any]:
    """The server's ``error`` answer to ``command`` (a frame no client of ours would send,
    so it goes over a plain WebSocket) as the member whose join link is ``link``."""
    fragment = dict(part.split("=", 1) for part in link.split("#", 1)[1].split("&"))
    with connect(served.url) as socket:
        socket.send(json.dumps({"type": "join", "token": fragment["token"],
                                "campaign": fragment["campaign"]}))
        socket.send(json.dumps({"id": "refused-1", **command}))
        for _ in range(100):
            message = json.loads(socket.recv(timeout=10))
            if message.get("id") == "refused-1":
                return dict(message)
    raise AssertionError("the server never answered the command")


def _seeds_in_force(page: Page) -> list[Any]:
    """The page's ``seedsInForce`` on a log held from event 5 on: a roll after Ana's seed
    (the GM's set before the lines held); a roll whose stamp names other seeds; a roll before
    the GM changed theirs (whose earlier seed is not in the lines held)."""
    def line(seq: int, event: dict[str, Any]) -> dict[str, Any]:
        return {"seq": seq, "event": event}

    def roll(seq: int, seeds: dict[str, str]) -> dict[str, Any]:
        return line(seq, {"type": "dice_rolled", "fair": {
            "epoch": 1, "nonce": seq, "seeds": client_seeds_digest(seeds).hex()}})

    both = {"ana": "a", "gm": "g"}
    cases = [
        [[line(5, {"type": "client_seed_set", "member": "ana", "seed": "a"}), roll(6, both)],
         1, both],
        [[roll(5, both)], 0, {"gm": "g"}],
        [[roll(5, both), line(6, {"type": "client_seed_set", "member": "gm", "seed": "h"})],
         0, {"gm": "h"}],
    ]
    answer: list[Any] = page.evaluate("""async (cases) => {
      const {seedsInForce} = await import("/static/fair-check.js");
      return Promise.all(cases.map(async ([frames, at, now]) => {
        const {seeds, unknown, matches} = await seedsInForce(frames[at], frames, now);
        return [[...seeds].sort(), unknown, matches];
      }));
    }""", cases)
    return answer


def test_a_player_takes_the_page_s_seed_and_their_next_roll_mixes_it_in(
        served: Served, open_page: PageOpener) -> None:
    """Ana takes the seed her page drew with one click; her next roll's stamp names the
    digest of the GM's seed and hers; the GM ends the session, the roll turns verified and its
    detail says her seed was mixed in. A typed seed too long is refused beside the field in
    the server's own words, and nothing is sent or appended."""
    campaign, gm_link = served.create_campaign("Seeds", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, {"type": "set_client_seed", "seed": "the gm's words"},
                {"type": "start_session"})
    ana = open_page(ana_link)
    control = ana.locator("ph-seed")
    expect(control.locator("summary")).to_have_text("Your seed: none yet")
    control.locator("summary").click()
    # drawn as the control opens: waited for (read at once, it was empty on a slow machine)
    expect(control.locator(".ph-seed-offered")).to_have_text(re.compile(r"^[0-9a-f]{32}$"))
    offered = control.locator(".ph-seed-offered").inner_text()
    control.get_by_role("button", name="Use this seed").click()
    expect(control.locator("summary")).to_have_text(f"Your seed: {offered[:12]}…")
    expect(control.locator(".ph-seed-now")).to_have_text(offered)
    expect(control.locator(".ph-seed-offered")).not_to_have_text(offered)  # a fresh offer
    control.get_by_role("button", name="Draw another").focus()
    ana.keyboard.press("Escape")  # closes it, as a menu's Escape would: the focus on its summary
    expect(control.locator("details")).not_to_have_attribute("open", "")
    expect(control.locator("summary")).to_be_focused()
    expect(ana.locator("ph-log [data-type=client_seed_set]").last).to_contain_text(
        f"Ana set their seed {offered}")
    vectors = published_vectors()  # the page's digest is the docs' (and events/fair.py's)
    digests = ana.evaluate("""async (seeds) => {
      const {clientSeedsDigest} = await import("/static/fair-check.js");
      return Promise.all(seeds.map((s) => clientSeedsDigest(new Map(Object.entries(s)))));
    }""", [v["client_seeds"] for v in vectors])
    assert digests == [v["client_seeds_digest"] for v in vectors]
    assert _seeds_in_force(ana) == [
        [[["ana", "a"], ["gm", "g"]], [], True],  # the GM's from the table (set before)
        [[["gm", "g"]], [], False],                # wrong digest: said so
        [[], ["gm"], None],                        # the GM's changed after, set before
    ]

    ana.get_by_label("dice expression").fill("3d6")
    ana.get_by_role("button", name="Roll", exact=True).click()
    line = ana.locator("ph-log [data-type=dice_rolled]")
    expect(line).to_have_count(1)
    seq = int(line.get_attribute("data-seq") or 0)
    events = _events(served, campaign)
    seeds = {e["member"]: e["seed"] for e in events if e["type"] == "client_seed_set"}
    assert sorted(seeds.values()) == sorted([offered, "the gm's words"])
    (roll,) = [e for e in events if e["seq"] == seq]
    digest = client_seeds_digest(seeds).hex()
    assert roll["fair"]["seeds"] == digest
    badge = line.locator(".ph-fair")
    expect(badge).to_have_attribute("data-state", "sealed")

    served.send(gm_link, {"type": "end_session"})
    expect(badge).to_have_attribute("data-state", "verified")
    badge.click()
    panel = ana.locator("ph-log .ph-fair-panel")

    def detail(name: str) -> str:
        return panel.locator("dt", has_text=re.compile(f"^{name}$")).locator(
            "xpath=following-sibling::dd[1]").inner_text()

    expect(panel).to_contain_text("your seed")
    assert detail("client seeds digest") == digest
    in_force = detail("client seeds in force")
    assert "Ana" in in_force
    assert in_force.endswith(": the seeds set in the log give this digest")
    assert detail("your seed") == f"“{offered}”, mixed in"

    too_long = "x" * 65
    refused = _refusal(served, ana_link, {"type": "set_client_seed", "seed": too_long})
    assert refused["type"] == "error"
    assert refused["path"] == "$.seed"
    control.locator("summary").click()  # open again (Escape closed it)
    own = control.get_by_role("textbox")
    own.fill(too_long)
    control.get_by_role("button", name="Set", exact=True).click()
    error = control.locator(".ph-seed-own output.ph-error")
    expect(error).to_have_text(refused["message"])  # "the seed holds at most 64 characters"
    expect(own).to_have_attribute("aria-invalid", "true")
    expect(control.locator(".ph-seed-now")).to_have_text(offered)
    assert sum(e["type"] == "client_seed_set" for e in _events(served, campaign)) == 2
    assert not [frame for frame in open_page.sent if too_long in str(frame)]

    empty = _refusal(served, ana_link, {"type": "set_client_seed", "seed": ""})
    assert empty["message"] == "the seed is empty"  # not "holds at least 1 characters"
    own.fill("")
    control.get_by_role("button", name="Set", exact=True).click()
    expect(error).to_have_text(empty["message"])  # the page's own check, in the same words


def test_on_a_phone_the_seed_is_in_the_log_s_view(
        served: Served, open_page: PageOpener) -> None:
    """At 360 px Ana finds "Your seed" under the log, types a long seed of her own and sets
    it; nothing scrolls sideways. A spectator has no seed control (and no roll form)."""
    campaign, gm_link = served.create_campaign("Pocket", "narrative")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    watcher_link = served.invite(campaign, gm_link, "spectator", "Sam")
    ana = open_page(ana_link, width=360, height=740)
    control = ana.locator("ph-seed")
    expect(control).to_be_hidden()  # the table's view
    ana.get_by_role("navigation", name="Views").get_by_role("button", name="Log").click()
    expect(control).to_be_in_viewport()
    control.locator("summary").click()
    words = "🎲 our table's lucky words, " + "long " * 7  # 63 characters, the emoji one
    assert len(words) <= 64
    control.get_by_role("textbox").fill(words)
    control.get_by_role("button", name="Set", exact=True).click()
    expect(control.locator(".ph-seed-now")).to_have_text(words)
    expect(control.get_by_role("textbox")).to_have_value("")
    assert ana.evaluate(NO_SIDEWAYS_SCROLL)
    box = control.bounding_box()
    assert box
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 361
    ana.get_by_role("navigation", name="Views").get_by_role("button", name="Sheet").click()
    expect(control).to_be_hidden()

    sam: Page = open_page(watcher_link)
    expect(sam.locator("ph-log")).to_be_visible()
    expect(sam.locator("ph-seed")).to_have_count(0)


SEEN_WHOLE = """() => {
  // the focused control's middle and two corners are on the screen, and it is what a tap there
  // reaches: not under the roll form, the views' bar or anything else
  const control = document.activeElement;
  const box = control.getBoundingClientRect();
  return [[box.x + box.width / 2, box.y + box.height / 2], [box.x + 4, box.y + 4],
          [box.right - 4, box.bottom - 4]].map(([x, y]) => {
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return "off the screen";
    const top = document.elementFromPoint(x, y);
    return top === control || control.contains(top) ? "seen"
      : `under ${top?.closest("ph-roll, .ph-phone-tabs")?.tagName ?? top?.tagName}`;
  });
}"""


def test_at_200_percent_on_a_phone_every_control_of_the_open_seed_is_seen(
        served: Served, open_page: PageOpener) -> None:
    """Ana's 390 x 844 phone at 200% text, the Log view: she opens **Your seed** with Enter and
    Tabs through it. Each control she reaches is on the screen and clear of the roll form and
    the bar (the panel was squeezed into the bottom of a screen-high column, under the roll
    form: **Draw another** was hidden whole, and the seed could not be read)."""
    campaign, gm_link = served.create_campaign("Pocket", "narrative")
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana"), width=390, height=844)
    ana.evaluate("document.documentElement.style.fontSize = '200%'")
    ana.get_by_role("navigation", name="Views").get_by_role("button", name="Log").click()
    control = ana.locator("ph-seed")
    control.locator("summary").focus()
    ana.keyboard.press("Enter")
    expect(control.locator("details")).to_have_attribute("open", "")
    expect(control.locator(".ph-seed-offered")).to_have_text(re.compile(r"^[0-9a-f]{32}$"))
    reached = []
    for _ in range(8):
        ana.keyboard.press("Tab")
        if not ana.evaluate("document.activeElement.closest('ph-seed') !== null"):
            break
        ana.evaluate("() => new Promise((done) => requestAnimationFrame(() =>"
                     " requestAnimationFrame(done)))")  # the scroll the Tab causes, drawn
        name = ana.evaluate("document.activeElement.textContent"
                            " || document.activeElement.getAttribute('aria-label')")
        reached.append(name)
        assert ana.evaluate(SEEN_WHOLE) == ["seen"] * 3, (name, ana.evaluate(SEEN_WHOLE))
    assert {"Use this seed", "Draw another", "Set"} <= set(reached), reached
    offered = control.locator(".ph-seed-offered")
    offered.scroll_into_view_if_needed()
    assert offered.evaluate(
        "(code) => { const box = code.getBoundingClientRect();"
        " const top = document.elementFromPoint(box.x + 4, box.y + box.height / 2);"
        " return top === code || code.contains(top); }"), "the seed offered is under the form"
    screenshot(ana, "phone-seed-open-text-200")
