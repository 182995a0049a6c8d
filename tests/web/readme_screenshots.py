"""The two screenshots of the browser table in the README and the docs, taken from a real session.

::

    python tests/web/readme_screenshots.py   # docs/table-desktop.png, docs/table-phone.png

A real ``poolhall serve`` with a fresh SQLite file, a narrative campaign played a little (two
characters, a game session, an open check, free rolls, a player invited), the GM's page at
1280 px and a player's at 360 px in Debian's Chromium. Run it again after the page changes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from tests.serve_process import free_port, start_serve  # noqa: E402
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, ONE_ADDRESS_FOR_EVERYONE, Served  # noqa: E402

DOCS = ROOT / "docs"


def play(served: Served) -> tuple[str, str]:
    """A table in play: the GM's link and Ana's."""
    campaign, gm = served.create_campaign("Edge of the Empire", "narrative")
    served.send(gm, *({
        "type": "create_character", "character": character, "name": name,
        "stats": {"system": "narrative", "agility": agility, "presence": 3,
                  "skills": {"Ranged (Light)": {"characteristic": "agility", "rank": 2},
                             "Charm": {"characteristic": "presence", "rank": 1}}}}
        for character, name, agility in (("han", "Han Solo", 3), ("leia", "Leia Organa", 2))),
        {"type": "start_session", "title": "Escape from Mos Eisley"})
    ana = served.invite(campaign, gm, "player", "Ana", "han")
    served.invite(campaign, gm, "player", "Bo", "leia")
    served.invite(campaign, gm, "spectator", "Sam")
    served.send(ana, {"type": "roll", "expression": "2d6", "character": "han",
                      "reason": "bluff the stormtroopers"})
    served.send(gm, {"type": "open_check", "character": "han", "skill": "Ranged (Light)",
                     "check": "blast-door", "reason": "shoot the door controls"},
                {"type": "add_dice", "check": "blast-door", "kind": "difficulty", "count": 2})
    served.send(ana, {"type": "roll", "expression": "1d20+3", "reason": "initiative"})
    return gm, ana


def shoot(page: Page, path: Path) -> None:
    page.locator("[data-type=dice_rolled]").last.wait_for()
    page.screenshot(path=str(path), full_page=False)
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KB)")


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as driver:
        directory = Path(folder)
        port = free_port()
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
