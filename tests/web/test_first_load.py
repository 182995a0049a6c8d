"""What a table's first load fetches, and the parts fetched later, when first needed.

A page fetches the campaign's own game system only, the GM's tools, character form and the like
for the GM only, a threshold test's card once the table holds a test, a narrative check's card
once the table holds an open check, a running narrative encounter's slots and forms once one
runs, the SR3 declared tests once one is declared, and the code
that recomputes a revealed roll (and says how) once a seed is revealed or a mark is pressed
(docs/performance.md, "browser: first load"). All of it comes to less than 150 KB, decoded, for
the GM of a new table of each system (#11), its JavaScript and CSS without comments
(``poolhall.server.lean_text``). The set of files is pinned here, so a static import that pulls
one of them back into every first load fails a test instead of growing the figure unseen. A
part fetched later is held back (its request stalled, then let through) to show that the table
meanwhile draws the rest, and that a click made while it loads is not lost.
"""

from __future__ import annotations

from playwright.sync_api import Page, Route, expect

from tests.web.conftest import PageOpener, Served

FIRST_LOAD_BUDGET = 150 * 1024
"""#11: the page and every file of its first load, uncompressed, under 150 KB."""

DECODED_BYTES = """() => [performance.getEntriesByType("navigation")[0],
                          ...performance.getEntriesByType("resource")]
  .reduce((total, entry) => total + entry.decodedBodySize, 0)"""

STATIC_FILES = """() => [performance.getEntriesByType("navigation")[0],
                        ...performance.getEntriesByType("resource")]
  .map((entry) => new URL(entry.name).pathname).filter((path) => path.startsWith("/static/"))
  .map((path) => path.slice("/static/".length)).sort()"""

D12_FIRST_LOAD = {
    # the page and the table's own elements
    "app.js", "table.css", "icon.svg", "elements/ph-app.js", "elements/ph-log.js",
    "elements/ph-members.js", "elements/ph-roll.js", "elements/ph-seed.js", "actions.js",
    "confirm.js", "connection.js", "describe.js", "dice.js", "dom.js", "reconnecting.js",
    "fair-badge.js", "fairness.js", "log-marks.js", "lost-focus.js", "private-rolls.js",
    "session.js", "store.js", "table-part.js", "visibility.js", "systems/index.js",
    # the campaign's game system: the panel without a test's card, the log's lines
    "systems/d12.js", "systems/d12.css", "systems/d12_basic.js", "systems/d12_dice.js",
    "systems/d12_form.js", "systems/d12_log.js",
}
GM_ONLY = {"elements/ph-characters.js", "elements/ph-invite.js", "elements/ph-sessions.js",
           "systems/d12_sheet.js", "slug.js", "systems/d12_call.js", "sheet-changed.js"}
"""The GM's tools, character form and Call for a test: fetched for the GM, never for anyone
else."""

LATER = ("systems/d12_test.js", "systems/d12_odds.js", "fair-check.js", "fair-record.js",
         "fair-how.js",
         "replay.css", "elements/ph-replay.js", "elements/ph-conditions.js", "landing.js",
         "closed-notice.js", "seat-question.js", "damaged-link.js", "invite-links.js",
         "unsent.js", "say-revealed.js")
"""Fetched by no d12 table's first load (the card of a test, checking a revealed roll,
the replay page, conditions, which d12 characters do not have, the page without a token,
the words for an action held while offline, fetched half a minute in, the announcement of
private rolls revealed at a session's end)."""


def _first_load(page: Page) -> set[str]:
    return set(page.evaluate(STATIC_FILES))


def _call_the_first_test(served: Served, gm_link: str) -> None:
    """Ana Vex is made and the GM calls the table's first test (STR against 6, "the gate")."""
    served.send(gm_link,
                {"type": "create_character", "character": "ana", "name": "Ana Vex",
                 "stats": {"system": "d12", "ratings": {"CON": 3, "CHA": 0, "STR": 4}}},
                {"type": "call_threshold_test", "character": "ana", "stats": ["STR"],
                 "dt": 6, "label": "the gate"})


