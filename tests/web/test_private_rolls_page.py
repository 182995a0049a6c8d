"""Private rolls at the browser table: the GM rolls in secret and a player rolls blind; each
page shows only what its member may see (a sealed line says who rolled and how, no dice);
when the GM ends the session the sealed lines turn into the whole rolls, checked by the page."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import PageOpener, Served, heard, listen
from tests.web.test_page_layout import NO_SIDEWAYS_SCROLL


def _roll(page: Page, expression: str, visibility: str) -> None:
    """Roll free dice from the page's roll form with the visibility chosen beside the button."""
    form = page.locator(".ph-roll-form")
    form.get_by_label("dice expression").fill(expression)
    form.get_by_label("who sees this roll").select_option(visibility)
    form.get_by_role("button", name="Roll").click()


def _line(page: Page, text: str) -> Locator:
    return page.locator("ph-log .ph-log-line", has_text=text)


def test_secret_and_blind_rolls_are_sealed_then_revealed_and_verified(
        served: Served, open_page: PageOpener) -> None:
    """The GM rolls in secret: Ana's page says the GM acted in secret, with no dice. Ana
    rolls blind: her page shows no result, the GM's page shows the dice. The GM ends the
    session: Ana's page shows both rolls whole, revealed and verified, and her screen reader
    is told of them, in words, in one announcement (it heard only that the session ended:
    the lines changed in place, in silence)."""
    campaign, gm_link = served.create_campaign("Hidden Hand", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, {"type": "start_session", "title": "Night"})
    gm = open_page(gm_link)
    ana = open_page(ana_link)
    expect(ana.locator(".ph-roll-form select[name=visibility] option")).to_have_text(
        ["public", "blind (GM only)", "self (you + GM)"])
    expect(gm.locator(".ph-roll-form select[name=visibility] option")).to_have_text(
        ["public", "secret (GM only)"])

    _roll(gm, "3d6", "gm")
    sealed = _line(ana, "The GM acted in secret")
    expect(sealed).to_have_attribute("data-type", "private_roll")
    expect(sealed.locator("svg")).to_have_count(0)
    expect(sealed.locator(".ph-fair")).to_have_count(0)
    expect(_line(gm, "secret: only the GM sees this").locator("svg")).to_have_count(3)

    _roll(ana, "2d10", "blind")
    blind = _line(ana, "You rolled blind: the GM sees the result")
    expect(blind).to_have_attribute("data-type", "private_roll")
    expect(blind.locator("svg")).to_have_count(0)
    seen_by_gm = _line(gm, "blind: only the GM sees this (not Ana)")
    expect(seen_by_gm.locator("svg")).to_have_count(2)
    seqs = [sealed.get_attribute("data-seq"), blind.get_attribute("data-seq")]
    assert seen_by_gm.get_attribute("data-seq") == seqs[1]

    listen(ana)
    gm.get_by_role("button", name="End game session").click()
    gm.get_by_role("button", name="Yes, end it").click()
    expect(ana.get_by_role("log", name="New log lines")).to_contain_text("2 private rolls")
    said = [words for words in heard(ana) if "rolls revealed" in words]  # not the seed's line
    assert len(said) == 1, heard(ana)
    assert said[0].startswith("2 private rolls revealed at the session's end: "), said
    for roll in ("GM rolls 3d6:", "Ana rolls 2d10:"):
        assert roll in said[0], said
    for seq in seqs:
        line = ana.locator(f"ph-log .ph-log-line[data-seq='{seq}']")
        expect(line).to_have_attribute("data-type", "dice_rolled")
        expect(line).to_have_attribute("data-revealed", "true")
        expect(line).to_contain_text("revealed at the session's end")
        expect(line.locator(".ph-fair")).to_have_attribute("data-state", "verified")
    expect(ana.locator("ph-log [data-type=private_roll]")).to_have_count(0)
    expect(ana.locator(f"ph-log .ph-log-line[data-seq='{seqs[0]}'] svg")).to_have_count(3)


