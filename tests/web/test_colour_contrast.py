"""Colours in the light and the dark scheme, measured as the browser draws them: every text on
a narrative table (the GM's page and a player's, with results, refusals and a confirm step in
view) reaches WCAG AA's contrast against what it is drawn on (4.5:1, 3:1 for large text), and
the focus ring 3:1 against what is around it (WCAG 1.4.11).

In the dark scheme the filled buttons were white on a light blue (2.43:1), the refusals and
"failed" #b3261e on the dark card (2.41:1), "connected" and the successes #1f7a4d (2.96:1),
and the Force dice form's text the dark ink of the light dice (1.15:1); in the light scheme
the amber focus ring was 1.64:1 on the white cards, and a log mark's ring was cut off at its
right edge."""

from __future__ import annotations

from typing import Literal

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import PageOpener, Served, screenshot

COLOURS = """
  const rgba = (text) => {  // "rgb(1, 2, 3)", "rgba(1, 2, 3, 0.5)", "color(srgb .1 .2 .3 / .5)"
    const srgb = text.match(/color\\(srgb ([^)]+)\\)/);
    if (srgb) {
      const [r, g, b, a = 1] = srgb[1].split(/[ /]+/).filter(Boolean).map(Number);
      return [r * 255, g * 255, b * 255, a];
    }
    const [r, g, b, a = 1] = text.match(/[\\d.]+/g).map(Number);
    return [r, g, b, a];
  };
  const over = ([r, g, b, a], [R, G, B]) => [r * a + R * (1 - a), g * a + G * (1 - a),
                                             b * a + B * (1 - a), 1];
  const luminance = (colour) => {
    const [r, g, b] = colour.slice(0, 3).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (one, two) => {
    const [high, low] = [luminance(one), luminance(two)].sort((x, y) => y - x);
    return (high + 0.05) / (low + 0.05);
  };
  // what an element is drawn on: the backgrounds of it and its ancestors, blended down to the
  // first opaque one (the body's, at the latest)
  const backdrop = (element) => {
    const layers = [];
    for (let node = element; node; node = node.parentElement) {
      const colour = rgba(getComputedStyle(node).backgroundColor);
      if (colour[3] > 0) layers.push(colour);
      if (colour[3] >= 1) break;
    }
    let under = [255, 255, 255, 1];
    for (const layer of layers.reverse()) under = over(layer, under);
    return under;
  };
"""

TEXT_BELOW_AA = """() => {""" + COLOURS + """
  const low = [];
  for (const element of document.querySelectorAll("body *")) {
    const control = /^(BUTTON|INPUT|SELECT|TEXTAREA)$/.test(element.tagName);
    const words = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if ((!words && !(control && element.value)) || element.closest("svg, .ph-sr-only")) continue;
    if (!element.checkVisibility({visibilityProperty: true})) continue;
    if (element.closest(":disabled")) continue; // WCAG: no contrast asked of a disabled control
    const style = getComputedStyle(element);
    let opacity = 1;
    for (let node = element; node; node = node.parentElement) {
      opacity *= Number(getComputedStyle(node).opacity);
    }
    const under = backdrop(element);
    const [r, g, b, a] = rgba(style.color);
    const ink = over([r, g, b, a * opacity], under);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (Number(style.fontWeight) >= 700 && size >= 18.66);
    const found = ratio(ink, under);
    if (found < (large ? 3 : 4.5)) {
      low.push(`${element.tagName}.${element.className} "${(element.value || element.textContent)
        .trim().slice(0, 30)}" ${style.color} on ${under.map(Math.round)}: ${found.toFixed(2)}`);
    }
  }
  return low;
}"""
"""Each visible text of the page (its own words, or a control's value) whose contrast with what
it is drawn on is below WCAG AA, in words."""

CONTRAST_OF = """(element) => {""" + COLOURS + """
  const under = backdrop(element);
  return ratio(over(rgba(getComputedStyle(element).color), under), under);
}"""
"""The contrast of an element's text with what it is drawn on."""

RING_CONTRAST = """(element) => {""" + COLOURS + """
  // the ring is drawn outside the control (its offset): against what the control stands on
  const ring = rgba(getComputedStyle(element).outlineColor);
  return ratio(ring, backdrop(element.parentElement));
}"""

