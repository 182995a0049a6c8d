"""A Shadowrun 3 Dodge on the page: the rules' refusals in words beside the field at fault
(surprised, Karma dice alone, a second Dodge of one attack, a TN past 100 with wounds), and
the page saying a Dodge's outcome as the server's log does."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from poolhall.events.sr3 import OpposedOutcome
from poolhall.projections.sr3 import outcome_words
from tests.web.conftest import Served
from tests.web.test_sr3_browser_table import ROOK, SAM, create

OUTCOME_WORDS = """async ([outcome, kind]) => {
  const {outcomeWords} = await import("/static/systems/sr3_dice.js");
  return outcomeWords(outcome, kind);
}"""


def test_a_dodges_refusals_read_in_words_beside_their_field(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Rook attacks Sam (test #1). Sam surprised may not Dodge at all (Karma dice were a way
    round it); a Dodge of Karma dice alone is refused at the Combat Pool field; after one Dodge
    a second against test #1 is refused naming both tests; wounded, TN 99 is refused as "TN 99
    + 3 for wounds is past the limit of 100" (it read "expected `int` <= 100 - at `$.tn` in
    pool_test_rolled"). Nothing of these reaches the log."""
    campaign, gm_link = served.create_campaign("Seattle Nights", "sr3")
    create(served, gm_link, campaign, "sam", "Sam", SAM)
    create(served, gm_link, campaign, "rook", "Rook", ROOK)
    gm = open_page(gm_link)
    served.send(gm_link, {"type": "roll_pool_test", "character": "rook", "skill": "clubs",
                          "kind": "combat", "tn": 4})
    expect(gm.locator("ph-sr3-tests [data-test='1']")).to_be_visible()

    declare = gm.locator("ph-sr3-declare")
    declare.get_by_label("Character", exact=True).select_option("sam")
    declare.get_by_label("Roll", exact=True).select_option("none")
    expect(declare.get_by_label("Test", exact=True)).to_have_value("dodge")
    declare.get_by_label("Against test #").fill("1")
    declare.locator("summary").click()
    surprised = declare.get_by_label("surprised")
    surprised.check()
    declare.get_by_role("button", name="Declare").click()
    expect(declare.locator(".ph-error")).to_contain_text(
        'a surprised character cannot Dodge: "Surprised characters may not use Combat Pool '
        'dice to defend themselves.", and a Dodge is rolled with Combat Pool dice (Karma dice '
        "only add to them)")
    expect(surprised).to_have_attribute("aria-invalid", "true")
    surprised.uncheck()
    declare.get_by_role("button", name="Declare").click()
    card = gm.locator("ph-sr3-declared [data-character=sam]")
    expect(card.locator("h3")).to_have_text("Sam: Combat Pool (dodge), TN 4, Combat Pool dice only")

    card.get_by_label("Karma Pool dice").fill("1")
    card.get_by_role("button", name="Roll").click()
    expect(card.locator(".ph-error")).to_contain_text("a Dodge needs at least one Combat Pool die")
    combat = card.get_by_label("Combat Pool dice (up to 7)")
    expect(combat).to_have_attribute("aria-invalid", "true")
    combat.fill("1")
    card.get_by_label("Karma Pool dice").fill("0")
    card.get_by_role("button", name="Roll").click()
    expect(gm.locator("ph-sr3-tests [data-test='2']")).to_contain_text("test #1")

    declare.get_by_label("Against test #").fill("1")
    declare.get_by_role("button", name="Declare").click()
    expect(declare.locator(".ph-error")).to_contain_text(
        "sam already dodged test #1 with test #2: one Dodge per attack")
    expect(declare.get_by_label("Against test #")).to_have_attribute("aria-invalid", "true")

    served.send(gm_link, {"type": "set_condition", "character": "sam", "condition": "physical",
                          "value": 10})
    declare.get_by_label("Against test #").fill("")
    declare.get_by_label("Roll", exact=True).select_option("skill:pistols")
    declare.get_by_label("Test", exact=True).select_option("combat")
    declare.get_by_label("Target number").fill("99")
    declare.get_by_role("button", name="Declare").click()
    expect(declare.locator(".ph-error")).to_have_text(
        "TN 99 + 3 for wounds is past the limit of 100 for a target number")
    expect(declare.get_by_label("Target number")).to_have_attribute("aria-invalid", "true")
    expect(gm.locator("ph-sr3-tests [data-test]")).to_have_count(2)
    expect(card).to_be_hidden()  # the Dodge was rolled; nothing new was declared

    # the page says a Dodge's outcome as the server's log does, Karma dice and all
    for outcome, kind in (
            (OpposedOutcome(test=1, theirs=1, ours=2, net=1, pool_successes=1), "dodge"),
            (OpposedOutcome(test=1, theirs=1, ours=3, net=2, missed=True, pool_successes=2), ""),
            (OpposedOutcome(test=1, theirs=2, ours=1, net=-1, pool_successes=1), ""),
            (OpposedOutcome(test=1, theirs=2, ours=2, net=0), "dodge"),
            (OpposedOutcome(test=1, theirs=2, ours=3, net=1), "combat")):
        data = {"test": outcome.test, "theirs": outcome.theirs, "ours": outcome.ours,
                "net": outcome.net, "missed": outcome.missed,
                "pool_successes": outcome.pool_successes}
        assert gm.evaluate(OUTCOME_WORDS, [data, kind]) == outcome_words(outcome, kind)
