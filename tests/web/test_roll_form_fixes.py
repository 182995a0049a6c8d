"""The roll form as the GM and the players found it: an error under a form goes once what it
said stops being true (the game session changed, or the field was edited), and the roll form of
a narrative table reads the narrative pool notation (``2g 1p``) as ``poolhall roll`` does (the
server reads what the form sends: tests/server/test_free_roll_notation.py)."""

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


def test_the_roll_form_rolls_a_narrative_pool_as_poolhall_roll_does(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Ana types ``2g 1p`` in the roll form of a narrative table, as she would after
    ``poolhall roll``: two ability dice and a difficulty die are rolled, as her character, for
    the reason given (the server refused it as dice: "unexpected 'g'"). A bad pool is refused
    in the CLI's words beside the field; plain dice are still dice."""
    campaign, gm_link = served.create_campaign("Pool Notation", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": {"system": "narrative", "agility": 3}})
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana", "han"))
    form = ana.get_by_role("form", name="Roll dice")
    field = form.get_by_label("dice expression")
    error = form.locator(":scope > output.ph-error")
    field.fill("2g 1x")
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(error).to_have_text(
        "cannot read '1x' as narrative dice (letters y g p r b k w, or names)")
    expect(field).to_have_attribute("aria-invalid", "true")
    field.fill("2 abilty")
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(error).to_contain_text("did you mean 'ability'?")

    field.fill("2g 1p")
    form.get_by_label("as character").select_option("han")
    form.get_by_label("reason").fill("slicing the door")
    form.get_by_role("button", name="Roll", exact=True).click()
    line = ana.locator("ph-log [data-type=pool_rolled]")
    expect(line).to_have_count(1)
    expect(line).to_contain_text("slicing the door")
    expect(line.locator("svg.ph-nd-ability")).to_have_count(2)
    expect(line.locator("svg.ph-nd-difficulty")).to_have_count(1)
    expect(error).to_have_text("")
    field.fill("2d6+1")
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(ana.locator("ph-log [data-type=dice_rolled]")).to_have_count(1)
