"""What a GM's game night found, each in a browser: a roll marked verified whose seed was never
checked against its commitment, an SR3 declaration that answered an old test, a d12 call form
that kept the last call's opponent, an SR3 character created without a word, Reaction with
no rating in the SR3 Roll list, and the docs quoting a sealed line the page does not show."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import PageOpener, Served, screenshot
from tests.web.test_sr3_browser_table import create

DOCS = Path(__file__).resolve().parents[2] / "docs"

CHECKED_WITHOUT_THE_SERVER = """async (seq) => {
  // the page's own code, on the lines the page holds, by a FairChecks that cannot ask the
  // server anything: what a page shows when the commitment cannot be had
  const {FairChecks} = await import("/static/fairness.js");
  const {FAIR_WORDS} = await import("/static/fair-badge.js");
  const log = document.querySelector("ph-log");
  window.__checks ??= new FairChecks(log); // the log: the seeds in force, the epochs' lines
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


def test_the_docs_quote_the_line_others_see_for_a_gms_secret_roll(
        served: Served, open_page: PageOpener) -> None:
    """The how-to said others see "The GM rolled in secret"; the page says "The GM acted in
    secret: shown to everyone when the session ends". The docs quote the page's words."""
    campaign, gm_link = served.create_campaign("Hidden Hand", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, {"type": "start_session", "title": "Night"})
    (secret,) = served.send(gm_link, {"type": "roll", "expression": "3d6", "visibility": "gm"})
    ana = open_page(ana_link)
    line = ana.locator(f"ph-log .ph-log-line[data-seq='{secret.seqs[0]}']")
    expect(line).to_have_attribute("data-type", "private_roll")
    words = line.inner_text().split(" ", 1)[1]  # after the time
    assert words == "The GM acted in secret: shown to everyone when the session ends", words
    how_to = " ".join((DOCS / "how-to" / "play-in-the-browser.md").read_text().split())
    assert f'"{words}"' in how_to
    assert "The GM rolled in" not in how_to


SAM = {"quickness": 5, "intelligence": 5, "reaction_bonus": 2}
"""Reaction left blank: (5 + 5) / 2 = 5, and 2 from wired reflexes: a Reaction test rolls 7."""


def test_sr3_a_declaration_answers_only_the_test_it_names(
        served: Served, open_page: PageOpener) -> None:
    """The GM creates Sam in the form: it said nothing (the narrative form says "… created.").
    The Roll list gave Reaction no rating. The ganger attacks (test #1); Sam dodges "against
    test # 1"; the field kept the 1, so Sam's own attack next was recorded as answering the
    ganger's too. Now the field is cleared with the reason once a test is declared."""
    campaign, gm_link = served.create_campaign("Redmond Barrens", "sr3")
    create(served, gm_link, campaign, "ganger", "Ganger", {
        "system": "sr3", "body": 5, "quickness": 4, "strength": 5, "charisma": 2,
        "intelligence": 4, "willpower": 3,
        "skills": {"clubs": {"rating": 4, "attribute": "strength", "kind": "combat"}}})
    gm = open_page(gm_link)
    form = gm.locator("ph-sr3-character form")
    form.get_by_label("Name").fill("Sam Shadow")
    expect(form.get_by_label("Id")).to_have_value("sam-shadow")
    form.get_by_label("Id").fill("sam")
    for field, value in SAM.items():
        form.get_by_label(field.replace("_", " ").capitalize(), exact=True).fill(str(value))
    form.get_by_role("button", name="Add a skill").click()
    form.get_by_label("skill", exact=True).fill("Pistols")
    form.get_by_label("rating").fill("4")
    form.get_by_label("kind").select_option("combat")
    form.get_by_role("button", name="Create character").click()
    status = form.get_by_role("status")
    expect(status).to_have_text("Sam Shadow (sam) created.")
    expect(form.get_by_role("button", name="Save changes")).to_be_visible()
    form.get_by_label("Willpower").fill("4")
    form.get_by_role("button", name="Save changes").click()
    expect(status).to_have_text("Sam Shadow saved.")

    declare = gm.locator("ph-sr3-declare")
    roll = declare.get_by_label("Roll", exact=True)
    declare.get_by_label("Character", exact=True).select_option("sam")
    expect(roll.locator("option[value='attribute:reaction']")).to_have_text("Reaction 7")
    expect(roll.locator("option[value='attribute:quickness']")).to_have_text("Quickness 5")
    # the number is the dice the server rolls for a Reaction test
    roll.select_option("attribute:reaction")
    declare.get_by_label("Test", exact=True).select_option("other")
    declare.get_by_label("Target number").fill("4")
    declare.get_by_role("button", name="Declare").click()
    sam_card = gm.locator("ph-sr3-declared [data-character=sam]")
    expect(sam_card.locator("h3")).to_have_text("Sam Shadow: Reaction (other), TN 4, 7 dice")
    sam_card.get_by_role("button", name="Roll").click()
    expect(gm.locator("ph-sr3-tests [data-test='1']")).to_be_visible()

    (attack,) = served.send(gm_link, {"type": "roll_pool_test", "character": "ganger",
                                      "skill": "clubs", "kind": "combat", "tn": 4})
    expect(gm.locator("ph-sr3-tests [data-test='2']")).to_be_visible()
    declare.get_by_label("Character", exact=True).select_option("sam")
    roll.select_option("none")
    expect(declare.get_by_label("Test", exact=True)).to_have_value("dodge")
    against = declare.get_by_label("Against test #")
    against.fill("2")
    declare.get_by_label("Reason").fill("ducks")
    declare.get_by_role("button", name="Declare").click()
    expect(sam_card.locator("h3")).to_have_text(
        "Sam Shadow: Combat Pool (dodge), TN 4, Combat Pool dice only")
    expect(against).to_have_value("")  # it named the ganger's attack, and only this dodge
    expect(declare.get_by_label("Reason")).to_have_value("")
    sam_card.get_by_label("Combat Pool dice (up to 7)").fill("3")
    sam_card.get_by_role("button", name="Roll").click()
    dodge = gm.locator("ph-sr3-tests [data-test='3']")
    expect(dodge).to_contain_text("test #2")

    roll.select_option("skill:pistols")
    declare.get_by_label("Target number").fill("4")
    declare.get_by_label("Reason").fill("double tap")
    declare.get_by_role("button", name="Declare").click()
    sam_card.get_by_role("button", name="Roll").click()
    shot = gm.locator("ph-sr3-tests [data-test='4']")
    expect(shot).to_contain_text("double tap")
    expect(shot).not_to_contain_text("against test #")
    expect(gm.locator("ph-sr3-tests [data-test='2']")).to_contain_text("answered by #3")
    expect(gm.locator("ph-sr3-tests [data-test='2']")).not_to_contain_text("#4")
    assert attack.seqs


def test_d12_a_call_leaves_the_next_one_free_to_set_its_own_dt(
        served: Served, open_page: PageOpener) -> None:
    """The GM calls Ana's test with its DT from Bram's WIL: the next call kept Bram chosen and
    the DT field disabled. Now a call clears the form (the character stays), and the next one
    is called at DT 5."""
    campaign, gm_link = served.create_campaign("Broken Crown", "d12")
    served.send(gm_link,
                {"type": "create_character", "character": "ana", "name": "Ana Vex",
                 "stats": {"system": "d12", "ratings": {"CON": 3, "CHA": 0, "STR": 5}}},
                {"type": "create_character", "character": "bram", "name": "Bram",
                 "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 2, "WIL": 4}}})
    gm = open_page(gm_link)
    call = gm.locator(".ph-d12-call")
    call.get_by_label("Character").select_option("ana")
    call.get_by_role("checkbox", name="STR").check()
    call.get_by_label("Extended test").check()
    call.get_by_label("Label").fill("arm wrestle")
    call.get_by_label("or from").select_option("bram")
    call.locator("select[name=opponent_stat]").select_option("WIL")
    expect(call.get_by_label("DT", exact=True)).to_be_disabled()
    call.get_by_role("button", name="Call the test").click()
    expect(gm.locator("ph-d12-test[data-test='1'] .ph-d12-threshold")).to_contain_text("Bram")

    expect(call.get_by_label("Character")).to_have_value("ana")
    expect(call.get_by_label("or from")).to_have_value("")
    expect(call.get_by_label("DT", exact=True)).to_be_enabled()
    expect(call.get_by_label("DT", exact=True)).to_have_value("")
    expect(call.locator("select[name=opponent_stat]")).to_be_hidden()
    expect(call.get_by_role("checkbox", name="STR")).not_to_be_checked()
    expect(call.get_by_label("Extended test")).not_to_be_checked()
    expect(call.get_by_label("Label")).to_have_value("")
    call.get_by_role("checkbox", name="CON").check()
    call.get_by_label("DT", exact=True).fill("5")
    call.get_by_role("button", name="Call the test").click()
    second = gm.locator("ph-d12-test[data-test='2']")
    expect(second.locator(".ph-d12-threshold")).to_have_text("DT 5, set by the GM")
    expect(second.locator(".ph-d12-who")).to_have_text(re.compile(r"^Ana Vex · CON 3 = 3 dice"))
