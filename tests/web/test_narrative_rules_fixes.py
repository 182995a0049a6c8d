"""What a rules lawyer found at a narrative table, in a browser: a check rolled after ten
later ones closed was missing from Latest results, an Impossible check's card offered a
destiny point for other things (which used up the side's one point, so the check could never
be attempted), and a card offered a second point its side could no longer spend."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.web.conftest import PageOpener, Served

HAN = {"system": "narrative", "agility": 3, "presence": 3,
       "skills": {"Ranged (Light)": {"rank": 2, "characteristic": "agility"},
                  "Cool": {"rank": 1, "characteristic": "presence"}}}


def narrative_table(served: Served) -> tuple[str, str, str]:
    """A narrative campaign with Han, played by Ana: its id, the GM's and Ana's links."""
    campaign, gm_link = served.create_campaign("Bespin", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": HAN})
    return campaign, gm_link, served.invite(campaign, gm_link, "player", "Ana", "han")


def test_latest_results_show_the_checks_closed_last_however_early_opened(
        served: Served, open_page: PageOpener) -> None:
    """Rule (quick reference): "Spend advantage, triumph, threat and despair". Han's ``old``
    check, opened before ten checks that closed first, is rolled: it heads Latest results,
    what is left of it to spend below it, then the check cancelled just before, then the last
    rolled. It was dropped by the roll that closed it (the table kept closed checks by
    opening order), and a cancelled check sank below every rolled one."""
    _, gm_link, ana_link = narrative_table(served)
    served.send(gm_link, {"type": "open_check", "check": "old", "character": "han",
                          "skill": "Ranged (Light)"},
                {"type": "set_difficulty", "check": "old", "level": "simple"})
    for number in range(9):
        served.send(gm_link, {"type": "open_check", "check": f"quick{number}",
                              "character": "han", "skill": "Cool"},
                    {"type": "set_difficulty", "check": f"quick{number}", "level": "easy"},
                    {"type": "roll_check", "check": f"quick{number}"})
    served.send(gm_link, {"type": "open_check", "check": "dropped", "character": "han",
                          "skill": "Cool"},
                {"type": "cancel_check", "check": "dropped"})
    gm, ana = open_page(gm_link), open_page(ana_link)
    results = ana.locator("ph-narrative-results li.ph-nd-result")
    expect(results).to_have_count(3)
    check_card = ana.locator("ph-narrative-check[data-check=old]")
    check_card.get_by_role("button", name="Roll").click()
    for page in (gm, ana):
        items = page.locator("ph-narrative-results li.ph-nd-result")
        expect(items.first).to_have_attribute("data-check", "old")
        expect(items).to_have_count(3)
        assert [item.get_attribute("data-check") for item in items.all()] == [
            "old", "dropped", "quick8"]
        expect(items.first.locator(".ph-nd-left")).to_be_visible()
    expect(gm.locator("ph-narrative-results li[data-check=old] .ph-nd-spend-form")
           .or_(gm.locator("ph-narrative-results li[data-check=old] .ph-nd-left",
                           has_text="Nothing left to spend."))).to_be_visible()


def test_an_impossible_card_offers_only_the_attempt_until_it_is_attempted(
        served: Served, open_page: PageOpener) -> None:
    """Rule (README): Impossible "Only with the GM's permission and a destiny point spent;
    then it is rolled as Formidable", and "Each side may spend at most one destiny point on a
    given check". Until the Impossible check is attempted, Ana's and the GM's cards offer a
    point only to attempt it, and Roll is off: a point spent on "upgrade ability" used up the
    players' one point on the check, which could then never be attempted. Once Ana attempts
    it, her Roll is on and the GM's card offers every effect again."""
    _, gm_link, ana_link = narrative_table(served)
    served.send(gm_link, {"type": "set_destiny_pool", "light": 3, "dark": 3},
                {"type": "open_check", "check": "imp", "character": "han", "skill": "Cool"},
                {"type": "set_difficulty", "check": "imp", "level": "impossible"})
    gm, ana = open_page(gm_link), open_page(ana_link)
    ana_imp = ana.locator("ph-narrative-check[data-check=imp]")
    gm_imp = gm.locator("ph-narrative-check[data-check=imp]")
    for card in (ana_imp, gm_imp):
        effect = card.get_by_label("to", exact=True)
        expect(effect).to_have_value("attempt_impossible")
        expect(effect.locator("option")).to_have_text(["attempt impossible"])
        expect(card.get_by_role("button", name="Roll")).to_be_disabled()

    ana_imp.get_by_role("button", name="Spend a light side point").click()
    expect(ana_imp.locator(".ph-nc-impossible")).to_be_hidden()
    expect(ana_imp.get_by_role("button", name="Roll")).to_be_enabled()
    gm_effect = gm_imp.get_by_label("to", exact=True)
    expect(gm_effect.locator("option")).to_have_text(
        ["upgrade difficulty", "upgrade ability", "attempt impossible", "other"])
    expect(gm_effect).to_have_value("upgrade_difficulty")
    expect(gm_imp.get_by_role("button", name="Roll")).to_be_enabled()
    gm_imp.get_by_role("button", name="Spend a dark side point").click()
    expect(gm_imp.locator(".ph-nc-changes")).to_contain_text("(GM destiny point)")
    ana_imp.get_by_role("button", name="Roll").click()
    expect(ana.locator("ph-narrative-results li[data-check=imp]")).to_be_visible()


def test_a_card_says_its_sides_point_is_spent_instead_of_offering_another(
        served: Served, open_page: PageOpener) -> None:
    """Rule (README): "Each side may spend at most one destiny point on a given check". Once
    Ana spent the light side's point on b1, her card says so instead of offering another
    (it offered one, and a click only brought the server's refusal), the focus staying on
    the card; the GM's card still offers the dark side's point, until the GM spends it."""
    _, gm_link, ana_link = narrative_table(served)
    served.send(gm_link, {"type": "set_destiny_pool", "light": 3, "dark": 3},
                {"type": "open_check", "check": "b1", "character": "han", "skill": "Cool"},
                {"type": "set_difficulty", "check": "b1", "level": "average"})
    gm, ana = open_page(gm_link), open_page(ana_link)
    ana_b1 = ana.locator("ph-narrative-check[data-check=b1]")
    gm_b1 = gm.locator("ph-narrative-check[data-check=b1]")
    expect(ana_b1.locator(".ph-nc-spent")).to_be_hidden()
    ana_b1.get_by_role("button", name="Spend a light side point").click()
    expect(ana_b1.locator(".ph-nc-spent")).to_have_text(
        "The light side's destiny point for this check is spent: each side spends one at "
        "most on a check.")
    expect(ana_b1.locator(".ph-nc-destiny-form")).to_be_hidden()
    expect(ana_b1).to_be_focused()  # the form it was in went: the focus stays on its card
    expect(ana_b1.locator("output.ph-error:not(:empty)")).to_have_count(0)
    expect(ana.locator(".ph-nd-destiny-count")).to_have_text("2 light, 4 dark")

    expect(gm_b1.locator(".ph-nc-spent")).to_be_hidden()
    gm_b1.get_by_role("button", name="Spend a dark side point").click()
    expect(gm_b1.locator(".ph-nc-spent")).to_have_text(
        "The dark side's destiny point for this check is spent: each side spends one at most "
        "on a check.")
    expect(gm_b1.get_by_role("button", name="Spend a dark side point")).to_have_count(0)
    expect(ana_b1.get_by_role("button", name="Roll")).to_be_enabled()
