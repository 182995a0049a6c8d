"""The replay page after a GM's morning-after review: a Shadowrun replay's sheets at every step."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served
from tests.web.test_sr3_browser_table import SAM


def _at(page: Page, seq: int) -> None:
    """Wait until the replay shows the table after event ``seq``."""
    page.wait_for_function("seq => document.querySelector('ph-replay').shown === seq", arg=seq)


def test_a_shadowrun_replay_shows_the_sheets_at_every_step(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Stepping one event at a time (the scrubber's arrow key), the sheets show Sam at each
    step: a step drew the table with no views first, "No characters yet.", and the same
    sheets coming back with its views were taken as drawn (30 of 36 steps stayed empty)."""
    campaign, gm_link = served.create_campaign("Redmond", "sr3")
    created, *acks = served.send(
        gm_link, {"type": "create_character", "character": "sam", "name": "Sam", "stats": SAM},
        *({"type": "roll", "expression": "1d6"} for _ in range(5)))
    start, last = created.seqs[-1], acks[-1].seqs[-1]
    page = open_page(gm_link)
    page.goto(f"{served.origin}/replay#campaign={campaign}&seq={start}")
    sheets = page.locator("ph-sr3-sheets")
    expect(sheets).to_contain_text("Sam")
    page.locator("input.ph-scrubber").focus()
    for seq in range(start + 1, last + 1):
        page.keyboard.press("ArrowRight")
        _at(page, seq)
        expect(sheets.locator("[data-character=sam]")).to_have_count(1)
        expect(sheets).not_to_contain_text("No characters yet")