def test_a_refused_visibility_is_said_in_plain_words_and_fits_a_phone(
        served: Served, open_page: PageOpener) -> None:
    """On a 360 px phone the choice sits in the roll form, behind More (the form keeps to one
    line there), without sideways scrolling; a visibility the server refuses (a player's
    ``gm``, put in the list here: the page offers it only to the GM) is told in the server's
    words beside the form, the choice marked."""
    campaign, gm_link = served.create_campaign("Narrow", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    ana = open_page(ana_link, width=360, height=740)
    choice = ana.locator(".ph-roll-form select[name=visibility]")
    ana.locator(".ph-roll-form").get_by_role("button", name="More").click()
    expect(choice).to_be_in_viewport()
    assert ana.evaluate(NO_SIDEWAYS_SCROLL)
    choice.evaluate("""(select) => select.append(new Option("gm", "gm"))""")
    _roll(ana, "1d6", "gm")
    error = ana.locator(".ph-roll-form output.ph-error")
    expect(error).to_contain_text("only the GM rolls in secret")
    expect(choice).to_have_attribute("aria-invalid", "true")
    assert ana.evaluate(NO_SIDEWAYS_SCROLL)


def _expect_choices(form: Locator, choices: list[str]) -> None:
    """The form's visibility choices, once the page has drawn them (none: no choice)."""
    options = form.locator("select[name=visibility] option")
    if choices:
        expect(options).to_have_text(choices)
    else:
        expect(form).to_have_count(1)  # the form is there, with no choice in it
        expect(options).to_have_count(0)


HAN = {"system": "narrative", "agility": 3,
       "skills": {"Ranged (Light)": {"rank": 2, "characteristic": "agility"}}}
SAM = {"system": "sr3", "body": 4, "quickness": 5, "strength": 3, "charisma": 3,
       "intelligence": 5, "willpower": 4, "karma_earned": 10,
       "skills": {"pistols": {"rating": 6, "attribute": "quickness", "kind": "combat"}}}


def test_narrative_a_self_pool_and_a_secret_check(served: Served, open_page: PageOpener) -> None:
    """Ana rolls a free pool only she and the GM see; the GM opens a check in secret, which
    Ana's page shows sealed ("The GM acted in secret": it read "rolled", though opening a
    check rolls nothing) and not on the table. A player's check form has no choice: a check
    built step by step in front of the table is private only as the GM's."""
    campaign, gm_link = served.create_campaign("Every Door", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": HAN})
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    gm, ana = open_page(gm_link), open_page(ana_link)
    pool, opener = (".ph-nd-free-pool", "ph-narrative-opener form")
    _expect_choices(gm.locator(pool), ["public", "secret (GM only)"])
    _expect_choices(gm.locator(opener), ["public", "secret (GM only)"])
    _expect_choices(ana.locator(pool), ["public", "blind (GM only)", "self (you + GM)"])
    _expect_choices(ana.locator(opener), [])  # a check is built in front of the table

    form = ana.locator(pool)
    form.locator("input[name=ability]").fill("2")
    form.get_by_label("who sees this roll").select_option("self")
    form.get_by_role("button", name="Roll pool").click()
    expect(_line(ana, "only you and the GM see this")).to_have_attribute(
        "data-type", "pool_rolled")
    expect(_line(gm, "only Ana and the GM see this")).to_have_attribute(
        "data-type", "pool_rolled")

    form = gm.locator(opener)
    form.get_by_label("who sees this roll").select_option("gm")
    form.get_by_role("button", name="Open check").click()
    expect(_line(gm, "secret: only the GM sees this")).to_have_attribute(
        "data-type", "check_opened")
    expect(gm.locator("ph-narrative-check")).to_have_count(1)
    expect(_line(ana, "The GM acted in secret")).to_have_count(1)
    expect(ana.locator("ph-narrative-check")).to_have_count(0)


def test_sr3_a_secret_test_sets_its_pool_dice_aside(served: Served, open_page: PageOpener) -> None:
    """The GM rolls a declared test in secret: its pool dice are set aside (a private test
    draws none: the pools are shown to the whole table) and the roll is marked secret."""
    campaign, gm_link = served.create_campaign("Every Shadow", "sr3")
    served.send(gm_link, {"type": "create_character", "character": "sam", "name": "Sam",
                          "stats": SAM},
                {"type": "declare_pool_test", "character": "sam", "skill": "pistols",
                 "kind": "combat", "tn": 5})
    gm = open_page(gm_link)
    card = gm.locator("ph-sr3-declared [data-character=sam]")
    expect(card.locator("select[name=visibility] option")).to_have_text(  # once drawn
        ["public", "secret (GM only)"])
    pool_dice = card.locator("input[data-pool=combat]")
    pool_dice.fill("2")
    card.get_by_label("who sees this roll").select_option("gm")
    expect(pool_dice).to_be_disabled()
    card.get_by_role("button", name="Roll").click()
    expect(_line(gm, "secret: only the GM sees this")).to_have_attribute(
        "data-type", "pool_test_rolled")


def test_sr3_a_declared_test_rolled_blind_leaves_and_a_secret_one_is_never_declared(
        served: Served, open_page: PageOpener) -> None:
    """Ana declares Pistols in front of the table and rolls it blind: the declared card leaves
    her page and the GM's (it stayed, with its Roll button, until the session's end). The
    GM's declare form set to secret rolls at once: Ana's page shows a sealed line, no card,
    nothing of the test."""
    campaign, gm_link = served.create_campaign("Every Gap", "sr3")
    served.send(gm_link, {"type": "create_character", "character": "sam", "name": "Sam",
                          "stats": SAM},
                {"type": "create_character", "character": "ganger", "name": "Ganger",
                 "stats": SAM})
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "sam")
    served.send(ana_link, {"type": "declare_pool_test", "character": "sam", "skill": "pistols",
                           "kind": "combat", "tn": 4, "reason": "the gap"})
    gm, ana = open_page(gm_link), open_page(ana_link)
    card = ana.locator("ph-sr3-declared [data-character=sam]")
    card.get_by_label("who sees this roll").select_option("blind")
    card.get_by_role("button", name="Roll").click()
    expect(_line(gm, "blind: only the GM sees this (not Ana)")).to_have_count(1)
    for page in (gm, ana):
        expect(page.locator("ph-sr3-declared [data-character=sam]")).to_have_count(0)

    declare = gm.get_by_role("form", name="Declare a test")
    declare.get_by_label("Character").select_option("ganger")
    declare.get_by_label("Reason").fill("spot the decker")
    declare.get_by_label("who sees this roll").select_option("gm")
    declare.get_by_role("button", name="Roll in private").click()
    expect(_line(gm, "secret: only the GM sees this")).to_have_attribute(
        "data-type", "pool_test_rolled")
    expect(_line(ana, "The GM acted in secret")).to_have_count(1)
    expect(ana.locator("ph-sr3-declared [data-character=ganger]")).to_have_count(0)
    expect(ana.locator("body")).not_to_contain_text("spot the decker")


def test_sr3_a_players_self_test_is_on_her_own_card_and_no_one_elses(
        served: Served, open_page: PageOpener) -> None:
    """Ana rolls her declared Pistols test for herself: her Latest tests show it, marked as
    seen by her and the GM until the session ends, with no Karma reroll (the server refuses
    one on a private test); Bob's page has the sealed line and no card. (Her own card was
    missing: only the GM's table had it until the reveal.)"""
    campaign, gm_link = served.create_campaign("Every Glance", "sr3")
    served.send(gm_link, *({"type": "create_character", "character": character,
                            "name": character.title(), "stats": SAM}
                           for character in ("sam", "rook")),
                {"type": "start_session", "title": "The docks"})
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "sam")
    bob_link = served.invite(campaign, gm_link, "player", "Bob", "rook")
    served.send(ana_link, {"type": "declare_pool_test", "character": "sam", "skill": "pistols",
                           "kind": "combat", "tn": 4})
    ana, bob = open_page(ana_link), open_page(bob_link)
    card = ana.locator("ph-sr3-declared [data-character=sam]")
    card.get_by_label("who sees this roll").select_option("self")
    card.get_by_role("button", name="Roll").click()
    sr3_sealed_test_card(ana, bob, "rolled in private: only its player and the GM see it")


