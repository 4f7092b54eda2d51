"""Takes docs/img/console-hardlife.png: where the rounds went in a Hard Life result in the
console, 004's Whisper firing five rounds of full auto at a goon in an armoured jacket: the body
map with each round's path and landing hex, and the rounds' table.

Run it with `python -m tests.console_screenshot_sr3hl [path]` (it starts its own service and uses
Debian's Chromium, as the browser tests do)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests import console_browser as console

OUTPUT = console.ROOT / "docs" / "img" / "console-hardlife.png"
# tests/test_console_sr3hl.py works these through: rounds 1-3 on the torso, the 4th scattered
# onto the left arm, the 5th dodged.
WHISPER_DICE = {"attack": "4 4 4 4 5 5 6", "dodge:goon-1": "5", "scatter:goon-1": "2"}


def take(path: Path = OUTPUT) -> Path:
    from playwright.sync_api import sync_playwright

    missing = console.chromium_missing()
    if missing:
        raise SystemExit(missing)
    with console.serve() as url, sync_playwright() as playwright:
        browser = console.launch(playwright)
        # The dark theme, as the docs have always shown it (a browser left alone prefers light).
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, color_scheme="dark")
        page.set_default_timeout(15_000)
        console.open_console(page, url)
        console.create_encounter(page, ruleset="sr3-hardlife", name="Whisper")
        page.get_by_label("Attacker id").fill("whisper")
        page.get_by_label("Attacker id").press("Tab")
        page.get_by_label("Weapon skill").fill("7")
        page.get_by_label("Weapon id").fill("ingram")
        page.get_by_label("Category").select_option("smg")
        page.get_by_label("Power", exact=True).fill("7")
        page.locator("#weapon-modes-SA").uncheck()
        page.locator("#weapon-modes-FA").check()
        page.get_by_label("Recoil compensation").fill("2")
        page.get_by_label("Rounds loaded").fill("30")
        page.get_by_label("Firing mode").select_option("FA")
        page.get_by_label("Rounds fired (BF, FA)").fill("5")
        console.place(page, "goon-1 x (m)", 6)
        target = page.locator('fieldset.target[data-target="goon-1"]')
        target.get_by_label("Combat Pool dice to dodge", exact=True).fill("1")
        target.get_by_label("Combat Pool dice to dodge", exact=True).press("Tab")
        console.give_dice(page, "#dice-steps", WHISPER_DICE)
        console.resolve(page)
        page.locator('#monitors-list li[data-actor="goon-1"]').wait_for()
        path.parent.mkdir(parents=True, exist_ok=True)
        # Where the rounds went: the body map with each path, and the same as a table.
        page.locator('#result [data-target="goon-1"] section.rounds').screenshot(path=str(path))
        browser.close()
    return path


if __name__ == "__main__":
    print(take(Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT))
