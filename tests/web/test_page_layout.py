"""The page on a phone and on a desktop, by keyboard alone, without a token (the landing page),
and a log longer than what a join brings (older lines fetched as `history` pages)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.conftest import PageOpener, Served, logs_read_through, screenshot

CONTROLS = ("ph-app :is(button, input, select, textarea, a[href], [tabindex='0'])"
            ":visible:not(:disabled):not([tabindex='-1'])")

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


def a_table_in_play(served: Served) -> tuple[str, str, str]:
    """A d12 campaign with Vex (Ana's), a running game session and a few rolls: the campaign,
    the GM's link and Ana's."""
    campaign, gm_link = served.create_campaign("Dockside Heist", "d12")
    served.send(gm_link, {"type": "create_character", "character": "vex", "name": "Vex",
                          "stats": {"system": "d12", "ratings": {"CON": 2, "CHA": 1}}},
                {"type": "start_session", "title": "The Warehouse"})
    ana = served.invite(campaign, gm_link, "player", "Ana", "vex")
    served.send(ana, {"type": "roll", "expression": "3d6", "character": "vex",
                      "reason": "climb the crates"},
                {"type": "roll", "expression": "1d20+2", "reason": "spot the guard"})
    return campaign, gm_link, ana


def test_the_table_fits_a_phone_and_a_desktop(served: Served, open_page: PageOpener) -> None:
    """The GM and Ana look at the same table at 1280 px and at 360 px: nothing scrolls
    sideways, the roll form and the log are on screen, and screenshots are written."""
    _, gm_link, ana_link = a_table_in_play(served)
    for who, link in (("gm", gm_link), ("player", ana_link)):
        page = open_page(link, width=1280)
        expect(page.locator("[data-type=dice_rolled]")).to_have_count(2)
        for width in (1280, 360):
            page.set_viewport_size({"width": width, "height": 800 if width == 360 else 900})
            assert page.evaluate(NO_SIDEWAYS_SCROLL), f"{who} at {width} px scrolls sideways"
            for part, view in (("ph-log", "Log"), (".ph-header", "Log"), ("ph-members", "Sheet")):
                if width == 360:  # a phone shows one view at a time (test_phone_layout.py)
                    page.get_by_role("navigation", name="Views").get_by_role(
                        "button", name=view).click()
                box = page.locator(part).bounding_box()
                assert box, part
                assert box["x"] >= 0, part
                assert box["x"] + box["width"] <= width + 1, part
            screenshot(page, f"layout-{who}-{width}")
        if who == "player":
            page.get_by_role("navigation", name="Views").get_by_role(
                "button", name="Table").click()
            expect(page.locator(".ph-roll-form")).to_be_in_viewport()


def test_a_player_reaches_every_control_and_rolls_by_keyboard_alone(
        served: Served, open_page: PageOpener) -> None:
    """Ana never touches the mouse: Tab reaches every control in order, each with a visible
    focus ring, stopping once on the rolls' marks (the arrows go between them), and Enter in
    the roll form rolls."""
    _, gm_link, ana_link = a_table_in_play(served)
    ana = open_page(ana_link)
    expect(ana.locator("[data-type=dice_rolled]")).to_have_count(2)
    ana.evaluate("document.activeElement?.blur()")
    wanted = ana.locator(CONTROLS).count()
    reached: list[str] = []
    for _ in range(wanted + 3):
        ana.keyboard.press("Tab")
        focused = ana.evaluate("""(() => {
          const f = document.activeElement;
          if (!f || f === document.body) return null;
          f.dataset.reached = "yes";
          const ring = getComputedStyle(f);
          return `${f.tagName}:${f.name || f.textContent.slice(0, 20)}:${ring.outlineStyle}`;
        })()""")
        if focused:
            reached.append(focused)
    assert all(not entry.endswith(":none") for entry in reached), reached
    missed = ana.locator(CONTROLS + ":not([data-reached])")
    assert missed.count() == 0, [missed.nth(i).evaluate("e => e.outerHTML.slice(0, 120)")
                                 for i in range(missed.count())]
    # the rolls' marks are one Tab stop, the newest; the arrows go from roll to roll
    marks = ana.locator("ph-log .ph-fair")
    expect(marks).to_have_count(2)
    assert [marks.nth(i).get_attribute("data-reached") for i in (0, 1)] == [None, "yes"]
    marks.nth(1).focus()
    ana.keyboard.press("ArrowUp")
    expect(marks.nth(0)).to_be_focused()
    ana.keyboard.press("ArrowDown")
    expect(marks.nth(1)).to_be_focused()

    ana.evaluate("document.activeElement?.blur()")
    expression = ana.locator(".ph-roll-form [name=expression]")
    for _ in range(wanted + 3):
        ana.keyboard.press("Tab")
        if expression.evaluate("e => e === document.activeElement"):
            break
    expect(expression).to_be_focused()
    ana.locator(".ph-roll-form [name=character]").select_option("vex")
    expression.focus()
    ana.keyboard.type("4d6")
    served.send(gm_link, {"type": "roll", "expression": "1d4"})  # the table changes meanwhile
    expect(ana.locator("[data-type=dice_rolled]")).to_have_count(3)
    expect(expression).to_be_focused()  # what Ana is typing is left alone
    expect(expression).to_have_value("4d6")
    expect(ana.locator(".ph-roll-form [name=character]")).to_have_value("vex")
    ana.keyboard.press("Enter")
    expect(ana.locator("[data-type=dice_rolled]")).to_have_count(4)
    expect(ana.locator("[data-type=dice_rolled]").last.locator("svg.ph-die")).to_have_count(4)
    expect(ana.locator("[data-type=dice_rolled]").last).to_contain_text("Vex rolls")
    expect(expression).to_be_focused()  # ready for the next roll


def test_without_a_token_the_landing_page_takes_a_pasted_join_link(
        served: Served, open_page: PageOpener) -> None:
    """Ana opens the bare address: she is asked for her link; a wrong one is explained beside
    the field (tied to it for a screen reader), the right one opens her table and leaves no
    token in the address bar."""
    campaign, _, ana_link = a_table_in_play(served)
    page = open_page(f"{served.origin}/", width=360, live=False)
    landing = page.get_by_role("form", name="Open a table")
    expect(landing).to_contain_text("paste it here")
    landing.get_by_label("Join link").fill(f"{served.origin}/#campaign={campaign}")
    landing.get_by_role("button", name="Open the table").click()
    expect(landing.locator(".ph-error")).to_contain_text("not a join link")
    # tied to its field for a screen reader: marked invalid, described by the refusal
    field = landing.get_by_label("Join link")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_be_focused()
    described = field.get_attribute("aria-describedby")
    expect(page.locator(f"[id='{described}']")).to_contain_text("not a join link")
    landing.get_by_label("Join link").fill(ana_link)
    landing.get_by_role("button", name="Open the table").click()
    expect(page.locator(".ph-connection")).to_have_attribute("data-state", "live")
    expect(page.locator(".ph-who")).to_contain_text("you are player")
    assert "token" not in page.url
    screenshot(page, "landing-then-table-360")


def log_seqs(page: Page) -> list[int]:
    seqs: list[int] = page.eval_on_selector_all(
        "ph-log li[data-seq]", "lines => lines.map(line => Number(line.dataset.seq))")
    return seqs


def test_older_lines_come_back_when_the_log_is_scrolled_to_the_top(
        served: Served, open_page: PageOpener) -> None:
    """After 60 rolls a page joining gets the latest lines; the GM scrolls up and Ana presses
    "Load older": both then have the whole log, in order, with nothing twice."""
    _, gm_link, ana_link = a_table_in_play(served)
    served.send(gm_link, *({"type": "roll", "expression": "1d6", "reason": f"roll {n}"}
                           for n in range(60)))
    gm, ana = open_page(gm_link), open_page(ana_link)
    head = max(log_seqs(gm))
    for page in (gm, ana):
        expect(page.get_by_role("button", name="Load older")).to_be_visible()
        assert min(log_seqs(page)) > 1
    gm.locator(".ph-log-lines").evaluate("list => { list.scrollTop = 0; }")
    ana.get_by_role("button", name="Load older").click()
    for page in (gm, ana):
        expect(page.get_by_role("button", name="Load older")).to_be_hidden()
    assert logs_read_through(gm, ana) == [list(range(1, head + 1))] * 2
    for page in (gm, ana):
        page.locator(".ph-log-lines").evaluate("list => { list.scrollTop = 0; }")
        expect(page.locator("ph-log li[data-seq='1']")).to_be_in_viewport()
    expect(gm.locator("ph-log li[data-seq='1']")).to_contain_text("campaign “Dockside Heist”")
