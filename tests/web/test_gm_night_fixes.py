"""What a GM's game night found, each in a browser: a roll marked verified whose seed was never
checked against its commitment."""

from __future__ import annotations

import hashlib

from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import PageOpener, Served, screenshot

CHECKED_WITHOUT_THE_SERVER = """async (seq) => {
  // the page's own code, on the lines the page holds, by a FairChecks that cannot ask the
  // server anything: what a page shows when the commitment cannot be had
  const {FairChecks} = await import("/static/fairness.js");
  const {FAIR_WORDS} = await import("/static/fair-badge.js");
  const log = document.querySelector("ph-log");
  window.__checks ??= new FairChecks();
  const checks = window.__checks;
  const again = checks.learn(log.frames, log.campaign); // true: to be checked again
  const check = await checks.check(log.frames.find((frame) => frame.seq === seq));
  return {state: check.state, mark: FAIR_WORDS[check.state][0], again};
}"""


def _badge(page: Page, seq: int) -> Locator:
    return page.locator(f"ph-log .ph-log-line[data-seq='{seq}'] .ph-fair")


def _committed_epochs(page: Page) -> list[int]:
    """The epochs whose ``seed_committed`` is among the lines the page holds."""
    epochs: list[int] = page.locator("ph-log").evaluate(
        "(log) => log.frames.filter((f) => f.event.type === 'seed_committed')"
        ".map((f) => f.event.epoch)")
    return epochs


def test_a_roll_is_verified_only_once_its_seed_is_checked_against_its_commitment(
        served: Served, open_page: PageOpener) -> None:
    """A long session: the commitment made at its start is older than the 50 lines a page
    loads. The mark said ✓ "verified" while its panel said "commitment: not in the log loaded
    here": the seed had never been hashed against it. Now the page asks the server for the
    epoch's commitment (once for all its rolls) and checks the seed against it; a page that
    cannot get it says "commitment unchecked", never ✓, until "Load older" brings it."""
    campaign, gm_link = served.create_campaign("Long night", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, {"type": "start_session", "title": "The long night"})
    served.send(gm_link, *[{"type": "roll", "expression": "1d6"}] * 28)  # within each one's
    served.send(ana_link, *[{"type": "roll", "expression": "1d8"}] * 26)  # command burst
    (roll,) = served.send(ana_link, {"type": "roll", "expression": "4d6"})
    served.send(gm_link, {"type": "end_session"})
    seq = roll.seqs[0]

    ana = open_page(ana_link)
    badge = _badge(ana, seq)
    expect(badge).to_have_attribute("data-state", "verified")
    epoch = ana.locator("ph-log").evaluate(
        "(log, seq) => log.frames.find((f) => f.seq === seq).event.fair.epoch", seq)
    assert epoch not in _committed_epochs(ana)  # its commitment is older than the lines held
    badge.click()
    panel = ana.locator("ph-log .ph-fair-panel")
    expect(panel).to_contain_text("asked of the server")
    values = panel.locator("dd")
    seed = values.nth(4).inner_text()
    commitment = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    expect(values.nth(3)).to_have_text(
        f"{commitment} (asked of the server: older than the log loaded here)")
    expect(values.nth(0)).to_have_text(
        "recomputed from the revealed seed, which hashes to its commitment: every face matches")
    # one request for the epoch, whatever the number of its rolls on screen
    asked = [frame for frame in open_page.sent_from(ana) if '"type":"state_at"' in frame]
    assert len(asked) == 1, asked
    screenshot(ana, "gm-night-commitment-asked")

    # without the server's answer the page's own check says the seed went unchecked
    unchecked = ana.evaluate(CHECKED_WITHOUT_THE_SERVER, seq)
    assert unchecked["state"] == "unconfirmed", unchecked
    assert unchecked["mark"] != "✓"
    # ... until the commitment's own line is loaded ("Load older"): then it is checked
    ana.locator("ph-log").get_by_role("button", name="Load older").click()  # a page of 500
    ana.wait_for_function("""(epoch) => document.querySelector("ph-log").frames.some(
      (f) => f.event.type === "seed_committed" && f.event.epoch === epoch)""", arg=epoch)
    checked = ana.evaluate(CHECKED_WITHOUT_THE_SERVER, seq)
    assert checked == {"state": "verified", "mark": "✓", "again": True}, checked
