"""What a blind keyboard and screen-reader player, and a GM streaming from a phone, found: "Leave
this table" with a join link never copied forgot the seat and stopped the connection before the
browser's "Leave site?", whose Cancel left a dead page; "Reload the form" said nothing and
dropped the focus on the whole form; each question's "Yes" was read without its warning, and
Escape did nothing in the seat question; the 2nd invite's focused Copy was below the window;
two open checks of one character and skill had one name; an initiative read "-1 advantages";
every log mark read "dice sealed"; "not connected" was a light grey dot told by colour alone."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served, screenshot
from tests.web.dialogs import stay_when_asked
from tests.web.test_colour_contrast import COLOURS, Scheme

STORED_TOKENS = "() => JSON.parse(localStorage.getItem('poolhall.tokens') ?? '{}')"
LEAVE = "Leave this table? This browser forgets your seat: you need your join link to come back."
HAN = {"system": "narrative", "agility": 3, "presence": 3,
       "skills": {"Ranged (Light)": {"rank": 2, "characteristic": "agility"}}}
TROOPER = {"system": "narrative", "brawn": 0, "agility": 0, "intellect": 0, "cunning": 0,
           "willpower": 0, "presence": 0}
"""No ability dice at all: the Trooper's checks hold only difficulty and setback dice."""


def _invite(page: Page, name: str) -> None:
    """The GM invites ``name`` as a player with the keyboard, copying nothing."""
    form = page.get_by_role("form", name="Invite a member")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Name").press("Enter")
    expect(page.get_by_role("button", name=f"Copy {name}'s link")).to_be_focused()


def test_leaving_names_the_links_never_copied_and_staying_keeps_a_working_page(
        served: Served, open_page: PageOpener) -> None:
    """The GM invites Dora, copies nothing, and presses Leave this table: the question itself
    says Dora's link is lost (it was the browser's "Leave site?", asked once the seat was
    forgotten and the connection stopped: its Cancel left a page that sent no roll, and the
    landing page on the next reload). Stay keeps the seat and a page that rolls; a reload
    still asks (the link is still not copied); a link issued while the question is open is
    named before Yes leaves; Yes then leaves at once, with no second question."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    gm = open_page(gm_link)
    asked = stay_when_asked(gm)
    _invite(gm, "Dora")
    header = gm.locator(".ph-header")
    header.get_by_role("button", name="Leave this table").click()
    yes = header.get_by_role("button", name="Yes, leave")
    expect(yes).to_be_focused()
    expect(yes).to_have_accessible_description(
        f"{LEAVE} The join link for Dora was never copied: it is lost if you leave.")
    screenshot(gm, "leave-question-uncopied")

    header.get_by_role("button", name="Stay").click()
    assert gm.evaluate(STORED_TOKENS) == {campaign: gm_link.split("token=", 1)[1]}
    roll = gm.locator(".ph-roll-form")
    roll.get_by_label("dice expression").fill("1d6+777")
    roll.get_by_role("button", name="Roll").click()
    expect(gm.locator("ph-log [data-type=dice_rolled]")).to_contain_text("777")
    gm.evaluate("location.reload()")  # Dora's link is still not copied: the browser asks
    expect(gm.get_by_label("join link for Dora")).to_be_visible()
    assert asked == ["beforeunload"]

    header.get_by_role("button", name="Leave this table").click()
    _invite(gm, "Eve")  # the question stays open meanwhile
    yes.click()
    expect(yes).to_be_focused()  # asked again, naming both
    expect(header.locator(".ph-confirm")).to_contain_text(
        "The join links for Dora, Eve were never copied: they are lost if you leave.")
    assert gm.evaluate(STORED_TOKENS) != {}
    yes.click()
    expect(gm.get_by_role("form", name="Open a table")).to_be_visible()
    assert gm.evaluate(STORED_TOKENS) == {}
    assert asked == ["beforeunload"]  # no "Leave site?" after Yes, leave


def test_reload_the_form_says_what_was_typed_and_keeps_the_focus_in_view(
        served: Served, open_page: PageOpener) -> None:
    """The GM renames Han in the form while another GM's change comes, then presses Reload
    the form with the keyboard: the list of edits takes the focus, on the screen, and is a
    live region (the focus fell to the whole form, its top off the screen, and nothing was
    said). Reloaded with nothing typed, it says "Reloaded." all the same."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han Solo",
                          "stats": HAN})
    gm = open_page(gm_link, width=1366, height=768)
    form = gm.locator("ph-narrative-sheet form")
    form.get_by_label("character", exact=True).select_option("han")
    form.get_by_label("name", exact=True).fill("Han Solo (Captain)")
    served.send(gm_link, {"type": "update_character", "character": "han", "name": "Han"})
    reload = form.get_by_role("button", name="Reload the form")
    reload.focus()
    gm.keyboard.press("Enter")
    kept = form.locator(".ph-sheet-kept")
    expect(kept).to_have_text("Reloaded. Your edits, to enter again if you still want them: "
                              "name: Han Solo (Captain).")
    expect(kept).to_be_focused()
    expect(kept).to_be_in_viewport(ratio=1)
    expect(kept).to_have_attribute("role", "status")
    expect(form.get_by_label("name", exact=True)).to_have_value("Han")

    served.send(gm_link, {"type": "update_character", "character": "han", "name": "Han Solo"})
    reload.focus()
    gm.keyboard.press("Enter")
    expect(kept).to_have_text("Reloaded.")
    expect(kept).to_be_focused()


