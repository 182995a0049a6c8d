"""Two GMs (or two tabs) editing one character, each in a browser: the second save, made from
the sheet as it was before the first, is refused beside the form naming who changed it, the
first change stays, and the form reloads with the sheet as it is now, listing what was typed.
Each system's form sends the sheet it was opened from (``based_on``); the sr3 and d12 forms
refuse a row left without a name, marking the row, as the narrative form does."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served, screenshot

HAN = {"system": "narrative", "agility": 3, "presence": 3,
       "skills": {"Cool": {"rank": 1, "characteristic": "presence"}}}
SAM = {"system": "sr3", "body": 4, "quickness": 5, "strength": 3, "charisma": 3,
       "intelligence": 4, "willpower": 3, "skills": {"pistols": {
           "rating": 4, "attribute": "quickness", "kind": "combat"}}}
ANA = {"system": "d12", "ratings": {"CON": 2, "CHA": 1, "STR": 3}}


def character(page: Page, character: str) -> dict[str, Any]:
    """The character as the page's table holds it."""
    found: dict[str, Any] = page.evaluate(
        "(id) => document.querySelector('ph-app').store.state.table.characters"
        ".find((c) => c.character === id)", character)
    return found


def updates_sent(opened: PageOpener, page: Page) -> list[dict[str, Any]]:
    """The ``update_character`` commands ``page`` has sent, in order."""
    frames = [json.loads(frame) for frame in opened.sent_from(page)]
    return [frame for frame in frames if frame.get("type") == "update_character"]


