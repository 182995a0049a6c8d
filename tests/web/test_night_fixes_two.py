"""More of what the narrative game night found, each in a browser: a nameless invite, GM links
that could not be told apart, odds before a difficulty, the phone's roll form covering a
check, a conditions form that started at 0, the character file chooser, and long names on a
d12 table at phone width."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.conftest import SCREENSHOTS, PageOpener, Served, screenshot
from tests.web.test_narrative_night_fixes import (
    LONG,
    NO_SIDEWAYS_SCROLL,
    PAST_THEIR_CARD,
    narrative_table,
)
from tests.web.test_owner_page import printed_owner_link

UNCOVERED = """(control) => {
  const box = control.getBoundingClientRect();
  const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
  return top === control || control.contains(top);
}"""
"""Whether a person tapping the middle of ``control`` reaches it (nothing lies on top)."""


def members_of(page: Page) -> list[str]:
    return page.locator("ph-members li .ph-member-about").all_inner_texts()


def test_an_invite_with_no_name_is_asked_for_one_and_nothing_is_sent(
        served: Served, open_page: PageOpener) -> None:
    """Invite with an empty name made a working member called "player" (then "player-2"):
    the form asks for a name in plain words, beside the field, and sends nothing."""
    _, gm_link = narrative_table(served)
    gm = open_page(gm_link)
    invite = gm.get_by_role("form", name="Invite a member")
    invite.get_by_label("Name").fill("   ")
    invite.get_by_role("button", name="Invite").click()
    expect(invite.locator(".ph-error")).to_have_text("give the member a name")
    expect(invite.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    expect(invite.get_by_label("Name")).to_be_focused()
    expect(gm.locator(".ph-invite-result")).to_be_hidden()
    gm.wait_for_timeout(300)
    assert members_of(gm) == ["GM gm (you)"]
    invite.get_by_label("Name").fill("Ana")
    expect(invite.locator(".ph-error")).to_be_empty()
    invite.get_by_role("button", name="Invite").click()
    expect(gm.locator(".ph-invite-result")).to_contain_text("Join link for Ana")
    expect(gm.locator("ph-members")).to_contain_text("Ana player")