def test_each_questions_yes_is_described_by_its_warning(
        served: Served, open_page: PageOpener) -> None:
    """The focus goes to "Yes" when a question is asked: a screen reader now reads the warning
    with it (the button had no description, the question was a span beside it)."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "leia", "name": "Leia",
                          "stats": HAN}, {"type": "start_session"})
    served.invite(campaign, gm_link, "spectator", "Stream")
    gm = open_page(gm_link)
    asked = [
        (gm.locator("ph-sessions"), "End game session", "Yes, end it",
         "End the session for everyone? Its dice seed and its private rolls are shown to the"
         " whole table."),
        (gm.locator("ph-members"), "Remove Stream", "Yes, remove",
         "Remove Stream from the table? Their link stops working."),
        (gm.locator("ph-characters"), "Retire Leia", "Yes, retire",
         "Retire Leia? They leave every sheet and list for good; the log keeps them."),
        (gm.locator("ph-narrative-encounter"), "End encounter", "Yes, end it",
         "End the encounter for everyone? Its slots and initiative are cleared."),
        (gm.locator(".ph-header"), "Leave this table", "Yes, leave", LEAVE),
    ]
    gm.locator("ph-narrative-encounter").get_by_role("button", name="Start encounter").click()
    for part, ask, yes, warning in asked:
        part.get_by_role("button", name=ask).click()
        expect(part.get_by_role("button", name=yes)).to_be_focused()
        expect(part.get_by_role("button", name=yes)).to_have_accessible_description(warning)
        gm.keyboard.press("Escape")
        expect(part.get_by_role("button", name=ask)).to_be_focused()


def test_escape_in_the_seat_question_keeps_the_seat(
        served: Served, open_page: PageOpener) -> None:
    """The GM opens Rae's link in a second tab: Escape answers the seat question with the
    choice that forgets nothing, as in the table's other questions (it did nothing)."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    rae_link = served.invite(campaign, gm_link, "player", "Rae")
    gm = open_page(gm_link)
    check = gm.context.new_page()
    check.goto(rae_link)
    question = check.get_by_role("alertdialog", name="Open Cloud City as Rae?")
    expect(question.get_by_role("button", name="Stay GM (GM)")).to_be_focused()
    check.keyboard.press("Escape")
    expect(check.locator(".ph-who")).to_contain_text("you are gm")
    assert check.evaluate(STORED_TOKENS) == {campaign: gm_link.split("token=", 1)[1]}


def test_each_invites_focused_copy_button_is_on_the_screen(
        served: Served, open_page: PageOpener) -> None:
    """Three invites in a row at 1366 × 768: after each, the new member's focused Copy is on
    the screen once named (the sentence above the list and the member's row under At the
    table came after the focus: the 2nd invite's Copy was below the window)."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    gm = open_page(gm_link, width=1366, height=768)
    for name in ("Ana", "Bea", "Cara"):
        _invite(gm, name)
        # named (its accessible name given once the table names the member), then in view
        expect(gm.get_by_role("button", name=f"Copy {name}'s link")).to_be_in_viewport(ratio=1)
    screenshot(gm, "invite-third-copy")


def test_two_open_checks_of_one_skill_are_named_apart(
        served: Served, open_page: PageOpener) -> None:
    """Han has two Ranged (Light) checks open: each card and its Roll are named with the
    check's id (both were "Han Solo's Ranged (Light)", and the Roll pressed was the wrong
    one); once one is rolled, the other's name is as it was."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    served.send(gm_link,
                {"type": "create_character", "character": "han", "name": "Han Solo",
                 "stats": HAN},
                *({"type": "open_check", "check": check, "character": "han",
                   "skill": "Ranged (Light)"} for check in ("han-4", "han-5")),
                {"type": "set_difficulty", "check": "han-5", "level": "average"})
    gm = open_page(gm_link)
    for check in ("han-4", "han-5"):
        name = f"Han Solo's Ranged (Light) ({check})"
        expect(gm.get_by_role("group", name=name, exact=True)).to_have_count(1)
        expect(gm.get_by_role("button", name=f"Roll {name}", exact=True)).to_have_count(1)
    gm.get_by_role("button", name="Roll Han Solo's Ranged (Light) (han-5)").click()
    expect(gm.locator("ph-log [data-type=check_rolled]")).to_have_count(1)
    expect(gm.get_by_role("group", name="Han Solo's Ranged (Light)", exact=True)).to_have_count(1)
    expect(gm.get_by_role("button", name="Roll Han Solo's Ranged (Light)", exact=True)
           ).to_have_count(1)