def test_a_d12_tables_first_load_is_the_files_its_first_screen_shows(
        served: Served, open_page: PageOpener) -> None:
    """The GM's first load of a new d12 table is exactly the pinned set and the GM's parts; a
    player's is the same set without the GM's parts: nothing of the other two systems, of a
    test's card, of checking revealed rolls or of the replay page."""
    campaign, gm_link = served.create_campaign("Broken Crown", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    gm = open_page(gm_link)
    expect(gm.locator("ph-characters")).to_contain_text("Characters")
    expect(gm.locator(".ph-d12-call")).to_be_visible()
    assert _first_load(gm) == D12_FIRST_LOAD | GM_ONLY
    ana = open_page(ana_link)
    expect(ana.locator("ph-d12-table")).to_contain_text("No test is open.")
    assert _first_load(ana) == D12_FIRST_LOAD
    assert not set(LATER) & (_first_load(gm) | _first_load(ana))


def test_a_player_fetches_only_their_own_system_and_no_gm_tools(
        served: Served, open_page: PageOpener) -> None:
    """A narrative player's first load holds no sr3 or d12 module, an sr3 player's no
    narrative or d12 one, and neither the GM's tools nor their system's character form."""
    others = {"narrative": ("systems/sr3", "systems/d12"),
              "sr3": ("systems/narrative", "systems/d12")}
    sheets = {"narrative": "systems/narrative_sheet.js", "sr3": "systems/sr3_character.js"}
    for system, foreign in others.items():
        campaign, gm_link = served.create_campaign(f"A {system} night", system)
        page = open_page(served.invite(campaign, gm_link, "player", "Ana"))
        expect(page.locator(f"ph-{system}-table")).not_to_be_empty()
        loaded = _first_load(page)
        assert f"systems/{system}.js" in loaded
        assert "elements/ph-conditions.js" in loaded  # both systems' characters have some
        assert [path for path in loaded if path.startswith(foreign)] == []
        assert not (GM_ONLY | {sheets[system]}) & loaded


def test_the_gm_of_a_new_table_of_each_system_loads_under_150_kb(
        served: Served, open_page: PageOpener) -> None:
    """The page and every file it fetched until the table is on screen and connected, decoded
    (the GM's page has the most: the GM's tools and character form): under the budget."""
    for system in ("narrative", "sr3", "d12"):
        _, gm_link = served.create_campaign(f"A {system} night", system)
        gm = open_page(gm_link)
        expect(gm.locator(f"ph-{system}-table")).not_to_be_empty()
        expect(gm.locator("ph-characters")).to_contain_text("Characters")
        gm.wait_for_function("() => performance.getEntriesByName('poolhall:live').length > 0")
        loaded = gm.evaluate(DECODED_BYTES)
        assert 50 * 1024 < loaded < FIRST_LOAD_BUDGET, (system, loaded)
        # what a new table does not show yet comes with its first check or test
        assert not {"systems/narrative_check.js", "systems/narrative_round.js",
                    "systems/narrative_results.js",
                    "systems/sr3_declared.js", "systems/d12_test.js"} & _first_load(gm)


def test_a_narrative_checks_card_is_fetched_with_the_first_open_check(
        served: Served, open_page: PageOpener) -> None:
    """A new narrative table fetches no check's card; the GM opens a check while the card's
    module is slow to come: the panel draws the rest meanwhile, then the card, which rolls."""
    campaign, gm_link = served.create_campaign("Edge", "narrative")
    gm = open_page(gm_link)
    expect(gm.locator("ph-narrative-table")).to_contain_text("No check is open.")
    assert "systems/narrative_check.js" not in _first_load(gm)
    held = _hold(gm, "systems/narrative_check.js")
    with gm.expect_request("**/static/systems/narrative_check.js"):
        served.send(gm_link,
                    {"type": "create_character", "character": "han", "name": "Han Solo",
                     "stats": {"system": "narrative", "agility": 3, "skills": {
                         "Ranged (Light)": {"rank": 2, "characteristic": "agility"}}}},
                    {"type": "open_check", "check": "shot", "character": "han",
                     "skill": "Ranged (Light)"},
                    {"type": "set_difficulty", "check": "shot", "level": "average"})
    expect(gm.get_by_text("No check is open.")).to_be_hidden()
    # the rest of the panel is drawn meanwhile: the destiny pool offers the new check
    expect(gm.locator("ph-narrative-destiny")).to_contain_text("Han Solo's Ranged (Light) (shot)")
    expect(gm.locator("ph-narrative-check")).to_have_count(0)
    assert len(held) == 1
    held[0].continue_()
    card = gm.locator("ph-narrative-check")
    expect(card).to_contain_text("Han Solo")
    card.get_by_role("button", name="Roll Han Solo's Ranged (Light)", exact=True).click()
    expect(gm.locator("ph-log [data-type=check_rolled]")).to_have_count(1)


def test_a_narrative_encounters_slots_are_fetched_with_the_first_running_encounter(
        served: Served, open_page: PageOpener) -> None:
    """A new narrative table fetches no running encounter's part, yet the GM's Start encounter
    is there; the GM starts one while that part's module is slow to come: the heading and the
    status are drawn meanwhile, then its round buttons, which work."""
    campaign, gm_link = served.create_campaign("Edge", "narrative")
    gm = open_page(gm_link)
    encounter = gm.locator("ph-narrative-encounter")
    expect(encounter.locator(".ph-ne-status")).to_have_text("No encounter is running.")
    expect(encounter.get_by_role("button", name="Start encounter")).to_be_visible()
    assert "systems/narrative_round.js" not in _first_load(gm)
    held = _hold(gm, "systems/narrative_round.js")
    with gm.expect_request("**/static/systems/narrative_round.js"):
        encounter.get_by_role("button", name="Start encounter").click()
    expect(encounter.locator("h2")).to_have_text("Encounter 1")
    expect(encounter.locator(".ph-ne-status")).to_contain_text("Initiative: roll a Cool")
    expect(encounter.get_by_role("button", name="Start encounter")).to_be_hidden()
    expect(gm.locator("ph-narrative-round")).to_have_count(0)
    assert len(held) == 1
    held[0].continue_()
    expect(encounter.get_by_role("button", name="Start round 1")).to_be_visible()
    encounter.get_by_role("button", name="End encounter").click()
    encounter.get_by_role("button", name="Yes, end it").click()
    expect(encounter.locator(".ph-ne-status")).to_have_text("No encounter is running.")
    expect(encounter.get_by_role("button", name="End encounter")).to_be_hidden()
    expect(encounter.get_by_role("button", name="Start encounter")).to_be_visible()


def _hold(page: Page, path: str) -> list[Route]:
    """Stall every request for ``/static/<path>`` until the test lets it through."""
    held: list[Route] = []
    page.route(f"**/static/{path}", lambda route: held.append(route))
    return held


def test_a_tests_card_is_fetched_with_the_first_test_and_the_table_draws_meanwhile(
        served: Served, open_page: PageOpener) -> None:
    """The GM calls the table's first test while the card's module is slow to come: the panel
    keeps drawing (the character's ratings), and once the module is here the card is drawn,
    with its Roll button, which rolls."""
    campaign, gm_link = served.create_campaign("Broken Crown", "d12")
    gm = open_page(gm_link)
    held = _hold(gm, "systems/d12_test.js")
    with gm.expect_request("**/static/systems/d12_test.js"):
        _call_the_first_test(served, gm_link)
    expect(gm.locator("ul.ph-d12-ratings")).to_contain_text("Ana Vex · CON 3, CHA 0, STR 4")
    expect(gm.locator("ph-d12-test")).to_have_count(0)
    assert len(held) == 1
    held[0].continue_()
    card = gm.locator("ph-d12-test[data-test='1']")
    expect(card.locator("h3")).to_contain_text("Test 1 · the gate")
    expect(gm.locator(".ph-d12-empty")).to_be_hidden()
    card.locator(".ph-d12-roll").click()
    expect(gm.locator("ph-log [data-type=threshold_dice_rolled]")).to_have_count(1)


def test_a_marks_how_pressed_while_its_code_loads_is_shown_once_it_is_here(
        served: Served, open_page: PageOpener) -> None:
    """Ana presses a sealed roll's mark while the module that says how is still on its way:
    the log's panel shows how once it arrives (the press is not lost)."""
    campaign, gm_link = served.create_campaign("Fair", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    ack, = served.send(ana_link, {"type": "roll", "expression": "2d6"})
    ana = open_page(ana_link)
    badge = ana.locator(f"ph-log .ph-log-line[data-seq='{ack.seqs[0]}'] .ph-fair")
    expect(badge).to_have_attribute("data-state", "sealed")
    assert "fair-check.js" not in _first_load(ana)  # nothing revealed: nothing to recompute
    held = _hold(ana, "fair-how.js")
    with ana.expect_request("**/static/fair-how.js"):
        badge.click()
    panel = ana.locator("ph-log .ph-fair-panel")
    expect(panel).to_be_hidden()
    held[0].continue_()
    expect(panel).to_be_visible()
    expect(panel).to_contain_text(f"Roll #{ack.seqs[0]}")
    expect(panel).to_contain_text("not revealed yet")


def test_a_tests_card_that_failed_to_load_is_fetched_again_with_the_next_table(
        served: Served, open_page: PageOpener) -> None:
    """The card's module fails to come (the server was away a moment): the next `table` the
    page gets fetches it again, and the card is drawn."""
    campaign, gm_link = served.create_campaign("Broken Crown", "d12")
    gm = open_page(gm_link)
    failed: list[str] = []

    def first_fails(route: Route) -> None:
        if failed:
            route.continue_()
        else:
            failed.append(route.request.url)
            route.abort()

    gm.route("**/static/systems/d12_test.js", first_fails)
    with gm.expect_request("**/static/systems/d12_test.js"):
        _call_the_first_test(served, gm_link)
    expect(gm.locator("ph-d12-test")).to_have_count(0)
    served.send(gm_link, {"type": "roll", "expression": "1d6"})  # any event: a new `table`
    expect(gm.locator("ph-d12-test[data-test='1'] h3")).to_contain_text("Test 1 · the gate")
    assert len(failed) == 1
    # the one failed fetch, as the browser reports it: the failure this test made
    refused = "console: Failed to load resource: net::ERR_FAILED"
    open_page.problems[:] = [problem for problem in open_page.problems
                             if not problem.startswith(refused)]
