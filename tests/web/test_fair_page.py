"""The page checks the dice for itself: a player sees each roll sealed during the session and
verified once the GM ends it, with how (seed, commitment, nonce, bytes); a face edited in the
log shows as a mismatch; on a plain-http LAN address the page says it cannot check."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.serve_process import start_serve
from tests.web.conftest import ONE_ADDRESS_FOR_EVERYONE, PageOpener, Served, serving
from tests.web.test_owner_page import restart


def _badge(page: Page, seq: int) -> Locator:
    return page.locator(f"ph-log .ph-log-line[data-seq='{seq}'] .ph-fair")


def test_rolls_are_sealed_then_verified_in_the_browser(served: Served, open_page: PageOpener
                                                       ) -> None:
    """The GM and a player roll; the player's page marks the rolls sealed; the GM ends the
    session and every roll turns verified, opening one shows the seed and the bytes used; the
    mark the player had pressed keeps the focus and its open panel follows; the campaign's
    replay marks them verified too."""
    campaign, gm_link = served.create_campaign("Fair", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, {"type": "start_session"})
    acks = served.send(ana_link, {"type": "set_client_seed", "seed": "ana-was-here"},
                       {"type": "roll", "expression": "2d6+1d20"},
                       {"type": "roll", "expression": "3d100"})
    rolls = [ack.seqs[0] for ack in acks[1:]]
    ana = open_page(ana_link)
    for seq in rolls:
        expect(_badge(ana, seq)).to_have_attribute("data-state", "sealed")
    badge = _badge(ana, rolls[1])
    badge.focus()
    ana.keyboard.press("Enter")  # pressed with the keyboard while sealed
    panel = ana.locator("ph-log .ph-fair-panel")
    expect(panel).to_contain_text("not revealed yet")
    served.send(gm_link, {"type": "end_session"})
    for seq in rolls:
        expect(_badge(ana, seq)).to_have_attribute("data-state", "verified")
    # the marks are built again with the revealed seed: the one pressed keeps the focus, and
    # the panel open on it says how it was checked now
    expect(badge).to_be_focused()
    expect(panel).not_to_contain_text("not revealed yet")
    badge.click()
    expect(panel).to_contain_text("commitment")  # shown once its words are fetched (on demand)
    how = panel.inner_text()
    assert "commitment" in how
    assert "bytes used" in how
    assert "nonce" in how
    assert len(panel.locator("dd").nth(4).inner_text()) == 64  # the seed, revealed
    # the replay checks them alike (it once derived the dice without the campaign's id: every
    # roll a mismatch)
    ana.goto(f"{served.origin}/replay#campaign={campaign}")
    for seq in rolls:
        expect(_badge(ana, seq)).to_have_attribute("data-state", "verified")


@pytest.mark.parametrize("edit", ["face", "total"])
def test_an_edited_face_shows_as_a_mismatch(tmp_path: Path, browser: Browser, open_page: PageOpener,
                                            edit: str) -> None:
    """A face changed in the file (the server restarted on it) is marked mismatched; so is a
    total changed beside true faces (it is what the table acted on), saying so."""
    generator = serving(tmp_path)
    served = next(generator)
    port = served.port
    campaign, gm_link = served.create_campaign("Edited", "d12")
    (ack,) = served.send(gm_link, {"type": "roll", "expression": "4d6"})
    served.send(gm_link, {"type": "rotate_seed"})
    served.process.terminate()
    served.process.wait(15)
    with sqlite3.connect(tmp_path / "table.db") as db:
        db.execute("DROP TRIGGER IF EXISTS events_no_update")
        (payload,) = db.execute("SELECT payload FROM events WHERE campaign = ? AND seq = ?",
                                (campaign, ack.seqs[0])).fetchone()
        event = json.loads(payload)
        face = event["terms"][0]["faces"][0]
        if edit == "face":
            event["terms"][0]["faces"][0] = 1 if face != 1 else 2
        else:
            event["total"] += 5
        db.execute("UPDATE events SET payload = ? WHERE campaign = ? AND seq = ?",
                   (json.dumps(event, separators=(",", ":")), campaign, ack.seqs[0]))
    process = start_serve(tmp_path / "table.db", port, *ONE_ADDRESS_FOR_EVERYONE,
                          log=tmp_path / "serve.log")  # the same address: the same link
    try:
        gm = open_page(gm_link)
        expect(_badge(gm, ack.seqs[0])).to_have_attribute("data-state", "mismatch")
        expect(_badge(gm, ack.seqs[0])).to_have_attribute(
            "aria-label", f"GM's roll #{ack.seqs[0]}: dice mismatch")
        if edit == "total":
            _badge(gm, ack.seqs[0]).click()
            expect(gm.locator("ph-log .ph-fair-panel")).to_contain_text("its faces make")
        gm.close()  # before the server stops: a page reconnecting would log an error
    finally:
        process.terminate()
        process.wait(15)


def test_a_page_without_web_crypto_says_it_cannot_check(served: Served, open_page: PageOpener
                                                        ) -> None:
    """Over plain http on a LAN address there is no crypto.subtle: the page says so."""
    campaign, gm_link = served.create_campaign("Lan", "d12")
    (ack,) = served.send(gm_link, {"type": "roll", "expression": "1d6"})
    served.send(gm_link, {"type": "rotate_seed"})
    page = open_page(gm_link, live=False)
    page.close()
    context = page.context
    context.add_init_script("Object.defineProperty(window, 'isSecureContext', {value: false})")
    page = context.new_page()
    page.goto(gm_link)
    expect(_badge(page, ack.seqs[0])).to_have_attribute("data-state", "unavailable")
    expect(_badge(page, ack.seqs[0])).to_have_attribute(
        "title", "cannot check here: needs https or localhost")


def test_the_gm_is_told_when_the_dice_wait_and_not_once_the_session_ends(
        served: Served, open_page: PageOpener) -> None:
    """The server restarted while the session's epoch held the GM's secret roll: every roll
    waits for the GM (docs: fairness.md). The GM's page says so by the session's controls,
    without anyone having to try a roll first; ended from the page, the session's end lifts
    it and the notice goes."""
    campaign, gm_link = served.create_campaign("Waiting", "d12")
    served.send(gm_link, {"type": "start_session"},
                {"type": "roll", "expression": "1d20", "visibility": "gm"})
    served.process.terminate()
    served.process.wait(15)
    restart(served)
    gm = open_page(gm_link)
    sessions = gm.locator("ph-sessions")
    notice = sessions.locator("p.ph-error")  # the forms have their own error outputs
    expect(notice).to_be_visible()
    expect(notice).to_have_text("The dice wait: end or start a session to roll on.")
    sessions.get_by_role("button", name="End game session").click()
    sessions.get_by_role("button", name="Yes, end it").click()
    expect(notice).to_be_hidden()
    (ack,) = served.send(gm_link, {"type": "roll", "expression": "1d6"})
    assert ack.seqs