def test_the_second_gm_saving_an_older_sheet_is_refused_and_reloads_with_the_change(
        served: Served, open_page: PageOpener) -> None:
    """The GM and GM 2 both open Han Solo's form; GM 2 raises Agility to 4 and saves. The GM's
    form says Han changed meanwhile; the GM renames him anyway and saves: refused, naming GM 2
    and the event, and Agility stays 4. Reload the form shows Agility 4 and lists the new name
    typed before; typed again and saved, both changes stand, and GM 2's form now says so."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han Solo",
                          "stats": HAN})
    gm2_link = served.invite(campaign, gm_link, "gm", "GM 2")
    gm, gm2 = open_page(gm_link), open_page(gm2_link)
    forms = {page: page.locator("ph-narrative-sheet form") for page in (gm, gm2)}
    for form in forms.values():
        form.get_by_label("character", exact=True).select_option("han")
        expect(form.get_by_label("Agility", exact=True)).to_have_value("3")
    opened_at = character(gm, "han")["changed"]

    forms[gm2].get_by_label("Agility", exact=True).fill("4")
    forms[gm2].get_by_role("button", name="Save changes").click()
    expect(forms[gm2].locator(".ph-nd-sheet-status")).to_have_text("Han Solo saved.")
    expect(forms[gm2].locator(".ph-sheet-changed")).to_be_hidden()  # its own save: no notice
    changed = character(gm2, "han")["changed"]
    assert changed > opened_at
    assert updates_sent(open_page, gm2)[-1]["based_on"] == opened_at

    form = forms[gm]
    notice = form.locator(".ph-sheet-changed")
    expect(notice).to_contain_text(
        f"Han Solo changed meanwhile (by GM 2, event #{changed}): reload the form")
    expect(form.get_by_label("Agility", exact=True)).to_have_value("3")  # not typed over
    form.get_by_label("name", exact=True).fill("Han Solo (Captain)")
    form.get_by_role("button", name="Save changes").click()
    error = form.locator(":scope > output.ph-error")
    expect(error).to_have_text(
        f"Han Solo was changed by GM 2 (event #{changed}) after you opened the sheet (at event "
        f"#{opened_at}): reload it to see that change, then save again")
    reload = form.get_by_role("button", name="Reload the form")
    expect(reload).to_be_visible()
    expect(reload).to_have_attribute("aria-describedby", str(error.get_attribute("id")))
    han = character(gm, "han")
    assert (han["name"], han["stats"]["agility"], han["changed"]) == ("Han Solo", 4, changed)
    screenshot(gm, "character-conflict-refused")

    reload.click()
    expect(form.get_by_label("Agility", exact=True)).to_have_value("4")
    expect(form.get_by_label("name", exact=True)).to_have_value("Han Solo")
    expect(error).to_have_text("")
    expect(notice).to_be_hidden()
    expect(form.locator(".ph-sheet-kept")).to_have_text(
        "Reloaded. Your edits, to enter again if you still want them: "
        "name: Han Solo (Captain).")
    form.get_by_label("name", exact=True).fill("Han Solo (Captain)")
    form.get_by_role("button", name="Save changes").click()
    expect(form.locator(".ph-nd-sheet-status")).to_have_text("Han Solo (Captain) saved.")
    assert updates_sent(open_page, gm)[-1]["based_on"] == changed
    han = character(gm, "han")
    assert (han["name"], han["stats"]["agility"]) == ("Han Solo (Captain)", 4)
    expect(forms[gm2].locator(".ph-sheet-changed")).to_contain_text(
        f"Han Solo (Captain) changed meanwhile (by GM, event #{han['changed']})")
    expect(notice).to_be_hidden()


def test_the_sr3_form_sends_its_sheet_and_refuses_a_nameless_skill_row(
        served: Served, open_page: PageOpener) -> None:
    """A skill row left without a name (its rating 3) was dropped with its rating without a
    word: refused naming the row, nothing sent. The save sends the sheet it was opened from;
    after a change from elsewhere the form says so and the server refuses the old sheet."""
    campaign, gm_link = served.create_campaign("Seattle", "sr3")
    served.send(gm_link, {"type": "create_character", "character": "sam", "name": "Sam",
                          "stats": SAM})
    gm = open_page(gm_link)
    form = gm.locator("ph-sr3-character form")
    form.get_by_label("Character to edit").select_option("sam")
    form.get_by_role("button", name="Add a skill").click()
    rows = form.locator(".ph-sr3-skill")
    rows.nth(1).get_by_label("rating").fill("3")
    form.get_by_role("button", name="Save changes").click()
    error = form.locator(":scope > output.ph-error")
    expect(error).to_have_text("skill row 2 has no name: name the skill, or remove its row")
    expect(rows.nth(1).get_by_label("skill", exact=True)).to_have_attribute("aria-invalid", "true")
    assert updates_sent(open_page, gm) == []

    rows.nth(1).get_by_label("skill", exact=True).fill("Etiquette")
    form.get_by_role("button", name="Save changes").click()
    expect(form.locator(".ph-sr3-character-status")).to_have_text("Sam saved.")
    sent = updates_sent(open_page, gm)
    assert len(sent) == 1
    assert sent[0]["stats"]["skills"]["etiquette"]["rating"] == 3
    first = character(gm, "sam")
    assert sent[0]["based_on"] < first["changed"]

    served.send(gm_link, {"type": "update_character", "character": "sam", "name": "Sam Shadow"})
    expect(form.locator(".ph-sheet-changed")).to_contain_text("Sam Shadow changed meanwhile")
    form.get_by_label("Body", exact=True).fill("5")
    form.get_by_role("button", name="Save changes").click()
    expect(error).to_contain_text("Sam Shadow was changed by you, elsewhere")  # the same GM
    assert updates_sent(open_page, gm)[-1]["based_on"] == first["changed"]
    assert character(gm, "sam")["stats"]["body"] == 4


def test_the_d12_form_sends_its_sheet_and_refuses_a_nameless_stat_row(
        served: Served, open_page: PageOpener) -> None:
    """A stat row with no name is refused naming the row (it said "name every stat"), and the
    save sends the sheet the form was opened from; an older sheet is refused by the server."""
    _, gm_link = served.create_campaign("Keep", "d12")
    served.send(gm_link, {"type": "create_character", "character": "ana", "name": "Ana",
                          "stats": ANA})
    gm = open_page(gm_link)
    form = gm.locator(".ph-d12-sheet")
    form.get_by_label("character to edit").select_option("ana")
    form.get_by_role("button", name="Add a stat").click()
    form.get_by_label("new stat rating").fill("2")
    form.get_by_role("button", name="Save the character").click()
    error = form.locator(":scope > output.ph-error")
    expect(error).to_have_text("stat row 4 has no name: name the stat, or remove its row")
    expect(form.get_by_label("stat", exact=True).nth(3)).to_have_attribute("aria-invalid", "true")
    assert updates_sent(open_page, gm) == []

    opened_at = character(gm, "ana")["changed"]
    served.send(gm_link, {"type": "update_character", "character": "ana",
                          "stats": {"system": "d12", "ratings": {"CON": 5, "CHA": 1}}})
    expect(form.locator(".ph-sheet-changed")).to_contain_text("Ana changed meanwhile")
    form.get_by_label("stat", exact=True).nth(3).fill("WIL")
    form.get_by_role("button", name="Save the character").click()
    expect(error).to_contain_text("Ana was changed by you, elsewhere")
    assert updates_sent(open_page, gm)[-1]["based_on"] == opened_at
    form.get_by_role("button", name="Reload the form").click()
    expect(form.get_by_label("CON rating")).to_have_value("5")
    expect(form.get_by_label("STR rating")).to_have_count(0)
    expect(form.locator(".ph-sheet-kept")).to_have_text(
        "Reloaded. Your edits, to enter again if you still want them: ratings › WIL: 2.")
    reloaded_at = character(gm, "ana")["changed"]
    form.get_by_role("button", name="Save the character").click()
    expect(gm.locator("[data-type=character_updated]").last).to_contain_text("Ana updated")
    expect(error).to_have_text("")
    assert updates_sent(open_page, gm)[-1]["based_on"] == reloaded_at