RING_CUT = """(mark) => {
  // the ring's box (outline-offset, then its width) must lie inside what clips it: the line
  // (laid out on its own: `contain: content` clips its paint) and the list's scrollport
  const style = getComputedStyle(mark);
  const out = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
  const ring = mark.getBoundingClientRect();
  const cut = [];
  const list = mark.closest(".ph-log-lines");
  const port = list.getBoundingClientRect();
  for (const [name, box] of [["line", mark.closest("li").getBoundingClientRect()],
      ["list", {left: port.left + list.clientLeft, top: port.top + list.clientTop,
                right: port.left + list.clientLeft + list.clientWidth,
                bottom: port.top + list.clientTop + list.clientHeight}]]) {
    if (ring.left - out < box.left - 0.5) cut.push(`${name} left`);
    if (ring.right + out > box.right + 0.5) cut.push(`${name} right`);
    if (ring.top - out < box.top - 0.5) cut.push(`${name} top`);
    if (ring.bottom + out > box.bottom + 0.5) cut.push(`${name} bottom`);
  }
  return cut;
}"""

Scheme = Literal["light", "dark"]
"""The colour scheme a page is shown in (``prefers-color-scheme``, as the system sets it)."""

HAN = {"system": "narrative", "agility": 5, "willpower": 3,
       "skills": {"Ranged (Light)": {"rank": 3, "characteristic": "agility"}}}
TROOPER = {"system": "narrative", "brawn": 0, "agility": 0, "intellect": 0, "cunning": 0,
           "willpower": 0, "presence": 0}


def a_narrative_night(served: Served) -> tuple[str, str]:
    """Han (Ana's) and a Trooper, two checks rolled (Han's with eight boost dice and no
    difficulty: succeeded unless all 13 dice show nothing; the Trooper's, no ability dice
    against Formidable: failed) and a free roll in a game session that ended, and the next one
    running with Han's next check open, Hard: the GM's link and Ana's."""
    campaign, gm_link = served.create_campaign("Outer Rim", "narrative")
    served.send(gm_link,
                {"type": "create_character", "character": "han", "name": "Han", "stats": HAN},
                {"type": "create_character", "character": "trooper", "name": "Trooper",
                 "stats": TROOPER},
                {"type": "start_session"},
                {"type": "open_check", "check": "han-1", "character": "han",
                 "skill": "Ranged (Light)"},
                {"type": "set_difficulty", "check": "han-1", "level": "simple"},
                {"type": "add_dice", "check": "han-1", "kind": "boost", "count": 8},
                {"type": "roll_check", "check": "han-1"},
                {"type": "open_check", "check": "trooper-1", "character": "trooper",
                 "skill": "Athletics", "characteristic": "brawn"},
                {"type": "set_difficulty", "check": "trooper-1", "level": "formidable"},
                {"type": "roll_check", "check": "trooper-1"})
    ana_link = served.invite(campaign, gm_link, "player", "Ana", "han")
    served.send(ana_link, {"type": "roll", "expression": "2d6", "reason": "a hunch"})
    # its seed revealed: the rolls' marks say "verified", in their colour
    served.send(gm_link, {"type": "end_session"}, {"type": "start_session"},
                {"type": "open_check", "check": "han-2", "character": "han",
                 "skill": "Ranged (Light)"},
                {"type": "set_difficulty", "check": "han-2", "level": "hard"})
    return gm_link, ana_link


