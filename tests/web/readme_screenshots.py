"""The two screenshots of the browser table in the README and the docs, taken from a real session.

::

    python tests/web/readme_screenshots.py   # docs/table-desktop.png, docs/table-phone.png
    python tests/web/readme_screenshots.py --port 18260   # on a given port, not a free one

A real ``poolhall serve`` with a fresh SQLite file, a narrative campaign mid-game (three
characters, a game session, the destiny pool, an encounter in round 1 with each initiative
rolled, an open check with dice added by both sides, free rolls, players invited), the GM's
page at 1280 px and a player's at 360 px in Debian's Chromium. Run it again after the page
changes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from tests.serve_process import free_port, start_serve  # noqa: E402
from tests.web.chromium import CHROMIUM_ARGS  # noqa: E402
from tests.web.conftest import CHROMIUM, ONE_ADDRESS_FOR_EVERYONE, Served  # noqa: E402

DOCS = ROOT / "docs"


def play(served: Served) -> tuple[str, str]:
    """A table in play: the GM's link and Ana's."""
    campaign, gm = served.create_campaign("Edge of the Empire", "narrative")
    skills = {"Ranged (Light)": {"characteristic": "agility", "rank": 2},
              "Charm": {"characteristic": "presence", "rank": 1},
              "Cool": {"characteristic": "presence", "rank": 1}}
    served.send(gm, *({
        "type": "create_character", "character": character, "name": name,
        "stats": {"system": "narrative", "agility": agility, "presence": 3, "skills": skills}}
        for character, name, agility in (("han", "Han Solo", 3), ("leia", "Leia Organa", 2),
                                         ("trooper", "Stormtrooper", 2))),
        {"type": "start_session", "title": "Escape from Mos Eisley"},
        {"type": "set_destiny_pool", "light": 2, "dark": 1, "reason": "a fair start"})
    ana = served.invite(campaign, gm, "player", "Ana", "han")
    bo = served.invite(campaign, gm, "player", "Bo", "leia")
    served.invite(campaign, gm, "spectator", "Sam")
    served.send(ana, {"type": "roll", "expression": "2d6", "character": "han",
                      "reason": "bluff the stormtroopers"})
    # An encounter: everyone rolls Cool for initiative, and round 1 begins.
    served.send(gm, {"type": "start_encounter", "reason": "ambush in docking bay 94"})
    for link, character in ((ana, "han"), (bo, "leia"), (gm, "trooper")):
        check = f"{character}-init"
        served.send(link, {"type": "open_check", "character": character, "skill": "Cool",
                           "check": check, "reason": "initiative"})
        served.send(gm, {"type": "set_difficulty", "check": check, "level": "simple"})
        served.send(link, {"type": "roll_check", "check": check},
                    {"type": "enter_initiative", "check": check})
    served.send(gm, {"type": "advance_round"})
    for slot in (1, 2, 3):  # Han takes the first player slot, whichever the dice made it
        try:
            served.send(ana, {"type": "claim_slot", "slot": slot, "character": "han"})
            break
        except Exception:  # an NPC's slot: refused
            continue
    # An open check, its difficulty set and a die added by each side.
    served.send(ana, {"type": "open_check", "character": "han", "skill": "Ranged (Light)",
                      "check": "blast-door", "target": "trooper",
                      "reason": "shoot the door controls"})
    served.send(gm, {"type": "set_difficulty", "check": "blast-door", "level": "average"},
                {"type": "add_dice", "check": "blast-door", "kind": "setback", "count": 1,
                 "reason": "smoke"})
    served.send(ana, {"type": "add_dice", "check": "blast-door", "kind": "boost", "count": 1,
                      "reason": "aiming"})
    served.send(bo, {"type": "roll", "expression": "1d10", "character": "leia",
                     "reason": "hotwire the console"})
    return gm, ana


def shoot(page: Page, path: Path) -> None:
    # attached, not visible: on a phone the log is in a tab of its own
    page.locator("[data-type=dice_rolled]").last.wait_for(state="attached")
    page.wait_for_timeout(1500)  # the dice of the latest roll settle
    page.screenshot(path=str(path), full_page=False)
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--port", type=int, default=0,
                        help="the server's port (default: a free one)")
    port = parser.parse_args().port or free_port()
    DOCS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as driver:
        directory = Path(folder)
        process = start_serve(directory / "table.db", port, *ONE_ADDRESS_FOR_EVERYONE,
                              log=directory / "serve.log")
        browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=CHROMIUM_ARGS)
        try:
            gm, ana = play(Served(directory, port, process))
            for link, width, height, name in ((gm, 1280, 860, "table-desktop.png"),
                                              (ana, 360, 760, "table-phone.png")):
                context = browser.new_context(viewport={"width": width, "height": height},
                                              color_scheme="light")
                page = context.new_page()
                page.goto(link)
                page.wait_for_selector(".ph-connection[data-state=live]")
                shoot(page, DOCS / name)
                context.close()
        finally:
            browser.close()
            process.terminate()
            process.wait(15)


if __name__ == "__main__":
    main()
