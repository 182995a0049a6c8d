"""Dice that feel rolled: a fresh roll's dice tumble in (CSS only) while its words are there
from the first frame; no animation under prefers-reduced-motion, nor with the setting off."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served

WATCH = """() => { window.__seen = null; new Promise((done) => {
  // the first dice_rolled line to arrive: its dice's animation and its words, as inserted
  const list = document.querySelector("ph-log .ph-log-lines");
  new MutationObserver((changes, observer) => {
    for (const change of changes) for (const node of change.addedNodes) {
      if (node.dataset?.type !== "dice_rolled") continue;
      observer.disconnect();
      const die = node.querySelector("svg.ph-die");
      // read as inserted: on a loaded machine the next frame came after the tumble had
      // ended (its animationend takes the class away), and read "none"
      const animation = getComputedStyle(die).animationName;
      const fresh = node.classList.contains("ph-fresh");
      requestAnimationFrame(() => done({animation, fresh, words: node.textContent}));
    }
  }).observe(list, {childList: true, subtree: true});
}).then((seen) => { window.__seen = seen; }); }"""


def roll_and_watch(page: Page) -> dict[str, object]:
    """Roll 3d6 from the page; what the new line looked like in its first frame."""
    page.evaluate(WATCH)
    form = page.locator(".ph-roll-form")
    form.get_by_label("dice expression").fill("3d6")
    form.get_by_role("button", name="Roll").click()
    page.wait_for_function("() => window.__seen !== null")
    seen: dict[str, object] = page.evaluate("() => window.__seen")
    return seen


def test_a_fresh_rolls_dice_tumble_while_its_words_are_already_there(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The dice animate; the line's total is in the same first frame."""
    campaign, gm_link = served.create_campaign("Dice Night", "d12")
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana"))
    seen = roll_and_watch(ana)
    assert seen["animation"] == "ph-die-roll"
    assert seen["fresh"]
    assert "rolls 3d6" in str(seen["words"])
    assert "=" in str(seen["words"])


def test_no_animation_under_prefers_reduced_motion(
        served: Served, open_page: Callable[..., Page]) -> None:
    """The platform asks for reduced motion: the dice appear still. It asks for forced colours
    (high contrast): every button keeps a border (a filled one read as bare text). Its text
    size is larger: the page's text follows it (the page had fixed it at 16 px)."""
    campaign, gm_link = served.create_campaign("Dice Night", "d12")
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana"))
    ana.emulate_media(reduced_motion="reduce", forced_colors="active")
    seen = roll_and_watch(ana)
    assert seen["animation"] == "none"
    assert "rolls 3d6" in str(seen["words"])
    roll = ana.locator(".ph-roll-form").get_by_role("button", name="Roll")
    assert roll.evaluate("(b) => getComputedStyle(b).borderTopStyle") == "solid"
    assert roll.evaluate("(b) => parseFloat(getComputedStyle(b).borderTopWidth)") >= 1

    # the reader's browser set to a larger text size (as chrome://settings/fonts does)
    ana.context.new_cdp_session(ana).send("Page.setFontSizes", {"fontSizes": {"standard": 24}})
    expect(ana.locator("html")).to_have_css("font-size", "24px")


def test_the_setting_turns_it_off_and_is_kept(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Ana turns the animation off: still dice, and still off after a reload."""
    campaign, gm_link = served.create_campaign("Dice Night", "d12")
    ana = open_page(served.invite(campaign, gm_link, "player", "Ana"))
    toggle = ana.get_by_role("button", name="Dice roll animation")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert roll_and_watch(ana)["animation"] == "none"
    ana.reload()
    ana.wait_for_selector(".ph-connection[data-state=live]")
    expect(ana.get_by_role("button", name="Dice roll animation")).to_have_attribute(
        "aria-pressed", "false")