def sr3_sealed_test_card(roller: Page, other: Page, words: str) -> None:
    """Test 1 is on the roller's Latest tests marked private (``words``, "until the session
    ends") with no Karma reroll; another member's page has the sealed line and no card."""
    card = roller.locator("ph-sr3-tests [data-test='1']")
    expect(card.locator(".ph-private-mark")).to_have_text(f" · {words} until the session ends")
    expect(card.get_by_role("button")).to_have_count(0)
    expect(other.locator("[data-type=private_roll]")).to_have_count(1)
    expect(other.locator("ph-sr3-tests [data-test='1']")).to_have_count(0)


def test_d12_the_gms_tests_offer_secret_a_players_called_test_nothing(
        served: Served, open_page: PageOpener) -> None:
    """The GM's call and basic test offer secret; Ana's basic test (one the GM called, rolled
    in the open) offers no choice."""
    campaign, gm_link = served.create_campaign("Every Test", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    gm, ana = open_page(gm_link), open_page(ana_link)
    _expect_choices(gm.locator("ph-d12-call form"), ["public", "secret (GM only)"])
    _expect_choices(gm.locator("ph-d12-basic form"), ["public", "secret (GM only)"])
    expect(ana.locator("ph-d12-basic form")).to_have_count(1)
    _expect_choices(ana.locator("ph-d12-basic form"), [])


def test_a_page_away_at_the_sessions_end_reads_the_revealed_rolls_when_back(
        served: Served, open_page: PageOpener) -> None:
    """Ana's phone is offline when the GM ends the session (the server sends the revealed rolls
    to the members connected then): back online, her page reads them from the log and shows
    them whole and verified."""
    campaign, gm_link = served.create_campaign("Away", "d12")
    ana_link = served.invite(campaign, gm_link, "player", "Ana")
    served.send(gm_link, {"type": "start_session"})
    (ack,) = served.send(gm_link, {"type": "roll", "expression": "4d8", "visibility": "gm"})
    ana = open_page(ana_link)
    line = ana.locator(f"ph-log .ph-log-line[data-seq='{ack.seqs[0]}']")
    expect(line).to_have_attribute("data-type", "private_roll")
    ana.context.set_offline(True)
    expect(ana.locator(".ph-connection")).to_have_attribute("data-state", "offline")
    served.send(gm_link, {"type": "end_session"})
    ana.context.set_offline(False)
    expect(line).to_have_attribute("data-type", "dice_rolled", timeout=10_000)
    expect(line).to_contain_text("revealed at the session's end")
    expect(line.locator(".ph-fair")).to_have_attribute("data-state", "verified")
