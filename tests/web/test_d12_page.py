"""The d12 table in the browser: a GM, two players and a spectator run threshold tests."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, Page, expect

from poolhall.projections.d12 import ROUNDS_KEPT
from poolhall.projections.d12_odds import success_probability
from tests.serve_process import until
from tests.web.conftest import Served, logs_lines_read_through, screenshot

COUNTED = {2: "two successes", 1: "a success", -1: "a failure", -2: "two failures"}


def _create_character(gm: Page, name: str, character: str, ratings: dict[str, int]) -> None:
    """The GM fills in the character form: a name, an id, CON and CHA and more stats."""
    form = gm.locator(".ph-d12-sheet")
    form.get_by_label("character to edit").select_option("")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Id").fill(character)
    for stat, rating in ratings.items():
        if stat not in ("CON", "CHA"):
            form.get_by_role("button", name="Add a stat").click()
            form.get_by_label("stat", exact=True).last.fill(stat)
        form.get_by_label(f"{stat} rating").fill(str(rating))
    form.get_by_role("button", name="Create the character").click()
    expect(form.get_by_label("character to edit")).to_have_value(character)


ROUNDS_SHOWN = """(rounds) => rounds.map((round) => [round.getAttribute("data-margin"),
  [...round.querySelectorAll("svg.ph-die")].map((die) => die.getAttribute("aria-label"))])"""


def _rounds(card: Locator) -> list[tuple[str | None, list[str | None]]]:
    """Each round of a test card as shown: its margin and every die's text alternative (read
    in one look: a look per die cost some 270 round trips to the browser a test)."""
    shown = card.locator(".ph-d12-round").evaluate_all(ROUNDS_SHOWN)
    return [(margin, list(labels)) for margin, labels in shown]


def _words(roll: dict[str, int]) -> str:
    """A round's result in words, from the tallies the server recorded."""
    def count(n: int, one: str, many: str) -> str:
        return f"{n} {one if n == 1 else many}"
    margin = f"{roll['margin']:+d}" if roll["margin"] else "0"
    return (f"{count(roll['successes'], 'success', 'successes')}, "
            f"{count(roll['failures'], 'failure', 'failures')}: margin {margin}, "
            f"{'succeeded' if roll['succeeded'] else 'failed'}")


def _server_test(served: Served, gm_link: str, campaign: str, number: int) -> dict[str, object]:
    """The test as the server's projection holds it (`poolhall d12 tests --all`)."""
    tests = served.as_gm(gm_link, "d12", "tests", campaign, "--all")["tests"]
    assert isinstance(tests, list)
    test: dict[str, object] = next(t for t in tests if t["test"] == number)
    return test


def _raise_con_and_take_the_dt_from_bram(gm: Page, ana: Page,
                                         card_of: dict[Page, Locator]) -> None:
    """After the first round the GM raises Ana's CON (4 dice join from now on) and takes the
    DT from Bram's WIL: every page shows where the DT comes from."""
    sheet = gm.locator(".ph-d12-sheet")
    sheet.get_by_label("character to edit").select_option("ana")
    sheet.get_by_label("CON rating").fill("4")
    sheet.get_by_role("button", name="Save the character").click()
    expect(gm.locator("[data-type=character_updated]")).to_contain_text("Ana Vex updated")
    dt_form = card_of[gm].locator(".ph-d12-set-dt")
    expect(dt_form.locator("[name=opponent] option")).to_have_text(["no opponent", "Bram"])
    dt_form.locator("[name=opponent]").select_option("bram")
    dt_form.locator("[name=opponent_stat]").select_option("WIL")
    dt_form.get_by_role("button", name="Set the DT").click()
    for page, card in card_of.items():
        expect(card.locator(".ph-d12-threshold")).to_have_text("DT 3, from Bram’s WIL 3")
        expect(page.locator("[data-type=difficulty_threshold_set]")).to_contain_text(
            "test 1: next round at DT 3, from Bram’s WIL 3")
    expect(card_of[ana].locator(".ph-d12-chance")).to_be_visible()
    screenshot(gm, "d12-gm-1280")
    screenshot(ana, "d12-player-360")