def _counted(count: int, word: str, plural: str) -> str:
    return f"{count} {word if count == 1 else plural}"


def test_an_initiative_of_net_failures_and_threats_reads_as_its_roll(
        served: Served, open_page: PageOpener) -> None:
    """The Trooper's Vigilance (no ability dice, Formidable, 30 setback dice: failures and
    threats unless the 35 dice show no failure or no threat, about one roll in two million:
    (2/3)^30 ((5/8)^5 + (3/8)^5)) is entered as initiative: the slot and the log say
    "N failures, N threats", as the roll's line does (they said "-2 successes, -3
    advantages")."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    served.send(gm_link,
                {"type": "create_character", "character": "trooper", "name": "Trooper",
                 "stats": TROOPER},
                {"type": "start_encounter"},
                {"type": "open_check", "check": "trooper-init", "character": "trooper",
                 "skill": "Vigilance", "characteristic": "willpower"},
                {"type": "set_difficulty", "check": "trooper-init", "level": "formidable"},
                *[{"type": "add_dice", "check": "trooper-init", "kind": "setback", "count": 10}
                  for _ in range(3)],
                {"type": "roll_check", "check": "trooper-init"})
    gm = open_page(gm_link)
    form = gm.get_by_role("form", name="Enter initiative")
    expect(form.get_by_label("check")).to_have_value("trooper-init")
    form.get_by_role("button", name="Enter initiative").click()
    slot = gm.locator("ph-narrative-encounter li.ph-ne-slot")
    expect(slot).to_have_count(1)
    result = gm.evaluate("() => document.querySelector('ph-app').store.state.table.table"
                         ".game.checks['trooper-init'].result")
    assert result["successes"] < 0, result
    assert result["advantages"] < 0, result
    words = (f"{_counted(-result['successes'], 'failure', 'failures')}, "
             f"{_counted(-result['advantages'], 'threat', 'threats')}")
    expect(gm.locator("ph-log [data-type=check_rolled]")).to_contain_text(words)
    expect(slot).to_have_text(f"NPC slot · Trooper's Vigilance: {words}")
    expect(gm.locator("ph-log [data-type=initiative_entered]")).to_contain_text(
        f"Trooper's initiative: {words} (Vigilance, NPC slot)")


def test_each_log_mark_is_named_after_its_roll(served: Served, open_page: PageOpener) -> None:
    """Ana rolls twice: arrowing through the marks, each is "Ana's roll #N: dice sealed"
    (every one read "dice sealed", its line unnamed)."""
    campaign, gm_link = served.create_campaign("Cloud City", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    acks = served.send(ana_link, {"type": "roll", "expression": "2d6"},
                       {"type": "roll", "expression": "1d8"})
    ana = open_page(ana_link)
    for ack in acks:
        seq = ack.seqs[-1]
        mark = ana.locator(f"ph-log .ph-log-line[data-seq='{seq}'] .ph-fair")
        expect(mark).to_have_attribute("data-state", "sealed")
        expect(mark).to_have_accessible_name(f"Ana's roll #{seq}: dice sealed")


PRESENCE = """(dot) => {""" + COLOURS + """
  const style = getComputedStyle(dot);
  return {ring: ratio(rgba(style.borderTopColor), backdrop(dot.parentElement)),
          filled: rgba(style.backgroundColor)[3] > 0, width: parseFloat(style.borderTopWidth)};
}"""
"""A presence mark's ring: its contrast with what it is drawn on, whether it is filled."""


def test_not_connected_is_a_ring_of_3_to_1_and_connected_a_filled_dot(
        served: Served, open_page: PageOpener) -> None:
    """Under At the table, a member not connected is a hollow ring at 3:1 or more, in the light
    and the dark scheme, and a connected one a filled dot: not told by colour alone (it was a
    light grey dot, 1.47:1 on white, beside a green one)."""
    campaign, gm_link = served.create_campaign("Cloud City", "narrative")
    served.invite(campaign, gm_link, "player", "Ana")
    gm = open_page(gm_link)
    members = gm.locator("ph-members")
    away = members.get_by_role("img", name="not connected")
    here = members.get_by_role("img", name="connected", exact=True)
    schemes: tuple[Scheme, ...] = ("light", "dark")
    for scheme in schemes:
        gm.emulate_media(color_scheme=scheme)
        ring, dot = away.evaluate(PRESENCE), here.evaluate(PRESENCE)
        assert ring["ring"] >= 3, (scheme, ring)
        assert ring["width"] >= 2, (scheme, ring)
        assert not ring["filled"], (scheme, ring)  # hollow: a shape of its own
        assert dot["filled"], (scheme, dot)
        assert dot["ring"] >= 3, (scheme, dot)
    screenshot(gm, "members-presence")
