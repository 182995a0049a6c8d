"""A session's replay link shows what runs across game sessions as its own log tells it: a
narrative encounter begun the session before read "No encounter is running" on the link's
page beside its log's "round 2 begins" and "Han acts in slot 1 of round 2"."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.web.conftest import Served


def test_a_session_link_shows_the_encounter_begun_the_session_before(
        served: Served, open_page: Callable[..., Page]) -> None:
    """Session 1: the encounter starts, Han's Cool check is his initiative, round 1 begins.
    Session 2: round 2 begins and Han acts in slot 1. Session 2's link, at its last event,
    shows Encounter 1 in round 2 with Han acting, as its log says; not Han's Cool check."""
    campaign, gm_link = served.create_campaign("Docks", "narrative")
    served.send(gm_link, {"type": "create_character", "character": "han", "name": "Han",
                          "stats": {"system": "narrative", "presence": 3,
                                    "skills": {"Cool": {"rank": 1,
                                                        "characteristic": "presence"}}}},
                {"type": "set_destiny_pool", "light": 2, "dark": 1},
                {"type": "start_session", "title": "The ambush"},
                {"type": "start_encounter", "reason": "ambush at the docks"},
                {"type": "open_check", "character": "han", "skill": "Cool",
                 "characteristic": "presence", "check": "han-init"},
                {"type": "set_difficulty", "check": "han-init", "level": "average"},
                {"type": "roll_check", "check": "han-init"},
                {"type": "enter_initiative", "check": "han-init"},
                {"type": "advance_round"}, {"type": "end_session"},
                {"type": "start_session", "title": "The fight goes on"},
                {"type": "advance_round"},
                {"type": "claim_slot", "slot": 1, "character": "han"},
                {"type": "end_session"})
    share, = served.send(gm_link, {"type": "share_replay", "session": 2})
    assert share.token is not None
    page = open_page(f"{served.origin}/replay#campaign={campaign}&token={share.token}")
    log = page.locator("ph-log")
    expect(log).to_contain_text("round 2 begins")
    expect(log).to_contain_text("Han acts in slot 1 of round 2")
    encounter = page.locator("ph-narrative-encounter")
    expect(encounter.locator("h2")).to_have_text("Encounter 1")
    expect(encounter.locator(".ph-ne-status")).to_have_text("Round 2")
    expect(encounter.locator("li.ph-ne-slot")).to_have_text(re.compile(r"Han.s Cool: .* Han acts$"))
    expect(page.locator("ph-narrative-check")).to_have_count(0)  # the check is the past's