def _rounds_shown_as_recorded(watcher: Page, card: Locator, rounds: list[Any]) -> None:
    """Each round on the spectator's card and in its log is the round the server recorded:
    its faces, what each counted, the failed dice that left and the dice that joined."""
    items = card.locator(".ph-d12-round")
    shown = _rounds(card)
    for i, (played, (margin, labels)) in enumerate(zip(rounds, shown, strict=True)):
        left = sum(1 for v in played["values"] if v < 0)
        assert margin == str(played["margin"])
        assert left == played["removed"]
        assert labels == [f"d12 showing {face}, {COUNTED[value]}"
                          + (", left the pool" if value < 0 else "")
                          for face, value in zip(played["faces"], played["values"], strict=True)]
        expect(items.nth(i).locator(".ph-d12-result")).to_have_text(_words(played))
        expect(items.nth(i).locator(".ph-d12-pool-change")).to_have_text(
            f"{left} failed {'die' if left == 1 else 'dice'} left, CON "
            f"{played['refresh_rating']}: {played['added']} joined: "
            f"{played['pool_after']} dice in the pool")
        rolled = watcher.locator("[data-type=threshold_dice_rolled]").nth(i)
        expect(rolled).to_contain_text(f"test 1, round {i + 1} at DT {played['dt']}:")
        expect(rolled.locator(".ph-d12-won, .ph-d12-lost")).to_have_text(_words(played))
        remaining = played["pool_after"] - played["added"]
        expect(watcher.locator("[data-type=failed_dice_removed]").nth(i)).to_have_text(
            re.compile(re.escape(f"test 1: {left} failed {'die' if left == 1 else 'dice'} left "
                                 f"the pool, {remaining} "
                                 f"{'die remains' if remaining == 1 else 'dice remain'}") + "$"))
        expect(watcher.locator("[data-type=refresh_dice_added]").nth(i)).to_contain_text(
            f"test 1: CON {played['added']}, {played['added']} joined: "
            f"{played['pool_after']} dice in the pool")


