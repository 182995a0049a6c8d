"""A roll's ✓ on the page also needs its place among its epoch's rolls and the epoch's end to
be what the log can prove: a nonce skipped (a roll dealt and hidden, how a server rerolls
until it likes the dice), a nonce used twice, a seed said lost then revealed, a reveal
counting another number of rolls than the epoch holds; and an SR3 chain the Rule of Six drew
(a [6, 1] recorded as two dice [6] [1]). Each was ✓ on the page though both verifiers
reported all but the chain (an auditor's forged logs); the page now says why, as they do."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.fair.forged_log import ForgedLog
from tests.serve_process import until
from tests.web.conftest import PageOpener, Served
from tests.web.test_fair_page import _badge
from tests.web.test_fair_page_forged import EMPTY
from tests.web.test_owner_page import restart

SAM = {"system": "sr3", "body": 4, "quickness": 5, "strength": 3, "charisma": 3,
       "intelligence": 5, "willpower": 4, "karma_earned": 10}


def _forge(log: ForgedLog, forgery: str) -> int | None:
    """Append ``forgery`` after epoch 1's two honest rolls (nonces 0 and 1, the epoch still
    open) to a stopped server's log; the forged roll's seq, if it added one."""
    forged = None
    if forgery == "gap":  # nonce 2 dealt, disliked and hidden
        forged = log.d20(1, 3, EMPTY)
        log.reveal(1, 3)
    elif forgery == "repeat":  # nonce 1 dealt again
        forged = log.d20(1, 1, EMPTY)
        log.reveal(1, 3)
    elif forgery == "count":  # a reveal saying the epoch held 7 rolls
        log.reveal(1, 7)
    else:  # "lost then revealed"
        log.append({"type": "seed_lost", "epoch": 1, "rolls": 2})
        log.commit(2)
        log.reveal(1, 2)
        return None
    log.commit(2)
    return forged


FORGERIES: list[tuple[str, str | None, str | None]] = [
    ("gap", None, "nonce 3 where 2 comes next in epoch 1: a roll is missing"),
    ("repeat", "nonce 1 used twice in epoch 1", "nonce 1 used twice in epoch 1"),
    ("count", "epoch 1's reveal says it held 7 rolls; the log holds 2", None),
    ("lost then revealed", "epoch 1's seed was said lost, then revealed after its epoch ended",
     None),
]
"""Each forgery, the words on the honest rolls it spoils (``None``: they stay ✓), and on the
roll it adds (``None``: it adds none)."""


def test_a_roll_out_of_its_place_is_not_verified(served: Served,
                                                 open_page: PageOpener) -> None:
    """Each forgery in a campaign of its own (one server stopped and started once for all):
    every line of the epoch is loaded (its commitment too), so the page can tell, and marks ✗
    what the verifiers report, in their words, for the GM (and a player, the gap's); a roll
    the forgery does not touch stays ✓ (the gap: the rolls before the skipped nonce)."""
    tables = []
    for forgery, _, _ in FORGERIES:
        campaign, gm_link = served.create_campaign(f"Places {forgery}", "d12")
        player_link = served.invite(campaign, gm_link, "player", "Pat")
        acks = served.send(gm_link, {"type": "roll", "expression": "1d20"},
                           {"type": "roll", "expression": "1d20"})
        tables.append((campaign, (gm_link, player_link), [ack.seqs[0] for ack in acks]))
    served.process.terminate()
    served.process.wait(15)
    forged_seqs = []
    for (campaign, _, _), (forgery, _, _) in zip(tables, FORGERIES, strict=True):
        log = ForgedLog(served.directory / "table.db", campaign)
        try:
            forged_seqs.append(_forge(log, forgery))
        finally:
            log.close()
    restart(served)
    for n, ((_, links, honest), forged, (forgery, honest_words, forged_words)) in enumerate(
            zip(tables, forged_seqs, FORGERIES, strict=True)):
        for link in links if n == 0 else links[:1]:  # the player's page judges as the GM's
            page: Page = open_page(link)
            for seq in honest[1:] if forgery == "repeat" else honest:
                badge = _badge(page, seq)
                if honest_words is None:
                    expect(badge).to_have_attribute("data-state", "verified")
                else:
                    expect(badge).to_have_attribute("data-state", "mismatch")
                    expect(badge).to_have_attribute("title",
                                                    re.compile(re.escape(honest_words)))
            if forged is not None:
                badge = _badge(page, forged)
                expect(badge).to_have_attribute("data-state", "mismatch")
                expect(badge).to_have_attribute("title",
                                                re.compile(re.escape(str(forged_words))))
            page.close()


def test_a_rule_of_six_chain_cut_in_two_is_not_verified(served: Served,
                                                        open_page: PageOpener) -> None:
    """An SR3 test's chain [6, x] rewritten as two dice [6] [x], its base dice and successes
    counted for that shape: every face is the stream's, in order. The page checks the chain's
    shape, as ``poolhall verify`` does, and marks it ✗; the honest tests stay ✓."""
    campaign, gm_link = served.create_campaign("Cut Chain", "sr3")
    served.send(gm_link, {"type": "create_character", "character": "sam", "name": "Sam",
                          "stats": SAM})
    acks = served.send(gm_link, *[{"type": "roll_pool_test", "character": "sam", "dice": 12,
                                   "tn": 7}] * 6, {"type": "rotate_seed"})
    seqs = [ack.seqs[0] for ack in acks[:6]]
    served.process.terminate()
    served.process.wait(15)
    with sqlite3.connect(served.directory / "table.db") as db:
        db.execute("DROP TRIGGER IF EXISTS events_no_update")
        events = {seq: json.loads(db.execute(
            "SELECT payload FROM events WHERE campaign = ? AND seq = ?",
            (campaign, seq)).fetchone()[0]) for seq in seqs}
        # a test with a chain (12 dice: no 6 among them in 6 tests is 1 in 80 000)
        forged = next(seq for seq, event in events.items()
                      if any(len(die["faces"]) > 1 for die in event["dice"]))
        event = events[forged]
        dice = [{"source": "base", "faces": [face]} for die in event["dice"]
                for face in die["faces"]]
        totals = [die["faces"][0] for die in dice]
        event.update(dice=dice, base_dice=len(dice), highest=max(totals),
                     successes=sum(total >= 7 for total in totals), disastrous=False)
        db.execute("UPDATE events SET payload = ? WHERE campaign = ? AND seq = ?",
                   (json.dumps(event, separators=(",", ":")), campaign, forged))
    restart(served)
    gm: Page = open_page(gm_link)
    for seq in seqs:
        if seq != forged:
            expect(_badge(gm, seq)).to_have_attribute("data-state", "verified")
    expect(_badge(gm, forged)).to_have_attribute("data-state", "mismatch")
    expect(_badge(gm, forged)).to_have_attribute(
        "title", re.compile("a 6 was not rerolled: the Rule of Six rerolls every 6"))
    gm.close()


ROLL_MARKS = """(log) => Promise.all(log.frames.filter((f) => f.event.fair).map(
  (f) => log.fair.check(f).then((c) => [f.seq, c.state, c.why ?? null])))"""


def test_an_honest_epoch_older_than_the_lines_loaded_is_no_false_alarm(
        served: Served, open_page: PageOpener) -> None:
    """A long epoch whose commitment and first rolls are older than the lines a page loads:
    the nonce before the first roll loaded is unknown, and so is the number of rolls the
    reveal counts. Every roll is ✓ all the same, the detail says what was not checked here;
    once "Load older" brings the whole epoch, both are checked and every roll stays ✓."""
    campaign, gm_link = served.create_campaign("Long epoch", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, {"type": "start_session", "title": "Long"})
    served.send(gm_link, *[{"type": "roll", "expression": "1d6"}] * 30)
    served.send(ana_link, *[{"type": "roll", "expression": "2d8"}] * 30)
    served.send(gm_link, {"type": "end_session"})
    ana: Page = open_page(ana_link)
    log = ana.locator("ph-log")
    expect(log.locator(".ph-fair[data-state=verified]").first).to_be_visible()
    marks = log.evaluate(ROLL_MARKS)
    assert 30 < len(marks) < 60, marks
    assert {state for _, state, _ in marks} == {"verified"}, marks
    log.locator(".ph-fair[data-state=verified]").last.click()
    expect(log.locator(".ph-fair-panel")).to_contain_text(re.compile(
        r"not checked here\s*that epoch \d+ held the 60 rolls its reveal says"))
    log.get_by_role("button", name="Load older").click()
    expect(log.get_by_role("button", name="Load older")).to_be_hidden()  # seq 1 is here
    # (the session's end committed the next epoch in the lines first loaded: a wait for a
    # commitment among them returned before the older lines came)
    until(lambda: len(log.evaluate(ROLL_MARKS)) == 60, timeout=10,
          said=lambda: f"the epoch's rolls were never all loaded: {log.evaluate(ROLL_MARKS)}")
    marks = log.evaluate(ROLL_MARKS)
    assert {state for _, state, _ in marks} == {"verified"}, marks
    ana.close()


def _rewrite(served: Served, campaign: str, seq: int, change: Callable[[dict[str, Any]], None]
             ) -> None:
    """Stop the server, rewrite event ``seq``'s payload with ``change``, start it again."""
    served.process.terminate()
    served.process.wait(15)
    with sqlite3.connect(served.directory / "table.db") as db:
        db.execute("DROP TRIGGER IF EXISTS events_no_update")
        (payload,) = db.execute("SELECT payload FROM events WHERE campaign = ? AND seq = ?",
                                (campaign, seq)).fetchone()
        event = json.loads(payload)
        change(event)
        db.execute("UPDATE events SET payload = ? WHERE campaign = ? AND seq = ?",
                   (json.dumps(event, separators=(",", ":")), campaign, seq))
    restart(served)


def _d12_last_die_dropped(event: dict[str, Any]) -> None:
    """A d12 roll with its last die left out, its successes and margin counted without it."""
    event["faces"].pop()
    event["values"].pop()
    event["successes"] = sum(v for v in event["values"] if v > 0)
    event["failures"] = -sum(v for v in event["values"] if v < 0)
    event["margin"] = event["successes"] - event["failures"]
    event["succeeded"] = event["margin"] > 0


def test_a_d12_roll_smaller_than_its_tests_pool_is_not_verified(
        served: Served, open_page: PageOpener) -> None:
    """The pool a d12 test's roll draws is set by earlier lines (the test called with 6 dice):
    a roll holding 5, its margin counted for them, is ✗ when the page holds those lines."""
    campaign, gm_link = served.create_campaign("Short Pool", "d12")
    acks = served.send(gm_link, *[{"type": "roll_basic_test", "dice": 6, "dt": 7}] * 2,
                       {"type": "rotate_seed"})
    honest, forged = [ack.seqs[-1] for ack in acks[:2]]
    _rewrite(served, campaign, forged, _d12_last_die_dropped)
    gm: Page = open_page(gm_link)
    expect(_badge(gm, honest)).to_have_attribute("data-state", "verified")
    expect(_badge(gm, forged)).to_have_attribute("data-state", "mismatch")
    expect(_badge(gm, forged)).to_have_attribute(
        "title", "it holds 5 dice; the test's pool is 6: dice left out")
    gm.close()