def _in_view(page: Page) -> None:
    """Refusals, results and a confirm step on the page, so that their colours are measured."""
    expect(page.locator("ph-narrative-results .ph-nd-succeeded .ph-nd-words")).to_be_visible()
    expect(page.locator("ph-narrative-results .ph-nd-failed .ph-nd-words")).to_be_visible()
    expect(page.locator(".ph-connection")).to_have_text("connected")
    expect(page.locator("ph-narrative-check .ph-nc-difficulty")).to_have_text("Hard")
    page.locator("ph-narrative-free .ph-nd-free-pool").get_by_role(
        "button", name="Roll pool").click()  # no dice chosen: refused in the page
    expect(page.locator("ph-narrative-free .ph-nd-free-pool output.ph-error")).to_have_text(
        "choose at least one die")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_of_a_narrative_table_reaches_aa_contrast_in_both_schemes(
        served: Served, open_page: PageOpener, scheme: Scheme) -> None:
    """The GM's page (with **End game session**'s question asked: its danger button) and
    Ana's (a reason typed in the Force dice form), then Ana's on a phone with its view bar:
    nothing below AA, and the parts the dark scheme got wrong measured by name."""
    gm_link, ana_link = a_narrative_night(served)
    gm = open_page(gm_link)
    gm.emulate_media(color_scheme=scheme)
    _in_view(gm)
    sessions = gm.locator("ph-sessions")
    sessions.get_by_role("button", name="End game session").click()
    danger = sessions.locator("button.ph-danger")
    expect(danger).to_be_visible()
    ana = open_page(ana_link)
    ana.emulate_media(color_scheme=scheme)
    _in_view(ana)
    force = ana.get_by_role("form", name="Roll Force dice")
    force.get_by_label("reason").fill("sense the Force")
    for page, who in ((gm, "gm"), (ana, "player")):
        screenshot(page, f"contrast-{scheme}-{who}")
        low = page.evaluate(TEXT_BELOW_AA)
        assert not low, "\n".join([who, scheme, *low])
    at_least: list[tuple[Locator, float]] = [
        (force.get_by_label("reason"), 4.5), (force.get_by_label("how many"), 4.5),
        (force.get_by_label("Force dice for"), 4.5),
        (ana.get_by_role("button", name="Roll pool"), 4.5),
        (ana.locator("ph-narrative-free .ph-nd-free-pool output.ph-error"), 4.5),
        (ana.locator(".ph-connection"), 4.5),
        (ana.locator("ph-narrative-results .ph-nd-succeeded .ph-nd-words"), 4.5),
        (ana.locator("ph-narrative-results .ph-nd-failed .ph-nd-words"), 4.5),
        (ana.locator("ph-narrative-check .ph-nc-difficulty"), 4.5), (danger, 4.5)]
    for element, wanted in at_least:
        assert element.evaluate(CONTRAST_OF) >= wanted, (scheme, element)
    ana.set_viewport_size({"width": 360, "height": 740})
    tabs = ana.get_by_role("navigation", name="Views")
    tabs.get_by_role("button", name="Log").click()
    expect(tabs.get_by_role("button", name="Log")).to_have_attribute("aria-pressed", "true")
    assert ana.evaluate(TEXT_BELOW_AA) == [], scheme


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_focus_ring_stands_out_in_both_schemes_and_a_log_mark_s_is_whole(
        served: Served, open_page: PageOpener, scheme: Scheme) -> None:
    """Ana Tabs to a button and a field on the white card, and to a roll's mark in the log:
    the ring is at least 3:1 against the card and the page (1.64:1 and 1.49:1 in the light
    scheme), and the mark's ring lies whole inside its line and the log."""
    _, ana_link = a_narrative_night(served)
    ana = open_page(ana_link)
    ana.emulate_media(color_scheme=scheme)
    button = ana.get_by_role("button", name="Roll pool")
    field = ana.get_by_role("form", name="Roll Force dice").get_by_label("reason")
    for control in (button, field):
        control.focus()
        ana.keyboard.press("Shift+Tab")
        ana.keyboard.press("Tab")  # reached with the keyboard: :focus-visible
        expect(control).to_be_focused()
        assert control.evaluate("(c) => c.matches(':focus-visible')")
        assert control.evaluate(RING_CONTRAST) >= 3, (scheme, control)
        # and against the page's own background, where the view bar's buttons stand
        assert ana.evaluate("([ring, ground]) => {" + COLOURS + " return ratio(rgba(ring),"
                            " rgba(ground)); }", [
            control.evaluate("(c) => getComputedStyle(c).outlineColor"),
            ana.evaluate("getComputedStyle(document.body).backgroundColor")]) >= 3, scheme
    mark = ana.locator("ph-log .ph-fair").last
    expect(mark).to_have_attribute("data-state", "verified")
    ana.locator("ph-log .ph-log-lines").focus()
    ana.keyboard.press("Tab")  # from the list, one Tab stop to the newest roll's mark
    expect(mark).to_be_focused()
    assert mark.evaluate(RING_CUT) == [], scheme
    assert mark.evaluate(RING_CONTRAST) >= 3, scheme
