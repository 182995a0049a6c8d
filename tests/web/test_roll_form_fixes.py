"""The roll form as the GM and the players found it: an error under a form goes once what it
said stops being true (the game session changed, or the field was edited), and the roll form of
a narrative table reads the narrative pool notation (``2g 1p``) as ``poolhall roll`` does."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served


def test_errors_under_the_forms_go_when_the_game_session_changes_or_the_field_is_edited(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM's free roll of ``2x`` is refused under the roll form, and Roll the destiny pool
    beside its button (no session is running); the GM starts a session: both refusals are
    gone, the field no longer marked invalid (they stayed until the page was reloaded). A new
    refusal goes once the GM edits the expression."""
    _, gm_link = served.create_campaign("Stale Words", "narrative")
    gm = open_page(gm_link)
    form = gm.get_by_role("form", name="Roll dice")
    field = form.get_by_label("dice expression")
    field.fill("2x")
    form.get_by_role("button", name="Roll", exact=True).click()
    roll_error = form.locator(":scope > output.ph-error")
    expect(roll_error).to_have_text("unexpected 'x'")
    expect(field).to_have_attribute("aria-invalid", "true")
    destiny = gm.locator("ph-narrative-destiny")
    destiny.get_by_role("button", name="Roll the destiny pool").click()
    destiny_error = destiny.locator(".ph-nc-actions > output.ph-error")
    expect(destiny_error).to_contain_text("start one first")

    gm.get_by_role("button", name="Start game session").click()
    expect(gm.locator(".ph-session-running")).to_contain_text("Game session 1 is running")
    expect(roll_error).to_have_text("")
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(destiny_error).to_have_text("")

    form.get_by_role("button", name="Roll", exact=True).click()
    expect(roll_error).to_have_text("unexpected 'x'")
    field.press("End")
    field.press("Backspace")
    expect(roll_error).to_have_text("")
    expect(field).not_to_have_attribute("aria-invalid", "true")