def test_an_extended_test_over_three_rounds_seen_alike_by_gm_players_and_spectator(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM makes Ana and calls an extended test; Ana rolls three rounds, her pool losing its
    failures and gaining CON dice; the GM reads each round and ends it: all four pages agree."""
    campaign, gm_link = served.create_campaign("Broken Crown", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Mira", "ana")
    bram_link = served.invite(campaign, gm_link, "player", "Olek", "bram")
    watcher_link = served.invite(campaign, gm_link, "spectator", "Wren")
    gm = open_page(gm_link)
    ana, bram = open_page(ana_link, width=360), open_page(bram_link)
    watcher = open_page(watcher_link)
    everyone = (gm, ana, bram, watcher)

    _create_character(gm, "Ana Vex", "ana", {"CON": 3, "CHA": 0, "STR": 5})
    _create_character(gm, "Bram", "bram", {"CON": 2, "CHA": 2, "WIL": 3})
    expect(watcher.locator("ph-members")).to_contain_text("Ana Vex")

    # a rule refusal, next to the control: CHA 0 brings no dice
    call = gm.locator(".ph-d12-call")
    call.get_by_label("Character").select_option("ana")
    # Ana is not her own opponent: the DT's "or from" offers only the others
    expect(call.get_by_label("or from").locator("option")).to_have_text(["no opponent", "Bram"])
    call.get_by_role("checkbox", name="CHA").check()
    call.get_by_role("button", name="Call the test").click()
    expect(call.locator(".ph-error")).to_have_text(
        "the player assembles the pool from the stats named: these give no dice")
    expect(call.locator("fieldset[name=stats]")).to_have_attribute("aria-invalid", "true")
    expect(gm.locator("ph-d12-test")).to_have_count(0)

    call.get_by_role("checkbox", name="CHA").uncheck()
    call.get_by_role("checkbox", name="STR").check()
    call.get_by_role("checkbox", name="CON").check()
    call.get_by_label("Extended test").check()
    call.get_by_label("dice join from").select_option("CON")
    call.get_by_label("Label").fill("bar fight")
    call.get_by_label("DT", exact=True).fill("3")
    call.get_by_role("button", name="Call the test").click()
    expect(call.locator(".ph-error")).to_be_hidden()

    chance = f"{float(success_probability(8, 3)) * 100:.1f}% to succeed"  # as `poolhall d12-odds`
    for page in everyone:
        card = page.locator("ph-d12-test[data-test='1']")
        expect(card.locator("h3")).to_contain_text("Test 1 · bar fight")
        expect(card.locator(".ph-d12-who")).to_have_text(
            "Ana Vex · CON 3 + STR 5 = 8 dice · CON dice join after each round")
        expect(card.locator(".ph-d12-threshold")).to_have_text("DT 3, set by the GM")
        # the server's first odds come from a worker process it starts then: give it time
        expect(card.locator(".ph-d12-chance")).to_have_text(chance, timeout=20_000)
        # all 8 dice fail at DT 3 once in 65,536 rounds: not quite certain ("100.00%" said so)
        expect(card.locator(".ph-d12-survival")).to_contain_text("1 round > 99.99% · 2 rounds")
    # controls by role: only Ana (and the GM) may roll; the spectator has no control at all
    expect(ana.get_by_role("button", name="Roll 8 dice")).to_be_visible()
    expect(bram.locator("ph-d12-test").get_by_role("button")).to_have_count(0)
    # (the header's own buttons aside: Leave this table, and its question, are everyone's)
    expect(watcher.locator("ph-app :is(button:not(.ph-quiet), form):not(.ph-header *)")
           ).to_have_count(0)
    expect(watcher.locator("ph-d12-table input, ph-d12-table select")).to_have_count(0)

    # 8 dice at DT 3, then 3 then 4 CON dice joining: the pool is emptied before the third
    # round once in 25,000 scenes (projections.d12_odds.survival), and this test fails then
    card_of = {page: page.locator("ph-d12-test[data-test='1']") for page in everyone}
    readings = ["the first thug goes down", "Ana is cornered", "the last one runs"]
    say = card_of[gm].locator(".ph-d12-say")
    reading = say.get_by_label("The GM reads the result")
    for number in (1, 2, 3):
        if number > 1:  # the GM starts writing before the roll: the new table keeps it
            reading.fill(readings[number - 1])
        ana.locator("ph-d12-test[data-test='1'] .ph-d12-roll").click()
        for page in everyone:
            expect(card_of[page].locator(".ph-d12-round")).to_have_count(number)
        if number > 1:
            expect(reading).to_have_value(readings[number - 1])
            expect(reading).to_be_focused()
        seen = _rounds(card_of[gm])
        assert all(_rounds(card_of[page]) == seen for page in (ana, bram, watcher))
        pool = card_of[gm].locator(".ph-d12-pool").inner_text()
        for page in everyone:
            expect(card_of[page].locator(".ph-d12-pool")).to_have_text(pool)
        refreshes = [[kind for _, kind in lines].count("refresh_dice_added")
                     for lines in logs_lines_read_through(*everyone)]
        assert refreshes == [number] * len(everyone)
        reading.fill(readings[number - 1])
        say.get_by_role("button", name="Say").click()
        for page in everyone:
            expect(card_of[page].locator(".ph-d12-round").last.locator(".ph-d12-note")).to_have_text(
                f"GM: {readings[number - 1]}")
        if number == 1:
            _raise_con_and_take_the_dt_from_bram(gm, ana, card_of)

    # what the pages showed is what the server recorded: faces, what each counted, the
    # failed dice that left, the CON dice that joined (3, then 4 once CON was raised)
    rounds = _server_test(served, gm_link, campaign, 1)["rounds"]
    assert isinstance(rounds, list)
    assert len(rounds) == 3
    assert [r["added"] for r in rounds] == [3, 4, 4]
    _rounds_shown_as_recorded(watcher, card_of[watcher], rounds)

    end = card_of[gm].locator(".ph-d12-end")
    end.get_by_label("Reason").fill("the thugs flee")
    end.get_by_role("button", name="End the test").click()
    for page in everyone:
        ended = page.locator(".ph-d12-ended ph-d12-test[data-test='1']")
        expect(ended.locator(".ph-d12-outcome")).to_have_text(
            "Over after 3 rounds: ended by the GM (the thugs flee)")
        expect(page.locator(".ph-d12-empty")).to_be_visible()
        expect(page.locator("[data-type=threshold_test_ended]")).to_contain_text(
            "test 1 over after 3 rounds: ended by the GM (the thugs flee)")
    expect(ana.locator("ph-d12-test .ph-d12-roll")).to_be_hidden()
    screenshot(watcher, "d12-spectator-1280")


def test_basic_tests_the_gm_rolls_at_once_or_calls_for_a_player_to_roll(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Bram's basic test before any call is refused beside his form; the GM's 5d12 DT 7 is
    rolled at once; the GM calls one for Bram, who rolls it by keyboard; the GM reads it. (A
    rating emptied on his sheet is asked for, not saved as 0; Bram's page shows his ratings.)"""
    campaign, gm_link = served.create_campaign("Quiet Roads", "d12")
    bram_link = served.invite(campaign, gm_link, "player", "Olek", "bram")
    gm, bram = open_page(gm_link), open_page(bram_link, width=360)
    _create_character(gm, "Bram", "bram", {"CON": 2, "CHA": 2, "WIL": 4})
    sheet = gm.locator(".ph-d12-sheet")  # a rating left empty is asked for, not saved as 0
    sheet.get_by_label("WIL rating").fill("")
    sheet.get_by_role("button", name="Save the character").click()
    expect(sheet.locator(".ph-error")).to_have_text("give WIL a rating, or remove its row")
    sheet.get_by_label("WIL rating").fill("4")
    # the player assembles his pool from his ratings: they are on his page
    expect(bram.locator(".ph-d12-characters [data-character=bram]")).to_have_text(
        "Bram (yours) · CON 2, CHA 2, WIL 4")
    expect(gm.locator(".ph-d12-characters [data-character=bram]")).to_have_text(
        "Bram · CON 2, CHA 2, WIL 4")

    bram.get_by_text("Basic test", exact=True).click()  # folded away until wanted
    basic = bram.locator(".ph-d12-basic")
    basic.get_by_label("d12s").fill("4")
    basic.get_by_label("DT").fill("5")
    basic.get_by_role("button", name="Roll the test").click()
    expect(basic.locator(".ph-error")).to_have_text(
        "the GM sets or determines the DT: ask the GM to call for a test")
    expect(basic.get_by_label("DT")).to_have_attribute("aria-invalid", "true")

    gm.get_by_text("Basic test", exact=True).click()
    quick = gm.locator(".ph-d12-basic")
    quick.get_by_label("d12s").fill("5")
    quick.get_by_label("DT").fill("7")
    quick.get_by_role("button", name="Roll the test").click()
    rolled = bram.locator(".ph-d12-ended ph-d12-test[data-test='1']")
    expect(rolled.locator("h3")).to_contain_text("basic, over")
    expect(rolled.locator("svg.ph-die")).to_have_count(5)
    server = _server_test(served, gm_link, campaign, 1)
    rounds = server["rounds"]
    assert isinstance(rounds, list)
    assert len(rounds) == 1
    round_one = rounds[0]
    expect(rolled.locator(".ph-d12-outcome")).to_have_text(
        "Succeeded" if round_one["succeeded"] else "Failed")

    call = gm.locator(".ph-d12-call")
    call.get_by_label("Character").select_option("bram")
    call.get_by_role("checkbox", name="WIL").check()
    call.get_by_label("DT", exact=True).fill("5")
    call.get_by_role("button", name="Call the test").click()
    expect(call.get_by_role("checkbox", name="WIL")).not_to_be_checked()
    card = bram.locator("ph-d12-test[data-test='2']")
    expect(card).to_contain_text("Bram · WIL 4 = 4 dice")
    roll = card.get_by_role("button", name="Roll 4 dice")
    roll.focus()
    bram.keyboard.press("Enter")
    ended = gm.locator(".ph-d12-ended ph-d12-test[data-test='2']")
    expect(ended.locator("svg.ph-die")).to_have_count(4)
    say = ended.locator(".ph-d12-say")
    say.get_by_label("The GM reads the result").fill("the gate holds")
    say.get_by_label("The GM reads the result").press("Enter")
    expect(bram.locator("ph-d12-test[data-test='2'] .ph-d12-note")).to_have_text(
        "GM: the gate holds")
    expect(bram.locator(".ph-d12-ended ph-d12-test")).to_have_count(2)
    expect(bram.locator("ph-d12-test .ph-d12-roll:visible")).to_have_count(0)


def test_a_long_fight_shows_its_last_rounds_and_says_the_earlier_ones_are_in_the_log(
        served: Served, open_page: Callable[..., Page]) -> None:
    """An extended test past ROUNDS_KEPT rounds: the card shows the last of them, says how
    many earlier rounds are in the log, and numbers the next round and the end from all of
    them (the table the server sends stays the same size however long the fight). A stats-only
    update of the character reads with its name in the log."""
    campaign, gm_link = served.create_campaign("Long Siege", "d12")
    _, updated, _ = served.send(
        gm_link, {"type": "create_character", "character": "ana", "name": "Ana Vex",
                  "stats": {"system": "d12", "ratings": {"CON": 12, "CHA": 0, "STR": 12}}},
                {"type": "update_character", "character": "ana",  # the stats alone: no name
                 "stats": {"system": "d12", "ratings": {"CON": 12, "CHA": 0, "STR": 12}}},
                {"type": "call_threshold_test", "character": "ana", "stats": ["STR"],
                 "dt": 1, "extended": True, "refresh": "CON", "label": "the siege"})
    # at DT 1 only a 1 fails, and 12 CON dice join each round: the pool never empties
    rolled = ROUNDS_KEPT + 2
    served.send(gm_link, *({"type": "roll_threshold_test", "test": 1} for _ in range(rolled)))
    gm = open_page(gm_link)
    gm.get_by_role("button", name="Load older").click()  # the snapshot brought the latest lines
    expect(gm.get_by_role("button", name="Load older")).to_be_hidden()
    update = gm.locator(f"ph-log li[data-seq='{updated.seqs[0]}']")

    def at_the_top() -> bool:
        # the older lines may be placed (keeping the line read in view) after the button hid:
        # a scroll to the top just before that is undone, so scroll until the line is drawn
        gm.locator("ph-log .ph-log-lines").evaluate("(list) => { list.scrollTop = 0; }")
        return update.count() > 0

    until(at_the_top, timeout=10, said=lambda: "the log's first lines were never drawn")
    expect(update).to_contain_text("character Ana Vex updated")  # no name sent: named all the same
    card = gm.locator("ph-d12-test[data-test='1']")
    expect(card.locator(".ph-d12-round")).to_have_count(ROUNDS_KEPT)
    expect(card.locator(".ph-d12-earlier")).to_have_text("2 earlier rounds are in the log")
    expect(card.locator(".ph-d12-round").first).to_have_attribute("data-round", "3")
    expect(card.locator(".ph-d12-who")).to_have_text(
        "Ana Vex · STR 12 = 12 dice · CON dice join after each round")
    expect(card.locator(".ph-d12-roll")).to_contain_text(f"(round {rolled + 1})")
    card.locator(".ph-d12-roll").click()
    expect(card.locator(".ph-d12-earlier")).to_have_text("3 earlier rounds are in the log")
    expect(card.locator(".ph-d12-round").last).to_have_attribute("data-round", str(rolled + 1))
    card.locator(".ph-d12-end").get_by_role("button", name="End the test").click()
    expect(card.locator(".ph-d12-outcome")).to_have_text(
        f"Over after {rolled + 1} rounds: ended by the GM")


def test_a_secret_test_is_marked_and_a_capped_refill_names_its_stat(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The GM's secret test says "in secret" on the GM's card (Ana's page shows none); a
    refill cut by the 100-dice cap names the stat, "CON 20: 9 joined", as the log and the CLI
    do (the card said "9 joined" alone); 100 dice at DT 1 last a round "> 99.99%", not the
    "100.00%" the server's float 1.0 made of it."""
    campaign, gm_link = served.create_campaign("Iron Gate", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Mira", "ana")
    big = {stat: 20 for stat in ("CON", "STR", "DEX", "WIT", "WIL")}
    served.send(
        gm_link, {"type": "create_character", "character": "ana", "name": "Ana Vex",
                  "stats": {"system": "d12", "ratings": {**big, "CHA": 1}}},
        {"type": "call_threshold_test", "character": "ana", "stats": ["WIT"], "dt": 6,
         "visibility": "gm", "label": "the hidden trap"},
        {"type": "call_threshold_test", "character": "ana", "stats": list(big), "dt": 1,
         "extended": True, "refresh": "CON", "label": "the siege"})
    gm, ana = open_page(gm_link), open_page(ana_link, width=360)
    secret = gm.locator("ph-d12-test[data-test='1']")
    expect(secret.locator(".ph-d12-badge")).to_have_text("basic in secret")
    expect(ana.locator("ph-d12-test")).to_have_count(1)  # only the siege
    siege = ana.locator("ph-d12-test[data-test='2']")
    expect(siege.locator(".ph-d12-badge")).to_have_text("extended")
    expect(siege.locator(".ph-d12-survival")).to_contain_text(
        "1 round > 99.99% · 2 rounds > 99.99%", timeout=20_000)
    expect(siege.locator(".ph-d12-chance")).to_have_text("> 99.99% to succeed")
    siege.locator(".ph-d12-roll").click()
    expect(siege.locator(".ph-d12-round")).to_have_count(1)
    rounds = _server_test(served, gm_link, campaign, 2)["rounds"]
    assert isinstance(rounds, list)
    (played,) = rounds
    assert played["refresh_rating"] == 20
    assert played["pool_after"] == 100
    expect(siege.locator(".ph-d12-pool-change")).to_have_text(
        f"{played['removed']} failed {'die' if played['removed'] == 1 else 'dice'} left, "
        f"CON 20: {played['added']} joined: 100 dice in the pool")
    gm.locator("ph-d12-test[data-test='1'] .ph-d12-roll").click()
    expect(secret.locator(".ph-d12-badge")).to_have_text("basic in secret, over")
